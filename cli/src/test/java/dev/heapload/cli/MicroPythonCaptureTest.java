package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dumpers/micropython/heapdump.py inside the real unix-port interpreter (it reads its own memory) and
 * {@code heapload micropython capture}: the stream decodes to the same heap as a gdb dump of the same moment, and
 * the capture protocol works end to end against the interpreter's own raw REPL on a pseudo-terminal (the unix
 * port speaks the raw REPL; a python3 relay gives it a pty that jSerialComm opens like a USB serial port), and
 * through {@code socket://} against a TCP serial server the test makes in front of that pty.
 * Skipped with one line when ../shared, gdb or python3 is absent.
 */
@Tag("process")
class MicroPythonCaptureTest {

    @TempDir
    Path tmp;

    static final String CACHE = String.join("\n",
        "_cache = {}",
        "def lookup(key):",
        "    entry = _cache.get(key)",
        "    if entry is None:",
        "        entry = ('result-%d' % key, bytearray(8))",
        "        _cache[key] = entry",
        "    return entry",
        "for k in range(100):",
        "    lookup(k)",
        "");

    static Path symbols() {
        return Path.of(System.getProperty("heapload.shared"), "tools", "micropython-unix", "symbols.nm.txt");
    }

    static long number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), regex + " in " + text);
        return Long.parseLong(m.group(1).replace(",", ""));
    }

    @Test
    void selfDumpOfTheInterpreterEqualsTheGdbDumpOfTheSameMoment() throws Exception {
        Path exe = MicroPythonGdbDumpTest.micropython();
        MicroPythonGdbDumpTest.requireGdb();
        Path dumpers = MicroPythonGdbDumpTest.repoRoot().resolve("dumpers/micropython");
        Path stream = tmp.resolve("stream.txt");
        var capture = new MicroPythonCaptureCommand();
        capture.maxStatic = 1 << 20;
        capture.symbols = symbols();
        String call = capture.dumpCall(dev.heapload.micropython.FirmwareSymbols.read(symbols()));
        assertEquals("dump(0x48b540, 1944, [(0x48b518, 2904)], None, None, True, True, False)", call);
        Path script = tmp.resolve("self.py");
        Files.writeString(script, "import sys, gc\nsys.path.append('" + dumpers + "')\nimport heapdump, micropython\n" + CACHE
            + "f = open('" + stream + "', 'wb')\n"
            + "R = [(0x48b518, 2904)]\n"
            + "micropython.mem_info(1)\n"   // stop 1: just before the call
            + "ok = heapdump.dump(0x48b540, 1944, R, f, micropython.mem_info, used_at_call=gc.mem_alloc())\n" // stop 2: hook
            + "f.close()\nprint('consistent', ok)\n");
        Path before = tmp.resolve("gdb-before");
        Path moment = tmp.resolve("gdb-moment");
        Path commands = tmp.resolve("dump.gdb");
        Files.writeString(commands, String.join("\n", "set pagination off", "set confirm off",
            "source " + dumpers.resolve("heapload_gdb.py"), "break mp_micropython_mem_info", "run",
            "heapload-dump " + before, "continue", "heapload-dump " + moment, "continue", ""));
        String session = MicroPythonGdbDumpTest.run(List.of("gdb", "-q", "-batch", "-x", commands.toString(), "--args",
            exe.toString(), script.toString()), tmp.resolve("gdb.log"));
        assertTrue(session.contains("consistent True"), session);

        Path self = tmp.resolve("self");
        var r = HeapLoadCommandTest.run("micropython", "capture", "--stream", stream.toString(), "--symbols",
            symbols().toString(), self.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("captured 3 region(s)"), r.out());
        // the region list is a table: header, rule, one row per region file
        assertTrue(r.out().matches("(?s).*\n   file +\\| address +\\| +bytes \\| contents\n  -+\\+-+\\+-+\\+-+\n"
            + "   region0\\.bin +\\| 0x[0-9a-f]+ +\\| +[0-9,]+ \\| \\S.*"), r.out());
        var selfRead = HeapLoadCommandTest.run("micropython", self.toString(), "--no-load");
        var gdbRead = HeapLoadCommandTest.run("micropython", moment.toString(), "--no-load");
        var beforeRead = HeapLoadCommandTest.run("micropython", before.toString(), "--no-load");
        assertEquals(0, selfRead.code(), selfRead.err());
        assertEquals(0, gdbRead.code(), gdbRead.err());
        assertEquals(0, beforeRead.code(), beforeRead.err());
        // the same heap at the same moment: figures and the allocation table byte for byte
        List<String> figures = MicroPythonGdbDumpTest.gcFigures(selfRead.out());
        assertEquals(1, figures.size(), selfRead.out());
        assertEquals(MicroPythonGdbDumpTest.gcFigures(gdbRead.out()), figures);
        int atb = (int) number(gdbRead.out(), "ATB 0x[0-9a-f]+ \\(([0-9,]+) bytes\\)");
        byte[] gdbHeap = Files.readAllBytes(moment.resolve("heap_area0.bin"));
        byte[] selfHeap = Files.readAllBytes(self.resolve("region0.bin"));
        assertEquals(gdbHeap.length, selfHeap.length);
        assertArrayEquals(Arrays.copyOf(gdbHeap, atb), Arrays.copyOf(selfHeap, atb), "allocation tables differ");
        // the dumper's own allocations are what the heap grew by between the call and the copy
        long usedBefore = number(beforeRead.out(), "GC: total: \\d+, used: (\\d+)");
        long usedMoment = number(gdbRead.out(), "GC: total: \\d+, used: (\\d+)");
        String info = Files.readString(self.resolve("info.txt"));
        assertEquals(usedMoment, number(info, "used_before_copy=(\\d+)"));
        assertEquals(usedMoment, number(info, "used_after_copy=(\\d+)"));
        assertEquals(usedBefore, number(info, "used_at_entry=(\\d+)"), info);
        assertTrue(r.out().contains("the dumper's own allocations: " + String.format("%,d", usedMoment - usedBefore)
            + " heap bytes"), r.out());
    }

    @Test
    void captureOverTheInterpretersRawReplOnAPseudoTerminalGivesTheLeak() throws Exception {
        Path exe = MicroPythonGdbDumpTest.micropython();
        Process relay = ptyRelay(exe);
        try {
            captureLeakPair(firstLine(relay));
        } finally {
            stop(relay);
        }
    }

    /**
     * The same capture through {@code --port socket://127.0.0.1:PORT}: a TCP serial server made by the test (one
     * connection at a time relayed to the interpreter's pseudo-terminal, as ser2net relays to a UART; what the board
     * sends while nobody is connected is dropped) must give the same figures as the pty capture.
     */
    @Test
    void captureThroughATcpSerialServerGivesTheSameLeak() throws Exception {
        Path exe = MicroPythonGdbDumpTest.micropython();
        Process relay = ptyRelay(exe);
        try (TcpSerialServer server = new TcpSerialServer(Path.of(firstLine(relay)))) {
            captureLeakPair("socket://127.0.0.1:" + server.port());
        } finally {
            stop(relay);
        }
    }

    private Process ptyRelay(Path exe) throws Exception {
        Assumptions.assumeTrue(MicroPythonGdbDumpTest.runs(List.of("python3", "-c", "import pty, tty")),
            "python3 not found: the pseudo-terminal relay of the capture test needs it; test skipped");
        Path relay = tmp.resolve("pty_relay.py");
        try (var in = getClass().getResourceAsStream("pty_relay.py")) {
            Files.write(relay, in.readAllBytes());
        }
        return new ProcessBuilder("python3", relay.toString(), exe.toString()).redirectErrorStream(true).start();
    }

    private static String firstLine(Process relay) throws Exception {
        String pty = new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(pty != null && pty.startsWith("/dev/"), "relay printed " + pty);
        return pty;
    }

    private static void stop(Process relay) throws Exception {
        relay.getOutputStream().close();
        relay.destroy();
        relay.waitFor(5, TimeUnit.MINUTES);
    }

    /** Two captures (before and after the cache grows), a scenario that raises, and the pair's leak answer. */
    private void captureLeakPair(String port) throws Exception {
        Path before = tmp.resolve("before");
        Path after = tmp.resolve("after");
        var r1 = HeapLoadCommandTest.run("micropython", "capture", "--port", port, "--symbols", symbols().toString(),
            "--exec", CACHE, before.toString());
        assertEquals(0, r1.code(), r1.err());
        assertTrue(r1.out().contains("viper encoder on the board"), r1.out());
        var r2 = HeapLoadCommandTest.run("micropython", "capture", "--port", port, "--symbols", symbols().toString(),
            "--exec", "for k in range(100, 1100):\n    lookup(k)\nprint('cache', len(_cache))", after.toString());
        assertEquals(0, r2.code(), r2.err());
        assertTrue(r2.out().startsWith("cache 1100\n"), r2.out());
        var bad = HeapLoadCommandTest.run("micropython", "capture", "--port", port, "--symbols", symbols().toString(),
            "--exec", "raise ValueError('scenario failed')", tmp.resolve("bad").toString());
        assertEquals(1, bad.code(), bad.out());
        assertTrue(bad.err().contains("raised on the board: ValueError: scenario failed"), bad.err());

        var load = HeapLoadCommandTest.run("--db", tmp.resolve("db").toString(), "--no-progress",
            before.resolve("regions.json").toString(), after.resolve("regions.json").toString());
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("leaks: after relative to before: "), load.out());
        assertTrue(load.out().contains("\n  group 1: 5,001 objects, 179,584 new bytes, 195,584 retained bytes, 1 "
            + "map_table head(s), path:\n      root mp_state_ctx.vm.dict_main.map.table (map_table)\n      _cache in "
            + "map_table\n"), load.out());
    }

    /**
     * A TCP serial server on the loopback interface: relays one client at a time to a pseudo-terminal (both ways);
     * bytes from the pseudo-terminal while no client is connected are dropped.
     */
    static final class TcpSerialServer implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        private final FileInputStream fromBoard;
        private final FileOutputStream toBoard;
        private volatile OutputStream client;

        TcpSerialServer(Path pty) throws IOException {
            fromBoard = new FileInputStream(pty.toFile());
            toBoard = new FileOutputStream(pty.toFile());
            daemon(this::boardToClient);
            daemon(this::accept);
        }

        int port() {
            return server.getLocalPort();
        }

        private static void daemon(Runnable r) {
            Thread t = new Thread(r, "tcp-serial-server");
            t.setDaemon(true);
            t.start();
        }

        private void boardToClient() {
            byte[] buf = new byte[65536];
            try {
                for (int n; (n = fromBoard.read(buf)) > 0; ) {
                    OutputStream c = client;
                    if (c != null) {
                        try {
                            c.write(buf, 0, n);
                            c.flush();
                        } catch (IOException e) {
                            client = null;
                        }
                    }
                }
            } catch (IOException e) {
                // the board is gone
            }
        }

        private void accept() {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    client = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[4096];
                    for (int n; (n = in.read(buf)) > 0; ) {
                        toBoard.write(buf, 0, n);
                        toBoard.flush();
                    }
                } catch (IOException e) {
                    // the client went away, or the server was closed
                } finally {
                    client = null;
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            toBoard.close();
        }
    }
}
