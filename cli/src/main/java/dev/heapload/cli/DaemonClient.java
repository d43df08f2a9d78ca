package dev.heapload.cli;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import dev.heapload.daemon.DaemonProtocol;
import dev.heapload.daemon.QueryDaemon;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.SavedQuery;
import dev.heapload.store.embedded.GraphStore;

/**
 * The client side of the store's {@link QueryDaemon}: sends {@code heapload query}/{@code cypher}/{@code paths} to
 * the daemon of the store, starting it first when nothing holds the store, and asks it to stop for commands that
 * need the store themselves ({@link #stop}, installed as {@link GraphStore#setDaemonStopper}).
 *
 * <p>On by default for the command-line tool; off with {@code --no-daemon}, {@code HEAPLOAD_DAEMON=off} (or the
 * system property {@code heapload.daemon=off}) and for programs that call {@link HeapLoad#run} (tests), which turn it
 * on with {@code --daemon}. {@code HEAPLOAD_DAEMON_IDLE=MINUTES} (default 10) sets how long a started daemon waits
 * for the next query.
 */
final class DaemonClient {

    /** Default idle time of a started daemon. */
    static final Duration DEFAULT_IDLE = Duration.ofMinutes(10);

    /** How long a client waits for a daemon it started to accept connections. */
    private static final Duration START_WAIT = Duration.ofMinutes(5);

    /** True once {@link HeapLoad#main} runs: the launcher's default is on. */
    static volatile boolean onByDefault;

    private static final Object START_MUTEX = new Object();

    /** The daemon this thread runs a forwarded command in ({@link DaemonCommand#runForwarded}), and its store. */
    private record Local(QueryDaemon daemon, Path dir) {
    }

    private static final InheritableThreadLocal<Local> LOCAL = new InheritableThreadLocal<>();

    /**
     * Marks this thread as running a command forwarded to {@code daemon} (store {@code dir}): its queries on that
     * store run in the daemon directly instead of over the socket; null: no longer.
     */
    static void runningIn(QueryDaemon daemon, Path dir) {
        if (daemon == null) {
            LOCAL.remove();
        } else {
            LOCAL.set(new Local(daemon, dir));
        }
    }

    private static Local local(Path dir) {
        Local l = LOCAL.get();
        return l != null && l.dir().equals(dir.toAbsolutePath().normalize()) ? l : null;
    }

    private DaemonClient() {
    }

    /** Whether queries go to the daemon: the option when given, else the environment, else {@link #onByDefault}. */
    static boolean enabled(Boolean option) {
        if (option != null) {
            return option;
        }
        if (LOCAL.get() != null) {
            return true; // a command forwarded to the daemon
        }
        String setting = System.getenv("HEAPLOAD_DAEMON");
        if (setting == null || setting.isBlank()) {
            setting = System.getProperty("heapload.daemon");
        }
        if (setting != null && !setting.isBlank()) {
            return !OFF.contains(setting.strip().toLowerCase(Locale.ROOT));
        }
        return onByDefault;
    }

    private static final java.util.Set<String> OFF = java.util.Set.of("off", "0", "no", "false");

    /** The idle time for a daemon this client starts: {@code HEAPLOAD_DAEMON_IDLE} minutes, else 10. */
    static Duration idle() {
        String m = System.getenv("HEAPLOAD_DAEMON_IDLE");
        if (m != null && m.strip().matches("[0-9]{1,6}(\\.[0-9]+)?")) {
            return Duration.ofMillis(Math.max(1000, (long) (Double.parseDouble(m.strip()) * 60_000)));
        }
        return DEFAULT_IDLE;
    }

    /**
     * Runs a query on the daemon of store {@code dir} (starting it when nothing holds the store).
     *
     * @return the rows, or empty when no daemon took the query (a load, serve or a query in-process holds the store,
     *         the daemon is stopping or could not start): the caller runs it in-process
     * @throws QueryFailedException the daemon's one line (exit 1), e.g. an unknown snapshot or a timeout
     */
    static Optional<QueryResult> query(Path dir, SavedQuery query, Map<String, Object> params, long limit,
                                       Duration timeout) throws IOException, QueryFailedException {
        Local here = local(dir);
        if (here != null) {
            return Optional.of(inDaemon(() -> here.daemon().runForwardedQuery(query.name(), query.text(), params, limit,
                timeout.toMillis())));
        }
        return send(dir, out -> {
            DaemonProtocol.writeString(out, DaemonProtocol.QUERY);
            DaemonProtocol.writeString(out, query.name());
            DaemonProtocol.writeString(out, query.text());
            DaemonProtocol.writeValue(out, params);
            out.writeLong(limit);
            out.writeLong(timeout.toMillis());
        });
    }

    /** {@link #query} for the built-in {@code paths} (its parameters bound by {@code PathsQuery.bind}). */
    static Optional<QueryResult> paths(Path dir, Map<String, Object> params, long limit) throws IOException, QueryFailedException {
        Local here = local(dir);
        if (here != null) {
            return Optional.of(inDaemon(() -> here.daemon().runForwardedPaths(params, limit)));
        }
        return send(dir, out -> {
            DaemonProtocol.writeString(out, DaemonProtocol.PATHS);
            DaemonProtocol.writeValue(out, params);
            out.writeLong(limit);
        });
    }

    private interface InDaemon {
        QueryResult run() throws Exception;
    }

    /** A query run in the daemon, its failures as the socket route reports them (one line, exit 1). */
    private static QueryResult inDaemon(InDaemon query) throws IOException, QueryFailedException {
        try {
            return query.run();
        } catch (Exception e) {
            throw new QueryFailedException(HeapLoad.oneLine(e));
        }
    }

    private interface RequestWriter {
        void write(DataOutputStream out) throws IOException;
    }

    private static Optional<QueryResult> send(Path dir, RequestWriter request)
        throws IOException, QueryFailedException {
        Path abs = dir.toAbsolutePath().normalize();
        Optional<Daemon> daemon = running(abs);
        if (daemon.isEmpty()) {
            daemon = start(abs);
        }
        if (daemon.isEmpty()) {
            return Optional.empty();
        }
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.connect(UnixDomainSocketAddress.of(daemon.get().socket()));
        } catch (IOException e) {
            return Optional.empty(); // it just stopped
        }
        try (channel;
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel)));
             DataInputStream in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel)))) {
            out.writeInt(DaemonProtocol.VERSION);
            request.write(out);
            out.flush();
            boolean accepted = false;
            while (true) {
                byte frame;
                try {
                    frame = in.readByte();
                } catch (EOFException | java.nio.channels.ClosedChannelException e) {
                    if (!accepted) {
                        return Optional.empty(); // stopping: run it in-process
                    }
                    throw new QueryFailedException("the query daemon of store " + abs + " (pid " + daemon.get().pid()
                        + ") ended while running the query; see " + abs.resolve("logs").resolve("daemon.log"));
                }
                switch (frame) {
                    case DaemonProtocol.ACCEPTED -> accepted = true;
                    case DaemonProtocol.NOTICE -> System.err.println("heapload: " + DaemonProtocol.readString(in));
                    case DaemonProtocol.RESULT -> {
                        return Optional.of(DaemonProtocol.readResult(in));
                    }
                    case DaemonProtocol.ERROR -> throw new QueryFailedException(DaemonProtocol.readString(in));
                    default -> throw new IOException("the query daemon of store " + abs + " answered garbage (frame "
                        + frame + "); stop it (kill " + daemon.get().pid() + ") or use --no-daemon");
                }
            }
        } catch (IOException e) {
            throw new IOException("the query daemon of store " + abs + " (pid " + daemon.get().pid() + ") failed: "
                + e.getMessage(), e);
        }
    }

    /** A running daemon: its pid and socket. */
    record Daemon(long pid, Path socket) {
    }

    /** The daemon of store {@code dir} when its info file names a live process and its socket exists. */
    static Optional<Daemon> running(Path dir) {
        Properties p = new Properties();
        try (var in = Files.newInputStream(QueryDaemon.infoFile(dir))) {
            p.load(in);
            long pid = Long.parseLong(p.getProperty("pid", "-1"));
            Path socket = Path.of(p.getProperty("socket", ""));
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && Files.exists(socket)) {
                return Optional.of(new Daemon(pid, socket));
            }
        } catch (IOException | RuntimeException e) {
            // none
        }
        return Optional.empty();
    }

    /**
     * Starts the daemon of {@code dir} when no process holds the store, and waits until it accepts connections;
     * empty when something holds the store, the daemon could not start, or it did not get ready in time.
     */
    private static Optional<Daemon> start(Path dir) throws IOException {
        synchronized (START_MUTEX) {
            try (FileChannel starting = FileChannel.open(dir.resolve("daemon.start"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock ignored = starting.lock()) {
                Optional<Daemon> running = running(dir);
                if (running.isPresent() || !storeFree(dir)) {
                    return running;
                }
                Duration idle = idle();
                System.err.println("heapload: starting the query daemon of store " + SafeText.visible(dir.toString()) + " (it stops after "
                    + describe(idle) + " without queries; --no-daemon or HEAPLOAD_DAEMON=off runs queries "
                    + "in this process)");
                Process child = spawn(dir, idle);
                long deadline = System.nanoTime() + START_WAIT.toNanos();
                while (System.nanoTime() - deadline < 0) {
                    running = running(dir);
                    if (running.isPresent()) {
                        return running;
                    }
                    if (!child.isAlive()) {
                        return Optional.empty();
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return Optional.empty();
                    }
                }
                return Optional.empty();
            }
        }
    }

    private static String describe(Duration idle) {
        long s = idle.toSeconds();
        return s % 60 == 0 ? (s / 60) + (s == 60 ? " minute" : " minutes") : s + " s";
    }

    /** True when no process holds the store's lock right now (tried and released at once). */
    private static boolean storeFree(Path dir) {
        Path lock = dir.resolve("store.lock");
        try (FileChannel c = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock l = c.tryLock();
            if (l == null) {
                return false;
            }
            l.release();
            return true;
        } catch (OverlappingFileLockException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Starts {@code heapload daemon --db DIR} in a JVM of its own with this JVM's options and class path, in a
     * session of its own (so Ctrl-C in the terminal does not reach it), its output appended to DIR/logs/daemon.log.
     */
    private static Process spawn(Path dir, Duration idle) throws IOException {
        List<String> command = new ArrayList<>();
        for (String setsid : List.of("/usr/bin/setsid", "/bin/setsid")) {
            if (Files.isExecutable(Path.of(setsid))) {
                command.add(setsid);
                break;
            }
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-XX:ArchiveClassesAtExit") && !arg.startsWith("-agentlib:")
                && !arg.startsWith("-javaagent:") && !arg.startsWith("-Dheapload.stderr.tty")) {
                command.add(arg);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(HeapLoad.class.getName());
        command.addAll(List.of("daemon", "--db", dir.toString(), "--idle-seconds", String.valueOf(idle.toSeconds())));
        Path logs = dir.resolve("logs");
        Files.createDirectories(logs);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("daemon.log").toFile()));
        pb.redirectErrorStream(true);
        return pb.start();
    }

    /**
     * Asks the daemon of store {@code dir} to stop (it finishes its running queries first); for
     * {@link GraphStore#setDaemonStopper}.
     *
     * @return whether it was asked
     */
    static boolean stop(Path dir) {
        Optional<Daemon> daemon = running(dir);
        if (daemon.isEmpty()) {
            return false;
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(daemon.get().socket()));
            DataOutputStream out = new DataOutputStream(Channels.newOutputStream(channel));
            out.writeInt(DaemonProtocol.VERSION);
            DaemonProtocol.writeString(out, DaemonProtocol.STOP);
            out.flush();
            return new DataInputStream(Channels.newInputStream(channel)).readByte() == DaemonProtocol.STOPPING;
        } catch (IOException e) {
            return false;
        }
    }
}
