package dev.heapload.store.bolt;

import dev.heapload.store.SnapshotExistsException;
import dev.heapload.store.GraphInput;
import dev.heapload.store.Precomputation;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.InputRows;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.StoreDirectory;
import dev.heapload.store.Catalog;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.neo4j.batchimport.api.InputIterator;
import org.neo4j.batchimport.api.input.Collector;
import org.neo4j.batchimport.api.input.Group;
import org.neo4j.batchimport.api.input.InputChunk;
import org.neo4j.batchimport.api.input.InputEntityVisitor;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Logging;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.TransactionCallback;
import org.neo4j.driver.Value;
import org.neo4j.driver.exceptions.AuthenticationException;
import org.neo4j.driver.exceptions.Neo4jException;
import org.neo4j.driver.exceptions.ServiceUnavailableException;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Snapshots in a running Neo4j server or cluster, reached over Bolt ({@code bolt://} or {@code neo4j://}), with the
 * same graph schema as the embedded {@link dev.heapload.store.embedded.GraphStore} ({@link GraphSchema}): the nodes
 * and relationships are the ones {@link GraphInput} hands to the embedded importer, sent with batched
 * {@code UNWIND $rows} writes of {@value #BATCH} rows per transaction.
 *
 * <h2>All-or-nothing</h2>
 * A load first commits a marker {@code (:LoadInProgress {snapshot, token, startedAt})} per snapshot, then the Object
 * nodes, the {@code Missing} nodes of kept references to nothing, and the relationships between them ({@code REF},
 * {@code WEAK_REF}) in batches,
 * and in one final transaction everything else, which is small: the {@code (:Snapshot)} nodes, categories,
 * statistics and comparisons ({@code Stats}, {@code Diff}, {@code NewObjects}, {@code LeakGroup}) with their
 * relationships, while deleting the markers. Saved queries start from a {@code :Snapshot} or {@code :Diff} node,
 * so a load that stopped midway (process killed, connection lost) is invisible to them. {@link #load},
 * {@link #snapshots()} and {@link #delete} first remove such leftovers ({@link #removeIncompleteLoads()}): the
 * nodes of each marked snapshot id, in batches, then the marker; never those of an id that has a
 * {@code :Snapshot} node. Deleting a snapshot works the same way: one transaction swaps its {@code :Snapshot} node
 * for a marker, then the rest goes in batches. Two processes loading into the same database at once are not
 * supported (each removes the other's marker).
 *
 * <p>Comparisons: a load compares its snapshots with each other (their models are in memory) and, in
 * both directions, with the previous complete, analysed snapshot on the server (load order) and with the
 * {@code baseline} given to {@link #load(List, boolean, String, Progress)}; no other stored snapshot is read. Each of
 * those is read back once, streamed, into a model with its stored analysis ({@link StoredSnapshotReader}), compared,
 * and released; its comparisons are written in the final transaction with the rest, pointing at its existing
 * Snapshot node and objects (leak-group examples, growth). Reading back costs about as much memory as the snapshot's
 * model and one read of its objects and references over Bolt. Any other pair is compared on its first request
 * ({@link #compare}, {@link #compareFor}: {@link RemoteComparisons}), in one transaction. The comparisons a load makes
 * with a new snapshot as the target are also kept as its leak history ({@code LoadComparison} nodes written in the
 * load's last transaction, {@link #history}: {@link RemoteHistory}).
 *
 * <p>Replacing ({@code replace = true}) deletes the old snapshot first, so when the new load then fails, the id
 * is gone from the server (unlike the embedded store, which keeps the old one).
 *
 * <p>Writing: batches of {@code batchSize} rows ({@value #BATCH} by default), one transaction each, written by
 * {@value #WRITERS} sessions at once while this thread prepares the next batch; the rows of one label set (or
 * relationship type) go as one list per property key ({@link Columns}), nodes are created with
 * {@code UNWIND range(0, size($p0) - 1) AS k CREATE (n:Labels {key: $p0[k], ...})} returning their internal ids
 * ({@code id(n)}), and the batched relationships seek both ends by internal id ({@code MATCH (a) WHERE id(a) = $s[k]}:
 * no index lookup, no element id to parse); the nodes and relationships of the final transaction, and the stored
 * nodes comparisons point at, are named by element id. Cost and the measurements behind the choices: docs/design/bolt.md.
 * Memory on this side: the models, at most one snapshot read back from the server at a time, {@code WRITERS + 2}
 * batches, a {@code long} per node of the load, and an element id per held node and per object of the server's
 * snapshots read back (a {@code long} when the server's element ids share one prefix).
 * Not thread-safe: use from one thread.
 */
public final class RemoteGraphStore implements dev.heapload.store.SnapshotStore {

    /** Label of the marker node of a load (or delete) in progress. */
    public static final String LOAD_IN_PROGRESS = "LoadInProgress";

    /** Rows per write transaction. */
    static final int BATCH = 10_000;

    /** Labels and relationship types that may be written into Cypher text. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

    /** Test hook: called after each committed batch of a load with the number of batches committed so far. */
    interface BatchHook {
        void committed(int batches) throws IOException;
    }

    /** Package-private for tests: throwing from it (or closing the driver) stops a load between two batches. */
    BatchHook batchHook = n -> {
    };

    /** Sessions writing batches at once (measured: docs/design/bolt.md). */
    static final int WRITERS = 2;

    /**
     * Package-private for tests: rows per write transaction of a load (system property {@code heapload.bolt.batch}
     * overrides the default, for bench/bolt.sh).
     */
    int batchSize = Integer.getInteger("heapload.bolt.batch", BATCH);

    /**
     * Package-private for tests: sessions writing batches at once (system property {@code heapload.bolt.writers}
     * overrides the default, for bench/bolt.sh). With 1, batches commit in order.
     */
    int writers = Integer.getInteger("heapload.bolt.writers", WRITERS);

    private final Driver driver;
    private final boolean ownsDriver;
    private final String uri;
    private final SessionConfig sessionConfig;
    private final String database;
    /** Comparisons on first request, over Bolt. */
    final RemoteComparisons comparisons = new RemoteComparisons(this);

    private RemoteGraphStore(Driver driver, boolean ownsDriver, String uri, String database) {
        this.driver = driver;
        this.ownsDriver = ownsDriver;
        this.uri = uri;
        this.database = database;
        this.sessionConfig = database == null ? SessionConfig.defaultConfig() : SessionConfig.forDatabase(database);
    }

    /**
     * Connects to the server at {@code uri} and checks that it answers.
     *
     * @param uri      {@code bolt://host:port}, {@code neo4j://host:port} (or their {@code +s}/{@code +ssc} variants)
     * @param user     user name for basic authentication
     * @param password password, or {@code null} to connect without authentication
     * @param database database name, or {@code null} for the server's default database
     * @throws IOException with a one-line message naming {@code uri} when the URI is malformed, the server is
     *                     unreachable or refuses the credentials
     */
    public static RemoteGraphStore connect(String uri, String user, String password, String database) throws IOException {
        AuthToken auth = password == null ? AuthTokens.none() : AuthTokens.basic(user, password);
        Config config = Config.builder()
            .withLogging(Logging.none())
            .withConnectionTimeout(15, TimeUnit.SECONDS)
            .withMaxTransactionRetryTime(15, TimeUnit.SECONDS)
            .withUserAgent("heapload")
            .build();
        Driver driver;
        try {
            driver = GraphDatabase.driver(uri, auth, config);
        } catch (IllegalArgumentException e) {
            throw new IOException("cannot use Neo4j URI " + uri + ": " + firstLine(e.getMessage()));
        }
        try {
            driver.verifyConnectivity();
        } catch (RuntimeException e) {
            driver.close();
            throw connectionFailure(uri, user, password, e);
        }
        return new RemoteGraphStore(driver, true, uri, database);
    }

    /**
     * A store on an already connected driver, which stays the caller's to close.
     *
     * @param driver   connected driver
     * @param uri      the server's URI, for messages
     * @param database database name, or {@code null} for the server's default database
     */
    public static RemoteGraphStore on(Driver driver, String uri, String database) {
        return new RemoteGraphStore(driver, false, uri, database);
    }

    /** The driver, for running saved queries on the same server. */
    public Driver driver() {
        return driver;
    }

    /** The database name given, or {@code null} for the server's default. */
    public String database() {
        return database;
    }

    /** The URI, for messages. */
    public String uri() {
        return uri;
    }

    /** The server's URI, and its database when one was named. */
    @Override
    public String place() {
        return uri + (database == null ? "" : " database " + database);
    }

    /** False: a server keeps every snapshot whole (prune is for the embedded store). */
    @Override
    public boolean isPruned(String id) {
        return false;
    }

    /**
     * The complete snapshots on the server (their {@code :Snapshot} nodes), in load order ({@code loadOrder}, then
     * {@code loadedAt} and id for snapshots loaded by versions without {@code loadOrder}), after removing
     * the leftovers of incomplete loads. {@code analysed} is true when the objects carry analysis properties.
     *
     * @throws IOException (one line, naming the URI) when the server fails or the connection is lost
     */
    public List<SnapshotSummary> snapshots() throws IOException {
        removeIncompleteLoads();
        return readSnapshots(null);
    }

    /**
     * The complete snapshot {@code id}, if the server holds it.
     *
     * @throws IOException (one line) when the server fails
     */
    public Optional<SnapshotSummary> snapshot(String id) throws IOException {
        List<SnapshotSummary> list = readSnapshots(id);
        return list.isEmpty() ? Optional.empty() : Optional.of(list.get(0));
    }

    /** {@link #load(List, boolean, Progress)} of one snapshot. */
    public void load(HeapSnapshot snapshot, boolean replace, Progress progress) throws IOException {
        load(List.of(snapshot), replace, progress);
    }

    /**
     * Loads {@code snapshots} (ids {@code snapshot.info().id()}), each with its analysis when
     * {@code snapshot.analysis()} is a {@link HeapAnalysis}, plus the precomputed statistics of each and the
     * comparisons of every ordered pair of them and, in both directions, with every complete analysed snapshot already
     * on the server (as the embedded store computes them, {@link Precomputation}; the server's snapshots are read back
     * with {@link StoredSnapshotReader}). Ensures the schema (constraint {@value GraphSchema#SNAPSHOT_ID_CONSTRAINT}, index
     * {@value GraphSchema#OBJECT_ADDRESS_INDEX}), removes leftovers of incomplete loads, then writes as the class
     * comment says; all or nothing for the whole list. When this throws, the server holds no visible part of the
     * snapshots (with {@code replace}, the old ones are gone too).
     *
     * @param replace  delete snapshots with the same ids first instead of refusing
     * @param progress phases {@code "compare"} (pairs) and {@code "write"} (rows: nodes plus relationships)
     * @throws SnapshotExistsException  when an id exists and {@code replace} is false (nothing was written)
     * @throws IllegalArgumentException when an id is empty or given twice, or analysis arrays do not match the
     *                                  object count
     * @throws IOException              (one line) when a type label cannot be written safely, the server fails or
     *                                  the connection is lost
     */
    public void load(List<HeapSnapshot> snapshots, boolean replace, Progress progress) throws IOException {
        load(snapshots, replace, null, progress);
    }

    /**
     * {@link #load(List, boolean, Progress)}, comparing the new snapshots also with the stored snapshot
     * {@code baseline} (besides the previous one).
     *
     * @param baseline id of a complete, analysed snapshot on the server or among {@code snapshots}, or {@code null}
     * @throws SnapshotNotFoundException when {@code baseline} is neither on the server nor among {@code snapshots}
     *                                   (nothing was written)
     */
    public void load(List<HeapSnapshot> snapshots, boolean replace, String baseline, Progress progress)
        throws IOException {
        List<String> ids = new ArrayList<>();
        for (HeapSnapshot snapshot : snapshots) {
            String id = snapshot.info().id();
            if (id == null || id.isEmpty()) {
                throw new IllegalArgumentException("snapshot id is empty");
            }
            if (ids.contains(id)) {
                throw new IllegalArgumentException("snapshot id '" + id + "' given twice");
            }
            ids.add(id);
            StoreDirectory.checkAnalysis(snapshot);
            for (String type : snapshot.typeNames()) {
                String label = GraphSchema.typeLabel(type);
                if (label != null && !NAME.matcher(label).matches()) {
                    throw new IOException("snapshot '" + id + "': the label of type '" + type
                        + "' is not plain ASCII letters, digits and underscores; it cannot be loaded over Bolt");
                }
            }
        }
        ensureSchema();
        removeIncompleteLoads();
        for (String id : ids) {
            if (snapshot(id).isPresent() && !replace) {
                throw new SnapshotExistsException(id, uri);
            }
        }
        if (baseline != null && !ids.contains(baseline) && snapshot(baseline).isEmpty()) {
            throw new SnapshotNotFoundException(baseline, uri);
        }
        for (String id : ids) {
            if (snapshot(id).isPresent()) {
                delete(id);
            }
        }
        List<GraphInput.Part> parts = new ArrayList<>();
        boolean anyAnalysed = false;
        for (HeapSnapshot snapshot : snapshots) {
            Catalog.Entry entry = StoreDirectory.entryOf(snapshot);
            anyAnalysed |= entry.summary().analysed();
            parts.add(new GraphInput.Part(entry, () -> snapshot, null));
        }
        // the snapshots already on the server that the new ones are compared with (the previous complete, analysed
        // one in load order and the baseline): read back when needed, one at a time; no other stored snapshot is read
        Map<Integer, StoredNodes> storedIds = new HashMap<>();
        if (anyAnalysed) {
            for (SnapshotSummary summary : comparedWith(readSnapshots(null), ids, baseline)) {
                int index = parts.size();
                parts.add(new GraphInput.Part(new Catalog.Entry(summary, null, 0), () -> {
                    StoredSnapshotReader.Stored stored = readStored(summary);
                    // keep the element ids only: the model is the comparison's to release
                    storedIds.put(index, new StoredNodes(stored.elementIds(), stored.snapshotElementId()));
                    return stored.snapshot();
                }, null, true));
            }
        }
        List<GraphInput.Pair> pairs = new ArrayList<>();
        parts = Precomputation.run(parts, pairs, progress);
        // load order continues after the snapshots already on the server (a replaced one was deleted above, so it
        // moves to the end); Snapshot nodes of older loads without loadOrder sort before all others; stored parts
        // come after the new ones and write no Snapshot node
        long firstLoadOrder = read(tx -> tx.run("MATCH (s:" + GraphSchema.SNAPSHOT + ") "
            + "RETURN coalesce(max(s.loadOrder) + 1, 0) AS next").single().get("next").asLong());
        GraphInput input = new GraphInput(parts, pairs, firstLoadOrder);
        Load load = new Load(ids, input, existingNodes(input, parts, pairs, storedIds), progress);
        // the comparisons this load keeps for the leak history: written in its last transaction (RemoteHistory)
        load.alsoInLastTransaction = RemoteHistory.work(parts, ids.size(), pairs, baseline);
        load.run();
    }

    /**
     * Makes sure the server holds the comparison of the pair (what is new in {@code target} relative to
     * {@code baseline}: {@code Diff}, {@code NewObjects}, {@code LeakGroup}, {@code EXAMPLE}, {@code GREW}), as
     * {@link GraphStore#compare} does for the embedded store: a load compares the new snapshot with the previous one
     * and {@code --baseline}; any other pair is compared here on its first request, both snapshots read back from the
     * server ({@link StoredSnapshotReader}), and written in one transaction (all or nothing), with the one-line notice
     * {@code comparing 'T' with 'B' (first request for this pair; kept for later)} ({@link #setNotices}). Later
     * requests reuse it. Details: {@link RemoteComparisons}.
     *
     * @return true when the pair was compared now, false when it already was (or is the same snapshot, or either one
     *         is not analysed)
     * @throws SnapshotNotFoundException when either snapshot is not complete on the server
     * @throws IOException               (one line) when the server fails or a snapshot changed meanwhile; nothing was
     *                                   written
     */
    public boolean compare(String baseline, String target) throws IOException {
        return comparisons.compare(baseline, target);
    }

    /**
     * Before running a saved query with these bound parameters: compares its pair on first request ({@link #compare})
     * when it names a {@code baseline} and a {@code target} (or {@code snapshot}) that are both complete snapshots
     * on the server and is not one of {@link GraphSchema#SUMMARY_QUERIES}; otherwise does nothing (unknown ids are
     * left to the query's own one-line refusal). Only for a server loaded by heapload ({@code --uri}), not for the
     * Bolt port of {@code heapload serve} (a served graph holds one snapshot's objects).
     *
     * @throws IOException as {@link #compare}
     */
    public void compareFor(String queryName, Map<String, Object> params) throws IOException {
        comparisons.prepare(queryName, params);
    }

    /** Where every Bolt store of this process sends one-line notices (no prefix, no newline); none by default. */
    public static void setNotices(java.util.function.Consumer<String> sink) {
        RemoteComparisons.setNotices(sink);
    }

    /**
     * Every complete snapshot on the server in load order, with the comparisons its load made (totals and the
     * {@value dev.heapload.store.StoredSummary#LEAK_GROUPS} largest leak groups), as
     * {@link GraphStore#history()} gives them for the embedded store: the leak history of {@code heapload trend
     * --leak} and of the report. Read from the {@code LoadComparison} nodes ({@link RemoteHistory}); snapshots loaded
     * by heapload versions without them have none. Reads only (no clean-up of incomplete loads).
     *
     * @throws IOException (one line) when the server fails
     */
    public List<dev.heapload.store.SnapshotHistory> history() throws IOException {
        List<SnapshotSummary> list = readSnapshots(null);
        return read(RemoteHistory.read(list));
    }

    /**
     * The complete snapshot {@code id} read back from the server as a model with its stored analysis and the objects'
     * labels ({@link StoredSnapshotReader}): what {@code heapload query paths} searches over {@code --uri}. Objects
     * come in the server's order (not the dump's), so among equally short paths another one may be chosen than from
     * the embedded store's model. Costs one read of the snapshot's objects and references over Bolt.
     *
     * @throws SnapshotNotFoundException when the server has no complete snapshot {@code id}
     * @throws IOException               (one line) when the server fails or the snapshot was stored without analysis
     */
    public HeapSnapshot model(String id) throws IOException {
        SnapshotSummary s = snapshot(id).orElseThrow(() -> new SnapshotNotFoundException(id, uri));
        if (!s.analysed()) {
            throw new IOException("snapshot '" + id + "' on " + uri + " was stored without its analysis; load it again");
        }
        return readStored(s, true).snapshot();
    }

    /**
     * The stored snapshots a load of {@code ids} compares with (the pairs a nightly job asks for): the newest
     * complete, analysed one in load order that is not being replaced, and {@code baseline} when it is stored and
     * analysed. Other pairs are not computed over Bolt.
     *
     * @param stored the server's snapshots in load order
     */
    static List<SnapshotSummary> comparedWith(List<SnapshotSummary> stored, List<String> ids, String baseline) {
        List<SnapshotSummary> out = new ArrayList<>();
        SnapshotSummary previous = null;
        for (SnapshotSummary s : stored) {
            if (s.analysed() && !ids.contains(s.id())) {
                previous = s;
            }
        }
        if (previous != null) {
            out.add(previous);
        }
        for (SnapshotSummary s : stored) {
            if (s.analysed() && s.id().equals(baseline) && !ids.contains(s.id()) && s != previous) {
                out.add(s);
            }
        }
        return out;
    }

    /** Element ids of a stored snapshot's objects (by object id) and of its Snapshot node. */
    private record StoredNodes(ElementIds objects, String snapshot) {
    }

    /** Reads a snapshot of the server back (one read transaction), for comparing it with new ones. */
    private StoredSnapshotReader.Stored readStored(SnapshotSummary summary) throws IOException {
        return readStored(summary, false);
    }

    /** Reads a snapshot of the server back (one read transaction), with the objects' labels when {@code labels}. */
    StoredSnapshotReader.Stored readStored(SnapshotSummary summary, boolean labels) throws IOException {
        try (Session session = driver.session(sessionConfig)) {
            return session.executeRead(StoredSnapshotReader.read(summary, labels));
        } catch (IllegalStateException e) {
            if (String.valueOf(e.getMessage()).contains("closed")) {
                throw failure("reading snapshot '" + summary.id() + "'", e);
            }
            throw new IOException("Neo4j at " + uri + ": " + e.getMessage());
        } catch (RuntimeException e) {
            throw failure("reading snapshot '" + summary.id() + "'", e);
        }
    }

    /**
     * The element ids of the nodes already on the server that the comparisons point at, by input id: the Snapshot
     * node of each stored part in a pair, and the objects of stored targets that are leak-group examples or grew.
     */
    private static Map<Long, String> existingNodes(GraphInput input, List<GraphInput.Part> parts,
                                                   List<GraphInput.Pair> pairs,
                                                   Map<Integer, StoredNodes> stored) throws IOException {
        Map<Long, String> nodes = new HashMap<>();
        for (GraphInput.Pair pair : pairs) {
            for (int part : new int[] {pair.baseline(), pair.target()}) {
                if (parts.get(part).stored()) {
                    nodes.put(input.nodeBase(part) + parts.get(part).entry().summary().objectCount(),
                        stored.get(part).snapshot());
                }
            }
            int t = pair.target();
            if (parts.get(t).stored()) {
                ElementIds objects = stored.get(t).objects();
                for (var g : pair.comparison().leakGroups()) {
                    nodes.put(input.nodeBase(t) + g.example(), objects.get(g.example()));
                }
                for (var g : pair.comparison().growth()) {
                    nodes.put(input.nodeBase(t) + g.target(), objects.get(g.target()));
                }
            }
        }
        return nodes;
    }

    /**
     * Deletes the complete snapshot {@code id}: its {@code :Snapshot} node and the comparisons with it ({@code Diff},
     * {@code NewObjects}, {@code LeakGroup} nodes whose baseline or target it is) at once, replaced by a marker, then
     * its objects and categories in batches of {@value #BATCH}.
     *
     * @throws SnapshotNotFoundException when the server has no complete snapshot {@code id}
     * @throws IOException               (one line) when the server fails
     */
    public void delete(String id) throws IOException {
        removeIncompleteLoads();
        String token = UUID.randomUUID().toString();
        long found = write(tx -> {
            // its leak history (LoadComparison nodes) goes with its Snapshot node
            RemoteHistory.delete(id).execute(tx);
            long n = tx.run("MATCH (s:" + GraphSchema.SNAPSHOT + " {id: $id}) "
                    + "CREATE (:" + LOAD_IN_PROGRESS + " {snapshot: $id, token: $token, startedAt: datetime(), deleting: true}) "
                    + "DETACH DELETE s RETURN count(*) AS n",
                Map.of("id", id, "token", token)).single().get("n").asLong();
            if (n > 0) {
                // the comparisons with this snapshot go with its Snapshot node, so no query sees one of them alone
                for (String label : new String[] {GraphSchema.DIFF, GraphSchema.NEW_OBJECTS, GraphSchema.LEAK_GROUP}) {
                    tx.run("MATCH (d:" + label + ") WHERE d.baseline = $id OR d.target = $id DETACH DELETE d",
                        Map.of("id", id)).consume();
                }
            }
            return n;
        });
        if (found == 0) {
            throw new SnapshotNotFoundException(id, uri);
        }
        purge(id);
    }

    /**
     * Removes what incomplete loads left: for each {@code :LoadInProgress} marker, the Objects and Categories
     * (with their relationships) of its snapshot id in batches, then the marker; when that id has a
     * {@code :Snapshot} node, only the marker.
     *
     * @return the snapshot ids cleaned up
     * @throws IOException (one line) when the server fails
     */
    public List<String> removeIncompleteLoads() throws IOException {
        List<String> ids = write(tx -> {
            List<String> list = new ArrayList<>();
            for (Record r : tx.run("MATCH (m:" + LOAD_IN_PROGRESS + ") RETURN DISTINCT m.snapshot AS id").list()) {
                list.add(r.get("id").asString(null));
            }
            return list;
        });
        List<String> cleaned = new ArrayList<>();
        for (String id : ids) {
            if (id == null) {
                write(tx -> tx.run("MATCH (m:" + LOAD_IN_PROGRESS + ") WHERE m.snapshot IS NULL DELETE m").consume());
                continue;
            }
            if (snapshot(id).isPresent()) {
                write(tx -> tx.run("MATCH (m:" + LOAD_IN_PROGRESS + " {snapshot: $id}) DELETE m", Map.of("id", id)).consume());
            } else {
                purge(id);
                cleaned.add(id);
            }
        }
        return cleaned;
    }

    /** Closes the driver when this store opened it. */
    @Override
    public void close() {
        if (ownsDriver) {
            driver.close();
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Deletes the Objects, Missing nodes and Categories of snapshot {@code id} in batches, then its markers. */
    private void purge(String id) throws IOException {
        Map<String, Object> p = Map.of("id", id, "batch", (long) BATCH);
        while (write(tx -> tx.run("MATCH (o:" + GraphSchema.OBJECT + ") WHERE o.snapshot = $id AND o.address IS NOT NULL "
            + "WITH o LIMIT $batch DETACH DELETE o RETURN count(*) AS n", p).single().get("n").asLong()) > 0) {
            // next batch
        }
        while (write(tx -> tx.run("MATCH (m:" + GraphSchema.MISSING + " {snapshot: $id}) "
            + "WITH m LIMIT $batch DETACH DELETE m RETURN count(*) AS n", p).single().get("n").asLong()) > 0) {
            // next batch of Missing nodes (--keep-dangling)
        }
        for (String label : new String[] {GraphSchema.STATS, GraphSchema.CATEGORY}) {
            write(tx -> tx.run("MATCH (n:" + label + " {snapshot: $id}) DETACH DELETE n", p).consume());
        }
        for (String label : new String[] {GraphSchema.DIFF, GraphSchema.NEW_OBJECTS, GraphSchema.LEAK_GROUP}) {
            write(tx -> tx.run("MATCH (n:" + label + ") WHERE n.baseline = $id OR n.target = $id DETACH DELETE n", p)
                .consume());
        }
        write(tx -> tx.run("MATCH (m:" + LOAD_IN_PROGRESS + " {snapshot: $id}) DELETE m", Map.of("id", id)).consume());
    }

    List<SnapshotSummary> readSnapshots(String id) throws IOException {
        String where = id == null ? "" : " WHERE s.id = $id";
        Map<String, Object> params = id == null ? Map.of() : Map.of("id", id);
        return read(tx -> {
            List<SnapshotSummary> list = new ArrayList<>();
            for (Record r : tx.run("MATCH (s:" + GraphSchema.SNAPSHOT + ")" + where + " RETURN s{.*} AS p, "
                + "EXISTS { MATCH (s)-[:" + GraphSchema.ROOT + "]->(o) WHERE o.reachable IS NOT NULL } AS analysed "
                + "ORDER BY coalesce(s.loadOrder, -1), s.loadedAt, s.id", params).list()) {
                Value p = r.get("p");
                Value at = p.get("loadedAt");
                Instant loadedAt = at.isNull() ? Instant.EPOCH : at.asZonedDateTime().toInstant();
                list.add(new SnapshotSummary(p.get("id").asString(), p.get("vm").asString(null),
                    p.get("source").asString(null), p.get("sha256").asString(null), loadedAt,
                    p.get("objectCount").asLong(0), p.get("referenceCount").asLong(0), p.get("totalBytes").asLong(0),
                    p.get("objectBytes").asLong(0), r.get("analysed").asBoolean(), p.get("producer").asString(null),
                    p.get("vmVersion").asString(null)));
            }
            return list;
        });
    }

    private void ensureSchema() throws IOException {
        String[] statements = {
            "CREATE CONSTRAINT " + GraphSchema.SNAPSHOT_ID_CONSTRAINT + " IF NOT EXISTS FOR (s:" + GraphSchema.SNAPSHOT
                + ") REQUIRE s.id IS UNIQUE",
            "CREATE INDEX " + GraphSchema.OBJECT_ADDRESS_INDEX + " IF NOT EXISTS FOR (o:" + GraphSchema.OBJECT
                + ") ON (o.snapshot, o.address)",
            "CALL db.awaitIndexes(300)"};
        try (Session session = driver.session(sessionConfig)) {
            for (String statement : statements) {
                session.run(statement).consume();
            }
        } catch (RuntimeException e) {
            throw failure("creating the schema", e);
        }
    }

    <T> T write(TransactionCallback<T> work) throws IOException {
        try (Session session = driver.session(sessionConfig)) {
            return session.executeWrite(work);
        } catch (RuntimeException e) {
            throw failure("writing", e);
        }
    }

    <T> T read(TransactionCallback<T> work) throws IOException {
        try (Session session = driver.session(sessionConfig)) {
            return session.executeRead(work);
        } catch (RuntimeException e) {
            throw failure("reading", e);
        }
    }

    private IOException failure(String what, RuntimeException e) {
        if (e instanceof ServiceUnavailableException || e instanceof AuthenticationException) {
            return connectionFailure(uri, null, null, e);
        }
        if (e instanceof IllegalStateException && String.valueOf(e.getMessage()).contains("closed")) {
            return new IOException("Neo4j at " + uri + ": the connection was closed while " + what);
        }
        if (e instanceof Neo4jException n && "Neo.ClientError.Database.DatabaseNotFound".equals(n.code())) {
            return new IOException("Neo4j at " + uri + " has no database '" + database + "'");
        }
        String db = database == null ? "" : " (database " + database + ")";
        return new IOException("Neo4j at " + uri + db + " failed while " + what + ": " + firstLine(e.getMessage()));
    }

    private static IOException connectionFailure(String uri, String user, String password, RuntimeException e) {
        if (e instanceof AuthenticationException) {
            String how = password == null && user != null
                ? " (no password given: set NEO4J_PASSWORD or use --password-file)" : "";
            return new IOException("Neo4j at " + uri + " refused the login" + (user == null ? "" : " of user '" + user + "'")
                + how + ": " + firstLine(e.getMessage()));
        }
        if (e instanceof ServiceUnavailableException) {
            return new IOException("cannot reach Neo4j at " + uri + ": " + firstLine(e.getMessage()));
        }
        return new IOException("cannot connect to Neo4j at " + uri + ": " + firstLine(e.getMessage()));
    }

    private static String firstLine(String m) {
        if (m == null || m.isBlank()) {
            return "no details";
        }
        int nl = m.indexOf('\n');
        return (nl >= 0 ? m.substring(0, nl) : m).strip();
    }

    /**
     * One load: the markers, the batches of Object nodes and of relationships between them, and the final
     * transaction with everything else (Snapshot, Category, Stats, Diff, NewObjects, LeakGroup nodes and their
     * relationships: small, and some of them are read by queries without going through a Snapshot node).
     *
     * <p>Batches go to {@link #writers} sessions at once (this thread prepares the next batch while they write, and
     * the server works on several transactions); at most {@code writers + 1} batches are held. All node batches
     * are committed before the first relationship batch (relationships name their ends by element id). A
     * relationship batch that meets a deadlock (two batches locking the same node) is retried by the driver.
     */
    private final class Load {
        private final List<String> snapshotIds;
        private final GraphInput input;
        private final Progress progress;
        private final String token = UUID.randomUUID().toString();
        /** Element ids of the held nodes (final transaction) and of the stored nodes comparisons point at. */
        private final ElementIds ids;
        /** Internal ids ({@code id(n)}) of the nodes created in batches, by input id; -1 for none. */
        private final long[] nodeIds;
        private final java.util.BitSet held = new java.util.BitSet();
        /** Pending rows per label set (nodes) or relationship type. */
        private Map<String, List<Map<String, Object>>> pending = new LinkedHashMap<>();
        private int pendingRows;
        private int batches;
        private long rowsWritten;
        /** Nodes and relationships of the final transaction, by label set or type (ids not yet resolved). */
        private final Map<String, List<Map<String, Object>>> finalNodes = new LinkedHashMap<>();
        private final Map<String, List<Map<String, Object>>> finalRelationships = new LinkedHashMap<>();
        private final java.util.concurrent.ExecutorService pool;
        private final java.util.concurrent.ExecutorCompletionService<Batch> done;
        private int inFlight;
        /** More work for the last transaction, after its nodes and relationships (the load's leak history). */
        TransactionCallback<Void> alsoInLastTransaction = tx -> null;

        /** A committed batch: its row count and, for nodes, the element ids it created (by input id). */
        private record Batch(int rows, long[] inputIds, List<Object> createdIds) {
        }

        /**
         * @param existing element ids of nodes already on the server that relationships of {@code input} end at
         *                 (comparisons with stored snapshots), by input id
         */
        Load(List<String> snapshotIds, GraphInput input, Map<Long, String> existing, Progress progress) {
            this.snapshotIds = snapshotIds;
            this.input = input;
            this.progress = progress;
            this.ids = new ElementIds((int) input.nodeCount());
            this.nodeIds = new long[(int) input.nodeCount()];
            java.util.Arrays.fill(nodeIds, -1);
            existing.forEach(ids::put);
            int n = Math.max(1, writers);
            java.util.concurrent.atomic.AtomicInteger threads = new java.util.concurrent.atomic.AtomicInteger();
            this.pool = java.util.concurrent.Executors.newFixedThreadPool(n, r -> {
                Thread t = new Thread(r, "heapload-bolt-writer-" + threads.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            this.done = new java.util.concurrent.ExecutorCompletionService<>(pool);
        }

        void run() throws IOException {
            write(tx -> tx.run("UNWIND $ids AS id CREATE (:" + LOAD_IN_PROGRESS
                + " {snapshot: id, token: $token, startedAt: datetime()})", Map.of("ids", snapshotIds, "token", token)).consume());
            progress.start("write", -1, "rows");
            try {
                drain(input.nodes(Collector.EMPTY).iterator(), new InputRows(this::node));
                flushNodes();
                awaitAll();
                drain(input.relationships(Collector.EMPTY).iterator(), new InputRows(this::relationship));
                flushRelationships();
                awaitAll();
                finish();
            } finally {
                pool.shutdownNow();
                progress.end();
            }
        }

        private void drain(InputIterator it, InputRows visitor) throws IOException {
            try (it; InputChunk chunk = it.newChunk()) {
                while (it.next(chunk)) {
                    while (chunk.next(visitor)) {
                        // each call hands one entity to the visitor
                    }
                }
            }
        }

        private void node(InputRows r) throws IOException {
            String key = String.join(":", r.labels);
            for (String label : r.labels) {
                checkName(label);
            }
            Map<String, Object> row = new HashMap<>(4);
            row.put("i", r.id);
            row.put("p", r.properties);
            // Object and Missing nodes (--keep-dangling: one per address with no record) go in batches; the rest is held
            if (r.labels.length == 0 || !(r.labels[0].equals(GraphSchema.OBJECT) || r.labels[0].equals(GraphSchema.MISSING))) {
                held.set((int) r.id);
                finalNodes.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
                return;
            }
            pending.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
            if (++pendingRows >= batchSize) {
                flushNodes();
            }
        }

        private void flushNodes() throws IOException {
            if (pendingRows == 0) {
                return;
            }
            Map<String, List<Map<String, Object>>> rows = pending;
            int count = pendingRows;
            submit(() -> {
                Batch b = createNodes(rows, count);
                return b;
            });
        }

        /** Creates the node rows grouped by label set in one transaction; the element ids come back in the batch. */
        private Batch createNodes(Map<String, List<Map<String, Object>>> byLabels, int count) {
            long[] inputIds = new long[count];
            List<Object> internalIds = new ArrayList<>(count);
            try (Session session = driver.session(sessionConfig)) {
                session.executeWrite(tx -> {
                    internalIds.clear();
                    nodeWork(byLabels, inputIds, internalIds, "id").execute(tx);
                    return null;
                });
            }
            return new Batch(count, inputIds, internalIds);
        }

        /**
         * Work that creates the node rows grouped by label set and puts input ids and the created nodes' ids, in
         * order: {@code function} {@code "id"} (internal ids, {@code Long}: what the batched relationships seek by) or
         * {@code "elementId"} ({@code String}).
         */
        private TransactionCallback<Void> nodeWork(Map<String, List<Map<String, Object>>> byLabels, long[] inputIds,
                                                   List<Object> createdIds, String function) {
            return tx -> {
                int at = 0;
                for (Map.Entry<String, List<Map<String, Object>>> e : byLabels.entrySet()) {
                    List<Map<String, Object>> rows = e.getValue();
                    Columns c = Columns.of(rows);
                    Record rec = tx.run("UNWIND range(0, size($" + c.first() + ") - 1) AS k CREATE (n:" + e.getKey()
                        + " {" + c.fields() + "}) RETURN collect(k) AS k, collect(" + function + "(n)) AS e", c.parameters())
                        .single();
                    List<Object> ks = rec.get("k").asList();
                    List<Object> es = rec.get("e").asList();
                    if (ks.size() != rows.size()) {
                        throw new IllegalStateException("created " + ks.size() + " of " + rows.size() + " nodes");
                    }
                    for (int k = 0; k < ks.size(); k++) {
                        inputIds[at++] = (Long) rows.get((int) (long) (Long) ks.get(k)).get("i");
                        createdIds.add(es.get(k));
                    }
                }
                return null;
            };
        }

        private void relationship(InputRows r) throws IOException {
            checkName(r.type);
            Map<String, Object> row = new HashMap<>(4);
            row.put("p", r.properties);
            if (held.get((int) r.start) || held.get((int) r.end)) {
                row.put("s", r.start);
                row.put("e", r.end);
                finalRelationships.computeIfAbsent(r.type, k -> new ArrayList<>()).add(row);
                return;
            }
            row.put("s", nodeId(r.start));
            row.put("e", nodeId(r.end));
            pending.computeIfAbsent(r.type, k -> new ArrayList<>()).add(row);
            if (++pendingRows >= batchSize) {
                flushRelationships();
            }
        }

        /** The internal id of a node this load created in a batch. */
        private long nodeId(long input) throws IOException {
            long id = input >= 0 && input < nodeIds.length ? nodeIds[(int) input] : -1;
            if (id < 0) {
                throw new IOException("no node was created for input id " + input);
            }
            return id;
        }

        /** A node's internal id ({@code Long}) when a batch created it, else its element id ({@code String}). */
        private Object anyId(long input) throws IOException {
            long id = input >= 0 && input < nodeIds.length ? nodeIds[(int) input] : -1;
            return id >= 0 ? (Object) id : ids.get(input);
        }

        private void flushRelationships() throws IOException {
            if (pendingRows == 0) {
                return;
            }
            Map<String, List<Map<String, Object>>> rows = pending;
            int count = pendingRows;
            TransactionCallback<Void> work = createRelationships(rows);
            submit(() -> {
                try (Session session = driver.session(sessionConfig)) {
                    session.executeWrite(work);
                }
                return new Batch(count, null, null);
            });
        }

        /** Hands a batch to a writer, first waiting for one when {@code writers + 1} are pending. */
        private void submit(java.util.concurrent.Callable<Batch> batch) throws IOException {
            pending = new LinkedHashMap<>();
            pendingRows = 0;
            while (inFlight > Math.max(1, writers)) {
                collect();
            }
            done.submit(batch);
            inFlight++;
        }

        private void awaitAll() throws IOException {
            while (inFlight > 0) {
                collect();
            }
        }

        /** Waits for the next batch to end; records its element ids, the progress, and runs the batch hook. */
        private void collect() throws IOException {
            Batch b;
            try {
                b = done.take().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                pool.shutdownNow();
                throw new IOException("interrupted while writing to Neo4j at " + uri);
            } catch (java.util.concurrent.ExecutionException e) {
                pool.shutdownNow();
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException re) {
                    throw failure("writing", re);
                }
                throw new IOException("Neo4j at " + uri + " failed while writing: " + firstLine(String.valueOf(cause)));
            } finally {
                inFlight--;
            }
            if (b.inputIds() != null) {
                for (int k = 0; k < b.rows(); k++) {
                    nodeIds[(int) b.inputIds()[k]] = (Long) b.createdIds().get(k);
                }
            }
            rowsWritten += b.rows();
            progress.step(rowsWritten);
            try {
                batchHook.committed(++batches);
            } catch (IOException | RuntimeException e) {
                pool.shutdownNow();
                throw e;
            }
        }

        /**
         * Work that creates the relationship rows grouped by {@code TYPE} (both ends {@code s}, {@code e} are internal
         * ids) or by {@code TYPE:FUNCTION:FUNCTION} (each end named by {@code id} or {@code elementId}).
         */
        private TransactionCallback<Void> createRelationships(Map<String, List<Map<String, Object>>> byType) {
            List<String> statements = new ArrayList<>();
            List<List<Map<String, Object>>> rows = new ArrayList<>();
            List<Map<String, Object>> parameters = new ArrayList<>();
            for (Map.Entry<String, List<Map<String, Object>>> e : byType.entrySet()) {
                Columns c = Columns.of(e.getValue());
                List<Object> starts = new ArrayList<>(e.getValue().size());
                List<Object> ends = new ArrayList<>(e.getValue().size());
                for (Map<String, Object> row : e.getValue()) {
                    starts.add(row.get("s"));
                    ends.add(row.get("e"));
                }
                Map<String, Object> p = c.parameters();
                p.put("s", starts);
                p.put("e", ends);
                String[] key = e.getKey().split(":");
                String type = key[0];
                String startBy = key.length == 3 ? key[1] : "id";
                String endBy = key.length == 3 ? key[2] : "id";
                statements.add("UNWIND range(0, size($s) - 1) AS k MATCH (a) WHERE " + startBy + "(a) = $s[k] "
                    + "MATCH (b) WHERE " + endBy + "(b) = $e[k] CREATE (a)-[x:" + type + " {" + c.fields() + "}]->(b) "
                    + "RETURN count(x) AS n");
                rows.add(e.getValue());
                parameters.add(p);
            }
            return t -> {
                for (int s = 0; s < statements.size(); s++) {
                    long created = t.run(statements.get(s), parameters.get(s)).single().get("n").asLong();
                    if (created != rows.get(s).size()) {
                        throw new IllegalStateException("created " + created + " of " + rows.get(s).size()
                            + " relationships: nodes of this load are missing on the server");
                    }
                }
                return null;
            };
        }

        /** The held nodes and relationships and the removal of the markers: one transaction. */
        private void finish() throws IOException {
            int heldNodes = finalNodes.values().stream().mapToInt(List::size).sum();
            long[] inputIds = new long[heldNodes];
            List<Object> elementIds = new ArrayList<>(heldNodes);
            TransactionCallback<Void> nodes = nodeWork(finalNodes, inputIds, elementIds, "elementId");
            write(tx -> {
                long markers = tx.run("MATCH (m:" + LOAD_IN_PROGRESS + " {token: $token}) DELETE m RETURN count(*) AS n",
                    Map.of("token", token)).single().get("n").asLong();
                if (markers != snapshotIds.size()) {
                    throw new IllegalStateException("the marker of this load was removed by another heapload process; "
                        + "load again");
                }
                elementIds.clear();
                nodes.execute(tx);
                for (int k = 0; k < heldNodes; k++) {
                    ids.put(inputIds[k], (String) elementIds.get(k));
                }
                // an end created in a batch is named by its internal id, a held or stored one by its element id: one
                // statement per type and pair of kinds
                Map<String, List<Map<String, Object>>> resolved = new LinkedHashMap<>();
                for (Map.Entry<String, List<Map<String, Object>>> e : finalRelationships.entrySet()) {
                    for (Map<String, Object> row : e.getValue()) {
                        Map<String, Object> r = new HashMap<>(row);
                        try {
                            r.put("s", anyId((Long) row.get("s")));
                            r.put("e", anyId((Long) row.get("e")));
                        } catch (IOException x) {
                            throw new IllegalStateException(x.getMessage());
                        }
                        String key = e.getKey() + ":" + (r.get("s") instanceof Long ? "id" : "elementId") + ":"
                            + (r.get("e") instanceof Long ? "id" : "elementId");
                        resolved.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
                    }
                }
                createRelationships(resolved).execute(tx);
                return alsoInLastTransaction.execute(tx);
            });
            rowsWritten += heldNodes + finalRelationships.values().stream().mapToLong(List::size).sum();
            progress.step(rowsWritten);
        }
    }

    private static void checkName(String name) throws IOException {
        if (!NAME.matcher(name).matches()) {
            throw new IOException("refusing to write label or type '" + name + "' into Cypher");
        }
    }

    /**
     * The properties of a list of rows (each a map with the properties under {@code "p"}) as one parameter list per
     * property key ({@code $p0}, {@code $p1}, …, each as long as the rows, {@code null} where a row lacks the key) and
     * the Cypher map text that picks row {@code k} from them ({@code address: $p0[k], size: $p1[k]}); {@code CREATE}
     * leaves a property whose value is {@code null} unset, so each node or relationship gets exactly its own keys. The
     * keys are sorted, so batches with the same keys send the same statement text (one cached plan). {@code first}
     * names a list with one element per row ({@code $p0}, or {@code $n}: the row indexes when no row has properties), for {@code range(0, size(...) - 1)}.
     * Sending columns instead of a list of maps, and naming the keys in the statement instead of {@code SET n = map},
     * costs the server less per row (docs/design/bolt.md).
     */
    record Columns(String fields, Map<String, Object> parameters, String first) {
        static Columns of(List<Map<String, Object>> rows) {
            java.util.TreeSet<String> keys = new java.util.TreeSet<>();
            for (Map<String, Object> row : rows) {
                @SuppressWarnings("unchecked")
                Map<String, Object> p = (Map<String, Object>) row.get("p");
                keys.addAll(p.keySet());
            }
            StringBuilder fields = new StringBuilder();
            Map<String, Object> parameters = new HashMap<>();
            int n = 0;
            for (String key : keys) {
                if (!NAME.matcher(key).matches()) {
                    throw new IllegalArgumentException("refusing to write property key '" + key + "' into Cypher");
                }
                List<Object> column = new ArrayList<>(rows.size());
                for (Map<String, Object> row : rows) {
                    column.add(((Map<?, ?>) row.get("p")).get(key));
                }
                String name = "p" + n++;
                parameters.put(name, column);
                fields.append(fields.length() == 0 ? "" : ", ").append(key).append(": $").append(name).append("[k]");
            }
            if (n > 0) {
                return new Columns(fields.toString(), parameters, "p0");
            }
            List<Long> index = new ArrayList<>(rows.size());
            for (int k = 0; k < rows.size(); k++) {
                index.add((long) k);
            }
            parameters.put("n", index);
            return new Columns("", parameters, "n");
        }
    }

    /**
     * Element ids of the nodes a load created, by input id. Element ids are opaque strings; when one is a common
     * prefix followed by a decimal number (as Neo4j 5 writes them) only the number is kept.
     */
    static final class ElementIds {
        private final long[] numbers;
        private final Map<Long, String> others = new HashMap<>();
        private String prefix;

        ElementIds(int size) {
            numbers = new long[size];
            java.util.Arrays.fill(numbers, -1);
        }

        void put(long id, String elementId) {
            int colon = elementId.lastIndexOf(':');
            if (colon >= 0 && id < numbers.length) {
                String head = elementId.substring(0, colon + 1);
                String tail = elementId.substring(colon + 1);
                if (prefix == null) {
                    prefix = head;
                }
                if (head.equals(prefix) && !tail.isEmpty() && tail.chars().allMatch(c -> c >= '0' && c <= '9')
                    && tail.length() < 19 && (tail.length() == 1 || tail.charAt(0) != '0')) {
                    numbers[(int) id] = Long.parseLong(tail);
                    return;
                }
            }
            others.put(id, elementId);
        }

        String get(long id) throws IOException {
            String other = others.get(id);
            if (other != null) {
                return other;
            }
            if (id >= 0 && id < numbers.length && numbers[(int) id] >= 0) {
                return prefix + numbers[(int) id];
            }
            throw new IOException("no node was created for input id " + id);
        }
    }
}
