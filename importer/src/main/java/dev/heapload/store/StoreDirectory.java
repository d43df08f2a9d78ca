package dev.heapload.store;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SnapshotStatistics;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotFile;
import dev.heapload.model.Progress;

/**
 * The files of an embedded store without its graphs: the lock and what its holder does, the catalog, each
 * snapshot's model ({@code .hsnap}) and summary, the commit of new snapshots and the recovery of half-done work
 * (layout and design: docs/store.md). Uses no Neo4j class, so a load can read, analyse, compare and commit its
 * snapshots, and print its answer, before anything of Neo4j is loaded; the graphs are built afterwards by
 * {@link dev.heapload.store.embedded.GraphStore} on the same open directory (a snapshot committed without a graph
 * gets one when it is first queried).
 *
 * <p>Not thread-safe: use from one thread.
 */
public final class StoreDirectory implements SnapshotStore {

    /** Folder of the snapshots' models. */
    public static final String SNAPSHOTS = "snapshots";
    /** Folder of the snapshots' graphs (Neo4j homes). */
    public static final String GRAPHS = "graphs";
    /** Folder of the snapshots' summaries. */
    public static final String SUMMARIES = "summaries";
    /** The lock file: held while the store is open; names its holder's pid and work. */
    public static final String LOCK = "store.lock";
    /** Neo4j's user log and the importer's report; heapload's own log lines. */
    public static final String LOG = "neo4j.log";
    /** Folder of Neo4j's debug log. */
    public static final String LOGS = "logs";
    /** Prefix of a graph being built (removed on failure, on interrupt and by the next open). */
    public static final String BUILDING = "graph.building-";
    /** Infix of a file written by a load that has not committed yet ({@code NAME.pending-GENERATION}). */
    public static final String PENDING = ".pending-";
    /**
     * While {@code heapload serve} serves the store with authentication: the password of user {@code neo4j}, one
     * line, readable by the serving user only.
     */
    public static final String SERVE_PASSWORD = "serve.password";
    /**
     * While {@code heapload serve} serves the store: {@code pid} and {@code bolt} (port) of that process, so other
     * heapload processes, which find the store locked, can send read-only work to its Bolt port instead. Written
     * once the server accepts connections, deleted when it stops; a file left by a killed server names a dead
     * process and is ignored.
     */
    public static final String SERVING = "serving.properties";

    /**
     * The longest snapshot file name a store accepts, in bytes: 255 (the file-name limit of ext4, XFS, APFS and
     * NTFS) less the suffix {@code .pending-GENERATION} (at most 28 bytes) the file has while it is written.
     */
    public static final int MAX_SNAPSHOT_FILE_NAME_BYTES = 255 - PENDING.length() - 19;

    /** Receives one-line notices meant for the person running heapload (no prefix, no newline); none by default. */
    private static volatile java.util.function.Consumer<String> notices = line -> {
    };

    /** Named steps of a change, for tests: throwing from {@link #reached} makes the change fail at that step. */
    public interface Steps {
        /** Called at a named step ("written", "source ID", "imported", "renamed", "delete", "prune", ...). */
        void reached(String step) throws IOException;
    }

    private final Path dir;
    private final Path snapshotsDir;
    private final Path graphsDir;
    private final Path summariesDir;
    private final Path logsDir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final PrintStream log;
    private Catalog catalog;
    private boolean closed;
    /** What the process holding the store does, as written into the lock file by {@link #holder}. */
    private String holder = "";
    private Steps steps = step -> {
    };

    private StoreDirectory(Path dir, FileChannel lockChannel, FileLock lock, PrintStream log) throws IOException {
        this.dir = dir;
        this.snapshotsDir = dir.resolve(SNAPSHOTS);
        this.graphsDir = dir.resolve(GRAPHS);
        this.summariesDir = dir.resolve(SUMMARIES);
        this.logsDir = dir.resolve(LOGS);
        Files.createDirectories(graphsDir);
        Files.createDirectories(summariesDir);
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.log = log;
        this.catalog = Catalog.read(dir);
    }

    /** Where every store of this process sends its notices (e.g. a graph rebuilt for a newer schema). */
    public static void setNotices(java.util.function.Consumer<String> sink) {
        notices = java.util.Objects.requireNonNull(sink);
    }

    /** Sends {@code line} to the process's notice sink ({@link #setNotices}) and to the store's log. */
    public void notice(String line) {
        log.println("heapload: " + line);
        notices.accept(line);
    }

    /**
     * The length in bytes of snapshot {@code id}'s file name in the store ({@code ID.hsnap}: letters, digits,
     * {@code -}, {@code _} and non-leading dots one byte each, every other UTF-8 byte three, as {@code %XX}); to refuse
     * an id over {@link #MAX_SNAPSHOT_FILE_NAME_BYTES} before anything is read.
     */
    public static int snapshotFileNameBytes(String id) {
        return Catalog.fileNameFor(id).length();
    }

    /**
     * Opens the store in {@code dir}, creating the directory when needed, and finishes or removes whatever an
     * earlier process left half done. Starts no database and loads no Neo4j class.
     *
     * @throws StoreInUseException when another process has the store open (with the Bolt URI when that process is
     *                             {@code heapload serve}: {@link #SERVING})
     * @throws IOException         when {@code dir} is a file or a non-empty directory that is not a store, or on
     *                             file-system errors
     */
    public static StoreDirectory open(Path dir) throws IOException {
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
                throw inUse(abs);
            }
            // this process holds the lock, so nothing serves the store: a serving file is a killed server's
            Files.deleteIfExists(abs.resolve(SERVING));
            Files.deleteIfExists(abs.resolve(SERVE_PASSWORD));
            log = new PrintStream(new FileOutputStream(abs.resolve(LOG).toFile(), true), true, StandardCharsets.UTF_8);
            StoreDirectory store = new StoreDirectory(abs, channel, lock, log);
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

    private static StoreInUseException inUse(Path abs) {
        String message = "store " + abs + " is in use by another heapload process (a load, a query or heapload serve)";
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
    public static StoreDirectory openWaiting(Path dir, java.time.Duration max,
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

    @Override
    public String place() {
        return dir.toString();
    }

    /** {@code DIR/graphs}. */
    public Path graphsDirectory() {
        return graphsDir;
    }

    /** {@code DIR/logs}. */
    public Path logsDirectory() {
        return logsDir;
    }

    /** The model file of {@code e}. */
    public Path modelFile(Catalog.Entry e) {
        return snapshotsDir.resolve(e.file());
    }

    /** The store's log ({@link #LOG}). */
    public PrintStream log() {
        return log;
    }

    /** The committed catalog. */
    public Catalog catalog() {
        ensureOpen();
        return catalog;
    }

    /** Replaces the test hook of named steps ({@link Steps}); for tests. */
    public void steps(Steps hook) {
        steps = java.util.Objects.requireNonNull(hook);
    }

    /** Tells the test hook that {@code step} is reached. */
    public void reached(String step) throws IOException {
        steps.reached(step);
    }

    /** The snapshots in the store, in load order (a replaced snapshot keeps its place). */
    @Override
    public List<SnapshotSummary> snapshots() {
        ensureOpen();
        List<SnapshotSummary> list = new ArrayList<>();
        for (Catalog.Entry e : catalog.entries) {
            list.add(e.summary());
        }
        return list;
    }

    /** The snapshot with this id, if the store holds it. */
    @Override
    public Optional<SnapshotSummary> snapshot(String id) {
        ensureOpen();
        Catalog.Entry e = catalog.find(id);
        return e == null ? Optional.empty() : Optional.of(e.summary());
    }

    /**
     * Reads the heap model and analysis of a stored snapshot back from {@code DIR/snapshots/<id>.hsnap}. Costs about
     * as much memory as the load did.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     * @throws IOException when the file cannot be read or is damaged
     */
    @Override
    public HeapSnapshot model(String id) throws IOException {
        return HeapSnapshotFile.read(modelFile(entry(id)));
    }

    /**
     * Every snapshot of the store in load order, pruned ones included, with the comparisons its load made (totals and
     * largest leak groups) as its summary keeps them. Reads the summary files (a few KiB each), nothing else.
     *
     * @throws IOException when a summary file is missing or damaged (the message names it)
     */
    @Override
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
    @Override
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
     * The catalog entry of snapshot {@code id}, which must be in the store and not pruned.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     */
    public Catalog.Entry entry(String id) throws IOException {
        ensureOpen();
        Catalog.Entry e = catalog.find(id);
        if (e == null) {
            throw new SnapshotNotFoundException(id, dir.toString());
        }
        if (e.pruned()) {
            throw new SnapshotPrunedException(id, dir.toString());
        }
        return e;
    }

    /** The stored summary of {@code e}: from {@code computed} (summaries of a load not committed yet) or its file. */
    public StoredSummary summaryOf(Catalog.Entry e, Map<String, StoredSummary> computed) throws IOException {
        StoredSummary s = computed.get(e.id());
        return s != null ? s : StoredSummary.read(summariesDir.resolve(e.summaryFile()));
    }

    /**
     * Removes snapshot {@code id}: its graph, model and summary, in one catalog commit (nothing is rebuilt; the other
     * graphs drop its summary nodes and the comparisons against it when next opened). All or nothing. Starts no
     * database: the caller has stopped any it started on this store ({@link dev.heapload.store.embedded.GraphStore}
     * does).
     *
     * @throws SnapshotNotFoundException when the store has no such snapshot (nothing changed)
     */
    @Override
    public void delete(String id) throws IOException {
        ensureOpen();
        holder("a snapshot delete");
        if (catalog.find(id) == null) {
            throw new SnapshotNotFoundException(id, dir.toString());
        }
        commit(catalog.without(id), "delete");
    }

    /**
     * The catalog with the baseline setting {@code id} (null: none); the entry must exist and not be pruned. Commit it
     * with {@link #commit}.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     */
    public Catalog withBaseline(String id) throws IOException {
        ensureOpen();
        if (id != null) {
            entry(id);
        }
        return catalog.withBaseline(id);
    }

    /**
     * The catalog that {@code prune(keepLast, keep)} commits (older snapshots marked pruned), or null when nothing would
     * be pruned; see {@link dev.heapload.store.embedded.GraphStore#prune}.
     *
     * @param pruned receives the ids pruned
     * @throws SnapshotNotFoundException when an id of {@code keep} is not in the store
     * @throws IllegalArgumentException  when {@code keepLast < 1}
     */
    public Catalog pruned(int keepLast, java.util.Collection<String> keep, List<String> pruned) throws IOException {
        ensureOpen();
        if (keepLast < 1) {
            throw new IllegalArgumentException("--keep-last must be at least 1 (got " + keepLast + ")");
        }
        for (String id : keep) {
            if (catalog.find(id) == null) {
                throw new SnapshotNotFoundException(id, dir.toString());
            }
        }
        List<Catalog.Entry> list = new ArrayList<>();
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
        return pruned.isEmpty() ? null : new Catalog(catalog.generation + 1, list, catalog.baseline, false);
    }

    /**
     * Commits {@code next} (a delete, prune, setting or graph: nothing else to write) and removes what it no longer
     * names. The caller has stopped any database on a graph that {@code next} drops.
     *
     * @param step the test hook's step name, reached just before the commit
     */
    public void commit(Catalog next, String step) throws IOException {
        ensureOpen();
        recover();
        steps.reached(step);
        next.write(dir);
        catalog = next;
        recover();
    }

    // ---------------------------------------------------------------------------------------------------------
    // a load in two steps: prepare (compare, nothing written), then commit the files; the graph comes after

    /**
     * A load of new snapshots prepared by {@link #prepare}: the catalog it commits (the new entries without graphs),
     * their statistics and stored summaries, and the comparisons the load made, in memory. Nothing is written yet.
     */
    public static final class Load {
        private final Catalog next;
        private final Map<Catalog.Entry, HeapSnapshot> added;
        private final Map<String, SnapshotStatistics> stats;
        private final Map<String, StoredSummary> summaries;
        private final Map<String, List<Compared>> compared;
        private final String what;

        private Load(Catalog next, Map<Catalog.Entry, HeapSnapshot> added, Map<String, SnapshotStatistics> stats,
                     Map<String, StoredSummary> summaries, Map<String, List<Compared>> compared, String what) {
            this.next = next;
            this.added = added;
            this.stats = stats;
            this.summaries = summaries;
            this.compared = compared;
            this.what = what;
        }

        /** The catalog this load commits. */
        public Catalog next() {
            return next;
        }

        /** The new snapshots' entries of {@link #next()} with their models, in load order. */
        public Map<Catalog.Entry, HeapSnapshot> added() {
            return added;
        }

        /** Statistics of each new snapshot by id (null when not analysed). */
        public Map<String, SnapshotStatistics> stats() {
            return stats;
        }

        /** Stored summary of each new snapshot by id, with its comparisons. */
        public Map<String, StoredSummary> summaries() {
            return summaries;
        }

        /** The comparisons with new snapshot {@code id} as the target, in the load's order (empty for none). */
        public List<Compared> comparisons(String id) {
            return compared.getOrDefault(id, List.of());
        }

        /** The comparison of {@code target} (a new snapshot) with {@code baseline}, if the load made it. */
        public Optional<SnapshotComparison> comparison(String baseline, String target) {
            for (Compared c : comparisons(target)) {
                if (c.baseline().equals(baseline)) {
                    return Optional.of(c.comparison());
                }
            }
            return Optional.empty();
        }

        /** For messages, e.g. "loading 'after'". */
        public String what() {
            return what;
        }
    }

    /**
     * One comparison of a load.
     *
     * @param baseline the baseline's snapshot id
     * @param baselineObjects the baseline's object count
     * @param comparison what is new in the target relative to it
     */
    public record Compared(String baseline, long baselineObjects, SnapshotComparison comparison) {
    }

    /**
     * Checks {@code snapshots} against the store and computes what their load commits: each one's statistics and
     * summary and its comparisons with the nearest earlier analysed, unpruned snapshot in load order, the store's
     * baseline (or {@code baseline}) and, for the last of several, the first of them (a stored partner's model is read
     * from its file). Writes nothing.
     *
     * @param replace  replace a snapshot with the same id instead of refusing
     * @param baseline sets the store's baseline setting with this load (a snapshot of the store or of
     *                 {@code snapshots}); null keeps it
     * @param progress phase {@code "compare"} (pairs)
     * @throws SnapshotExistsException   when an id exists and {@code replace} is false
     * @throws SnapshotNotFoundException when {@code baseline} is neither in the store nor loaded now
     * @throws SnapshotPrunedException   when {@code baseline} was pruned
     * @throws IllegalArgumentException  when an id is empty or given twice, or an analysis does not match its model
     */
    public Load prepare(List<HeapSnapshot> snapshots, boolean replace, String baseline, Progress progress)
        throws IOException {
        ensureOpen();
        if (baseline != null && snapshots.stream().noneMatch(s -> baseline.equals(s.info().id()))) {
            entry(baseline);
        }
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
        Map<Catalog.Entry, HeapSnapshot> added = new LinkedHashMap<>();
        Catalog next = catalog;
        for (HeapSnapshot snapshot : snapshots) {
            Catalog.Entry e = entryOf(snapshot);
            added.put(e, snapshot);
            next = next.with(e);
        }
        next = next.withGeneration(catalog.generation + 1);
        if (baseline != null) {
            next = next.withBaseline(baseline).withGeneration(catalog.generation + 1);
        }
        Map<String, SnapshotStatistics> stats = new HashMap<>();
        Map<String, StoredSummary> summaries = new HashMap<>();
        Map<String, HeapSnapshot> models = new HashMap<>();
        for (var a : added.entrySet()) {
            HeapSnapshot m = a.getValue();
            SnapshotStatistics st = a.getKey().summary().analysed() && m.analysis() instanceof HeapAnalysis h
                ? SnapshotStatistics.compute(m, h) : null;
            stats.put(a.getKey().id(), st);
            summaries.put(a.getKey().id(), StoredSummary.of(m, st));
            models.put(a.getKey().id(), m);
        }
        Map<String, List<Compared>> compared = new HashMap<>();
        List<Catalog.Entry> list = new ArrayList<>(added.keySet());
        String first = list.isEmpty() ? null : list.get(0).id();
        for (int k = 0; k < list.size(); k++) {
            Catalog.Entry e = list.get(k);
            String id = e.id();
            HeapSnapshot own = models.get(id);
            List<String> partners = partners(next, next.entries.indexOf(next.find(id)),
                list.size() > 1 && !id.equals(first) && k == list.size() - 1 ? first : null);
            progress.start("compare", partners.size(), "pairs");
            int done = 0;
            List<Compared> pairs = new ArrayList<>();
            for (String p : partners) {
                Catalog.Entry pe = next.find(p);
                HeapSnapshot pm = models.get(p);
                if (pm == null) {
                    steps.reached("source " + p);
                    pm = HeapSnapshotFile.read(snapshotsDir.resolve(pe.file()));
                }
                SnapshotComparison comparison = SnapshotComparison.compute(pm, own, own.analysis());
                pairs.add(new Compared(p, pm.objectCount(), comparison));
                // the pair's totals and largest leak groups stay in the summary: the leak history
                summaries.put(id, summaries.get(id).with(p, comparison));
                progress.step(++done);
            }
            progress.end();
            compared.put(id, List.copyOf(pairs));
        }
        return new Load(next, java.util.Collections.unmodifiableMap(added), stats, summaries, compared,
            (replace ? "loading (or replacing) " : "loading ") + idList(added.keySet()));
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

    /**
     * Commits {@code load} without graphs: writes the new snapshots' model and summary files (as
     * {@code *.pending-<g>}, in parallel, one thread per snapshot), then the catalog (the commit point), then moves
     * the files into place. Their graphs are built afterwards by the embedded store, or when each is first queried.
     * Refuses before writing anything when the free space is below {@link DiskSpace#needed} for the files and the
     * graphs. All or nothing: an exception, an interrupt or Ctrl-C (a shutdown hook) before the commit removes what it
     * wrote.
     *
     * @param progress phase {@code "write"} (snapshots)
     * @throws DiskFullException when the disk is too small or fills meanwhile (nothing changed)
     */
    public void commitFiles(Load load, Progress progress) throws IOException {
        ensureOpen();
        holder("a load");
        recover();
        long needed = DiskSpace.needed(load.added.keySet(), load.added.keySet());
        long freeAtStart = DiskSpace.check(dir, needed, load.what);
        long generation = load.next.generation;
        Attempt attempt = attempt();
        Thread hook = new Thread(attempt::abort, "heapload-store-abort");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            progress.start("write", load.added.size(), "snapshots");
            Map<Catalog.Entry, Path> pending = pendingFiles(load, attempt);
            List<Thread> writers = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (var e : load.added.entrySet()) {
                Thread t = new Thread(() -> {
                    try {
                        HeapSnapshotFile.write(e.getValue(), pending.get(e.getKey()), Progress.NONE);
                    } catch (IOException | RuntimeException | Error x) {
                        failures.add(x);
                    }
                }, "heapload-snapshot-file");
                t.setDaemon(true);
                writers.add(t);
            }
            writers.forEach(Thread::start);
            for (Catalog.Entry e : load.added.keySet()) {
                load.summaries.get(e.id()).write(summariesDir.resolve(e.summaryFile() + PENDING + generation));
            }
            for (Thread t : writers) {
                joinUninterruptibly(t);
            }
            if (!failures.isEmpty()) {
                Throwable f = failures.get(0);
                throw f instanceof IOException io ? io : new IOException("writing the snapshot files failed: " + f, f);
            }
            progress.step(load.added.size());
            progress.end();
            steps.reached("written");
            attempt.commit(load.next);
            catalog = load.next;
        } catch (IOException | RuntimeException e) {
            if (!attempt.committed() && DiskSpace.isDiskFull(e)) {
                log.println("heapload: disk full while " + load.what + ": " + e);
                throw DiskSpace.full(dir, freeAtStart, needed, load.what, e);
            }
            throw e;
        } finally {
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

    /** The pending model file of each new snapshot of {@code load}; they and the pending summaries join {@code attempt}. */
    public Map<Catalog.Entry, Path> pendingFiles(Load load, Attempt attempt) {
        long generation = load.next.generation;
        Map<Catalog.Entry, Path> pending = new LinkedHashMap<>();
        for (Catalog.Entry e : load.added.keySet()) {
            pending.put(e, snapshotsDir.resolve(e.file() + PENDING + generation));
            attempt.add(pending.get(e));
            attempt.add(summariesDir.resolve(e.summaryFile() + PENDING + generation));
        }
        return pending;
    }

    /** Writes the pending summary files of {@code load} (see {@link #pendingFiles}). */
    public void writePendingSummaries(Load load) throws IOException {
        for (Catalog.Entry e : load.added.keySet()) {
            load.summaries.get(e.id()).write(summariesDir.resolve(e.summaryFile() + PENDING + load.next.generation));
        }
    }

    /** Joins {@code t}, waiting on through interrupts (then re-asserting the interrupt). */
    public static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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

    /** A new {@link Attempt} on this store. */
    public Attempt attempt() {
        return new Attempt();
    }

    /** One change: what it wrote, and whether it committed; {@link #abort} is also the shutdown hook. */
    public final class Attempt {
        private final List<Path> written = new ArrayList<>();
        private boolean committed;
        private boolean aborted;

        private Attempt() {
        }

        /** Adds a file or folder the change writes (removed by {@link #abort}). */
        public synchronized void add(Path path) {
            written.add(path);
        }

        /** Commits {@code next} unless the attempt was aborted (then throws). */
        public synchronized void commit(Catalog next) throws IOException {
            if (aborted) {
                throw new IOException("load of store " + dir + " was interrupted");
            }
            next.write(dir);
            committed = true;
        }

        /** Whether {@link #commit} succeeded. */
        public synchronized boolean committed() {
            return committed;
        }

        /** Removes what the attempt wrote, unless it committed. */
        public synchronized void abort() {
            if (committed) {
                return;
            }
            aborted = true;
            for (Path p : written) {
                deleteQuietly(p);
            }
        }
    }

    /** Sets the catalog after a commit made by {@link Attempt#commit}. */
    public void committed(Catalog next) {
        catalog = next;
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
        notice("store " + dir + " has one graph of all " + catalog.entries.size() + " snapshot(s) (older"
            + " heapload): converting it to one graph per snapshot, every snapshot kept (each graph is built when first"
            + " queried; pairs are compared when first asked for)");
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
        steps.reached("migrate");
        Catalog next = new Catalog(catalog.generation + 1, catalog.entries, null, false);
        next.write(dir);
        catalog = next;
        recover();
    }

    /**
     * Brings the directory to the state the catalog describes: moves the current generation's pending
     * snapshot and summary files into place, deletes files and graphs the catalog does not name (of deleted,
     * replaced or pruned snapshots, of other generations) and half-built graphs.
     */
    public void recover() throws IOException {
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

    /** Deletes {@code path} (a file or a folder with everything in it), logging a failure instead of throwing. */
    public void deleteQuietly(Path path) {
        try {
            deleteRecursively(path);
        } catch (IOException | RuntimeException e) {
            log.println("heapload: could not delete " + path + ": " + e);
        }
    }

    /** Deletes {@code path}: a file, or a folder with everything in it; nothing when it does not exist. */
    public static void deleteRecursively(Path path) throws IOException {
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

    /** What the lock file says this process does ({@link #holder(String)}). */
    public String holder() {
        return holder;
    }

    /**
     * Writes this process's id and {@code what} it does ({@code heapload} while opening, {@code a load},
     * {@code a snapshot delete}, {@code a query}, {@code heapload serve}) into the lock file it holds, as {@code pid=}
     * and {@code command=} lines, for the "in use by another heapload process (a query, pid 123)" message of another
     * process's {@link #open}. Best effort: a failed write leaves the plain message.
     */
    public void holder(String what) {
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

    /** Writes {@code text} to {@code file}, created (or replaced) with permissions 0600 where POSIX permissions exist. */
    public static void writePrivately(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(tmp, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Throws when the store was closed. */
    public void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("store " + dir + " is closed");
        }
    }

    /** Releases the store (its lock and log). Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
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
