package dev.heapload.store.embedded;

import dev.heapload.store.DiskFullException;
import dev.heapload.store.SnapshotExistsException;
import dev.heapload.store.DiskSpace;
import dev.heapload.store.GraphInput;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.SnapshotHistory;
import dev.heapload.store.StoredSnapshots;
import dev.heapload.store.StoredSummary;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.embedded.DiskWatchdog;
import dev.heapload.store.SnapshotPrunedException;
import dev.heapload.store.Catalog;
import dev.heapload.store.offline.OfflineImporter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.logging.log4j.Log4jLogProvider;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SnapshotStatistics;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotFile;
import dev.heapload.model.Progress;

/**
 * A directory holding any number of heap snapshots, each with an embedded Neo4j graph of its own, for loading now
 * and querying later (schema: {@link GraphSchema}; design and measurements: docs/store.md).
 *
 * <h2>Directory layout</h2>
 * <pre>
 *   DIR/catalog.properties        committed state: snapshots in load order, each one's graph directory, graph schema
 *                                 and pruned flag, the baseline setting (the commit point)
 *   DIR/snapshots/&lt;id&gt;.hsnap      each snapshot's model and analysis ({@link HeapSnapshotFile}); ids that
 *                                 are not plain file names are %-encoded; dropped by {@link #prune}
 *   DIR/summaries/&lt;id&gt;.summary  each snapshot's figures ({@link StoredSummary}), kept forever
 *   DIR/graphs/&lt;id&gt;-&lt;g&gt;/        Neo4j home of a snapshot's graph (data/databases/neo4j, data/transactions)
 *   DIR/graph.building-&lt;g&gt;-&lt;k&gt;/   a graph being built (deleted on failure, on Ctrl-C, and on open)
 *   DIR/neo4j.log                 Neo4j's user log and the importer's report; DIR/logs/debug.log: its debug log
 *   DIR/store.lock                held while a GraphStore is open (one process at a time); holds that
 *                                 process's pid and what it does ({@link #holder}) for the "in use" message
 * </pre>
 *
 * <h2>All-or-nothing updates</h2>
 * A {@link #load} (or replace) builds only the new snapshots' graphs, each with Neo4j's offline parallel importer in
 * {@code graph.building-*}, renamed into {@code graphs/}; it holds the snapshot's objects, its comparisons with the
 * previous snapshot and the store's baseline, and the other snapshots' summary nodes. New model and summary files
 * are written as {@code *.pending-<g>}; the atomic replacement of {@code catalog.properties} commits all of it, and
 * the pending files are moved into place after it (or on the next open, if the process died in between). Before the
 * commit an exception, an interrupt or Ctrl-C (a shutdown hook) removes everything the attempt wrote, so the store
 * stays exactly as it was. {@link #delete}, {@link #prune} and {@link #setBaseline} are a catalog commit each, after
 * which the files it no longer names are removed. A comparison on first request ({@link #compare}) and the update of
 * a graph's summary nodes ({@link #database(String)}) are one Neo4j transaction each. A build first checks the free
 * disk space against an estimate ({@link DiskSpace}) and refuses with a {@link DiskFullException} when it is too
 * small; a disk that fills during the build ends it with one too, the attempt's files removed. No operation reads or
 * rebuilds the other snapshots' graphs or models (at most the previous snapshot's and the baseline's model, to
 * compare), so its cost does not grow with the store.
 *
 * <h2>Cost</h2>
 * Measured with {@code heapload} on the 2.4M-object entity-system-large snapshot (2.40M nodes, 8.80M relationships,
 * 35.6M properties) on the 2-vCPU project machine: see the README's benchmark section (import about 12–18 s, the
 * indexes written from the models about 4–6 s with the snapshot file written meanwhile; peak RSS about 1.3–1.5 GiB).
 * Opening the store does not start Neo4j; {@link #database(String)} starts the embedded DBMS on one snapshot's graph
 * (0.4 s warm in the benchmark, about 4 s in a fresh JVM per shared/docs/neo4j-measurements.md §1). A load needs the
 * heap for its snapshot models plus one other model at a time (a comparison partner); off the heap, the importer's
 * page cache ({@code -Dheapload.import.pageCache=BYTES}, default 256 MiB) and caches (budget
 * {@code -Dheapload.import.maxOffHeap=BYTES}, default 512 MiB).
 *
 * <p>Not thread-safe: use from one thread.
 */
public final class GraphStore implements AutoCloseable {

    /** The default store directory, relative to the working directory. */
    public static final Path DEFAULT_DIRECTORY = Path.of("heapload-db");

    static final String SNAPSHOTS = StoredSnapshots.SNAPSHOTS;
    static final String GRAPHS = "graphs";
    static final String SUMMARIES = StoredSnapshots.SUMMARIES;
    static final String LOCK = "store.lock";

    /**
     * While {@code heapload serve} serves the store with authentication: the password of user {@code neo4j}, one
     * line, readable by the serving user only ({@link #serve(int, int, String)}).
     */
    public static final String SERVE_PASSWORD = "serve.password";
    static final String LOG = "neo4j.log";
    /**
     * While {@code heapload serve} serves the store: {@code pid} and {@code bolt} (port) of that process, so other
     * heapload processes, which find the store locked, can send read-only work to its Bolt port instead. Written
     * once the server accepts connections, deleted when it stops; a file left by a killed server names a dead
     * process and is ignored.
     */
    public static final String SERVING = "serving.properties";
    static final String LOGS = "logs";
    static final String BUILDING = "graph.building-";
    static final String PENDING = ".pending-";
    private static final String DATABASE = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;

    /**
     * The longest snapshot file name a store accepts, in bytes: 255 (the file-name limit of ext4, XFS, APFS and
     * NTFS) less the suffix {@code .pending-GENERATION} (at most 28 bytes) the file has while it is written.
     */
    public static final int MAX_SNAPSHOT_FILE_NAME_BYTES = 255 - PENDING.length() - 19;

    /**
     * The length in bytes of snapshot {@code id}'s file name in the store ({@code ID.hsnap}: letters, digits,
     * {@code -}, {@code _} and non-leading dots one byte each, every other UTF-8 byte three, as {@code %XX}); to refuse
     * an id over {@link #MAX_SNAPSHOT_FILE_NAME_BYTES} before anything is read.
     */
    public static int snapshotFileNameBytes(String id) {
        return Catalog.fileNameFor(id).length();
    }

    /** Receives one-line notices meant for the person running heapload (no prefix, no newline); none by default. */
    private static volatile java.util.function.Consumer<String> notices = line -> {
    };

    /** Where every store of this process sends its notices (e.g. a graph rebuilt for a newer schema). */
    public static void setNotices(java.util.function.Consumer<String> sink) {
        notices = java.util.Objects.requireNonNull(sink);
    }

    /**
     * What the lock file of a store held by the per-store query daemon says ({@code command=heapload daemon}): the
     * "in use" message names it with its pid, and {@link #open} asks it to stop through {@link #setDaemonStopper}.
     */
    public static final String DAEMON_HOLDER = "heapload daemon";

    /** See {@link #setDaemonStopper}. */
    private static volatile java.util.function.Predicate<Path> daemonStopper;

    /**
     * How {@link #open} makes a query daemon ({@link #DAEMON_HOLDER}) give the store up: called with the store's
     * absolute directory when the daemon holds its lock, it asks the daemon to stop (the daemon finishes the queries
     * it runs, each bounded by its timeout, closes the store and exits) and returns whether it could ask; open then
     * waits for the lock for at most {@link #DAEMON_STOP_WAIT}. Null (the default, and in the daemon itself): open
     * fails with the "in use" message naming the daemon and its pid.
     */
    public static void setDaemonStopper(java.util.function.Predicate<Path> stopper) {
        daemonStopper = stopper;
    }

    /** How long {@link #open} waits for a daemon it asked to stop: its longest query (120 s by default) and more. */
    public static final java.time.Duration DAEMON_STOP_WAIT = java.time.Duration.ofSeconds(150);

    /** See {@link #setHaltOnDiskFullHang}. */
    static volatile boolean haltOnDiskFullHang;

    /**
     * When on, a rebuild (or a DBMS start or stop) stuck on a full disk (Neo4j's page cache retrying a flush for
     * about a second, or any work still running 10 s after the disk filled) removes what it wrote, prints its
     * one-line {@link DiskFullException} message to {@code System.err} and ends the JVM with exit code 1
     * ({@link DiskWatchdog}); when off (the default, for programs embedding the store) it only interrupts the
     * stuck thread. The command-line tool turns it on.
     */
    public static void setHaltOnDiskFullHang(boolean on) {
        haltOnDiskFullHang = on;
    }

    /** Test hook: called at named steps of a rebuild ("written", "source &lt;id&gt;", "imported", "indexed", "renamed"). */
    interface BuildHook {
        void reached(String step) throws IOException;
    }

    /** Package-private for tests: throwing from it makes the rebuild fail at that step. */
    BuildHook buildHook = step -> {
    };

    private final Path dir;
    private final Path snapshotsDir;
    private final Path logsDir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final PrintStream log;
    private final Log4jLogProvider logProvider;
    private final long maxOffHeap;
    private final long importPageCache;
    private final Path graphsDir;
    private final Path summariesDir;
    private Catalog catalog;
    /** The snapshot whose graph the running DBMS serves, or null (none, or the graph of an empty store). */
    private String openSnapshot;
    /** Pairs "baseline\0target" that {@link #compare} found compared (or not comparable) since the graph opened. */
    private final Set<String> comparedPairs = new java.util.HashSet<>();
    private DatabaseManagementService dbms;
    private GraphDatabaseService db;
    /** How many snapshots' graphs stay started at once ({@link #keepGraphs}): 1 unless a caller asks. */
    private int keepGraphs = 1;
    /** Started graphs other than the open one, least recently used first ({@link #keepGraphs} above 1). */
    private final java.util.LinkedHashMap<String, Parked> parked = new java.util.LinkedHashMap<>(4, 0.75f, true);

    /** A started graph kept while another snapshot's graph is the open one. */
    private record Parked(DatabaseManagementService dbms, GraphDatabaseService db) {
    }
    /** Extra settings of the DBMS that {@link #database()} starts: empty, or those of {@link #serve}. */
    private Map<Setting<?>, Object> serverSettings = Map.of();
    /** The Bolt and HTTP ports of {@link #serve} (empty when not serving). */
    private int[] serverPorts = new int[0];
    /** Neo4j settings by name that {@link #serve(int, int, String, Map)} adds (empty when not serving). */
    private Map<String, String> serverSettingsByName = Map.of();
    private boolean closed;
    /** What the process holding the store does, as written into the lock file by {@link #holder}. */
    private String holder = "";

    private GraphStore(Path dir, FileChannel lockChannel, FileLock lock, PrintStream log) throws IOException {
        this.dir = dir;
        this.snapshotsDir = dir.resolve(SNAPSHOTS);
        this.logsDir = dir.resolve(LOGS);
        this.graphsDir = dir.resolve(GRAPHS);
        this.summariesDir = dir.resolve(SUMMARIES);
        Files.createDirectories(graphsDir);
        Files.createDirectories(summariesDir);
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.log = log;
        this.logProvider = new Log4jLogProvider(log);
        this.maxOffHeap = Long.getLong("heapload.import.maxOffHeap", OfflineImporter.DEFAULT_MAX_OFF_HEAP);
        this.importPageCache = Long.getLong("heapload.import.pageCache", OfflineImporter.DEFAULT_IMPORT_PAGE_CACHE);
        this.catalog = Catalog.read(dir);
    }

    /**
     * Opens the store in {@code dir}, creating the directory when needed, and finishes or removes whatever an
     * earlier process left half done. Does not start Neo4j.
     *
     * @throws StoreInUseException when another process has the store open (with the Bolt URI when that process is
     *                             {@code heapload serve}: {@link #SERVING})
     * @throws IOException         when {@code dir} is a file or a non-empty directory that is not a store, or on
     *                             file-system errors
     */
    public static GraphStore open(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        if (Files.exists(abs) && !Files.isDirectory(abs)) {
            throw new IOException(abs + " is not a directory");
        }
        if (Files.isDirectory(abs) && !Files.exists(abs.resolve(Catalog.FILE)) && !Files.exists(abs.resolve(LOCK))) {
            try (Stream<Path> files = Files.list(abs)) {
                if (files.findAny().isPresent()) {
                    throw new IOException(abs + " is not a heapload store (not empty, no " + Catalog.FILE + ")");
                }
            }
        }
        Files.createDirectories(abs.resolve(SNAPSHOTS));
        FileChannel channel = FileChannel.open(abs.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        PrintStream log = null;
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                lock = afterDaemonStopped(abs, channel);
            }
            if (lock == null) {
                throw inUse(abs);
            }
            // this process holds the lock, so nothing serves the store: a serving file is a killed server's
            Files.deleteIfExists(abs.resolve(SERVING));
            Files.deleteIfExists(abs.resolve(SERVE_PASSWORD));
            log = new PrintStream(new FileOutputStream(abs.resolve(LOG).toFile(), true), true, StandardCharsets.UTF_8);
            GraphStore store = new GraphStore(abs, channel, lock, log);
            try {
                store.holder("heapload");
                store.recover();
                store.migrate();
            } catch (IOException | RuntimeException e) {
                store.close();
                throw e;
            }
            return store;
        } catch (IOException | RuntimeException e) {
            if (log != null) {
                log.close();
            }
            channel.close();
            throw e;
        }
    }

    /**
     * When the query daemon holds the store and a {@link #setDaemonStopper stopper} is set: asks it to stop (one
     * notice) and waits for the lock.
     *
     * @return the lock, or null when no daemon holds the store or it did not stop in time
     */
    private static FileLock afterDaemonStopped(Path abs, FileChannel channel) throws IOException {
        java.util.function.Predicate<Path> stopper = daemonStopper;
        java.util.OptionalLong pid = daemonHolding(abs);
        if (stopper == null || pid.isEmpty()) {
            return null;
        }
        // a daemon that cannot be asked is stopping already (idle): wait for it all the same
        notices.accept("the query daemon (pid " + pid.getAsLong() + ") holds the store " + abs
            + (stopper.test(abs) ? "; asked it to stop first" : "; waiting for it to stop"));
        long deadline = System.nanoTime() + DAEMON_STOP_WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                FileLock lock = channel.tryLock();
                if (lock != null) {
                    return lock;
                }
            } catch (OverlappingFileLockException e) {
                // a daemon in this process (tests) still holds it
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    /**
     * The pid of the live process holding store {@code dir} as the query daemon ({@link #DAEMON_HOLDER}, from the
     * lock file), or empty. Takes no lock.
     */
    public static java.util.OptionalLong daemonHolding(Path dir) {
        java.util.Properties holder = new java.util.Properties();
        try (var in = Files.newInputStream(dir.toAbsolutePath().normalize().resolve(LOCK))) {
            holder.load(in);
            long pid = Long.parseLong(holder.getProperty("pid", "-1"));
            if (DAEMON_HOLDER.equals(holder.getProperty("command", ""))
                && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return java.util.OptionalLong.of(pid);
            }
        } catch (IOException | RuntimeException e) {
            // no lock file, or one being written
        }
        return java.util.OptionalLong.empty();
    }

    /**
     * Names what this process does with the store in its lock file ({@code command=WHAT}), for the "in use" message
     * of other processes: e.g. {@link #DAEMON_HOLDER}.
     *
     * @param what lower-case letters and spaces, at most 40
     * @throws IllegalArgumentException for other text
     */
    public void holdAs(String what) {
        if (!what.matches("[a-z ]{1,40}")) {
            throw new IllegalArgumentException("holder must be lower-case words: " + what);
        }
        ensureOpen();
        holder(what);
    }

    /** Writes {@code text} to {@code file}, created (or replaced) with permissions 0600 where POSIX permissions exist. */
    private static void writePrivately(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(tmp, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static StoreInUseException inUse(Path abs) {
        String message = "store " + abs + " is in use by another heapload process (a load, heapload serve or the query daemon)";
        boolean query = false;
        java.util.Properties holder = new java.util.Properties();
        try (var in = Files.newInputStream(abs.resolve(LOCK))) {
            holder.load(in);
            long pid = Long.parseLong(holder.getProperty("pid", "-1"));
            String what = holder.getProperty("command", "");
            if (pid > 0 && what.matches("[a-z ]{1,40}")) {
                message = "store " + abs + " is in use by another heapload process (" + what + ", pid " + pid + ")";
                query = what.equals("a query");
            }
        } catch (IOException | RuntimeException e) {
            // an older heapload's empty lock file, or one being written: the plain message
        }
        java.util.Properties serving = new java.util.Properties();
        try (var in = Files.newInputStream(abs.resolve(SERVING))) {
            serving.load(in);
            long pid = Long.parseLong(serving.getProperty("pid", "-1"));
            int bolt = Integer.parseInt(serving.getProperty("bolt", "-1"));
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (alive && bolt > 0 && bolt <= 65535) {
                String password = null;
                if (Files.isRegularFile(abs.resolve(SERVE_PASSWORD))) {
                    password = Files.readString(abs.resolve(SERVE_PASSWORD), StandardCharsets.UTF_8).strip();
                }
                return new StoreInUseException("store " + abs + " is being served by heapload serve (pid " + pid
                    + ", bolt://localhost:" + bolt + ")", "bolt://localhost:" + bolt, pid, false, password);
            }
        } catch (IOException | RuntimeException e) {
            // no server, or a file being written: the plain message
        }
        return new StoreInUseException(message, null, -1, query);
    }

    /**
     * {@link #open}, but while another process holds the store for a query ({@link StoreInUseException#heldByQuery})
     * waits for it, trying again every 100 ms for at most {@code max}, and tells {@code waiting} once (with the
     * in-use message) when it starts to wait. Two {@code heapload query} on one store thus both run, one after the
     * other: Neo4j lets one process at a time open a store, so there is no shared read lock.
     *
     * @throws StoreInUseException when a load or {@code heapload serve} holds the store, or a query still does after
     *                             {@code max}
     * @throws IOException         as {@link #open}
     */
    public static GraphStore openWaiting(Path dir, java.time.Duration max,
                                         java.util.function.Consumer<String> waiting) throws IOException {
        long deadline = System.nanoTime() + max.toNanos();
        boolean told = false;
        while (true) {
            try {
                return open(dir);
            } catch (StoreInUseException e) {
                if (!e.heldByQuery() || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                if (!told) {
                    waiting.accept(e.getMessage());
                    told = true;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * True when {@code dir} holds a store: a directory with a committed catalog (at least one load or delete
     * finished there). Reads nothing else and takes no lock.
     */
    public static boolean isStore(Path dir) {
        return Files.isRegularFile(dir.resolve(Catalog.FILE));
    }

    /** The store directory (absolute). */
    public Path directory() {
        return dir;
    }

    /** The snapshots in the store, in load order (a replaced snapshot keeps its place). */
    public List<SnapshotSummary> snapshots() {
        ensureOpen();
        List<SnapshotSummary> list = new ArrayList<>();
        for (Catalog.Entry e : catalog.entries) {
            list.add(e.summary());
        }
        return list;
    }

    /** The snapshot with this id, if the store holds it. */
    public Optional<SnapshotSummary> snapshot(String id) {
        ensureOpen();
        Catalog.Entry e = catalog.find(id);
        return e == null ? Optional.empty() : Optional.of(e.summary());
    }

    /**
     * Reads the heap model and analysis of a stored snapshot back from {@code DIR/snapshots/<id>.hsnap} (for figures
     * that need the model, such as the icicle graph of a report). Costs about as much memory as the load did.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws IOException when the file cannot be read or is damaged
     */
    public HeapSnapshot model(String id) throws IOException {
        ensureOpen();
        Catalog.Entry e = catalog.find(id);
        if (e == null) {
            throw new SnapshotNotFoundException(id, dir.toString());
        }
        if (e.pruned()) {
            throw new SnapshotPrunedException(id, dir.toString());
        }
        return HeapSnapshotFile.read(snapshotsDir.resolve(e.file()));
    }

    /**
     * Every snapshot of the store in load order, pruned ones included, with the comparisons its load made (totals and
     * largest leak groups) as its summary keeps them: the leak history of {@code heapload trend --leak} and of the
     * report. Reads the summary files (a few KiB each), nothing else.
     *
     * @throws IOException when a summary file is missing or damaged (the message names it)
     */
    public List<SnapshotHistory> history() throws IOException {
        ensureOpen();
        List<SnapshotHistory> out = new ArrayList<>(catalog.entries.size());
        for (Catalog.Entry e : catalog.entries) {
            StoredSummary s = StoredSummary.read(summariesDir.resolve(e.summaryFile()));
            out.add(new SnapshotHistory(e.summary(), e.pruned(), s.comparisons()));
        }
        return out;
    }

    /** True when snapshot {@code id} is in the store but was pruned (graph and model dropped, figures kept). */
    public boolean isPruned(String id) {
        ensureOpen();
        Catalog.Entry e = catalog.find(id);
        return e != null && e.pruned();
    }

    /** The store's baseline setting (every load is also compared with it), if set. */
    public Optional<String> baseline() {
        ensureOpen();
        return Optional.ofNullable(catalog.baseline);
    }

    /**
     * Sets (or with null clears) the store's baseline: every later load also compares its snapshot with this one, and
     * {@link #prune} keeps it. All or nothing (a catalog commit).
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     */
    public void setBaseline(String id) throws IOException {
        ensureOpen();
        if (id != null) {
            entryWithGraph(id);
        }
        if (java.util.Objects.equals(id, catalog.baseline)) {
            return;
        }
        commitOnly(catalog.withBaseline(id), "baseline");
    }

    /**
     * Drops the graphs and models of all snapshots but the last {@code keepLast} in load order, those in {@code keep}
     * and the store's baseline; their figures (summary: objects, bytes, VM bytes, reachable, per category and type)
     * stay, so {@code heapload trend} still lists them. A query, comparison or model read that needs a pruned
     * snapshot's objects fails with a {@link SnapshotPrunedException}. All or nothing: one catalog commit, after which
     * the files are removed (or on the next open, if the process dies first).
     *
     * @param keepLast how many of the newest snapshots keep their graphs (at least 1)
     * @return the ids pruned now
     * @throws SnapshotNotFoundException when an id of {@code keep} is not in the store (nothing changed)
     * @throws IllegalArgumentException  when {@code keepLast < 1}
     */
    public List<String> prune(int keepLast, java.util.Collection<String> keep) throws IOException {
        ensureOpen();
        if (keepLast < 1) {
            throw new IllegalArgumentException("--keep-last must be at least 1 (got " + keepLast + ")");
        }
        for (String id : keep) {
            if (catalog.find(id) == null) {
                throw new SnapshotNotFoundException(id, dir.toString());
            }
        }
        holder("a prune");
        List<Catalog.Entry> list = new ArrayList<>();
        List<String> pruned = new ArrayList<>();
        int n = catalog.entries.size();
        for (int i = 0; i < n; i++) {
            Catalog.Entry e = catalog.entries.get(i);
            boolean kept = i >= n - keepLast || keep.contains(e.id()) || e.id().equals(catalog.baseline);
            if (!kept && !e.pruned()) {
                pruned.add(e.id());
                e = e.asPruned();
            }
            list.add(e);
        }
        if (!pruned.isEmpty()) {
            commitOnly(new Catalog(catalog.generation + 1, list, catalog.baseline, false), "prune");
        }
        return pruned;
    }

    /**
     * {@link #model} without opening the store: reads the catalog and the snapshot's file of the store in {@code dir}
     * while another process holds it ({@code heapload serve}, which only reads; a load replaces files by renaming,
     * so a file that is being replaced is read whole or not found).
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned (its file is gone; {@code heapload query paths} and
     *                                   {@code export --devtools} on it say so in one line, not "no such file")
     * @throws IOException when the catalog or file cannot be read or is damaged
     */
    public static HeapSnapshot readModel(Path dir, String id) throws IOException {
        return StoredSnapshots.open(dir).model(id);
    }

    /**
     * Adds {@code snapshot} (id {@code snapshot.info().id()}) to the store, with its analysis when
     * {@code snapshot.analysis()} is a {@link HeapAnalysis}, and builds its graph. All or nothing: when this
     * throws (or the process is interrupted), the store is as before. Closes the DBMS of {@link #database()}
     * first; the next {@link #database()} call opens the new graph.
     *
     * @param replace  replace a snapshot with the same id instead of refusing
     * @param progress phases {@code "compare"} (pairs), {@code "import"} (%), {@code "index"} (%); the snapshot files are written while the indexes populate
     * @throws SnapshotExistsException when the id exists and {@code replace} is false (nothing was written)
     * @throws IllegalArgumentException when the id is empty or the analysis arrays do not match the object count
     * @throws IOException on file-system or import errors, or a damaged snapshot file of another snapshot
     */
    public void load(HeapSnapshot snapshot, boolean replace, Progress progress) throws SnapshotExistsException, IOException {
        load(List.of(snapshot), replace, progress);
    }

    /**
     * Adds several snapshots in one commit (one graph each), in list order, the last also compared with the first; all or
     * nothing for the whole list. Otherwise as {@link #load(HeapSnapshot, boolean, Progress)}.
     *
     * @throws IllegalArgumentException also when two snapshots of the list have the same id
     */
    public void load(List<HeapSnapshot> snapshots, boolean replace, Progress progress)
        throws SnapshotExistsException, IOException {
        load(snapshots, replace, null, progress);
    }

    /**
     * {@link #load(List, boolean, Progress)} that also sets the store's baseline setting to {@code baseline} (a
     * snapshot of the store or of {@code snapshots}) in the same commit: the setting changes only if the load
     * commits, and the loaded snapshots are compared with it as with a baseline set before. {@code null} keeps the
     * setting as it is.
     *
     * @throws SnapshotNotFoundException when {@code baseline} is neither in the store nor loaded now (nothing written)
     * @throws SnapshotPrunedException   when {@code baseline} was pruned (nothing written)
     */
    public void load(List<HeapSnapshot> snapshots, boolean replace, String baseline, Progress progress)
        throws SnapshotExistsException, IOException {
        ensureOpen();
        if (baseline != null && snapshots.stream().noneMatch(s -> baseline.equals(s.info().id()))) {
            entryWithGraph(baseline);
        }
        holder("a load");
        Map<Catalog.Entry, HeapSnapshot> added = new LinkedHashMap<>();
        Catalog next = catalog;
        Set<String> ids = new HashSet<>();
        for (HeapSnapshot snapshot : snapshots) {
            String id = snapshot.info().id();
            if (id == null || id.isEmpty()) {
                throw new IllegalArgumentException("snapshot id is empty");
            }
            if (!ids.add(id)) {
                throw new IllegalArgumentException("snapshot id '" + id + "' given twice");
            }
            checkAnalysis(snapshot);
            if (catalog.find(id) != null && !replace) {
                throw new SnapshotExistsException(id, dir.toString());
            }
        }
        for (HeapSnapshot snapshot : snapshots) {
            added.put(entryOf(snapshot), snapshot);
        }
        long generation = catalog.generation + 1;
        Map<Catalog.Entry, HeapSnapshot> withGraphs = new LinkedHashMap<>();
        for (var a : added.entrySet()) {
            Catalog.Entry e = a.getKey().withGraph(Catalog.graphDirectory(a.getKey().file(), generation));
            next = next.with(e);
            withGraphs.put(e, a.getValue());
        }
        next = next.withGeneration(generation);
        if (baseline != null) {
            next = next.withBaseline(baseline).withGeneration(generation);
        }
        build(next, withGraphs, List.of(), progress,
            (replace ? "loading (or replacing) " : "loading ") + idList(added.keySet()));
    }

    private static String idList(java.util.Collection<Catalog.Entry> entries) {
        List<String> ids = new ArrayList<>();
        for (Catalog.Entry e : entries) {
            ids.add("'" + e.id() + "'");
        }
        return ids.size() <= 3 ? String.join(", ", ids) : ids.size() + " snapshots";
    }

    /** The catalog entry of {@code snapshot} as loaded now: its summary (loadedAt = now, in ms), file name, categories. */
    public static Catalog.Entry entryOf(HeapSnapshot snapshot) {
        String id = snapshot.info().id();
        long objectBytes = snapshot.totalShallowBytes();
        long vmTotal = snapshot.info().vmTotalBytes();
        SnapshotSummary summary = new SnapshotSummary(id, snapshot.info().vm(), snapshot.info().source(),
            snapshot.info().sha256(), Instant.now().truncatedTo(ChronoUnit.MILLIS), snapshot.objectCount(),
            snapshot.referenceCount(), vmTotal >= 0 ? vmTotal : objectBytes, objectBytes,
            snapshot.analysis() instanceof HeapAnalysis, snapshot.info().producer(), snapshot.info().vmVersion());
        return new Catalog.Entry(summary, Catalog.fileNameFor(id), snapshot.info().categories().size(),
            snapshot.danglingReferences().missingCount());
    }

    /** {@link #delete(String, Progress)} without progress reports. */
    public void delete(String id) throws IOException {
        delete(id, Progress.NONE);
    }

    /**
     * Removes snapshot {@code id}: its graph, model and summary, in one catalog commit (nothing is rebuilt; the other
     * graphs drop its summary nodes and the comparisons against it when next opened). All or nothing.
     *
     * @param progress unused (kept for callers)
     * @throws SnapshotNotFoundException when the store has no such snapshot (nothing changed)
     * @throws IOException on file-system or import errors
     */
    public void delete(String id, Progress progress) throws IOException {
        ensureOpen();
        holder("a snapshot delete");
        if (catalog.find(id) == null) {
            throw new SnapshotNotFoundException(id, dir.toString());
        }
        commitOnly(catalog.without(id), "delete");
    }

    /**
     * Queries that read only the {@code Snapshot}, {@code Category} and {@code Stats} nodes, which every snapshot's
     * graph holds for all snapshots of the store (pruned ones included): {@link #databaseFor} runs them on whichever
     * graph is open instead of starting another.
     */
    public static final Set<String> SUMMARY_QUERIES = Set.of("snapshot", "summary", "type-histogram", "unreachable",
        "trend", "trend-categories");

    /**
     * The graph of the newest snapshot that has one (not pruned), for queries: see {@link #database(String)}. Builds an
     * empty graph first when the store holds no snapshot.
     *
     * @throws IOException when a graph had to be built and that failed
     */
    public GraphDatabaseService database() throws IOException {
        ensureOpen();
        String newest = newestWithGraph();
        if (newest == null) {
            if (db != null && openSnapshot == null) {
                return db;
            }
            closeDatabase();
            Path empty = graphsDir.resolve("empty");
            if (!Files.isDirectory(empty)) {
                List<GraphInput.Part> parts = new ArrayList<>();
                long[] orders = new long[catalog.entries.size()];
                for (int i = 0; i < orders.length; i++) {
                    Catalog.Entry e = catalog.entries.get(i);
                    parts.add(GraphInput.Part.summaryOnly(e, summaryOf(e, Map.of()), false));
                    orders[i] = i;
                }
                Path building = dir.resolve(BUILDING + "empty");
                deleteRecursively(building);
                OfflineImporter.importGraph(building, logsDir, new GraphInput(parts, List.of(), orders), log, logProvider,
                    maxOffHeap, importPageCache, Progress.NONE, () -> {
                    });
                Files.move(building, empty, StandardCopyOption.ATOMIC_MOVE);
            }
            startDatabase(empty, serverSettings);
            openSnapshot = null;
            return db;
        }
        return database(newest);
    }

    /** The id of the last snapshot in load order that is not pruned, or null. */
    private String newestWithGraph() {
        for (int i = catalog.entries.size() - 1; i >= 0; i--) {
            if (!catalog.entries.get(i).pruned()) {
                return catalog.entries.get(i).id();
            }
        }
        return null;
    }

    /**
     * The graph of snapshot {@code id}, for queries: its objects, references and precomputed nodes, the comparisons
     * with it as the target, and the {@code Snapshot}, {@code Category} and {@code Stats} nodes of every other snapshot
     * of the store (docs/store.md). Read-only (a write fails with {@code WriteOperationsNotAllowedException} and
     * changes nothing), {@code LOAD CSV} of files and URLs refused, {@code dbms.*} configuration procedures removed
     * ({@link EmbeddedDbms#readOnlySettings}). Starts the embedded DBMS on that graph (about 4 s in a fresh JVM; page
     * cache sized to the graph), stopping one started for another snapshot, and keeps it until {@link #close()}, the
     * next load, delete or prune, or a call for another snapshot. Builds the snapshot's graph first when it has none
     * (a store converted from the one-graph layout) or an older heapload built it with another
     * {@link GraphSchema#VERSION}, telling {@link #setNotices notices} so; brings the other snapshots' summary nodes up
     * to date with the catalog (loads, deletes and replaces since the graph was built) in one transaction. Do not shut
     * it down yourself.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     * @throws IOException               when its graph had to be built and that failed
     */
    public GraphDatabaseService database(String id) throws IOException {
        ensureOpen();
        if (holder.equals("heapload")) {
            holder("a query");
        }
        Catalog.Entry e = entryWithGraph(id);
        if (db != null && id.equals(openSnapshot)) {
            return db;
        }
        Parked kept = parked.remove(id);
        parkOrCloseCurrent();
        if (kept != null) {
            dbms = kept.dbms();
            db = kept.db();
            openSnapshot = id;
            return db;
        }
        if (!e.hasCurrentGraph() || !Files.isDirectory(graphsDir.resolve(e.graph()))) {
            String why = e.graph() == null
                ? "building the graph of snapshot '" + id + "' from its stored model (first query since the store was"
                    + " converted to one graph per snapshot)"
                : "the graph of snapshot '" + id + "' was built by another heapload version (graph schema "
                    + e.graphSchema() + ", now " + GraphSchema.VERSION + "): rebuilding it from its stored model";
            log.println("heapload: " + why);
            notices.accept(why);
            buildGraph(e);
            e = catalog.find(id);
        }
        Path home = graphsDir.resolve(e.graph());
        startDatabase(home, serverSettings);
        openSnapshot = id;
        if (!summariesCurrent(id)) {
            closeCurrent();
            startDatabase(home, Map.of(GraphDatabaseSettings.read_only_database_default, false));
            try {
                writeSummaries(id);
            } finally {
                closeCurrent();
            }
            startDatabase(home, serverSettings);
            openSnapshot = id;
        }
        return db;
    }

    /**
     * The graph a saved query with these parameters reads: {@code target} names it, else {@code snapshot}; a query of
     * {@link #SUMMARY_QUERIES} (or one naming no snapshot) runs on the graph already open, else the named snapshot's or
     * the newest. With a non-empty {@code baseline}, the pair is compared first if it has not been
     * ({@link #compare}).
     *
     * @param queryName the saved query's name (for {@link #SUMMARY_QUERIES}); any other name is treated as reading
     *                  objects
     * @param params    its bound parameters
     * @throws SnapshotPrunedException when the query needs a pruned snapshot's objects or comparisons
     * @throws IOException             as {@link #database(String)} and {@link #compare}
     */
    public GraphDatabaseService databaseFor(String queryName, Map<String, Object> params) throws IOException {
        ensureOpen();
        String baseline = text(params.get("baseline"));
        String id = queriedSnapshot(params);
        if (id == null || SUMMARY_QUERIES.contains(queryName) || catalog.find(id) == null) {
            if (db != null) {
                return db;
            }
            Catalog.Entry e = id == null ? null : catalog.find(id);
            return e != null && !e.pruned() ? database(id) : database();
        }
        if (baseline != null && catalog.find(baseline) != null) {
            compare(baseline, id);
        }
        return database(id);
    }

    /**
     * True when {@link #databaseFor} with these arguments would return the graph already open without starting,
     * building, updating or comparing anything (the same snapshot's graph, and a pair already known to be compared),
     * so a caller running several queries on threads of its own may run this one beside the others. False when no
     * graph is open.
     */
    public boolean opensNothingFor(String queryName, Map<String, Object> params) {
        ensureOpen();
        if (db == null) {
            return false;
        }
        String baseline = text(params.get("baseline"));
        String id = queriedSnapshot(params);
        if (id == null || SUMMARY_QUERIES.contains(queryName) || catalog.find(id) == null) {
            return true;
        }
        if (!id.equals(openSnapshot) && !parked.containsKey(id)) {
            return false;
        }
        return baseline == null || catalog.find(baseline) == null || comparedPairs.contains(baseline + "\0" + id);
    }

    /**
     * The snapshot whose graph a saved query with these bound parameters reads: {@code target}, else
     * {@code snapshot}; null when it names neither (empty strings count as not named). The rule of
     * {@link #databaseFor}, for callers that route a query elsewhere (a served store).
     */
    public static String queriedSnapshot(Map<String, Object> params) {
        String target = text(params.get("target"));
        return target != null ? target : text(params.get("snapshot"));
    }

    private static String text(Object value) {
        return value instanceof String s && !s.isEmpty() ? s : null;
    }

    private Catalog.Entry entryWithGraph(String id) throws IOException {
        return catalog.withModel(id, dir.toString());
    }

    /**
     * Makes sure the graph of {@code target} holds the comparison of the pair (what is new in {@code target} relative
     * to {@code baseline}: {@code Diff}, {@code NewObjects}, {@code LeakGroup}, {@code EXAMPLE}, {@code GREW}). A load
     * compares each new snapshot with the previous one and the store's baseline; any other pair is compared here on
     * its first request, from the two stored models, and written into the target's graph in one transaction (all or
     * nothing), with a one-line notice; later requests reuse it. Costs about one read of each model plus the compare
     * phase of a load of the pair.
     *
     * @return true when the pair was compared now, false when it already was (or either snapshot is not analysed)
     * @throws SnapshotNotFoundException when either snapshot is not in the store
     * @throws SnapshotPrunedException   when either was pruned and the pair was not compared before
     * @throws IOException               on a damaged model file or a failed write (the graph is unchanged)
     */
    public boolean compare(String baseline, String target) throws IOException {
        ensureOpen();
        Catalog.Entry b = catalog.find(baseline);
        if (b == null) {
            throw new SnapshotNotFoundException(baseline, dir.toString());
        }
        Catalog.Entry t = entryWithGraph(target);
        if (baseline.equals(target) || !b.summary().analysed() || !t.summary().analysed()) {
            if (target.equals(openSnapshot)) {
                comparedPairs.add(baseline + "\0" + target);
            }
            return false;
        }
        GraphDatabaseService graph = database(target);
        boolean present;
        try (org.neo4j.graphdb.Transaction tx = graph.beginTx()) {
            try (var r = tx.execute("MATCH (d:Diff {baseline: $b, target: $t}) RETURN count(d) AS n",
                Map.of("b", baseline, "t", target))) {
                present = ((Number) r.next().get("n")).longValue() > 0;
            }
        }
        if (present) {
            comparedPairs.add(baseline + "\0" + target);
            return false;
        }
        if (b.pruned()) {
            throw new SnapshotPrunedException(baseline, dir.toString());
        }
        String holderBefore = holder;
        holder("a comparison");
        String line = "comparing '" + target + "' with '" + baseline + "' (first request for this pair; kept for later)";
        log.println("heapload: " + line);
        notices.accept(line);
        HeapSnapshot baselineModel = HeapSnapshotFile.read(snapshotsDir.resolve(b.file()));
        HeapSnapshot targetModel = HeapSnapshotFile.read(snapshotsDir.resolve(t.file()));
        SnapshotComparison comparison = SnapshotComparison.compute(baselineModel, targetModel, targetModel.analysis());
        baselineModel = null;
        List<GraphInput.Part> parts = List.of(
            new GraphInput.Part(t, () -> {
                throw new IOException("stored part");
            }, null, true),
            GraphInput.Part.summaryOnly(b, summaryOf(b, Map.of()), true));
        GraphInput input = new GraphInput(parts, List.of(new GraphInput.Pair(1, 0, comparison)), new long[] {0, 0});
        Path home = graphsDir.resolve(t.graph());
        closeCurrent();
        startDatabase(home, Map.of(GraphDatabaseSettings.read_only_database_default, false));
        try (org.neo4j.graphdb.Transaction tx = db.beginTx()) {
            EmbeddedGraphWriter.write(input, tx, targetModel.objectCount(), target,
                Map.of(input.snapshotNode(0), target, input.snapshotNode(1), baseline));
            buildHook.reached("compared");
            tx.commit();
        } finally {
            closeCurrent();
            holder(holderBefore);
        }
        startDatabase(home, serverSettings);
        openSnapshot = target;
        comparedPairs.add(baseline + "\0" + target);
        return true;
    }

    /** True when the Snapshot nodes of {@code id}'s open graph are the catalog's (ids, loadedAt, loadOrder). */
    private boolean summariesCurrent(String id) {
        Map<String, Object[]> found = new java.util.HashMap<>();
        try (org.neo4j.graphdb.Transaction tx = db.beginTx();
             var r = tx.execute("MATCH (s:Snapshot) RETURN s.id AS id, s.loadedAt AS at, s.loadOrder AS lo")) {
            while (r.hasNext()) {
                var row = r.next();
                found.put((String) row.get("id"), new Object[] {row.get("at"), row.get("lo")});
            }
        }
        if (found.size() != catalog.entries.size()) {
            return false;
        }
        for (int i = 0; i < catalog.entries.size(); i++) {
            Catalog.Entry e = catalog.entries.get(i);
            Object[] f = found.get(e.id());
            if (f == null || !(f[0] instanceof java.time.ZonedDateTime at) || !at.toInstant().equals(e.summary().loadedAt())
                || !(f[1] instanceof Number lo) || lo.longValue() != i) {
                return false;
            }
        }
        return true;
    }

    /**
     * Brings the other snapshots' summary nodes of {@code id}'s graph (open, writable) to the catalog's state in one
     * transaction: removes those of deleted or replaced snapshots with the comparisons against them, adds the missing
     * ones from their stored summaries, renumbers {@code loadOrder}.
     */
    private void writeSummaries(String id) throws IOException {
        Map<String, java.time.Instant> inGraph = new java.util.HashMap<>();
        try (org.neo4j.graphdb.Transaction tx = db.beginTx()) {
            try (var r = tx.execute("MATCH (s:Snapshot) RETURN s.id AS id, s.loadedAt AS at")) {
                while (r.hasNext()) {
                    var row = r.next();
                    inGraph.put((String) row.get("id"), row.get("at") instanceof java.time.ZonedDateTime z
                        ? z.toInstant() : null);
                }
            }
            List<GraphInput.Part> parts = new ArrayList<>();
            List<Long> orders = new ArrayList<>();
            Catalog.Entry self = catalog.find(id);
            parts.add(new GraphInput.Part(self, () -> {
                throw new IOException("stored part");
            }, null, true));
            orders.add(0L);
            for (var g : new ArrayList<>(inGraph.entrySet())) {
                Catalog.Entry e = catalog.find(g.getKey());
                if (g.getKey().equals(id)) {
                    continue;
                }
                if (e == null || !e.summary().loadedAt().equals(g.getValue())) {
                    Map<String, Object> p = Map.of("id", g.getKey());
                    tx.execute("MATCH (d:Diff {baseline: $id}) OPTIONAL MATCH (d)-[:HAS_NEW_OBJECTS|HAS_LEAK_GROUP]->(x)"
                        + " DETACH DELETE x, d", p).close();
                    tx.execute("MATCH (s:Snapshot {id: $id}) OPTIONAL MATCH (s)-[:HAS_STATS|HAS_CATEGORY]->(x)"
                        + " DETACH DELETE x, s", p).close();
                    inGraph.remove(g.getKey(), g.getValue());
                }
            }
            for (Catalog.Entry e : catalog.entries) {
                if (!e.id().equals(id) && (!inGraph.containsKey(e.id())
                    || !e.summary().loadedAt().equals(inGraph.get(e.id())))) {
                    parts.add(GraphInput.Part.summaryOnly(e, summaryOf(e, Map.of()), false));
                    orders.add(0L);
                }
            }
            if (parts.size() > 1) {
                long[] o = new long[orders.size()];
                GraphInput input = new GraphInput(parts, List.of(), o);
                EmbeddedGraphWriter.write(input, tx, self.summary().objectCount(), id, Map.of());
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = 0; i < catalog.entries.size(); i++) {
                rows.add(Map.of("id", catalog.entries.get(i).id(), "lo", (long) i));
            }
            tx.execute("UNWIND $rows AS r MATCH (s:Snapshot {id: r.id}) SET s.loadOrder = r.lo",
                Map.of("rows", rows)).close();
            buildHook.reached("summaries");
            tx.commit();
        }
    }

    /** The stored summary of {@code e}: from {@code computed} (this build's snapshots) or its file. */
    private StoredSummary summaryOf(Catalog.Entry e, Map<String, StoredSummary> computed) throws IOException {
        StoredSummary s = computed.get(e.id());
        return s != null ? s : StoredSummary.read(summariesDir.resolve(e.summaryFile()));
    }

    /**
     * Starts the embedded DBMS on {@code home} with {@code extra} settings (see {@link #database(String)}), with the
     * disk-space checks and the watchdog of a start on a full disk.
     */
    private void startDatabase(Path home, Map<Setting<?>, Object> extra) throws IOException {
        OfflineImporter.repairServerId(home, log);
        String system = GraphDatabaseSettings.SYSTEM_DATABASE_NAME;
        Path systemDb = home.resolve("data").resolve("databases").resolve(system);
        Path systemTx = home.resolve("data").resolve("transactions").resolve(system);
        boolean hadSystem = Files.isDirectory(systemDb);
        long startNeeds = hadSystem ? DiskSpace.RESTART : DiskSpace.FIRST_START;
        long freeAtStart = DiskSpace.usable(dir);
        if (freeAtStart >= 0 && freeAtStart < startNeeds) {
            throw new DiskFullException("not enough disk space in " + dir + " to start the graph's database: "
                + DiskSpace.bytes(freeAtStart) + " free, about " + DiskSpace.bytes(startNeeds)
                + " needed; the store is unchanged", dir, freeAtStart, startNeeds, null);
        }
        // Neo4j retries a failed flush of a store file it closes forever (MuninnPageCache
        // flushAndCloseWithoutFail): a start that fills the disk would hang, so a watchdog ends it
        DiskWatchdog watchdog = new DiskWatchdog(dir, Thread.currentThread(), () -> {
            if (!hadSystem) {
                deleteQuietly(systemDb);
                deleteQuietly(systemTx);
            }
        }, log, () -> "disk full in " + dir + " while starting the graph's database: "
            + DiskSpace.bytes(Math.max(0, freeAtStart)) + " free at the start, about "
            + DiskSpace.bytes(startNeeds) + " needed; the store is unchanged");
        PrintStream terminal = System.err;
        OfflineImporter.PanicFilter traces = new OfflineImporter.PanicFilter(terminal, log);
        System.setErr(traces);
        try {
            dbms = EmbeddedDbms.start(home, logsDir, logProvider, pageCacheFor(home), extra, serverSettingsByName);
            db = dbms.database(DATABASE);
        } catch (RuntimeException e) {
            watchdog.stop();
            System.setErr(terminal);
            PortInUseException inUse = PortInUseException.find(e, serverPorts);
            if (inUse != null) {
                closeCurrent();
                throw inUse;
            }
            if (DiskSpace.isDiskFull(e) || (freeAtStart >= 0 && freeAtStart < DiskWatchdog.FULL_BELOW)) {
                // a first start on a full disk: what it began to write is removed, so the next start is a
                // first start again (the system database, the server id; the graph itself is opened as is)
                log.println("heapload: disk full while starting the graph's database: " + e);
                try {
                    closeCurrent();
                } catch (RuntimeException ignored) {
                    // shutting down a half-started DBMS
                }
                if (!hadSystem) {
                    deleteQuietly(systemDb);
                    deleteQuietly(systemTx);
                }
                OfflineImporter.repairServerId(home, log);
                throw new DiskFullException("disk full in " + dir + ": the graph's database could not start with "
                    + DiskSpace.bytes(Math.max(0, freeAtStart)) + " free (its first start needs about "
                    + DiskSpace.bytes(DiskSpace.FIRST_START) + "); the store is unchanged", dir, freeAtStart,
                    DiskSpace.FIRST_START, e);
            }
            throw e;
        } finally {
            watchdog.stop();
            if (System.err == traces) {
                System.setErr(terminal);
            }
        }
    }

    /**
     * Serves the graph to other programs on this machine: (re)starts the DBMS of {@link #database()} with Bolt on
     * {@code 127.0.0.1:boltPort} and HTTP on {@code 127.0.0.1:httpPort} (loopback only, advertised as
     * {@code localhost}), authentication disabled, HTTPS off, CORS for Browser's own origin
     * {@code http://localhost:httpPort} only; read-only, without file or URL access and {@code dbms.*} configuration
     * procedures like every DBMS of {@link #database()} ({@link EmbeddedDbms#readOnlySettings}). Neo4j Browser is on
     * {@code http://localhost:httpPort/browser/} when the {@code org.neo4j.client:neo4j-browser} jar is on the class
     * path (the cli module has it). The server runs until {@link #close()}, which stops it in one to a few seconds
     * (the Bolt connectors' 5 s shutdown waits are set to zero); the
     * store lock stays held until then, so no other process can load into or delete from the store meanwhile. A
     * {@link #load} or {@link #delete} by this process stops it, and the next {@link #database()} call starts it
     * again on the same ports. Starting takes about 6 s in a fresh JVM on a quiet machine
     * (shared/docs/neo4j-measurements.md §1).
     *
     * <p>Once the server accepts connections it writes {@link #SERVING} (this process's id and the ports) into the
     * store directory; {@link #close()} deletes it.
     *
     * @param boltPort TCP port for Bolt (Neo4j's default is 7687)
     * @param httpPort TCP port for HTTP and Browser (Neo4j's default is 7474)
     * @return the served database, as {@link #database()} returns it
     * @throws PortInUseException when another process listens on one of the ports (the store stays open, the
     *                            DBMS stopped; nothing is served)
     * @throws IOException        as {@link #database()}
     */
    public GraphDatabaseService serve(int boltPort, int httpPort) throws IOException {
        return serve(boltPort, httpPort, null);
    }

    /**
     * {@link #serve(int, int)} with authentication when {@code password} is not null: user {@code neo4j} gets
     * {@code password} (set on a first start without connectors, so no client ever sees Neo4j's default password;
     * that start adds about as long again as serving takes to start), and the password is written to
     * {@link #SERVE_PASSWORD} in the store directory, created readable and writable by this user only (POSIX
     * {@code 0600}; on other file systems the directory's permissions apply), for {@code cypher-shell}, drivers and
     * the heapload commands that use a served store ({@link StoreInUseException#servedPassword}). {@link #close()}
     * deletes it.
     *
     * @param password the password for user {@code neo4j}, or null for no authentication
     */
    public GraphDatabaseService serve(int boltPort, int httpPort, String password) throws IOException {
        return serve(boltPort, httpPort, password, Map.of());
    }

    /**
     * {@link #serve(int, int, String)} with further Neo4j settings, by name and value as in {@code neo4j.conf}: what
     * the serving program configures for its clients, e.g. {@code db.transaction.timeout} (a server-side limit on
     * every Bolt and HTTP transaction) or Neo4j Browser's {@code browser.post_connect_cmd}. They cannot undo the
     * read-only, no-file and loopback settings, which are applied after them. An unknown name fails the start
     * (Neo4j's strict configuration validation).
     *
     * @param settings setting name → value; empty for none
     */
    public GraphDatabaseService serve(int boltPort, int httpPort, String password, Map<String, String> settings)
        throws IOException {
        ensureOpen();
        if (boltPort == httpPort) {
            throw new IllegalArgumentException("Bolt and HTTP need different ports (both " + boltPort + ")");
        }
        closeDatabase();
        for (int port : new int[] {boltPort, httpPort}) {
            PortInUseException.check(port); // fail in milliseconds instead of after starting the databases
        }
        holder("heapload serve");
        try {
            if (password != null) {
                serverSettings = Map.of(GraphDatabaseSettings.auth_enabled, true);
                database();
                try (org.neo4j.graphdb.Transaction tx = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).beginTx()) {
                    tx.execute("ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                        Map.of("password", password)).close();
                    tx.commit();
                }
                closeDatabase();
                writePrivately(dir.resolve(SERVE_PASSWORD), password + "\n");
            }
            serverSettings = EmbeddedDbms.serverSettings(boltPort, httpPort, password != null);
            serverSettingsByName = Map.copyOf(settings);
            serverPorts = new int[] {boltPort, httpPort};
            GraphDatabaseService served = database();
            Path tmp = dir.resolve(SERVING + ".tmp");
            Files.writeString(tmp, "pid=" + ProcessHandle.current().pid() + "\nbolt=" + boltPort + "\nhttp=" + httpPort
                + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, dir.resolve(SERVING), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
            return served;
        } catch (IOException | RuntimeException e) {
            closeDatabase();
            serverSettings = Map.of();
            serverSettingsByName = Map.of();
            serverPorts = new int[0];
            Files.deleteIfExists(dir.resolve(SERVE_PASSWORD));
            throw e;
        }
    }

    /** Shuts the DBMS down (if started) and releases the store. Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            try {
                closeDatabase();
            } finally {
                if (serverPorts.length > 0) {
                    Files.deleteIfExists(dir.resolve(SERVING));
                }
                Files.deleteIfExists(dir.resolve(SERVE_PASSWORD));
            }
        } finally {
            try {
                logProvider.close();
                log.close();
            } finally {
                try {
                    lock.release();
                } finally {
                    lockChannel.close();
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /**
     * Writes this process's id and {@code what} it does ({@code heapload} while opening, {@code a load},
     * {@code a snapshot delete}, {@code a query}, {@code heapload serve}) into the lock file it holds, as {@code pid=} and {@code command=} lines,
     * for the "in use by another heapload process (a query, pid 123)" message of another process's {@link #open}. Best effort: a
     * failed write leaves the plain message.
     */
    private void holder(String what) {
        if (what.equals(holder)) {
            return;
        }
        holder = what;
        byte[] text = ("pid=" + ProcessHandle.current().pid() + "\ncommand=" + what + "\n")
            .getBytes(StandardCharsets.ISO_8859_1);
        try {
            lockChannel.truncate(0);
            lockChannel.write(java.nio.ByteBuffer.wrap(text), 0);
        } catch (IOException e) {
            // a full disk, say: the other process gets the plain message
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("store " + dir + " is closed");
        }
    }

    /**
     * Checks that {@code snapshot}'s analysis, when it has one, holds one entry per object in each of its arrays.
     *
     * @throws IllegalArgumentException when an array's length differs from the object count
     */
    public static void checkAnalysis(HeapSnapshot snapshot) {
        if (snapshot.analysis() instanceof HeapAnalysis a) {
            int n = snapshot.objectCount();
            if (a.reachable().length != n || a.distance().length != n || a.retainedBy().length != n
                || a.rootOf().length != n || a.immediateDominator().length != n || a.retainedSize().length != n) {
                throw new IllegalArgumentException("analysis of snapshot '" + snapshot.info().id()
                    + "' does not have one entry per object (" + n + ")");
            }
        }
    }

    /**
     * Converts a store of the one-graph layout (catalog format 1: one graph of all snapshots, every pair compared) to
     * one graph per snapshot: writes each snapshot's summary from its model, commits the new catalog (its snapshots
     * without graphs: each is built when first queried), and removes the old graph. One line to
     * {@link #setNotices notices}. All or nothing: interrupted before the commit, the store stays as it was (the
     * summaries written so far are reused).
     */
    private void migrate() throws IOException {
        if (!catalog.legacy) {
            return;
        }
        String line = "store " + dir + " has one graph of all " + catalog.entries.size() + " snapshot(s) (older"
            + " heapload): converting it to one graph per snapshot, every snapshot kept (each graph is built when first"
            + " queried; pairs are compared when first asked for)";
        log.println("heapload: " + line);
        notices.accept(line);
        for (Catalog.Entry e : catalog.entries) {
            Path file = summariesDir.resolve(e.summaryFile());
            if (Files.isRegularFile(file)) {
                continue;
            }
            HeapSnapshot model = HeapSnapshotFile.read(snapshotsDir.resolve(e.file()));
            SnapshotStatistics st = e.summary().analysed() && model.analysis() instanceof HeapAnalysis h
                ? SnapshotStatistics.compute(model, h) : null;
            Path tmp = summariesDir.resolve(e.summaryFile() + ".tmp");
            StoredSummary.of(model, st).write(tmp);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        buildHook.reached("migrate");
        Catalog next = new Catalog(catalog.generation + 1, catalog.entries, null, false);
        next.write(dir);
        catalog = next;
        recover();
    }

    /** Shuts down every started graph: the open one and those {@link #keepGraphs} kept. */
    private void closeDatabase() {
        try {
            closeCurrent();
        } finally {
            while (!parked.isEmpty()) {
                var eldest = parked.entrySet().iterator().next();
                parked.remove(eldest.getKey());
                dbms = eldest.getValue().dbms();
                db = eldest.getValue().db();
                closeCurrent();
            }
        }
    }

    /**
     * Keeps the open graph started beside the next one ({@link #keepGraphs} above 1; the least recently used beyond
     * that is shut down), else shuts it down.
     */
    private void parkOrCloseCurrent() {
        if (keepGraphs > 1 && dbms != null && openSnapshot != null) {
            parked.put(openSnapshot, new Parked(dbms, db));
            dbms = null;
            db = null;
            openSnapshot = null;
            while (parked.size() > keepGraphs - 1) {
                var eldest = parked.entrySet().iterator().next();
                parked.remove(eldest.getKey());
                dbms = eldest.getValue().dbms();
                db = eldest.getValue().db();
                closeCurrent();
            }
        } else {
            closeCurrent();
        }
    }

    /**
     * How many snapshots' graphs stay started at once (default 1): with 2, a query on the other snapshot of a pair
     * finds its graph started instead of waiting 1–4 s for a switch (the query daemon). Each started graph has a page
     * cache of its own ({@link #database(String)}: its store files plus a quarter, at most a quarter of RAM); the least
     * recently used beyond {@code n} is shut down when another starts. Any load, delete, prune or {@link #serve} shuts
     * them all down, as {@link #close()} does.
     *
     * @param n 1 or more
     */
    public void keepGraphs(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("keepGraphs must be at least 1, not " + n);
        }
        keepGraphs = n;
    }

    /** Shuts down the open graph's DBMS (if started); graphs {@link #keepGraphs} kept stay started. */
    private void closeCurrent() {
        openSnapshot = null;
        comparedPairs.clear();
        if (dbms != null) {
            DatabaseManagementService d = dbms;
            dbms = null;
            db = null;
            // a shutdown flushes the page cache; on a full disk Neo4j would retry that forever
            DiskWatchdog watchdog = new DiskWatchdog(dir, Thread.currentThread(), () -> {
            }, log, () -> "disk full in " + dir + " while stopping the graph's database: "
                + DiskSpace.bytes(Math.max(0, DiskSpace.usable(dir))) + " free; the store is unchanged");
            PrintStream terminal = System.err;
            OfflineImporter.PanicFilter traces = new OfflineImporter.PanicFilter(terminal, log);
            System.setErr(traces);
            try {
                d.shutdown();
            } finally {
                watchdog.stop();
                if (System.err == traces) {
                    System.setErr(terminal);
                }
            }
        }
    }

    /**
     * Writes the new snapshots' files ({@link HeapSnapshotFile#write}) on a thread of its own, started when the
     * import is done: the index population that follows keeps one of the two cores busy and the writes (mostly
     * waiting for the disk) fill the other. {@link #await} before the store commits; {@link #stop} always.
     */
    private static final class SnapshotFileWriter {
        private final Thread thread;
        private volatile IOException failure;
        private volatile long nanos;

        SnapshotFileWriter(Map<Catalog.Entry, HeapSnapshot> added, Map<Catalog.Entry, Path> pending) {
            thread = new Thread(() -> {
                long start = System.nanoTime();
                try {
                    for (var e : added.entrySet()) {
                        if (Thread.currentThread().isInterrupted()) {
                            throw new IOException("interrupted");
                        }
                        HeapSnapshotFile.write(e.getValue(), pending.get(e.getKey()), Progress.NONE);
                    }
                } catch (IOException e) {
                    failure = e;
                } catch (RuntimeException | Error e) {
                    failure = new IOException("writing the snapshot files failed: " + e, e);
                }
                nanos = System.nanoTime() - start;
            }, "heapload-snapshot-files");
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits for the files; rethrows the writer's failure. */
        void await() throws IOException {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while writing the snapshot files", e);
            }
            if (failure != null) {
                throw failure;
            }
        }

        /** Stops the writer (if still running) and waits for it, so that an abort deletes complete files only. */
        void stop() {
            thread.interrupt();
            OfflineImporter.joinUninterruptibly(thread);
        }

        double seconds() {
            return nanos / 1e9;
        }
    }

    /** One build: what it wrote, and whether it committed; {@link #abort} is also the shutdown hook. */
    private final class Attempt {
        private final List<Path> written = new ArrayList<>();
        private boolean committed;
        private boolean aborted;

        synchronized void add(Path path) {
            written.add(path);
        }

        synchronized void commit(Catalog next) throws IOException {
            if (aborted) {
                throw new IOException("load of store " + dir + " was interrupted");
            }
            next.write(dir);
            committed = true;
        }

        synchronized boolean committed() {
            return committed;
        }

        synchronized void abort() {
            if (committed) {
                return;
            }
            aborted = true;
            for (Path p : written) {
                deleteQuietly(p);
            }
        }
    }

    /**
     * Builds the graphs of the snapshots {@code added} (entries of {@code next}, each with its graph directory set) and
     * commits {@code next}. Each new snapshot gets a graph of its own, built once by the offline importer: its objects,
     * the other snapshots' summary nodes (from their stored summaries, not their models) and its comparisons with the
     * previous snapshot in load order, the store's baseline and (the last of several) the first of {@code added}, each
     * compared on the models (a stored partner's model is read from its file). Writes the new snapshots' model and
     * summary files. Nothing of the other snapshots is rebuilt, so the cost does not grow with the store. Refuses before
     * writing anything when the free space is below {@link DiskSpace#needed}; a disk that fills meanwhile ends it with a
     * {@link DiskFullException}, the attempt's files removed.
     *
     * @param added the new snapshots' models (empty for a graph of a stored snapshot, {@code rebuild})
     * @param rebuild entries of {@code next} whose graph is built from their stored model (no files written, no pairs)
     * @param what  for messages, e.g. "loading 'after'"
     */
    private void build(Catalog next, Map<Catalog.Entry, HeapSnapshot> added, List<Catalog.Entry> rebuild,
                       Progress progress, String what) throws IOException {
        closeDatabase();
        recover();
        List<Catalog.Entry> built = new ArrayList<>(added.keySet());
        built.addAll(rebuild);
        long needed = DiskSpace.needed(built, added.keySet());
        long freeAtStart = DiskSpace.check(dir, needed, what);
        long generation = next.generation;
        Attempt attempt = new Attempt();
        Map<Catalog.Entry, Path> pending = new LinkedHashMap<>();
        for (Catalog.Entry e : added.keySet()) {
            pending.put(e, snapshotsDir.resolve(e.file() + PENDING + generation));
            attempt.add(pending.get(e));
            attempt.add(summariesDir.resolve(e.summaryFile() + PENDING + generation));
        }
        Thread hook = new Thread(attempt::abort, "heapload-store-abort");
        Runtime.getRuntime().addShutdownHook(hook);
        SnapshotFileWriter writer = null;
        DiskWatchdog watchdog = new DiskWatchdog(dir, Thread.currentThread(), attempt::abort, log,
            () -> DiskSpace.full(dir, freeAtStart, needed, what, null).getMessage());
        try {
            Map<String, StoredSummary> summaries = new java.util.HashMap<>();
            Map<String, SnapshotStatistics> stats = new java.util.HashMap<>();
            Map<String, HeapSnapshot> models = new java.util.HashMap<>();
            for (var a : added.entrySet()) {
                HeapSnapshot m = a.getValue();
                SnapshotStatistics st = a.getKey().summary().analysed() && m.analysis() instanceof HeapAnalysis h
                    ? SnapshotStatistics.compute(m, h) : null;
                stats.put(a.getKey().id(), st);
                summaries.put(a.getKey().id(), StoredSummary.of(m, st));
                models.put(a.getKey().id(), m);
            }
            String first = added.isEmpty() ? null : added.keySet().iterator().next().id();
            int b = 0;
            for (Catalog.Entry e : built) {
                String id = e.id();
                HeapSnapshot model = models.get(id);
                if (model == null) {
                    buildHook.reached("source " + id);
                    model = HeapSnapshotFile.read(snapshotsDir.resolve(e.file()));
                    SnapshotStatistics st = e.summary().analysed() && model.analysis() instanceof HeapAnalysis h
                        ? SnapshotStatistics.compute(model, h) : null;
                    stats.put(id, st);
                }
                HeapSnapshot own = model;
                int position = next.entries.indexOf(e);
                List<GraphInput.Part> parts = new ArrayList<>();
                List<Long> orders = new ArrayList<>();
                parts.add(new GraphInput.Part(e, () -> {
                    buildHook.reached("source " + id);
                    return own;
                }, stats.get(id)));
                orders.add((long) position);
                Map<String, Integer> partOf = new java.util.HashMap<>();
                for (int i = 0; i < next.entries.size(); i++) {
                    Catalog.Entry o = next.entries.get(i);
                    if (o.id().equals(id)) {
                        continue;
                    }
                    partOf.put(o.id(), parts.size());
                    parts.add(GraphInput.Part.summaryOnly(o, summaryOf(o, summaries), false));
                    orders.add((long) i);
                }
                List<GraphInput.Pair> pairs = new ArrayList<>();
                if (added.containsKey(e)) {
                    List<String> partners = partners(next, position, added.size() > 1 && !id.equals(first)
                        && built.indexOf(e) == added.size() - 1 ? first : null);
                    progress.start("compare", partners.size(), "pairs");
                    int done = 0;
                    for (String p : partners) {
                        Catalog.Entry pe = next.find(p);
                        HeapSnapshot pm = models.get(p);
                        if (pm == null) {
                            buildHook.reached("source " + p);
                            pm = HeapSnapshotFile.read(snapshotsDir.resolve(pe.file()));
                        }
                        SnapshotComparison comparison = SnapshotComparison.compute(pm, own, own.analysis());
                        pairs.add(new GraphInput.Pair(partOf.get(p), 0, comparison));
                        // the pair's totals and largest leak groups stay in the summary: the leak history
                        summaries.put(id, summaries.get(id).with(p, comparison));
                        progress.step(++done);
                    }
                    progress.end();
                }
                long[] o = new long[orders.size()];
                for (int i = 0; i < o.length; i++) {
                    o[i] = orders.get(i);
                }
                Path building = dir.resolve(BUILDING + generation + "-" + (b++));
                Path graph = graphsDir.resolve(e.graph());
                attempt.add(building);
                attempt.add(graph);
                log.println("heapload: building " + building.getFileName() + " for snapshot '" + id + "' ("
                    + pairs.size() + " comparison(s))");
                long t0 = System.nanoTime();
                List<SnapshotFileWriter> writers = new ArrayList<>(1);
                boolean startWriter = writer == null && !added.isEmpty();
                try {
                    OfflineImporter.importGraph(building, logsDir, new GraphInput(parts, pairs, o), log, logProvider,
                        maxOffHeap, importPageCache, progress, () -> {
                            buildHook.reached("imported");
                            if (startWriter) {
                                // the snapshot files are written while the indexes are built, which keeps one core busy
                                writers.add(new SnapshotFileWriter(added, pending));
                            }
                        });
                } finally {
                    if (!writers.isEmpty()) {
                        writer = writers.get(0);
                    }
                }
                log.printf("heapload: import and indexes of '%s' %.2f s%n", id, (System.nanoTime() - t0) / 1e9);
                Files.move(building, graph, StandardCopyOption.ATOMIC_MOVE);
            }
            if (writer != null) {
                writer.await();
            }
            for (Catalog.Entry e : added.keySet()) {
                summaries.get(e.id()).write(summariesDir.resolve(e.summaryFile() + PENDING + generation));
            }
            buildHook.reached("written");
            buildHook.reached("indexed");
            buildHook.reached("renamed");
            attempt.commit(next);
            catalog = next;
        } catch (IOException | RuntimeException e) {
            if (!attempt.committed() && (watchdog.sawFull() || DiskSpace.isDiskFull(e))) {
                log.println("heapload: disk full while " + what + ": " + e);
                throw DiskSpace.full(dir, freeAtStart, needed, what, e);
            }
            throw e;
        } finally {
            watchdog.stop();
            if (writer != null) {
                writer.stop();
            }
            if (!attempt.committed()) {
                attempt.abort();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs (or ran) anyway
            }
        }
        recover();
    }

    /**
     * The snapshots a load compares the snapshot at {@code position} of {@code next} with: the nearest earlier one
     * that is analysed and not pruned, the store's baseline, and {@code extra}; each once, never itself.
     */
    private static List<String> partners(Catalog next, int position, String extra) {
        Catalog.Entry self = next.entries.get(position);
        List<String> out = new ArrayList<>();
        if (!self.summary().analysed()) {
            return out;
        }
        for (int i = position - 1; i >= 0; i--) {
            Catalog.Entry e = next.entries.get(i);
            if (e.summary().analysed() && !e.pruned()) {
                out.add(e.id());
                break;
            }
        }
        for (String id : new String[] {next.baseline, extra}) {
            Catalog.Entry e = id == null ? null : next.find(id);
            if (e != null && !e.id().equals(self.id()) && e.summary().analysed() && !e.pruned() && !out.contains(id)) {
                out.add(id);
            }
        }
        return out;
    }

    /** Builds the graph of the stored snapshot {@code e} from its model (no comparisons) and commits it. */
    private void buildGraph(Catalog.Entry e) throws IOException {
        Catalog.Entry withGraph = e.withGraph(Catalog.graphDirectory(e.file(), catalog.generation + 1));
        Catalog next = catalog.replacing(withGraph);
        build(next, Map.of(), List.of(withGraph), Progress.NONE, "building the graph of '" + e.id() + "'");
    }

    /** Commits {@code next} (a delete, prune or setting: nothing to build) and removes what it no longer names. */
    private void commitOnly(Catalog next, String step) throws IOException {
        closeDatabase();
        recover();
        buildHook.reached(step);
        next.write(dir);
        catalog = next;
        recover();
    }

    /**
     * Brings the directory to the state the catalog describes: moves the current generation's pending
     * snapshot and summary files into place, deletes files and graphs the catalog does not name (of deleted,
     * replaced or pruned snapshots, of other generations) and half-built graphs.
     */
    private void recover() throws IOException {
        long generation = catalog.generation;
        Set<String> files = new HashSet<>();
        Set<String> summaryFiles = new HashSet<>();
        Set<String> graphs = new HashSet<>();
        for (Catalog.Entry e : catalog.entries) {
            summaryFiles.add(e.summaryFile());
            Path pendingSummary = summariesDir.resolve(e.summaryFile() + PENDING + generation);
            if (Files.exists(pendingSummary)) {
                Files.move(pendingSummary, summariesDir.resolve(e.summaryFile()), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
            }
            if (e.pruned()) {
                continue;
            }
            files.add(e.file());
            if (e.graph() != null) {
                graphs.add(e.graph());
            }
            Path pending = snapshotsDir.resolve(e.file() + PENDING + generation);
            if (Files.exists(pending)) {
                Files.move(pending, snapshotsDir.resolve(e.file()), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
            }
        }
        Catalog.forceDirectory(snapshotsDir);
        Catalog.forceDirectory(summariesDir);
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(snapshotsDir)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (name.contains(PENDING) || (name.endsWith(".hsnap") && !files.contains(name))) {
                    deleteQuietly(p);
                }
            }
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(summariesDir)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (name.contains(PENDING) || !summaryFiles.contains(name)) {
                    deleteQuietly(p);
                }
            }
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(graphsDir)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (!graphs.contains(name)) {
                    deleteQuietly(p); // also "empty", the graph of a store without snapshots: built again when asked
                }
            }
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (name.startsWith(BUILDING) || (name.startsWith("graph-") && !catalog.legacy)
                    || name.equals(Catalog.FILE + ".tmp")) {
                    deleteQuietly(p);
                }
            }
        }
    }

    private void deleteQuietly(Path path) {
        try {
            deleteRecursively(path);
        } catch (IOException | RuntimeException e) {
            log.println("heapload: could not delete " + path + ": " + e);
        }
    }

    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            List<Path> all;
            try (Stream<Path> walk = Files.walk(path)) {
                all = walk.sorted(Comparator.reverseOrder()).toList();
            }
            for (Path p : all) {
                try {
                    Files.deleteIfExists(p);
                } catch (NoSuchFileException e) {
                    // gone already
                }
            }
        } else {
            Files.deleteIfExists(path);
        }
    }

    /** Page cache for a graph: its store files plus a quarter, at least 32 MiB, at most a quarter of RAM (≤ 8 GiB). */
    private static long pageCacheFor(Path home) throws IOException {
        long size = 0;
        Path data = home.resolve("data").resolve("databases");
        if (Files.isDirectory(data)) {
            try (Stream<Path> walk = Files.walk(data)) {
                size = walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
            }
        }
        long ram = 8L << 30;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            ram = os.getTotalMemorySize();
        }
        long max = Math.min(8L << 30, Math.max(64L << 20, ram / 4));
        return Math.min(max, Math.max(32L << 20, size + size / 4));
    }
}
