package dev.heapload.store.embedded;

import dev.heapload.store.GraphSchema;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.TestSnapshots;
import dev.heapload.store.embedded.GraphStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.ExecutionPlanDescription;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The graph schema as written: one store with an analysed snapshot ("before") and a plain one ("after"),
 * queried with Cypher. Loaded once for all tests (each DBMS start costs seconds).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GraphStoreSchemaTest {

    @TempDir
    static Path tmp;

    private GraphStore store;
    private GraphDatabaseService db;
    private final List<String> phases = new ArrayList<>();
    private final Set<Thread> progressThreads = new HashSet<>();
    private long lastImportStep = -1;
    private Thread loader;

    @BeforeAll
    void load() throws Exception {
        loader = Thread.currentThread();
        store = GraphStore.open(tmp.resolve("db"));
        Progress recording = new Progress() {
            private String phase;

            @Override
            public void start(String phase, long total, String unit) {
                this.phase = phase;
                phases.add(phase + "/" + unit);
                progressThreads.add(Thread.currentThread());
            }

            @Override
            public void step(long done) {
                progressThreads.add(Thread.currentThread());
                if (phase.equals("import")) {
                    lastImportStep = done;
                }
            }

            @Override
            public void end() {
                progressThreads.add(Thread.currentThread());
            }
        };
        store.load(TestSnapshots.analysed("before"), false, recording);
        store.load(TestSnapshots.plain("after", 3), false, Progress.NONE);
        db = store.database("before");
    }

    @AfterAll
    void close() throws Exception {
        store.close();
    }

    /**
     * Each snapshot has a graph of its own: a query about 'after' (named in the text or a parameter) runs on its
     * graph, every other on the graph of 'before' (which holds 'after' only as a summary: Snapshot node, no objects).
     */
    private GraphDatabaseService graph(String cypher, Map<String, Object> params) {
        try {
            return store.database(cypher.contains("'after'") || params.containsValue("after") ? "after" : "before");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<Map<String, Object>> rows(String cypher, Map<String, Object> params) {
        GraphDatabaseService db = graph(cypher, params);
        try (Transaction tx = db.beginTx(); Result r = tx.execute(cypher, params)) {
            List<Map<String, Object>> out = new ArrayList<>();
            r.forEachRemaining(out::add);
            return out;
        }
    }

    private Object single(String cypher, Map<String, Object> params) {
        List<Map<String, Object>> rows = rows(cypher, params);
        assertEquals(1, rows.size(), cypher);
        assertEquals(1, rows.get(0).size(), cypher);
        return rows.get(0).values().iterator().next();
    }

    private Object single(String cypher) {
        return single(cypher, Map.of());
    }

    @Test
    void progressPhases() {
        // the snapshot files are written on a thread of their own, without progress, while the indexes populate
        assertEquals(List.of("compare/pairs", "import/%", "index/objects"), phases);
        assertEquals(100, lastImportStep);
        assertEquals(Set.of(loader), progressThreads, "progress calls come from the loading thread");
    }

    @Test
    void nodeAndRelationshipCounts() {
        assertEquals(10L, single("MATCH (o:Object {snapshot:'before'}) RETURN count(o)"));
        assertEquals(13L, single("MATCH (o:Object {snapshot:'after'}) RETURN count(o)"));
        assertEquals(2L, single("MATCH (s:Snapshot) RETURN count(s)"));
        assertEquals(3L, single("MATCH (c:Category) RETURN count(c)"));
        // 7 Stats nodes (type, category) of the analysed 'before'; 'after' is not analysed: no Stats, no Diff
        assertEquals(7L, single("MATCH (:Snapshot {id:'before'})-[:HAS_STATS]->(s:Stats {snapshot:'before'}) RETURN count(s)"));
        // the graph of 'before': its objects, both Snapshot nodes, its categories and Stats ('after' has none)
        assertEquals(10L + 2 + 3 + 7, single("MATCH (n) RETURN count(n)"));
        // the graph of 'after': its objects, both Snapshot nodes, and the summary of 'before' (categories, Stats)
        assertEquals(13L + 2 + 3 + 7, single("MATCH (n) WHERE 'after' <> '' RETURN count(n)"));
        Map<String, Object> before = Map.of("s", "before");
        assertEquals(9L, single("MATCH (a:Object {snapshot:$s})-[r:REF]->(b:Object {snapshot:$s}) RETURN count(r)", before));
        assertEquals(1L, single("MATCH (a:Object {snapshot:$s})-[r:WEAK_REF]->(b) RETURN count(r)", before));
        assertEquals(2L, single("MATCH (:Snapshot {id:$s})-[r:ROOT]->(:Object {snapshot:$s}) RETURN count(r)", before));
        assertEquals(3L, single("MATCH (:Snapshot {id:$s})-[r:HAS_CATEGORY]->(:Category {snapshot:$s}) RETURN count(r)", before));
        assertEquals(6L, single("MATCH (:Object {snapshot:$s})-[r:REF {retention: true}]->(:Object {snapshot:$s}) RETURN count(r)", before));
        assertEquals(6L, single("MATCH (o:Object {snapshot:$s}) WHERE o.dominator IS NOT NULL RETURN count(o)", before));
        Map<String, Object> after = Map.of("s", "after");
        assertEquals(12L, single("MATCH (a:Object {snapshot:$s})-[r:REF]->(b:Object {snapshot:$s}) RETURN count(r)", after));
        assertEquals(1L, single("MATCH (a:Object {snapshot:$s})-[r:WEAK_REF]->(b) RETURN count(r)", after));
        assertEquals(2L, single("MATCH (:Snapshot {id:$s})-[r:ROOT]->() RETURN count(r)", after));
        assertEquals(0L, single("MATCH (:Snapshot {id:$s})-[r:HAS_CATEGORY]->() RETURN count(r)", after));
        assertEquals(0L, single("MATCH (:Object {snapshot:$s})-[r]->() WHERE r.retention IS NOT NULL RETURN count(r)", after));
        assertEquals(0L, single("MATCH (o:Object {snapshot:$s}) WHERE o.dominator IS NOT NULL RETURN count(o)", after));
        // plus HAS_STATS 7, TOP_RETAINER 8 and CATEGORY_TOP_RETAINER 8 (the 8 reachable objects of 'before')
        assertEquals(9L + 1 + 2 + 3 + 7 + 8 + 8, single("MATCH ()-[r]->() RETURN count(r)"));
        assertEquals(12L + 1 + 2 + 3 + 7, single("MATCH ()-[r]->() WHERE 'after' <> '' RETURN count(r)"));
        // no edge crosses snapshots
        assertEquals(0L, single("MATCH (a:Object)-[r]->(b:Object) WHERE a.snapshot <> b.snapshot RETURN count(r)"));
    }

    @Test
    void objectProperties() {
        Map<String, Object> row = rows("MATCH (o:Object {snapshot:'before', address:'0x1008'}) "
            + "RETURN o.type AS type, o.size AS size, o.category AS category, o.label AS label, labels(o) AS labels, "
            + "o.reachable AS reachable, o.distance AS distance, o.retainedSize AS retainedSize, o.rootName AS rootName",
            Map.of()).get(0);
        assertEquals("table", row.get("type"));
        assertEquals(48L, row.get("size"));
        assertEquals(1L, row.get("category"));
        assertEquals("Player", row.get("label"));
        assertEquals(Set.of("Object", "Table"), new HashSet<>((List<?>) row.get("labels")));
        assertEquals(true, row.get("reachable"));
        assertEquals(1L, row.get("distance"));
        assertEquals(72L, row.get("retainedSize"));
        assertNull(row.get("rootName"));

        Map<String, Object> root = rows("MATCH (o:Object {snapshot:'before', address:'0x1000'}) "
            + "RETURN o.label AS label, o.rootName AS rootName, o.distance AS distance, keys(o) AS keys", Map.of()).get(0);
        assertNull(root.get("label"));
        assertEquals("registry", root.get("rootName"));
        assertEquals(0L, root.get("distance"));
        assertFalse(((List<?>) root.get("keys")).contains("label"));
        assertEquals("stack", single("MATCH (o:Object {snapshot:'before', address:'0x1018'}) RETURN o.rootName"));

        Map<String, Object> lost = rows("MATCH (o:Object {snapshot:'before', address:'0x1030'}) "
            + "RETURN o.reachable AS reachable, o.distance AS distance, o.retainedSize AS retained", Map.of()).get(0);
        assertEquals(false, lost.get("reachable"));
        assertEquals(-1L, lost.get("distance"));
        assertEquals(0L, lost.get("retained"));

        assertEquals(Set.of("Object", "String"), new HashSet<>((List<?>) single(
            "MATCH (o:Object {snapshot:'before', address:'0x1010'}) RETURN labels(o)")));
        // each graph holds its own snapshot's objects: 'before', and 'after' (the same ten plus 3 strings)
        for (String graph : List.of("", " AND 'after' <> ''")) {
            assertEquals(1L, single("MATCH (o:Object:Function) WHERE true" + graph + " RETURN count(o)"));
            assertEquals(1L, single("MATCH (o:Object:Userdata) WHERE true" + graph + " RETURN count(o)"));
            assertEquals(1L, single("MATCH (o:Upvalue) WHERE true" + graph + " RETURN count(o)"));
            assertEquals(1L, single("MATCH (o:Proto) WHERE true" + graph + " RETURN count(o)"));
            assertEquals(4L, single("MATCH (o:Table) WHERE true" + graph + " RETURN count(o)"));
        }
        assertEquals(2L, single("MATCH (o:String) RETURN count(o)"));
        assertEquals(2L + 3, single("MATCH (o:String) WHERE 'after' <> '' RETURN count(o)"));

        // the plain snapshot: no category, no analysis properties
        Map<String, Object> plain = rows("MATCH (o:Object {snapshot:'after', address:'0x1008'}) RETURN keys(o) AS keys",
            Map.of()).get(0);
        assertEquals(Set.of("snapshot", "address", "type", "size", "label"), new HashSet<>((List<?>) plain.get("keys")));
        assertEquals("extra2", single("MATCH (o:Object {snapshot:'after', address:'0x1060'}) RETURN o.label"));
    }

    @Test
    void referenceProperties() {
        Map<String, Object> key = rows("MATCH (:Object {snapshot:'before', address:'0x1008'})-[r:REF]->"
            + "(:Object {address:'0x1010'}) RETURN r.kind AS kind, r.name AS name, r.ephemeron AS eph", Map.of()).get(0);
        assertEquals("key", key.get("kind"));
        assertEquals("name", key.get("name"));
        assertNull(key.get("eph"));
        // the last hop of 0x1040's retention path: flagged; no name (a proto reference)
        assertEquals(Set.of("kind", "retention"), new HashSet<>((List<?>) single("MATCH (:Object {snapshot:'before', "
            + "address:'0x1018'})-[r:REF]->(:Object {address:'0x1040'}) RETURN keys(r)")));
        assertEquals(3L, single("MATCH (:Object {snapshot:'before'})-[r:REF]->() WHERE r.retention IS NULL RETURN count(r)"));
        Map<String, Object> weak = rows("MATCH (:Object {snapshot:'before', address:'0x1028'})-[r:WEAK_REF]->(b) "
            + "RETURN b.address AS target, r.kind AS kind, r.name AS name, r.ephemeron AS eph", Map.of()).get(0);
        assertEquals("0x1030", weak.get("target"));
        assertEquals("key", weak.get("kind"));
        assertNull(weak.get("name"));
        assertNull(weak.get("eph"));
        Map<String, Object> eph = rows("MATCH (:Object {snapshot:'before', address:'0x1028'})-[r:REF]->(b) "
            + "RETURN b.address AS target, r.ephemeron AS eph", Map.of()).get(0);
        assertEquals("0x1020", eph.get("target"));
        assertEquals(true, eph.get("eph"));
        assertEquals(List.of("registry", "stack"), single("MATCH (:Snapshot {id:'before'})-[r:ROOT]->(o) "
            + "WITH r, o ORDER BY o.address RETURN collect(r.name)"));
    }

    @Test
    void analysisEdges() {
        List<Map<String, Object>> retained = rows("MATCH (b:Object {snapshot:'before'})-[r:REF {retention: true}]->(a) "
            + "RETURN a.address AS a, b.address AS b, r.kind AS kind, r.name AS name ORDER BY a", Map.of());
        assertEquals(List.of("0x1008>0x1000 value player", "0x1010>0x1008 key name", "0x1020>0x1038 value null",
                "0x1028>0x1000 value cache", "0x1038>0x1018 upvalue null", "0x1040>0x1018 proto null"),
            retained.stream().map(m -> m.get("a") + ">" + m.get("b") + " " + m.get("kind") + " " + m.get("name")).toList());
        List<Map<String, Object>> dominated = rows("MATCH (a:Object {snapshot:'before'}) WHERE a.dominator IS NOT NULL "
            + "RETURN a.address + '>' + a.dominator AS edge ORDER BY edge", Map.of());
        assertEquals(List.of("0x1008>0x1000", "0x1010>0x1008", "0x1020>0x1038", "0x1028>0x1000", "0x1038>0x1018",
            "0x1040>0x1018"), dominated.stream().map(m -> m.get("edge")).toList());
    }

    @Test
    void precomputedStatistics() {
        List<Map<String, Object>> stats = rows("MATCH (:Snapshot {id:'before'})-[:HAS_STATS]->(s:Stats) "
            + "RETURN s.type + '/' + s.category + ' ' + s.objects + ' ' + s.bytes + ' ' + s.reachableObjects + ' ' "
            + "+ s.reachableBytes + ' ' + s.maxRetainedSize + ' ' + s.weakOnlyObjects AS row ORDER BY row", Map.of());
        // by hand from TestSnapshots: 6 (string, 30 B) and 9 (table, 10 B) are unreachable; 6 is held weakly by 5
        assertEquals(List.of("function/1 1 40 1 40 356 0", "proto/1 1 200 1 200 200 0", "string/0 2 54 1 24 24 1",
            "table/0 3 106 2 96 168 0", "table/1 1 48 1 48 72 0", "upvalue/1 1 16 1 16 116 0",
            "userdata/2 1 100 1 100 100 0"), stats.stream().map(m -> m.get("row")).toList());
        assertEquals(List.of("0x1030"), single("MATCH (o:WeakOnly) RETURN collect(o.address)"));
        assertEquals(List.of("0x1018", "0x1040", "0x1000", "0x1038", "0x1020", "0x1008", "0x1028", "0x1010"),
            single("MATCH (:Snapshot {id:'before'})-[t:TOP_RETAINER]->(o) WITH o ORDER BY t.rank RETURN collect(o.address)"));
        assertEquals(List.of("0x1018", "0x1040", "0x1038", "0x1008"), single("MATCH (:Snapshot {id:'before'})"
            + "-[t:CATEGORY_TOP_RETAINER {category: 1}]->(o) WITH o ORDER BY t.rank RETURN collect(o.address)"));
    }

    @Test
    void snapshotAndCategoryNodes() {
        Map<String, Object> s = rows("MATCH (s:Snapshot {id:'before'}) RETURN s.vm AS vm, s.source AS source, "
            + "s.sha256 AS sha, s.objectCount AS objects, s.referenceCount AS refs, s.totalBytes AS total, "
            + "s.objectBytes AS objectBytes, s.loadedAt AS loadedAt", Map.of()).get(0);
        assertEquals("luau", s.get("vm"));
        assertEquals("before.json", s.get("source"));
        assertEquals("ab".repeat(32), s.get("sha"));
        assertEquals(10L, s.get("objects"));
        assertEquals(10L, s.get("refs"));
        assertEquals(5000L, s.get("total"));
        assertEquals(TestSnapshots.OBJECT_BYTES, s.get("objectBytes"));
        ZonedDateTime loadedAt = (ZonedDateTime) s.get("loadedAt");
        SnapshotSummary summary = store.snapshot("before").orElseThrow();
        assertEquals(summary.loadedAt(), loadedAt.toInstant());
        assertEquals(ZoneOffset.UTC, loadedAt.getZone());
        // load order: the catalog position (before was loaded first, after second)
        assertEquals(List.of("before", "after"), single("MATCH (s:Snapshot) WITH s ORDER BY s.loadOrder RETURN collect(s.id)"));
        assertEquals(List.of(0L, 1L), single("MATCH (s:Snapshot) WITH s ORDER BY s.loadOrder RETURN collect(s.loadOrder)"));

        Map<String, Object> after = rows("MATCH (s:Snapshot {id:'after'}) RETURN s.totalBytes AS total, "
            + "s.objectBytes AS objectBytes, s.vm AS vm", Map.of()).get(0);
        long extraBytes = 20 + 21 + 22;
        assertEquals(TestSnapshots.OBJECT_BYTES + extraBytes, after.get("total"));
        assertEquals(TestSnapshots.OBJECT_BYTES + extraBytes, after.get("objectBytes"));

        List<Map<String, Object>> cats = rows("MATCH (:Snapshot {id:'before'})-[:HAS_CATEGORY]->(c:Category) "
            + "RETURN c.snapshot AS s, c.id AS id, c.name AS name, c.bytes AS bytes ORDER BY id", Map.of());
        assertEquals(List.of("before 0 default 1000", "before 1 game 2000", "before 2 null 300"),
            cats.stream().map(m -> m.get("s") + " " + m.get("id") + " " + m.get("name") + " " + m.get("bytes")).toList());
    }

    @Test
    void summaries() {
        List<SnapshotSummary> list = store.snapshots();
        assertEquals(List.of("before", "after"), list.stream().map(SnapshotSummary::id).toList());
        SnapshotSummary before = list.get(0);
        assertEquals("luau", before.vm());
        assertEquals(10, before.objectCount());
        assertEquals(10, before.referenceCount());
        assertEquals(5000, before.totalBytes());
        assertEquals(TestSnapshots.OBJECT_BYTES, before.objectBytes());
        assertTrue(before.analysed());
        SnapshotSummary after = list.get(1);
        assertEquals("lua5.4", after.vm());
        assertEquals(13, after.objectCount());
        assertEquals(13, after.referenceCount());
        assertFalse(after.analysed());
    }

    @Test
    void indexesExistAreOnlineAndUsed() {
        List<Map<String, Object>> indexes = rows("SHOW INDEXES YIELD name, state, type, labelsOrTypes, properties, owningConstraint "
            + "WHERE type = 'RANGE' RETURN name, state, labelsOrTypes, properties, owningConstraint ORDER BY name", Map.of());
        assertEquals(2, indexes.size(), indexes.toString());
        Map<String, Object> object = indexes.get(0);
        assertEquals(GraphSchema.OBJECT_ADDRESS_INDEX, object.get("name"));
        assertEquals("ONLINE", object.get("state"));
        assertEquals(List.of("Object"), object.get("labelsOrTypes"));
        assertEquals(List.of("snapshot", "address"), object.get("properties"));
        Map<String, Object> snapshot = indexes.get(1);
        assertEquals("ONLINE", snapshot.get("state"));
        assertEquals(List.of("Snapshot"), snapshot.get("labelsOrTypes"));
        assertEquals(GraphSchema.SNAPSHOT_ID_CONSTRAINT, snapshot.get("owningConstraint"));
        assertEquals(2L, single("SHOW INDEXES YIELD type WHERE type = 'LOOKUP' RETURN count(*)"));
        assertEquals(List.of("UNIQUENESS"), single("SHOW CONSTRAINTS YIELD name, type WHERE name = '"
            + GraphSchema.SNAPSHOT_ID_CONSTRAINT + "' RETURN collect(type)"));

        GraphDatabaseService db = graph("", Map.of());
        try (Transaction tx = db.beginTx();
             Result r = tx.execute("EXPLAIN MATCH (o:Object {snapshot:$s, address:$a}) RETURN o",
                 Map.of("s", "before", "a", "0x1008"))) {
            assertTrue(operators(r.getExecutionPlanDescription()).contains("NodeIndexSeek"),
                r.getExecutionPlanDescription().toString());
        }
        try (Transaction tx = db.beginTx();
             Result r = tx.execute("EXPLAIN MATCH (s:Snapshot {id:$s}) RETURN s", Map.of("s", "before"))) {
            assertTrue(operators(r.getExecutionPlanDescription()).contains("NodeUniqueIndexSeek"),
                r.getExecutionPlanDescription().toString());
        }
    }

    /** The indexes are written from the models when the store is built (OfflineSchema): all of them, findable. */
    @Test
    void indexesHoldEveryObjectAndTheConstraintHolds() {
        for (HeapSnapshot model : List.of(TestSnapshots.analysed("before"), TestSnapshots.plain("after", 3))) {
            String id = model.info().id();
            Map<String, Object> s = Map.of("s", id);
            assertEquals((long) model.objectCount(), single("MATCH (o:Object) USING INDEX o:Object(snapshot, address) "
                + "WHERE o.snapshot = $s AND o.address IS NOT NULL RETURN count(o)", s), id);
            for (int o = 0; o < model.objectCount(); o++) {
                Map<String, Object> key = Map.of("s", id, "a", model.address(o));
                assertEquals(model.type(o), single("MATCH (o:Object) USING INDEX o:Object(snapshot, address) "
                    + "WHERE o.snapshot = $s AND o.address = $a RETURN o.type", key), id + " " + model.address(o));
            }
        }
        assertEquals(0L, single("MATCH (o:Object) USING INDEX o:Object(snapshot, address) "
            + "WHERE o.snapshot = 'before' AND o.address = '0xdead' RETURN count(o)"));
        // the samples are there: a DBMS without them would sample the indexes when it starts
        List<Map<String, Object>> samples = rows("CALL db.stats.retrieve('GRAPH COUNTS') YIELD data "
            + "UNWIND data.indexes AS i WITH i WHERE i.properties = ['snapshot', 'address'] OR i.properties = ['id'] "
            + "RETURN i.properties AS properties, i.totalSize AS size, i.estimatedUniqueSize AS unique "
            + "ORDER BY size(properties) DESC", Map.of());
        assertEquals(List.of(Map.of("properties", List.of("snapshot", "address"), "size", 10L, "unique", 10L),
            Map.of("properties", List.of("id"), "size", 2L, "unique", 2L)), samples);
        // the uniqueness constraint is there (the query DBMS is read-only, so a duplicate CREATE cannot show it)
        assertEquals(List.of(Map.of("name", GraphSchema.SNAPSHOT_ID_CONSTRAINT, "type", "UNIQUENESS")),
            rows("SHOW CONSTRAINTS YIELD name, type WHERE name = $n RETURN name, type",
                Map.of("n", GraphSchema.SNAPSHOT_ID_CONSTRAINT)));
        assertEquals(2L, single("MATCH (s:Snapshot) RETURN count(s)"));
    }

    /**
     * The importer's logs are cut to their content (the transaction log was preallocated to 256 MiB and then cut to
     * its content + 1 MiB, the checkpoint log stayed at 1 MiB): each graph's two log files hold a few hundred bytes
     * of entries (a few KiB once a comparison or summary update was written) + 4 KiB of zeros.
     */
    @Test
    void graphLogsAreNotPreallocated() throws IOException {
        List<Path> homes;
        try (var list = Files.list(tmp.resolve("db").resolve("graphs"))) {
            homes = list.sorted().toList();
        }
        assertEquals(2, homes.size(), homes.toString());
        for (Path home : homes) {
            Path logs = home.resolve("data").resolve("transactions").resolve("neo4j");
            List<String> names;
            try (var list = Files.list(logs)) {
                names = list.map(f -> f.getFileName().toString()).sorted().toList();
            }
            assertEquals(List.of("checkpoint.0", "neostore.transaction.db.0"), names, home.toString());
            for (String name : names) {
                long size = Files.size(logs.resolve(name));
                assertTrue(size > dev.heapload.store.offline.OfflineImporter.LOG_ZEROS_KEPT && size < 64 << 10,
                    logs.resolve(name) + ": " + size + " bytes");
            }
        }
    }

    private static Set<String> operators(ExecutionPlanDescription plan) {
        Set<String> names = new HashSet<>();
        names.add(plan.getName().replaceAll("@.*", ""));
        for (ExecutionPlanDescription child : plan.getChildren()) {
            names.addAll(operators(child));
        }
        return names;
    }
}
