package dev.heapload.store.bolt;

import dev.heapload.store.embedded.GraphStoreServeTest;
import dev.heapload.store.SnapshotExistsException;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.bolt.RemoteGraphStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.harness.Neo4j;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * {@link RemoteGraphStore} against an in-process Neo4j server: the same graph as the embedded store, the
 * all-or-nothing promise when a load is cut off, replace, delete and listing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("server")
class RemoteGraphStoreTest {

    /**
     * Every node but the load's history (LoadComparison, LoadLeakGroup: over Bolt only, the embedded store keeps them
     * in summary files): labels and properties.
     */
    private static final String NODES = "MATCH (n) WHERE NOT n:LoadComparison AND NOT n:LoadLeakGroup "
        + "RETURN labels(n) AS labels, properties(n) AS props";
    /** The nodes that belong to snapshot $g's graph: its objects, summary nodes and the comparisons it is the target of. */
    private static final String NODES_OF_GRAPH = "MATCH (n) WHERE coalesce(n.target, n.snapshot, n.id) = $g "
        + "RETURN labels(n) AS labels, properties(n) AS props";
    /** The relationships whose start node belongs to snapshot $g's graph (as {@link #NODES_OF_GRAPH}). */
    private static final String RELATIONSHIPS_OF_GRAPH = "MATCH (a)-[r]->(b) WHERE coalesce(a.target, a.snapshot, a.id) = $g "
        + "RETURN type(r) AS type, properties(r) AS props, labels(a) AS al, properties(a) AS ap, labels(b) AS bl, "
        + "properties(b) AS bp";
    /** Every relationship but the history's: type, properties and both endpoints' labels and properties. */
    private static final String RELATIONSHIPS = "MATCH (a)-[r]->(b) WHERE NOT b:LoadComparison AND NOT b:LoadLeakGroup "
        + "RETURN type(r) AS type, properties(r) AS props, "
        + "labels(a) AS al, properties(a) AS ap, labels(b) AS bl, properties(b) AS bp";

    @TempDir
    static Path tmp;

    private Neo4j server;
    private Driver driver;
    private HeapSnapshot after;
    private HeapSnapshot before;

    @BeforeAll
    void start() throws Exception {
        server = BoltHarness.start();
        driver = GraphDatabase.driver(server.boltURI(), AuthTokens.none());
        Path dump = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", "after.json");
        after = DumpReaders.read(dump, "after", Progress.NONE);
        HeapAnalyzer.analyze(after, Progress.NONE);
        before = DumpReaders.read(dump.resolveSibling("before.json"), "before", Progress.NONE);
        HeapAnalyzer.analyze(before, Progress.NONE);
    }

    @AfterAll
    void stop() {
        driver.close();
        server.close();
    }

    @BeforeEach
    void empty() {
        try (Session s = driver.session()) {
            s.run("MATCH (n) DETACH DELETE n").consume();
        }
    }

    private RemoteGraphStore store() {
        return RemoteGraphStore.on(driver, server.boltURI().toString(), null);
    }

    private long count(String cypher, Map<String, Object> params) {
        try (Session s = driver.session()) {
            return s.run(cypher, params).single().get(0).asLong();
        }
    }

    @Test
    void writesExactlyTheGraphOfTheEmbeddedStore() throws Exception {
        store().load(List.of(before, after), false, Progress.NONE);
        List<String> nodesBolt = new ArrayList<>();
        List<String> relsBolt = new ArrayList<>();
        try (Session s = driver.session()) {
            for (Record r : s.run(NODES).list()) {
                nodesBolt.add(line(r.get("labels").asList(), r.get("props").asMap()));
            }
            for (Record r : s.run(RELATIONSHIPS).list()) {
                relsBolt.add(r.get("type").asString() + " " + canonical(r.get("props").asMap()) + " from "
                    + line(r.get("al").asList(), r.get("ap").asMap()) + " to " + line(r.get("bl").asList(), r.get("bp").asMap()));
            }
        }
        List<String> nodesEmbedded = new ArrayList<>();
        List<String> relsEmbedded = new ArrayList<>();
        try (GraphStore embedded = GraphStore.open(tmp.resolve("embedded"))) {
            embedded.load(List.of(before, after), false, Progress.NONE);
            // one graph per snapshot (docs/design/store.md): the Bolt database holds their union, each node and relationship
            // from the graph of the snapshot it belongs to; the reverse pair, which Bolt writes at load, on demand
            embedded.compare("after", "before");
            for (String id : List.of("before", "after")) {
                Map<String, Object> g = Map.of("g", id);
                try (Transaction tx = embedded.database(id).beginTx()) {
                    try (Result r = tx.execute(NODES_OF_GRAPH, g)) {
                        r.forEachRemaining(row -> nodesEmbedded.add(line((List<?>) row.get("labels"), (Map<?, ?>) row.get("props"))));
                    }
                    try (Result r = tx.execute(RELATIONSHIPS_OF_GRAPH, g)) {
                        r.forEachRemaining(row -> relsEmbedded.add(row.get("type") + " " + canonical((Map<?, ?>) row.get("props"))
                            + " from " + line((List<?>) row.get("al"), (Map<?, ?>) row.get("ap"))
                            + " to " + line((List<?>) row.get("bl"), (Map<?, ?>) row.get("bp"))));
                    }
                }
            }
        }
        nodesBolt.sort(null);
        nodesEmbedded.sort(null);
        relsBolt.sort(null);
        relsEmbedded.sort(null);
        assertEquals(nodesEmbedded.size(), nodesBolt.size());
        assertEquals(nodesEmbedded, nodesBolt);
        assertEquals(relsEmbedded.size(), relsBolt.size());
        assertEquals(relsEmbedded, relsBolt);
        // 685 and 871 objects (README of the case); a comparison in each direction
        assertEquals(685L, count("MATCH (o:Object {snapshot: 'before'}) RETURN count(o)", Map.of()));
        assertEquals(871L, count("MATCH (o:Object {snapshot: 'after'}) RETURN count(o)", Map.of()));
        assertEquals(213L, count("MATCH (o:Object:Table {snapshot: 'after'}) RETURN count(o)", Map.of()));
        assertEquals(2L, count("MATCH (d:Diff) RETURN count(d)", Map.of()));
        assertEquals(after.referenceCount(), count("MATCH (:Object {snapshot: 'after'})-[r:REF|WEAK_REF]->() RETURN count(r)",
            Map.of()));
        assertEquals((long) after.roots().size(), count("MATCH (:Snapshot {id: 'after'})-[r:ROOT]->() RETURN count(r)", Map.of()));
        assertEquals(0L, count("MATCH (m:LoadInProgress) RETURN count(m)", Map.of()));
        // the leak history: the comparison of 'after' with the snapshot before it (3 leak groups), none for 'before'
        assertEquals(1L, count("MATCH (:Snapshot {id: 'after'})-[:LOAD_COMPARISON]->(c:LoadComparison {baseline: 'before', "
            + "position: 0, leakGroupCount: 3}) MATCH (d:Diff {baseline: 'before', target: 'after'}) "
            + "WHERE c.newObjects = d.newObjects AND c.newBytes = d.newBytes RETURN count(c)", Map.of()));
        assertEquals(List.of(152L, 18L, 16L), store().history().get(1).comparisons().get(0).leakGroups().stream()
            .map(g -> g.objects()).toList());
        assertEquals(4L, count("MATCH (n) WHERE n:LoadComparison OR n:LoadLeakGroup RETURN count(n)", Map.of()));
        try (Session s = driver.session()) {
            Record r = s.run("MATCH (s:Snapshot {id: 'after'}) RETURN s.objectCount AS n, s.vm AS vm, s.loadedAt AS at").single();
            assertEquals(871L, r.get("n").asLong());
            assertEquals("luau", r.get("vm").asString());
            assertEquals("DATE_TIME", r.get("at").type().name());
            List<String> schema = s.run("SHOW INDEXES YIELD name WHERE name IN ['snapshot_id', 'object_snapshot_address'] "
                + "RETURN name ORDER BY name").list(x -> x.get(0).asString());
            assertEquals(List.of("object_snapshot_address", "snapshot_id"), schema);
        }
    }

    /** Labels sorted, properties sorted by key, numbers as longs; the Snapshot's load time left out. */
    private static String line(List<?> labels, Map<?, ?> props) {
        List<String> l = new ArrayList<>();
        labels.forEach(x -> l.add(String.valueOf(x)));
        l.sort(null);
        Map<String, Object> p = new TreeMap<>();
        props.forEach((k, v) -> p.put(String.valueOf(k), v));
        if (l.contains("Snapshot")) {
            assertTrue(p.remove("loadedAt") != null, "Snapshot has loadedAt");
        }
        return l + " " + canonical(p);
    }

    private static String canonical(Map<?, ?> props) {
        Map<String, String> p = new TreeMap<>();
        props.forEach((k, v) -> p.put(String.valueOf(k),
            (v instanceof Number n && !(v instanceof Double) ? Long.toString(n.longValue())
                : v instanceof String[] a ? List.of(a).toString() : String.valueOf(v))
                + ":" + (v instanceof Number ? "number" : v == null ? "null"
                : v instanceof String[] || v instanceof List ? "list" : v.getClass().getSimpleName())));
        return p.toString();
    }

    @Test
    void aLoadCutOffMidwayIsInvisibleAndRemovedByTheNextLoad() throws Exception {
        Driver doomed = GraphDatabase.driver(server.boltURI(), AuthTokens.none());
        RemoteGraphStore cut = RemoteGraphStore.on(doomed, server.boltURI().toString(), null);
        cut.batchSize = 100;
        // one writer: batches commit in order, so exactly five are on the server when the connection goes
        cut.writers = 1;
        cut.batchHook = n -> {
            if (n == 5) {
                doomed.close();
            }
        };
        IOException e = assertThrows(IOException.class, () -> cut.load(after, false, Progress.NONE));
        assertTrue(e.getMessage().startsWith("Neo4j at " + server.boltURI()), e.getMessage());
        // five batches of 100 objects were committed, then the connection went away
        assertEquals(500L, count("MATCH (o:Object {snapshot: 'after'}) RETURN count(o)", Map.of()));
        assertEquals(0L, count("MATCH (s:Snapshot {id: 'after'}) RETURN count(s)", Map.of()));
        assertEquals(1L, count("MATCH (m:LoadInProgress {snapshot: 'after'}) RETURN count(m)", Map.of()));
        assertEquals(List.of(), store().snapshot("after").stream().toList());

        RemoteGraphStore next = store();
        next.load(after, false, Progress.NONE);
        assertEquals(871L, count("MATCH (o:Object {snapshot: 'after'}) RETURN count(o)", Map.of()));
        assertEquals(1L, count("MATCH (s:Snapshot {id: 'after'}) RETURN count(s)", Map.of()));
        assertEquals(0L, count("MATCH (m:LoadInProgress) RETURN count(m)", Map.of()));
        assertEquals(1L, count("MATCH (c:Category {snapshot: 'after'}) RETURN count(c)", Map.of()));
    }

    @Test
    void cleanupRemovesOnlyIncompleteSnapshots() throws Exception {
        RemoteGraphStore store = store();
        store.load(after, false, Progress.NONE);
        // a leftover of a load of 'gone' and a stray marker on the complete 'after'
        try (Session s = driver.session()) {
            s.run("CREATE (:LoadInProgress {snapshot: 'gone'}), (:LoadInProgress {snapshot: 'after'}) "
                + "WITH 1 AS x UNWIND range(1, 25) AS i CREATE (:Object {snapshot: 'gone', address: toString(i)})").consume();
        }
        assertEquals(List.of("gone"), store.removeIncompleteLoads());
        assertEquals(0L, count("MATCH (o:Object {snapshot: 'gone'}) RETURN count(o)", Map.of()));
        assertEquals(871L, count("MATCH (o:Object {snapshot: 'after'}) RETURN count(o)", Map.of()));
        assertEquals(0L, count("MATCH (m:LoadInProgress) RETURN count(m)", Map.of()));
    }

    @Test
    void existingIdIsRefusedUnlessReplacedAndDeleteRemovesEverything() throws Exception {
        RemoteGraphStore store = store();
        store.load(after, false, Progress.NONE);
        SnapshotExistsException exists = assertThrows(SnapshotExistsException.class, () -> store.load(after, false, Progress.NONE));
        assertEquals("after", exists.id());
        long nodes = count("MATCH (n) RETURN count(n)", Map.of());
        store.batchSize = 300;
        store.load(after, true, Progress.NONE);
        assertEquals(nodes, count("MATCH (n) RETURN count(n)", Map.of()));
        List<SnapshotSummary> list = store.snapshots();
        assertEquals(1, list.size());
        SnapshotSummary s = list.get(0);
        assertEquals("after", s.id());
        assertEquals(871L, s.objectCount());
        assertEquals(after.referenceCount(), s.referenceCount());
        assertEquals(79118L, s.objectBytes());
        assertTrue(s.analysed());

        store.delete("after");
        assertEquals(0L, count("MATCH (n) RETURN count(n)", Map.of()));
        assertThrows(SnapshotNotFoundException.class, () -> store.delete("after"));
        assertFalse(store.snapshot("after").isPresent());
    }

    /**
     * References to nothing over Bolt: with {@code --keep-dangling} the references to addresses with no record become
     * {@code Missing} nodes, so the graph's edge count equals the producer's: the hand-written
     * {@code testdata/luau/hand-written/dangling-references.json} has 10 references, 3 of them to nothing (a sentinel,
     * one outside every heap area, one inside the heap but no object). They are written in the batches of the objects
     * and deleted with the snapshot.
     */
    @Test
    void keptDanglingReferencesAreMissingNodesWithTheProducersEdgeCount() throws Exception {
        Path dump = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "hand-written",
            "dangling-references.json");
        HeapSnapshot dangling = DumpReaders.read(dump, "dangling", Progress.NONE, null, true);
        HeapAnalyzer.analyze(dangling, Progress.NONE);
        assertEquals(10, dangling.danglingReferences().producerReferences());
        RemoteGraphStore store = store();
        store.batchSize = 2;
        store.load(dangling, false, Progress.NONE);
        List<String> missing = new ArrayList<>();
        try (Session s = driver.session()) {
            for (Record r : s.run("MATCH (o:Object {snapshot: 'dangling'})-[r:REF]->(m:Missing {snapshot: 'dangling'}) "
                + "RETURN m.address + ' ' + m.reason + ' <-[' + r.kind + ']- ' + o.address AS a ORDER BY a").list()) {
                missing.add(r.get("a").asString());
            }
        }
        assertEquals(List.of(
            "(nil) sentinel <-[key]- 0x1100",
            "0x1250 inside the heap but no object <-[key]- 0x1100",
            "0x90000000 outside every heap area <-[value]- 0x1100"), missing);
        assertEquals(3L, count("MATCH (m:Missing) RETURN count(m)", Map.of()));
        assertEquals(10L, count("MATCH (:Object {snapshot: 'dangling'})-[r:REF|WEAK_REF]->() RETURN count(r)", Map.of()));

        store.delete("dangling");
        assertEquals(0L, count("MATCH (n) RETURN count(n)", Map.of()));
    }

    @Test
    void unreachableServerIsOneLineNamingTheUri() throws Exception {
        int port = GraphStoreServeTest.freePort();
        IOException e = assertThrows(IOException.class,
            () -> RemoteGraphStore.connect("bolt://127.0.0.1:" + port, "neo4j", null, null));
        assertTrue(e.getMessage().startsWith("cannot reach Neo4j at bolt://127.0.0.1:" + port + ": "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        IOException noDb = assertThrows(IOException.class,
            () -> RemoteGraphStore.on(driver, "bolt://test", "nosuch").snapshots());
        assertEquals("Neo4j at bolt://test has no database 'nosuch'", noDb.getMessage());
        IOException bad = assertThrows(IOException.class, () -> RemoteGraphStore.connect("http://x", "neo4j", null, null));
        assertTrue(bad.getMessage().startsWith("cannot use Neo4j URI http://x: "), bad.getMessage());
    }
}
