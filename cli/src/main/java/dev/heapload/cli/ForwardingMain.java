package dev.heapload.cli;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import dev.heapload.daemon.DaemonProtocol;

/**
 * Entry point of the {@code heapload} launchers: a thin client first. When the command line is a question for a store
 * whose query daemon already runs ({@code heapload query|cypher|trend … --db DIR}), it sends the arguments, its
 * working directory and {@code HEAPLOAD_DB} over the daemon's Unix socket ({@link DaemonProtocol#RUN}) and writes
 * what the daemon's run of the command prints, byte for byte, exiting with its code: the JVM loads no picocli, Neo4j
 * or query classes, which is most of a warm question's time. Anything else, no running daemon, or a daemon that
 * declines ({@link DaemonCommand#runForwarded}) runs {@link HeapLoad#main} in this JVM as before (which starts the
 * daemon when a query needs it).
 *
 * <p>Only the JDK is used before forwarding: this class must not touch picocli, Neo4j or heapload's query classes
 * ({@link DaemonProtocol}'s constants are compiled in), nor lambdas or string concatenation on its way (their
 * bootstrap costs tens of milliseconds). The launchers run it first in a small JVM (C1 only, serial GC, no class-data
 * archive of heapload's, system property {@code heapload.forwardOnly=N}): when nothing was forwarded that JVM exits
 * with N and the launcher starts the full one.
 */
public final class ForwardingMain {

    /** {@link #forward}'s answer when the command line was not run by a daemon. */
    static final int NOT_FORWARDED = Integer.MIN_VALUE;

    /** The subcommands a daemon may run; the daemon checks the rest. */
    private static final Set<String> COMMANDS = Set.of("query", "cypher", "trend");

    private ForwardingMain() {
    }

    /** Forwards the command line when it can (see the class comment), else runs {@link HeapLoad#main}. */
    public static void main(String[] args) {
        int code;
        try {
            code = forward(args, Path.of("").toAbsolutePath(), System.getenv(), System.out, System.err);
        } catch (RuntimeException e) {
            code = NOT_FORWARDED;
        }
        if (code == NOT_FORWARDED) {
            String only = System.getProperty("heapload.forwardOnly");
            if (only != null) {
                // the launchers' small JVM: they start the full one when told so
                System.exit(Integer.parseInt(only));
            }
            HeapLoad.main(args);
            return;
        }
        System.out.flush();
        System.err.flush();
        System.exit(code);
    }

    /**
     * Sends {@code args} to the running daemon of the store they name, copying its output to {@code out} and
     * {@code err}.
     *
     * @param args the command line
     * @param cwd  the working directory (absolute)
     * @param env  the environment ({@code HEAPLOAD_DB}, {@code HEAPLOAD_DAEMON}, {@code NEO4J_URI},
     *             {@code NEO4J_DATABASE} are read)
     * @return the command's exit code, or {@link #NOT_FORWARDED} when nothing was run (nothing was written then)
     */
    static int forward(String[] args, Path cwd, Map<String, String> env, OutputStream out, PrintStream err) {
        return forward(args, cwd, env, charset("sun.stdout.encoding"), charset("sun.stderr.encoding"), out, err);
    }

    /** {@link #forward(String[], Path, Map, OutputStream, PrintStream)} with the charsets of the two streams named. */
    static int forward(String[] args, Path cwd, Map<String, String> env, String outCharset, String errCharset,
                       OutputStream out, PrintStream err) {
        Path dir = storeOf(args, cwd, env);
        if (dir == null) {
            return NOT_FORWARDED;
        }
        Path socket = socketOf(dir);
        if (socket == null) {
            return NOT_FORWARDED;
        }
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException | RuntimeException e) {
            return NOT_FORWARDED; // it just stopped
        }
        boolean accepted = false;
        try (channel;
             DataOutputStream request = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel)));
             DataInputStream in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel), 1 << 16))) {
            request.writeInt(DaemonProtocol.VERSION);
            writeString(request, DaemonProtocol.RUN);
            writeString(request, outCharset);
            writeString(request, errCharset);
            writeString(request, cwd.toString());
            Map<String, String> passed = new LinkedHashMap<>();
            String db = env.get("HEAPLOAD_DB");
            if (db != null) {
                passed.put("HEAPLOAD_DB", db);
            }
            request.writeByte(6); // a map (DaemonProtocol's tags)
            request.writeInt(passed.size());
            for (Map.Entry<String, String> e : passed.entrySet()) {
                writeString(request, e.getKey());
                request.writeByte(1);
                writeString(request, e.getValue());
            }
            request.writeByte(5); // a list of strings
            request.writeInt(args.length);
            for (String a : args) {
                request.writeByte(1);
                writeString(request, a);
            }
            request.flush();
            byte[] buffer = new byte[1 << 16];
            while (true) {
                byte frame;
                try {
                    frame = in.readByte();
                } catch (EOFException e) {
                    if (!accepted) {
                        return NOT_FORWARDED; // stopping, or a daemon of an older heapload
                    }
                    out.flush();
                    err.println("heapload: the query daemon of store " + dir + " ended while running the command; see "
                        + dir.resolve("logs").resolve("daemon.log"));
                    return 1;
                }
                switch (frame) {
                    case DaemonProtocol.ACCEPTED -> accepted = true;
                    case DaemonProtocol.OUT, DaemonProtocol.ERR -> {
                        int n = in.readInt();
                        if (n < 0) {
                            throw new IOException("bad frame length " + n);
                        }
                        OutputStream to = frame == DaemonProtocol.OUT ? out : err;
                        while (n > 0) {
                            int r = in.read(buffer, 0, Math.min(n, buffer.length));
                            if (r < 0) {
                                throw new EOFException();
                            }
                            to.write(buffer, 0, r);
                            n -= r;
                        }
                        if (frame == DaemonProtocol.ERR) {
                            err.flush();
                        }
                    }
                    case DaemonProtocol.EXIT -> {
                        int code = in.readInt();
                        out.flush();
                        return code;
                    }
                    default -> {
                        if (!accepted) {
                            return NOT_FORWARDED; // declined, or another protocol version
                        }
                        throw new IOException("unexpected frame " + frame);
                    }
                }
            }
        } catch (IOException e) {
            if (!accepted) {
                return NOT_FORWARDED;
            }
            try {
                out.flush();
            } catch (IOException ignored) {
                // standard output is gone
            }
            err.println("heapload: the query daemon of store " + dir + " failed while running the command ("
                + e.getMessage() + "); see " + dir.resolve("logs").resolve("daemon.log"));
            return 1;
        }
    }

    /**
     * The store directory (absolute) a daemon might run this command line on, or null when the command line is not
     * one to forward: not {@code query}, {@code cypher} or {@code trend} first, help, the daemon turned off
     * ({@code --no-daemon}, {@code HEAPLOAD_DAEMON=off}), a server ({@code --uri}, {@code NEO4J_URI}), standard
     * input ({@code -}).
     */
    static Path storeOf(String[] args, Path cwd, Map<String, String> env) {
        if (args.length == 0 || !COMMANDS.contains(args[0])) {
            return null;
        }
        boolean daemonOption = false;
        String db = null;
        List<String> list = Arrays.asList(args);
        for (int i = 1; i < list.size(); i++) {
            String a = list.get(i);
            switch (a) {
                case "--no-daemon", "-h", "--help", "-V", "--version", "--uri", "-", "-e-", "--execute=-", "--database" -> {
                    return null;
                }
                case "--daemon" -> daemonOption = true;
                case "--db" -> {
                    if (i + 1 < list.size()) {
                        db = list.get(++i);
                    }
                }
                default -> {
                    if (a.startsWith("--uri=") || a.startsWith("--database=")) {
                        return null;
                    }
                    if (a.startsWith("--db=")) {
                        db = a.substring("--db=".length());
                    }
                }
            }
        }
        if (!daemonOption && off(env.get("HEAPLOAD_DAEMON"), System.getProperty("heapload.daemon"))) {
            return null;
        }
        if (notBlank(env.get("NEO4J_URI")) || notBlank(env.get("NEO4J_DATABASE"))) {
            return null;
        }
        if (db == null) {
            db = notBlank(env.get("HEAPLOAD_DB")) ? env.get("HEAPLOAD_DB") : "heapload-db";
        }
        try {
            return cwd.resolve(db).toAbsolutePath().normalize();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean off(String env, String property) {
        String setting = notBlank(env) ? env : property;
        return setting != null && !setting.isBlank()
            && Set.of("off", "0", "no", "false").contains(setting.strip().toLowerCase(Locale.ROOT));
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }

    /** The socket of the live daemon of store {@code dir} (its {@code daemon.properties}), or null. */
    private static Path socketOf(Path dir) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve("daemon.properties"))) {
            p.load(in);
            long pid = Long.parseLong(p.getProperty("pid", "-1"));
            Path socket = Path.of(p.getProperty("socket", ""));
            java.util.Optional<ProcessHandle> process = ProcessHandle.of(pid);
            if (process.isPresent() && process.get().isAlive() && Files.exists(socket)) {
                return socket;
            }
        } catch (IOException | RuntimeException e) {
            // none
        }
        return null;
    }

    /** The charset the JVM gives System.out or System.err ({@code property}, else the default). */
    private static String charset(String property) {
        String named = System.getProperty(property);
        if (named != null) {
            try {
                return Charset.forName(named).name();
            } catch (RuntimeException e) {
                // as the JVM: the default
            }
        }
        return Charset.defaultCharset().name();
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }
}
