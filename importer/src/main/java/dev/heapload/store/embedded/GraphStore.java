package dev.heapload.store.embedded;

import dev.heapload.store.Catalog;
import dev.heapload.store.DiskFullException;
import dev.heapload.store.DiskSpace;
import dev.heapload.store.GraphInput;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.SnapshotExistsException;
import dev.heapload.store.SnapshotHistory;
import dev.heapload.store.StoredSnapshots;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.SnapshotPrunedException;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.StoreDirectory;
import dev.heapload.store.StoreInUseException;
import dev.heapload.store.StoredSummary;
import dev.heapload.store.offline.OfflineImporter;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
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
 * and querying later (schema: {@link GraphSchema}; design and measurements: docs/design/store.md).
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
 * 35.6M properties) on the 2-vCPU project machine: see docs/design/benchmarks.md (import about 12–18 s, the
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

    static final String SNAPSHOTS = StoreDirectory.SNAPSHOTS;
    static final String GRAPHS = StoreDirectory.GRAPHS;
    static final String SUMMARIES = StoreDirectory.SUMMARIES;
    static final String LOCK = StoreDirectory.LOCK;

    /** See {@link StoreDirectory#SERVE_PASSWORD}. */
    public static final String SERVE_PASSWORD = StoreDirectory.SERVE_PASSWORD;
    static final String LOG = StoreDirectory.LOG;
    /** See {@link StoreDirectory#SERVING}. */
    public static final String SERVING = StoreDirectory.SERVING;
    static final String LOGS = StoreDirectory.LOGS;
    static final String BUILDING = StoreDirectory.BUILDING;
    static final String PENDING = StoreDirectory.PENDING;
    private static final String DATABASE = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;

    /** See {@link StoreDirectory#MAX_SNAPSHOT_FILE_NAME_BYTES}. */
    public static final int MAX_SNAPSHOT_FILE_NAME_BYTES = StoreDirectory.MAX_SNAPSHOT_FILE_NAME_BYTES;

    /** See {@link StoreDirectory#snapshotFileNameBytes}. */
    public static int snapshotFileNameBytes(String id) {
        return StoreDirectory.snapshotFileNameBytes(id);
    }

    /** Where every store of this process sends its notices (e.g. a graph rebuilt for a newer schema). */
    public static void setNotices(java.util.function.Consumer<String> sink) {
        StoreDirectory.setNotices(sink);
    }

    /**
     * When on, a rebuild (or a DBMS start or stop) stuck on a full disk (Neo4j's page cache retrying a flush for
     * about a second, or any work still running 10 s after the disk filled) removes what it wrote, prints its
     * one-line {@link DiskFullException} message to {@code System.err} and ends the JVM with exit code 1
     * ({@link DiskWatchdog}); when off (the default, for programs embedding the store) it only interrupts the
     * stuck thread. The command-line tool turns it on.
     */
    public static void setHaltOnDiskFullHang(boolean on) {
        DiskWatchdog.setHaltOnDiskFullHang(on);
    }

    /** Test hook: called at named steps of a rebuild ("written", "source &lt;id&gt;", "imported", "indexed", "renamed"). */
    interface BuildHook {
        void reached(String step) throws IOException;
    }

    /** Package-private for tests: throwing from it makes the rebuild fail at that step. */
    BuildHook buildHook = step -> {
    };

    private final StoreDirectory files;
    private final Path dir;
    private final Path logsDir;
    private final Path graphsDir;
    private final PrintStream log;
    private final Log4jLogProvider logProvider;
    private final long maxOffHeap;
    private final long importPageCache;
    /** The snapshot whose graph the running DBMS serves, or null (none, or the graph of an empty store). */
    private String openSnapshot;
    /** Pairs "baseline\0target" that {@link #compare} found compared (or not comparable) since the graph opened. */
    private final Set<String> comparedPairs = new java.util.HashSet<>();
    private DatabaseManagementService dbms;
    private GraphDatabaseService db;
    /** Extra settings of the DBMS that {@link #database()} starts: empty, or those of {@link #serve}. */
    private Map<Setting<?>, Object> serverSettings = Map.of();
    /** The Bolt and HTTP ports of {@link #serve} (empty when not serving). */
    private int[] serverPorts = new int[0];
    /** Neo4j settings by name that {@link #serve(int, int, String, Map)} adds (empty when not serving). */
    private Map<String, String> serverSettingsByName = Map.of();
    private boolean closed;

    private GraphStore(StoreDirectory files) {
        this.files = files;
        this.dir = files.directory();
        this.logsDir = files.logsDirectory();
        this.graphsDir = files.graphsDirectory();
        this.log = files.log();
        this.logProvider = new Log4jLogProvider(log);
        this.maxOffHeap = Long.getLong("heapload.import.maxOffHeap", OfflineImporter.DEFAULT_MAX_OFF_HEAP);
        this.importPageCache = Long.getLong("heapload.import.pageCache", OfflineImporter.DEFAULT_IMPORT_PAGE_CACHE);
        files.steps(step -> buildHook.reached(step));
    }

    /**
     * Opens the store in {@code dir}, creating the directory when needed, and finishes or removes whatever an
     * earlier process left half done ({@link StoreDirectory#open}). Does not start Neo4j.
     *
     * @throws StoreInUseException when another process has the store open (with the Bolt URI when that process is
     *                             {@code heapload serve}: {@link #SERVING})
     * @throws IOException         when {@code dir} is a file or a non-empty directory that is not a store, or on
     *                             file-system errors
     */
    public static GraphStore open(Path dir) throws IOException {
        return new GraphStore(StoreDirectory.open(dir));
    }

    /**
     * The embedded store on {@code files}, an open store directory this process holds (a load committed its
     * snapshots there without Neo4j and now builds their graphs, {@link #writeGraphs}). Closing the returned store
     * closes {@code files}.
     */
    public static GraphStore on(StoreDirectory files) {
        files.ensureOpen();
        return new GraphStore(files);
    }

    /** The store's files without Neo4j: lock, catalog, models and summaries. */
    public StoreDirectory files() {
        return files;
    }

    /**
     * {@link #open}, but waits while another process holds the store for a query ({@link StoreDirectory#openWaiting}).
     *
     * @throws StoreInUseException when a load or {@code heapload serve} holds the store, or a query still does after
     *                             {@code max}
     * @throws IOException         as {@link #open}
     */
    public static GraphStore openWaiting(Path dir, java.time.Duration max,
                                         java.util.function.Consumer<String> waiting) throws IOException {
        return new GraphStore(StoreDirectory.openWaiting(dir, max, waiting));
    }

    /** See {@link StoreDirectory#isStore}. */
    public static boolean isStore(Path dir) {
        return StoreDirectory.isStore(dir);
    }

    /** The store directory (absolute). */
    public Path directory() {
        return dir;
    }

    private Catalog catalog() {
        return files.catalog();
    }

    /** The snapshots in the store, in load order (a replaced snapshot keeps its place). */
    public List<SnapshotSummary> snapshots() {
        ensureOpen();
        return files.snapshots();
    }

    /** The snapshot with this id, if the store holds it. */
    public Optional<SnapshotSummary> snapshot(String id) {
        ensureOpen();
        return files.snapshot(id);
    }

    /**
     * Reads the heap model and analysis of a stored snapshot back from {@code DIR/snapshots/<id>.hsnap} (for figures
     * that need the model, such as the icicle graph of a report). Costs about as much memory as the load did.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     * @throws IOException when the file cannot be read or is damaged
     */
    public HeapSnapshot model(String id) throws IOException {
        ensureOpen();
        return files.model(id);
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
        return files.history();
    }

    /** True when snapshot {@code id} is in the store but was pruned (graph and model dropped, figures kept). */
    public boolean isPruned(String id) {
        ensureOpen();
        return files.isPruned(id);
    }

    /** The store's baseline setting (every load is also compared with it), if set. */
    public Optional<String> baseline() {
        ensureOpen();
        return files.baseline();
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
        Catalog next = files.withBaseline(id);
        if (java.util.Objects.equals(id, catalog().baseline)) {
            return;
        }
        commitOnly(next, "baseline");
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
        List<String> pruned = new ArrayList<>();
        Catalog next = files.pruned(keepLast, keep, pruned);
        files.holder("a prune");
        if (next != null) {
            commitOnly(next, "prune");
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
     * setting as it is. (The command-line load commits the snapshots first and builds their graphs after its answer:
     * {@link StoreDirectory#commitFiles}, then {@link #writeGraphs}.)
     *
     * @throws SnapshotNotFoundException when {@code baseline} is neither in the store nor loaded now (nothing written)
     * @throws SnapshotPrunedException   when {@code baseline} was pruned (nothing written)
     */
    public void load(List<HeapSnapshot> snapshots, boolean replace, String baseline, Progress progress)
        throws SnapshotExistsException, IOException {
        ensureOpen();
        files.holder("a load");
        StoreDirectory.Load load = files.prepare(snapshots, replace, baseline, progress);
        Catalog next = load.next();
        List<Catalog.Entry> built = new ArrayList<>();
        for (Catalog.Entry e : load.added().keySet()) {
            Catalog.Entry withGraph = e.withGraph(Catalog.graphDirectory(e.file(), next.generation));
            next = next.replacing(withGraph).withGeneration(load.next().generation);
            built.add(withGraph);
        }
        build(next, built, load, true, progress, load.what());
    }

    /**
     * Builds the graphs of snapshots {@code ids} of those {@code load} committed without graphs
     * ({@link StoreDirectory#commitFiles}): each from its model in memory, with the comparisons the load made and the
     * other snapshots' summary nodes, by the offline importer; then commits the catalog naming them. An exception, an
     * interrupt or Ctrl-C removes the graphs being built and leaves the snapshots stored without graphs. A snapshot
     * without a graph (not in {@code ids}, or interrupted) gets it from its stored model when it is first queried
     * ({@link #database(String)}, one notice), with its load's comparisons made again. Ids that are not snapshots of
     * {@code load} still in the store unpruned are skipped.
     *
     * @param ids      the snapshots whose graphs are written now (the command line: the newest, the one its answer and
     *                 its next commands name)
     * @param progress phases {@code "import"} (%) and {@code "index"} (%)
     * @throws DiskFullException when the disk is too small for the graphs or fills meanwhile (the snapshots stay stored)
     */
    public void writeGraphs(StoreDirectory.Load load, java.util.Collection<String> ids, Progress progress)
        throws IOException {
        ensureOpen();
        files.holder("a load");
        Catalog next = catalog();
        long generation = next.generation + 1;
        List<Catalog.Entry> built = new ArrayList<>();
        for (Catalog.Entry added : load.added().keySet()) {
            if (!ids.contains(added.id())) {
                continue;
            }
            Catalog.Entry e = next.find(added.id());
            if (e == null || e.pruned() || !e.summary().loadedAt().equals(added.summary().loadedAt())) {
                continue;
            }
            Catalog.Entry withGraph = e.withGraph(Catalog.graphDirectory(e.file(), generation));
            next = next.replacing(withGraph);
            built.add(withGraph);
        }
        if (built.isEmpty()) {
            return;
        }
        build(next.withGeneration(generation), built, load, false, progress,
            "writing the graph of " + (built.size() == 1 ? "'" + built.get(0).id() + "'" : built.size() + " snapshots"));
    }

    /** See {@link StoreDirectory#entryOf}. */
    public static Catalog.Entry entryOf(HeapSnapshot snapshot) {
        return StoreDirectory.entryOf(snapshot);
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
        if (catalog().find(id) == null) {
            throw new SnapshotNotFoundException(id, dir.toString());
        }
        closeDatabase();
        files.delete(id);
    }

    /**
     * Queries that read only the {@code Snapshot}, {@code Category} and {@code Stats} nodes, which every snapshot's
     * graph holds for all snapshots of the store (pruned ones included): {@link #databaseFor} runs them on whichever
     * graph is open instead of starting another.
     */
    public static final Set<String> SUMMARY_QUERIES = GraphSchema.SUMMARY_QUERIES;

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
                long[] orders = new long[catalog().entries.size()];
                for (int i = 0; i < orders.length; i++) {
                    Catalog.Entry e = catalog().entries.get(i);
                    parts.add(GraphInput.Part.summaryOnly(e, files.summaryOf(e, Map.of()), false));
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
        for (int i = catalog().entries.size() - 1; i >= 0; i--) {
            if (!catalog().entries.get(i).pruned()) {
                return catalog().entries.get(i).id();
            }
        }
        return null;
    }

    /**
     * The graph of snapshot {@code id}, for queries: its objects, references and precomputed nodes, the comparisons
     * with it as the target, and the {@code Snapshot}, {@code Category} and {@code Stats} nodes of every other snapshot
     * of the store (docs/design/store.md). Read-only (a write fails with {@code WriteOperationsNotAllowedException} and
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
        if (files.holder().equals("heapload")) {
            files.holder("a query");
        }
        Catalog.Entry e = files.entry(id);
        if (db != null && id.equals(openSnapshot)) {
            return db;
        }
        closeCurrent();
        if (!e.hasCurrentGraph() || !Files.isDirectory(graphsDir.resolve(e.graph()))) {
            files.notice(e.graph() == null
                ? "building the graph of snapshot '" + id + "' from its stored model (first query that needs it)"
                : "the graph of snapshot '" + id + "' was built by another heapload version (graph schema "
                    + e.graphSchema() + ", now " + GraphSchema.VERSION + "): rebuilding it from its stored model");
            buildGraph(e);
            e = catalog().find(id);
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
        if (id == null || SUMMARY_QUERIES.contains(queryName) || catalog().find(id) == null) {
            if (db != null) {
                return db;
            }
            Catalog.Entry e = id == null ? null : catalog().find(id);
            return e != null && !e.pruned() ? database(id) : database();
        }
        if (baseline != null && catalog().find(baseline) != null) {
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
        if (id == null || SUMMARY_QUERIES.contains(queryName) || catalog().find(id) == null) {
            return true;
        }
        if (!id.equals(openSnapshot)) {
            return false;
        }
        return baseline == null || catalog().find(baseline) == null || comparedPairs.contains(baseline + "\0" + id);
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
        Catalog.Entry b = catalog().find(baseline);
        if (b == null) {
            throw new SnapshotNotFoundException(baseline, dir.toString());
        }
        Catalog.Entry t = files.entry(target);
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
        String holderBefore = files.holder();
        files.holder("a comparison");
        files.notice("comparing '" + target + "' with '" + baseline + "' (first request for this pair; kept for later)");
        HeapSnapshot baselineModel = HeapSnapshotFile.read(files.modelFile(b));
        HeapSnapshot targetModel = HeapSnapshotFile.read(files.modelFile(t));
        SnapshotComparison comparison = SnapshotComparison.compute(baselineModel, targetModel, targetModel.analysis());
        baselineModel = null;
        List<GraphInput.Part> parts = List.of(
            new GraphInput.Part(t, () -> {
                throw new IOException("stored part");
            }, null, true),
            GraphInput.Part.summaryOnly(b, files.summaryOf(b, Map.of()), true));
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
            files.holder(holderBefore);
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
        if (found.size() != catalog().entries.size()) {
            return false;
        }
        for (int i = 0; i < catalog().entries.size(); i++) {
            Catalog.Entry e = catalog().entries.get(i);
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
            Catalog.Entry self = catalog().find(id);
            parts.add(new GraphInput.Part(self, () -> {
                throw new IOException("stored part");
            }, null, true));
            orders.add(0L);
            for (var g : new ArrayList<>(inGraph.entrySet())) {
                Catalog.Entry e = catalog().find(g.getKey());
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
            for (Catalog.Entry e : catalog().entries) {
                if (!e.id().equals(id) && (!inGraph.containsKey(e.id())
                    || !e.summary().loadedAt().equals(inGraph.get(e.id())))) {
                    parts.add(GraphInput.Part.summaryOnly(e, files.summaryOf(e, Map.of()), false));
                    orders.add(0L);
                }
            }
            if (parts.size() > 1) {
                long[] o = new long[orders.size()];
                GraphInput input = new GraphInput(parts, List.of(), o);
                EmbeddedGraphWriter.write(input, tx, self.summary().objectCount(), id, Map.of());
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            for (int i = 0; i < catalog().entries.size(); i++) {
                rows.add(Map.of("id", catalog().entries.get(i).id(), "lo", (long) i));
            }
            tx.execute("UNWIND $rows AS r MATCH (s:Snapshot {id: r.id}) SET s.loadOrder = r.lo",
                Map.of("rows", rows)).close();
            buildHook.reached("summaries");
            tx.commit();
        }
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
        files.holder("heapload serve");
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
                StoreDirectory.writePrivately(dir.resolve(SERVE_PASSWORD), password + "\n");
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
            } finally {
                files.close();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("store " + dir + " is closed");
        }
        files.ensureOpen();
    }

    /** See {@link StoreDirectory#checkAnalysis}. */
    public static void checkAnalysis(HeapSnapshot snapshot) {
        StoreDirectory.checkAnalysis(snapshot);
    }

    /** Shuts down the started graph, if any. */
    private void closeDatabase() {
        closeCurrent();
    }

    /** Shuts down the open graph's DBMS (if started). */
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
     * Writes the new snapshots' model files ({@link HeapSnapshotFile#write}) on a thread of its own, started when the
     * import is done: the index population that follows keeps one of the two cores busy and the writes (mostly
     * waiting for the disk) fill the other. {@link #await} before the store commits; {@link #stop} always.
     */
    private static final class SnapshotFileWriter {
        private final Thread thread;
        private volatile IOException failure;

        SnapshotFileWriter(Map<Catalog.Entry, HeapSnapshot> added, Map<Catalog.Entry, Path> pending) {
            thread = new Thread(() -> {
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
    }

    /**
     * Builds the graphs of {@code built} (entries of {@code next}, each with its graph directory set) and commits
     * {@code next}. Each gets a graph of its own, built once by the offline importer: its objects, the other
     * snapshots' summary nodes (from their stored summaries, not their models) and, for a snapshot of {@code load},
     * the comparisons the load made with it as the target. Nothing of the other snapshots is rebuilt, so the cost does
     * not grow with the store. Refuses before writing anything when the free space is below {@link DiskSpace#needed};
     * a disk that fills meanwhile ends it with a {@link DiskFullException}, the attempt's files removed. An exception,
     * an interrupt or Ctrl-C (a shutdown hook) before the commit removes everything the attempt wrote.
     *
     * @param load       the load whose models, statistics, summaries and comparisons the graphs of its snapshots
     *                   get; null: every graph of {@code built} is built from its stored model, without comparisons
     * @param writeFiles also write {@code load}'s model and summary files, committed with the graphs (the
     *                   all-or-nothing {@link #load}); false when {@code load} committed them before
     * @param what       for messages, e.g. "loading 'after'"
     */
    private void build(Catalog next, List<Catalog.Entry> built, StoreDirectory.Load load, boolean writeFiles,
                       Progress progress, String what) throws IOException {
        closeDatabase();
        files.recover();
        Map<String, HeapSnapshot> models = new java.util.HashMap<>();
        Map<String, SnapshotStatistics> stats = new java.util.HashMap<>();
        Map<String, StoredSummary> summaries = load == null ? Map.of() : load.summaries();
        if (load != null) {
            load.added().forEach((e, m) -> models.put(e.id(), m));
            stats.putAll(load.stats());
        }
        long needed = DiskSpace.needed(built, writeFiles ? load.added().keySet() : List.of());
        long freeAtStart = DiskSpace.check(dir, needed, what);
        long generation = next.generation;
        StoreDirectory.Attempt attempt = files.attempt();
        Map<Catalog.Entry, Path> pending = writeFiles ? files.pendingFiles(load, attempt) : Map.of();
        Thread hook = new Thread(attempt::abort, "heapload-store-abort");
        Runtime.getRuntime().addShutdownHook(hook);
        SnapshotFileWriter writer = null;
        DiskWatchdog watchdog = new DiskWatchdog(dir, Thread.currentThread(), attempt::abort, log,
            () -> (writeFiles || load == null ? DiskSpace.full(dir, freeAtStart, needed, what, null)
                : graphDiskFull(freeAtStart, needed, what, null)).getMessage());
        try {
            int b = 0;
            for (Catalog.Entry e : built) {
                String id = e.id();
                HeapSnapshot model = models.get(id);
                if (model == null) {
                    buildHook.reached("source " + id);
                    model = HeapSnapshotFile.read(files.modelFile(e));
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
                    parts.add(GraphInput.Part.summaryOnly(o, files.summaryOf(o, summaries), false));
                    orders.add((long) i);
                }
                List<GraphInput.Pair> pairs = new ArrayList<>();
                for (StoreDirectory.Compared c : load != null ? load.comparisons(id) : comparedAgain(e, own)) {
                    if (partOf.containsKey(c.baseline())) {
                        pairs.add(new GraphInput.Pair(partOf.get(c.baseline()), 0, c.comparison()));
                    }
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
                boolean startWriter = writer == null && writeFiles;
                try {
                    OfflineImporter.importGraph(building, logsDir, new GraphInput(parts, pairs, o), log, logProvider,
                        maxOffHeap, importPageCache, progress, () -> {
                            buildHook.reached("imported");
                            if (startWriter) {
                                // the snapshot files are written while the indexes are built, which keeps one core busy
                                writers.add(new SnapshotFileWriter(load.added(), pending));
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
            if (writeFiles) {
                if (writer == null) {
                    writer = new SnapshotFileWriter(load.added(), pending);
                }
                writer.await();
                files.writePendingSummaries(load);
            }
            buildHook.reached("written");
            buildHook.reached("indexed");
            buildHook.reached("renamed");
            attempt.commit(next);
            files.committed(next);
        } catch (IOException | RuntimeException e) {
            if (!attempt.committed() && (watchdog.sawFull() || DiskSpace.isDiskFull(e))) {
                log.println("heapload: disk full while " + what + ": " + e);
                throw writeFiles || load == null ? DiskSpace.full(dir, freeAtStart, needed, what, e)
                    : graphDiskFull(freeAtStart, needed, what, e);
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
        files.recover();
    }

    /** The one line for a disk that filled while the graphs of committed snapshots were written. */
    private DiskFullException graphDiskFull(long freeAtStart, long needed, String what, Throwable cause) {
        return new DiskFullException("disk full in " + dir + " while " + what + ": "
            + (freeAtStart >= 0 ? DiskSpace.bytes(freeAtStart) : "an unknown amount") + " free at the start, about "
            + DiskSpace.bytes(needed) + " needed; the snapshot is stored, its graph is built when it is next queried",
            dir, freeAtStart, needed, cause);
    }

    /**
     * The comparisons the load of stored snapshot {@code e} made (as its summary lists them), made again from the
     * models for a graph built from the stored model: with each baseline still stored, unpruned and analysed.
     */
    private List<StoreDirectory.Compared> comparedAgain(Catalog.Entry e, HeapSnapshot model) throws IOException {
        if (!e.summary().analysed() || model.analysis() == null) {
            return List.of();
        }
        List<StoreDirectory.Compared> out = new ArrayList<>();
        for (dev.heapload.store.StoredComparison c : files.summaryOf(e, Map.of()).comparisons()) {
            Catalog.Entry b = catalog().find(c.baseline());
            if (b == null || b.pruned() || !b.summary().analysed() || b.id().equals(e.id())) {
                continue;
            }
            buildHook.reached("source " + b.id());
            HeapSnapshot baseline = HeapSnapshotFile.read(files.modelFile(b));
            out.add(new StoreDirectory.Compared(b.id(), baseline.objectCount(),
                SnapshotComparison.compute(baseline, model, model.analysis())));
        }
        return out;
    }

    /**
     * Builds the graph of the stored snapshot {@code e} from its model, with the comparisons its load made
     * ({@link #comparedAgain}), and commits it.
     */
    private void buildGraph(Catalog.Entry e) throws IOException {
        Catalog.Entry withGraph = e.withGraph(Catalog.graphDirectory(e.file(), catalog().generation + 1));
        Catalog next = catalog().replacing(withGraph);
        build(next, List.of(withGraph), null, false, Progress.NONE, "building the graph of '" + e.id() + "'");
    }

    /** Commits {@code next} (a delete, prune or setting: nothing to build) and removes what it no longer names. */
    private void commitOnly(Catalog next, String step) throws IOException {
        closeDatabase();
        files.commit(next, step);
    }

    static void deleteRecursively(Path path) throws IOException {
        StoreDirectory.deleteRecursively(path);
    }

    private void deleteQuietly(Path path) {
        files.deleteQuietly(path);
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
