package dev.heapload.capture;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * MicroPython's raw REPL over a {@link BoardLink}, the protocol mpremote and pyboard.py use (MicroPython
 * shared/runtime/pyexec.c): Ctrl-C stops a running program, Ctrl-A enters raw mode (the board answers
 * {@code raw REPL; CTRL-B to exit} and {@code >}), the code is sent followed by Ctrl-D, the board answers
 * {@code OK}, then the program's stdout, {@code \x04}, its stderr (the traceback, if any), {@code \x04} and the
 * prompt {@code >}. Code is written in 256-byte pieces with a pause (boards' UART buffers are small). Ctrl-B
 * returns to the friendly REPL.
 */
public final class RawRepl {

    private final BoardLink link;
    private final long timeoutMillis;

    /**
     * @param link          the connection
     * @param timeoutMillis longest wait for the board between two bytes (a long dump keeps sending lines)
     */
    public RawRepl(BoardLink link, long timeoutMillis) {
        this.link = link;
        this.timeoutMillis = timeoutMillis;
    }

    /** Interrupts whatever runs and enters the raw REPL. */
    public void enter() throws IOException {
        link.write(new byte[] {'\r', 3, 3});
        drain(300);
        link.write(new byte[] {'\r', 1});
        readUntil("raw REPL; CTRL-B to exit", "entering the raw REPL (is this a MicroPython REPL? is a program "
            + "holding the port?)");
        readUntil(">", "the raw REPL prompt");
    }

    /** Leaves the raw REPL (Ctrl-B). */
    public void exit() throws IOException {
        link.write(new byte[] {'\r', 2});
        drain(200);
    }

    /**
     * Sends {@code code} and waits for {@code OK}; the program's stdout is then read from {@link #stdout()}.
     */
    public void start(String code) throws IOException {
        byte[] bytes = code.getBytes(StandardCharsets.UTF_8);
        for (int at = 0; at < bytes.length; at += 256) {
            int n = Math.min(256, bytes.length - at);
            byte[] piece = new byte[n];
            System.arraycopy(bytes, at, piece, 0, n);
            link.write(piece);
            pause(10);
        }
        link.write(new byte[] {4});
        readUntil("OK", "the board accepting the code");
    }

    /** The program's stdout as a stream that ends at the {@code \x04} after it. */
    public InputStream stdout() {
        return new InputStream() {
            boolean ended;

            @Override
            public int read() throws IOException {
                if (ended) {
                    return -1;
                }
                int c = next("the program's output");
                if (c == 4) {
                    ended = true;
                    return -1;
                }
                return c;
            }
        };
    }

    /**
     * Reads what is left of stdout, then stderr and the prompt.
     *
     * @param stdout the stream from {@link #stdout()} (its remainder is read and returned first)
     * @return {remaining stdout, stderr}
     */
    public String[] finish(InputStream stdout) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int c;
        while ((c = stdout.read()) >= 0) {
            out.write(c);
        }
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        while ((c = next("the program's error output")) != 4) {
            err.write(c);
        }
        readUntil(">", "the raw REPL prompt after the program");
        return new String[] {out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    /** Runs {@code code} to its end; returns {stdout, stderr}. */
    public String[] exec(String code) throws IOException {
        start(code);
        return finish(stdout());
    }

    private int next(String what) throws IOException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            int c = link.read();
            if (c >= 0) {
                return c;
            }
            if (c == -1) {
                throw new IOException(link.name() + ": the connection closed while waiting for " + what);
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IOException(link.name() + ": no answer within " + timeoutMillis / 1000 + " s while waiting for " + what);
            }
        }
    }

    private void readUntil(String marker, String what) throws IOException {
        byte[] m = marker.getBytes(StandardCharsets.US_ASCII);
        int matched = 0;
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        long deadline = System.currentTimeMillis() + Math.min(timeoutMillis, 30_000);
        while (matched < m.length) {
            int c = link.read();
            if (c == -1) {
                throw new IOException(link.name() + ": the connection closed while waiting for " + what);
            }
            if (c == BoardLink.TIMEOUT) {
                if (System.currentTimeMillis() > deadline) {
                    String got = seen.toString(StandardCharsets.ISO_8859_1);
                    throw new IOException(link.name() + ": no answer while waiting for " + what + "; received: "
                        + dev.heapload.queries.SafeText.visible(got.length() > 200 ? got.substring(got.length() - 200) : got));
                }
                continue;
            }
            if (seen.size() < 1 << 16) {
                seen.write(c);
            }
            matched = c == m[matched] ? matched + 1 : c == m[0] ? 1 : 0;
        }
    }

    private void drain(long millis) throws IOException {
        long end = System.currentTimeMillis() + millis;
        byte[] buf = new byte[4096];
        while (System.currentTimeMillis() < end) {
            if (link.read(buf) < 0) {
                return;
            }
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
