package dev.heapload.capture;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

import com.fazecast.jSerialComm.SerialPort;
import com.fazecast.jSerialComm.SerialPortTimeoutException;

/**
 * A byte connection to a board's REPL: a serial port or pseudo-terminal (jSerialComm: {@code /dev/ttyACM0},
 * {@code /dev/pts/3}, {@code COM3}) or a TCP serial server ({@code socket://host:port}, e.g. ser2net, an
 * ESP-link, RFC 2217-less raw TCP). Reads wait at most {@code pollMillis} and return -2 when nothing came, so
 * callers keep their own deadlines.
 */
public final class BoardLink implements Closeable {

    /** {@link #read()}'s value when nothing arrived within the poll interval. */
    public static final int TIMEOUT = -2;

    private final String name;
    private final SerialPort serial;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] buffer = new byte[8192];
    private int bufferAt;
    private int bufferEnd;

    private BoardLink(String name, SerialPort serial, Socket socket, InputStream in, OutputStream out) {
        this.name = name;
        this.serial = serial;
        this.socket = socket;
        this.in = in;
        this.out = out;
    }

    /**
     * Opens {@code port}.
     *
     * @param port       a device path / COM name, or {@code socket://host:port}
     * @param baud       serial speed (ignored for USB CDC, ptys and sockets)
     * @param pollMillis read wait before {@link #read()} returns {@link #TIMEOUT}
     * @throws IOException one line: the port cannot be opened (missing, busy, no permission)
     */
    public static BoardLink open(String port, int baud, int pollMillis) throws IOException {
        if (port.startsWith("socket://")) {
            String hostPort = port.substring("socket://".length());
            int colon = hostPort.lastIndexOf(':');
            if (colon <= 0) {
                throw new IOException(port + ": expected socket://HOST:PORT");
            }
            int number;
            try {
                number = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IOException(port + ": the port number is not a number");
            }
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(hostPort.substring(0, colon), number), 10_000);
                s.setSoTimeout(pollMillis);
                s.setTcpNoDelay(true);
            } catch (IOException e) {
                s.close();
                throw new IOException(port + ": cannot connect (" + e.getMessage() + ")");
            }
            return new BoardLink(port, null, s, s.getInputStream(), s.getOutputStream());
        }
        SerialPort sp;
        try {
            sp = SerialPort.getCommPort(port);
        } catch (RuntimeException e) { // SerialPortInvalidPortException: no such device
            throw new IOException(port + ": no such serial port or pseudo-terminal");
        }
        sp.setComPortParameters(baud, 8, SerialPort.ONE_STOP_BIT, SerialPort.NO_PARITY);
        sp.setFlowControl(SerialPort.FLOW_CONTROL_DISABLED);
        sp.setComPortTimeouts(SerialPort.TIMEOUT_READ_SEMI_BLOCKING | SerialPort.TIMEOUT_WRITE_BLOCKING, pollMillis, 0);
        if (!sp.openPort()) {
            throw new IOException(port + ": cannot open the port (missing, in use by another program, or no "
                + "permission: on Linux add yourself to the dialout group)");
        }
        return new BoardLink(port, sp, null, sp.getInputStream(), sp.getOutputStream());
    }

    /** The port as given. */
    public String name() {
        return name;
    }

    /** One byte (0..255), -1 at the end of the connection, or {@link #TIMEOUT}. */
    public int read() throws IOException {
        if (bufferAt < bufferEnd) {
            return buffer[bufferAt++] & 0xff;
        }
        int n = read(buffer);
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            return TIMEOUT;
        }
        bufferAt = 1;
        bufferEnd = n;
        return buffer[0] & 0xff;
    }

    /** Up to {@code buf.length} bytes (buffered ones first); 0 when nothing arrived within the poll interval, -1 at the end. */
    public int read(byte[] buf) throws IOException {
        if (bufferAt < bufferEnd) {
            int n = Math.min(buf.length, bufferEnd - bufferAt);
            System.arraycopy(buffer, bufferAt, buf, 0, n);
            bufferAt += n;
            return n;
        }
        try {
            int n = in.read(buf, 0, buf.length);
            return n;
        } catch (SerialPortTimeoutException | SocketTimeoutException e) {
            return 0;
        } catch (InterruptedIOException e) {
            return 0;
        }
    }

    /** Writes and flushes. */
    public void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        if (serial != null) {
            serial.closePort();
        }
        if (socket != null) {
            socket.close();
        }
    }
}
