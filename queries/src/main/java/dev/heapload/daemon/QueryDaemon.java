package dev.heapload.daemon;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;

import org.neo4j.graphdb.GraphDatabaseService;

import dev.heapload.explore.PathsQuery;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.QueryWatchdog;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.SavedQuery;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.SnapshotNotFoundException;

/**
 * The per-store query daemon (issue 20 item 6, issue 16 item 5): one background process per store that holds the
 * store open, keeps a snapshot's graph started and the Cypher planner warm, caches the model {@code paths} reads, and
 * answers {@code heapload query}/{@code cypher} over a Unix domain socket only its user can reach, so that queries
 * after the first take well under the 5–9 s of a one-shot run, and two queries at once both run.
 *
 * <p>Files (docs/daemon.md): {@code DIR/daemon/socket} (directory mode 0700, socket 0600; under
 * {@code java.io.tmpdir/heapload-daemon-USER/} when the store's path is too long for a socket address) and
 * {@code DIR/daemon.properties} (mode 0600: {@code pid}, {@code socket}), written once it accepts connections and
 * deleted when it stops. The store's lock file names it {@value GraphStore#DAEMON_HOLDER} with its pid.
 *
 * <p>Concurrency: queries on the graph that is open run side by side (Neo4j's embedded API is thread-safe); a query
 * that needs another snapshot's graph, a first comparison of a pair or a summary update waits until the running
 * queries end, switches the graph (one to four seconds), and then runs ({@link GraphStore#opensNothingFor}). Every
 * query runs as in {@code heapload query}: read-only, no {@code LOAD CSV}, the transaction timeout and memory limit,
 * and the watchdog: a query still running {@link QueryWatchdog#GRACE} after its timeout sends its one line to its
 * client and halts the daemon (exit 1; the store is only read).
 *
 * <p>It stops after {@code idle} without requests, when asked ({@link DaemonProtocol#STOP}: a load, delete, prune,
 * {@code serve} or any other command that opens the store asks through {@link GraphStore#setDaemonStopper}), or on
 * SIGTERM; it finishes the queries it runs first.
 */
public final class QueryDaemon {

    private final Path dir;
    private final Duration idle;
    private final Duration grace;
    private final Consumer<String> halt;
    private final PrintStream log;
    private final GraphStore store;
    private final Object storeMutex = new Object();
    private final ReentrantReadWriteLock graphs = new ReentrantReadWriteLock();
    private final AtomicInteger active = new AtomicInteger();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Map<String, CompletableFuture<HeapSnapshot>> models;
    private final ThreadLocal<Consumer<String>> requestNotices = new ThreadLocal<>();
    private volatile long lastActivity = System.nanoTime();
    private volatile boolean stopping;
    private final Function<Throwable, String> errorLine;
    private ServerSocketChannel server;
    private Path socket;
    private volatile CommandRunner commandRunner;
    private final ThreadLocal<Forwarded> forwarded = new ThreadLocal<>();

    /**
     * Runs a whole command line forwarded by a thin client ({@link DaemonProtocol#RUN}) in the daemon: the cli
     * module's commands, so that a client JVM sends its arguments before loading picocli or Neo4j.
     */
    @FunctionalInterface
    public interface CommandRunner {
        /** {@link #run}'s answer for a command line the daemon does not run (nothing was printed or called). */
        int DECLINED = Integer.MIN_VALUE;

        /**
         * Runs {@code args} as {@code heapload} would in {@code cwd}, printing to {@code out} and {@code err} (the
         * client's standard output and error), or declines it.
         *
         * @param args     the command line, without the program name
         * @param cwd      the client's working directory (absolute): relative paths in {@code args} resolve there
         * @param env      the client's values of the environment variables commands read as defaults
         * @param out      the client's standard output
         * @param err      the client's standard error
         * @param accepted to call once the command line is one the daemon runs, before anything is printed
         * @return the exit code, or {@link #DECLINED} (then {@code accepted} was not called)
         */
        int run(List<String> args, Path cwd, Map<String, String> env, PrintStream out, PrintStream err,
                Runnable accepted);
    }

    /** The forwarded command running on this request thread: its standard error and how to end it with a code. */
    private record Forwarded(PrintStream err, java.util.function.IntConsumer exit) {
    }

    /**
     * Lets the daemon run whole command lines ({@link DaemonProtocol#RUN}); without one it declines them and the
     * client runs the command itself.
     */
    public void setCommandRunner(CommandRunner runner) {
        this.commandRunner = runner;
    }

    /**
     * Opens the store for the daemon (before anything listens).
     *
     * @param dir   the store directory (absolute)
     * @param idle  stop after this long without a request
     * @param grace how long a query may run past its timeout before {@code halt} ({@link QueryWatchdog#GRACE})
     * @param halt  receives the watchdog's one line after it was sent to the client ({@link QueryWatchdog#EXIT} halts)
     * @param log   the daemon's log (its start, requests that failed, its stop)
     * @param errorLine the one line a client is sent for a failed request (the commands' own rule, so that the
     *              daemon's answers equal an in-process run's)
     * @throws IOException as {@link GraphStore#open} (another process holds the store, …)
     */
    public QueryDaemon(Path dir, Duration idle, Duration grace, Consumer<String> halt, PrintStream log,
                       Function<Throwable, String> errorLine) throws IOException {
        this.errorLine = errorLine;
        this.dir = dir;
        this.idle = idle;
        this.grace = grace;
        this.halt = halt;
        this.log = log;
        int keep = Runtime.getRuntime().maxMemory() >= (3L << 30) ? 2 : 1;
        this.models = new LinkedHashMap<>(4, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<HeapSnapshot>> eldest) {
                return size() > keep;
            }
        };
        this.store = GraphStore.open(dir);
        try {
            store.holdAs(dev.heapload.store.StoreDirectory.DAEMON_HOLDER);
            // both snapshots of a pair stay started: a question on the other one does not wait for a switch
            store.keepGraphs(2);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** The socket of the daemon of store {@code dir}: in DIR/daemon/, or a short path under the temp folder. */
    public static Path socketPath(Path dir) {
        Path inStore = dir.resolve("daemon").resolve("socket");
        if (inStore.toString().getBytes(StandardCharsets.UTF_8).length <= 100) {
            return inStore;
        }
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
        return Path.of(System.getProperty("java.io.tmpdir"), "heapload-daemon-" + user)
            .resolve(Integer.toHexString(dir.toString().hashCode()) + ".sock");
    }

    /** {@code DIR/daemon.properties}: pid and socket of the running daemon. */
    public static Path infoFile(Path dir) {
        return dir.resolve("daemon.properties");
    }

    /**
     * Starts the graphs of the newest pair (the newest snapshot's and the one's loaded before it), listens, writes
     * {@link #infoFile}; then in the background, each step only while no request runs, plans the saved queries on
     * both graphs and reads the newest snapshot's model for {@code paths}; serves until stopped and closes the store.
     */
    public void run() throws IOException, InterruptedException {
        dev.heapload.store.StoreDirectory.setNotices(line -> {
            Consumer<String> to = requestNotices.get();
            if (to != null) {
                to.accept(line);
            } else {
                log.println("heapload daemon: " + line);
            }
        });
        try {
            GraphDatabaseService first;
            GraphDatabaseService other;
            synchronized (storeMutex) {
                other = startOtherOfPair();
                first = store.database();
            }
            listen();
            String newest = newestWithGraph();
            Thread planner = new Thread(() -> {
                if (plan(first) && (other == null || plan(other)) && newest != null && waitIdle()) {
                    // the model paths reads (2-3 s for 2.4M objects), read while nobody asks, not by the first paths
                    try {
                        model(newest);
                    } catch (Exception | OutOfMemoryError e) {
                        // a paths query reads it again and says why
                    }
                }
            }, "heapload-daemon-planner");
            planner.setDaemon(true);
            planner.start();
            Thread idleWatch = new Thread(this::watchIdle, "heapload-daemon-idle");
            idleWatch.setDaemon(true);
            idleWatch.start();
            log.println("heapload daemon: pid " + ProcessHandle.current().pid() + " serving " + dir + " on " + socket
                + " (stops after " + idle.toSeconds() + " s idle)");
            acceptLoop();
        } finally {
            shutdown();
        }
    }

    private void listen() throws IOException {
        socket = socketPath(dir);
        Path folder = socket.getParent();
        Files.createDirectories(folder);
        if (folder.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
        }
        Files.deleteIfExists(socket);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        if (socket.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        }
        Path info = infoFile(dir);
        Path tmp = info.resolveSibling(info.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(tmp, "pid=" + ProcessHandle.current().pid() + "\nsocket=" + socket.toString()
            .replace("\\", "\\\\") + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, info, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Plans every saved query on {@code db} in the background, one at a time, so that a first question finds its
     * plan cached; false when it stopped early (the daemon stops, the graph was shut down). It gives way to
     * requests: before each plan it waits until no request is running (on 2 cores the planner beside a first question
     * made that question slower than an in-process run), and it holds the graph's read lock only while one query
     * plans, so a switch to another graph is not held up.
     */
    private boolean plan(GraphDatabaseService db) {
        java.util.Collection<SavedQuery> queries;
        try {
            queries = QueryLibrary.builtIn().queries();
        } catch (Exception e) {
            return false;   // running a query says why
        }
        for (SavedQuery q : queries) {
            if (!waitIdle()) {
                return false;
            }
            graphs.readLock().lock();
            try {
                QueryRunner.plan(db, q);
            } catch (Exception | LinkageError e) {
                // a stopping DBMS, a graph switched meanwhile, or a query that does not plan (running it says why)
                return false;
            } finally {
                graphs.readLock().unlock();
            }
        }
        return true;
    }

    /** Waits until no request runs; false when the daemon stops meanwhile. */
    private boolean waitIdle() {
        try {
            while (active.get() > 0 && !stopping) {
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            return false;
        }
        return !stopping;
    }

    /** The id of the newest snapshot that has a graph (not pruned), or null. */
    private String newestWithGraph() {
        String newest = null;
        synchronized (storeMutex) {
            for (var s : store.snapshots()) {
                if (!store.isPruned(s.id())) {
                    newest = s.id();
                }
            }
        }
        return newest;
    }

    /**
     * Starts the graph of the snapshot loaded before the newest (the newest pair's other snapshot) before the daemon
     * listens, so that no question on either snapshot of the pair waits for a graph's start (1–4 s) later: the first
     * question waits for it instead, once. Null when the store has fewer than two snapshots with graphs, or when that
     * graph cannot start now (a question on it says why).
     */
    private GraphDatabaseService startOtherOfPair() {
        List<String> withGraph = new java.util.ArrayList<>();
        for (var s : store.snapshots()) {
            if (!store.isPruned(s.id())) {
                withGraph.add(s.id());
            }
        }
        if (withGraph.size() < 2) {
            return null;
        }
        try {
            return store.database(withGraph.get(withGraph.size() - 2));
        } catch (IOException | RuntimeException e) {
            log.println("heapload daemon: not starting the graph of snapshot '" + withGraph.get(withGraph.size() - 2)
                + "' ahead: " + e.getMessage());
            return null;
        }
    }

    private void watchIdle() {
        while (!stopping) {
            try {
                Thread.sleep(Math.max(50, Math.min(5000, idle.toMillis() / 4)));
            } catch (InterruptedException e) {
                return;
            }
            if (active.get() == 0 && System.nanoTime() - lastActivity > idle.toNanos()) {
                log.println("heapload daemon: idle for " + idle.toSeconds() + " s; stopping");
                stop();
                return;
            }
        }
    }

    /** Stops accepting connections; the accept loop then waits for the running requests and returns. */
    public void stop() {
        stopping = true;
        try {
            ServerSocketChannel s = server;
            if (s != null) {
                s.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** Waits until the daemon has closed the store (after {@link #stop}). */
    public boolean awaitStopped(Duration max) throws InterruptedException {
        return stopped.await(max.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private void acceptLoop() throws InterruptedException {
        while (!stopping) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (IOException e) {
                break; // closed by stop()
            }
            lastActivity = System.nanoTime();
            active.incrementAndGet();
            Thread t = new Thread(() -> {
                try {
                    serve(client);
                } finally {
                    lastActivity = System.nanoTime();
                    active.decrementAndGet();
                    synchronized (active) {
                        active.notifyAll();
                    }
                }
            }, "heapload-daemon-request");
            t.setDaemon(true);
            t.start();
        }
        synchronized (active) {
            while (active.get() > 0) {
                active.wait(200);
            }
        }
    }

    private void shutdown() throws IOException {
        stopping = true;
        try {
            if (server != null) {
                server.close();
            }
            Files.deleteIfExists(infoFile(dir));
            if (socket != null) {
                Files.deleteIfExists(socket);
            }
            synchronized (models) {
                models.clear();
            }
        } finally {
            try {
                synchronized (storeMutex) {
                    store.close();
                }
            } finally {
                stopped.countDown();
                log.println("heapload daemon: stopped; store released");
            }
        }
    }

    private void serve(SocketChannel client) {
        try (client;
             DataInputStream in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(client)));
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(client)))) {
            if (in.readInt() != DaemonProtocol.VERSION) {
                sendError(out, "the query daemon of " + dir + " speaks another protocol version; stop it (it stops "
                    + "when idle) or use --no-daemon");
                return;
            }
            String op = DaemonProtocol.readString(in);
            if (op.equals(DaemonProtocol.STOP)) {
                log.println("heapload daemon: asked to stop");
                synchronized (out) {
                    out.writeByte(DaemonProtocol.STOPPING);
                    out.flush();
                }
                stop();
                return;
            }
            if (stopping) {
                return; // the client runs the query itself
            }
            if (op.equals(DaemonProtocol.RUN)) {
                runCommand(in, out);
                return;
            }
            Request request = Request.read(op, in);
            synchronized (out) {
                out.writeByte(DaemonProtocol.ACCEPTED);
                out.flush();
            }
            requestNotices.set(line -> {
                try {
                    synchronized (out) {
                        out.writeByte(DaemonProtocol.NOTICE);
                        DaemonProtocol.writeString(out, line);
                        out.flush();
                    }
                } catch (IOException e) {
                    // the client went away
                }
            });
            QueryResult result;
            try {
                result = request.op.equals(DaemonProtocol.PATHS) ? paths(request)
                    : query(request.name, request.text, request.params, request.limit, request.timeoutMillis,
                        line -> sendError(out, line));
            } catch (Exception | OutOfMemoryError e) {
                sendError(out, errorLine.apply(e));
                return;
            } finally {
                requestNotices.remove();
            }
            synchronized (out) {
                DaemonProtocol.writeResult(out, result);
                out.flush();
            }
        } catch (IOException e) {
            // the client went away, or sent garbage: nothing to answer
        }
    }

    private static void sendError(DataOutputStream out, String line) {
        try {
            synchronized (out) {
                out.writeByte(DaemonProtocol.ERROR);
                DaemonProtocol.writeString(out, line);
                out.flush();
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private QueryResult query(String name, String text, Map<String, Object> params, long limit, long timeoutMillis,
                              Consumer<String> toClient) throws Exception {
        SavedQuery query = new SavedQuery(name, name, List.of(), List.of(), text, "the daemon's client");
        GraphDatabaseService db = acquire(name, params);
        try {
            return QueryRunner.run(db, query, params, limit, Duration.ofMillis(timeoutMillis), grace, line -> {
                toClient.accept(line);
                log.println("heapload daemon: " + line);
                log.flush();
                halt.accept(line);
            });
        } finally {
            graphs.readLock().unlock();
        }
    }

    /**
     * Runs a query for a command that runs in the daemon ({@link #setCommandRunner}), on the calling request thread,
     * as a {@link DaemonProtocol#QUERY} request runs: notices and the watchdog's line go to the forwarded command's
     * standard error (the watchdog then ends the command with exit 1 and halts the daemon).
     *
     * @param name          the saved query's name (it picks the snapshot's graph: {@link GraphStore#databaseFor})
     * @param text          its Cypher
     * @param params        its bound parameters
     * @param limit         at most this many rows (0: all)
     * @param timeoutMillis the transaction timeout, milliseconds (&gt; 0)
     * @throws IllegalStateException when not called from a forwarded command
     * @throws Exception     what the in-process run throws (unknown snapshot, timeout, …)
     */
    public QueryResult runForwardedQuery(String name, String text, Map<String, Object> params, long limit,
                                        long timeoutMillis) throws Exception {
        Forwarded f = forwardedHere();
        requestNotices.set(line -> f.err().println("heapload: " + line));
        try {
            return query(name, text, params, limit, timeoutMillis, line -> {
                f.err().println("heapload: " + SafeText.visible(line));
                f.err().flush();
                f.exit().accept(1);
            });
        } finally {
            requestNotices.remove();
        }
    }

    /** {@link #runForwardedQuery} for the built-in {@code paths} (parameters bound by {@code PathsQuery.bind}). */
    public QueryResult runForwardedPaths(Map<String, Object> params, long limit) throws Exception {
        forwardedHere();
        return paths(new Request(DaemonProtocol.PATHS, PathsQuery.NAME, "", params, limit, 1));
    }

    private Forwarded forwardedHere() {
        Forwarded f = forwarded.get();
        if (f == null) {
            throw new IllegalStateException("not a command forwarded to the daemon");
        }
        return f;
    }

    /**
     * A {@link DaemonProtocol#RUN} request: reads the command line, runs it with {@link #commandRunner} and sends
     * its output as frames; {@link DaemonProtocol#DECLINED} when there is no runner or it declines.
     */
    private void runCommand(DataInputStream in, DataOutputStream out) throws IOException {
        String outCharset = DaemonProtocol.readString(in);
        String errCharset = DaemonProtocol.readString(in);
        Path cwd = Path.of(DaemonProtocol.readString(in));
        Object env = DaemonProtocol.readValue(in);
        Object args = DaemonProtocol.readValue(in);
        CommandRunner runner = commandRunner;
        java.nio.charset.Charset oc;
        java.nio.charset.Charset ec;
        try {
            oc = java.nio.charset.Charset.forName(outCharset);
            ec = java.nio.charset.Charset.forName(errCharset);
        } catch (RuntimeException e) {
            oc = null;
            ec = null;
        }
        if (runner == null || oc == null || !cwd.isAbsolute() || !(env instanceof Map<?, ?> envMap)
            || !(args instanceof List<?> argList)) {
            synchronized (out) {
                out.writeByte(DaemonProtocol.DECLINED);
                out.flush();
            }
            return;
        }
        Map<String, String> environment = new LinkedHashMap<>();
        envMap.forEach((k, v) -> environment.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
        List<String> argv = new java.util.ArrayList<>();
        argList.forEach(a -> argv.add(String.valueOf(a)));
        java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
        PrintStream stdout = new PrintStream(new java.io.BufferedOutputStream(
            new FrameStream(out, DaemonProtocol.OUT), 1 << 16), false, oc);
        PrintStream stderr = new PrintStream(new FrameStream(out, DaemonProtocol.ERR), true, ec);
        java.util.function.IntConsumer exit = code -> {
            if (ended.compareAndSet(false, true)) {
                stdout.flush();
                stderr.flush();
                try {
                    synchronized (out) {
                        out.writeByte(DaemonProtocol.EXIT);
                        out.writeInt(code);
                        out.flush();
                    }
                } catch (IOException e) {
                    // the client went away
                }
            }
        };
        forwarded.set(new Forwarded(stderr, exit));
        int code;
        try {
            code = runner.run(argv, cwd, environment, stdout, stderr, () -> {
                try {
                    synchronized (out) {
                        out.writeByte(DaemonProtocol.ACCEPTED);
                        out.flush();
                    }
                } catch (IOException e) {
                    // the client went away: the command still runs (its output is dropped)
                }
            });
        } finally {
            forwarded.remove();
        }
        if (code == CommandRunner.DECLINED) {
            synchronized (out) {
                out.writeByte(DaemonProtocol.DECLINED);
                out.flush();
            }
            return;
        }
        exit.accept(code);
    }

    /** Bytes written to it go to the client as frames: the tag, an int byte count, the bytes. */
    private static final class FrameStream extends java.io.OutputStream {
        private final DataOutputStream out;
        private final byte tag;

        FrameStream(DataOutputStream out, byte tag) {
            this.out = out;
            this.tag = tag;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return;
            }
            synchronized (out) {
                out.writeByte(tag);
                out.writeInt(len);
                out.write(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            synchronized (out) {
                out.flush();
            }
        }
    }

    /**
     * The graph for the query, with the read lock of {@link #graphs} held (the caller unlocks): at once when it is
     * open; else, once the running queries ended, after switching (under the write lock).
     */
    private GraphDatabaseService acquire(String name, Map<String, Object> params) throws IOException {
        graphs.readLock().lock();
        boolean locked = true;
        try {
            synchronized (storeMutex) {
                if (store.opensNothingFor(name, params)) {
                    locked = false;
                    return store.databaseFor(name, params);
                }
            }
        } finally {
            if (locked) {
                graphs.readLock().unlock();
            }
        }
        graphs.writeLock().lock();
        try {
            GraphDatabaseService db;
            synchronized (storeMutex) {
                db = store.databaseFor(name, params);
            }
            graphs.readLock().lock(); // downgrade: run beside later queries on this graph
            return db;
        } finally {
            graphs.writeLock().unlock();
        }
    }

    private QueryResult paths(Request r) throws Exception {
        String id = (String) r.params.get("snapshot");
        HeapSnapshot model;
        try {
            model = model(id);
        } catch (SnapshotNotFoundException e) {
            throw new QueryFailedException("no snapshot '" + SafeText.visible(id)
                + "' in the store (heapload snapshots lists them)");
        }
        return PathsQuery.run(model, r.params, r.limit);
    }

    /** The model of snapshot {@code id}, read once and kept (the most recent one or two). */
    private HeapSnapshot model(String id) throws Exception {
        CompletableFuture<HeapSnapshot> f;
        boolean reader = false;
        synchronized (models) {
            f = models.get(id);
            if (f == null) {
                f = new CompletableFuture<>();
                models.put(id, f);
                reader = true;
            }
        }
        if (reader) {
            try {
                f.complete(GraphStore.readModel(dir, id));
            } catch (Exception | Error e) {
                synchronized (models) {
                    models.remove(id, f);
                }
                f.completeExceptionally(e);
            }
        }
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            if (e.getCause() instanceof Error x) {
                throw x;
            }
            throw e;
        }
    }

    /** One request as read from the socket. */
    private record Request(String op, String name, String text, Map<String, Object> params, long limit,
                           long timeoutMillis) {

        @SuppressWarnings("unchecked")
        static Request read(String op, DataInputStream in) throws IOException {
            if (op.equals(DaemonProtocol.QUERY)) {
                String name = DaemonProtocol.readString(in);
                String text = DaemonProtocol.readString(in);
                Map<String, Object> params = (Map<String, Object>) DaemonProtocol.readValue(in);
                long limit = in.readLong();
                long timeout = in.readLong();
                if (timeout <= 0) {
                    throw new IOException("bad timeout");
                }
                return new Request(op, name, text, params, limit, timeout);
            }
            if (op.equals(DaemonProtocol.PATHS)) {
                Map<String, Object> params = (Map<String, Object>) DaemonProtocol.readValue(in);
                return new Request(op, PathsQuery.NAME, "", params, in.readLong(), 1);
            }
            throw new IOException("unknown operation " + op);
        }
    }
}
