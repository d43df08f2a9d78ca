package dev.heapload.queries;

import static dev.heapload.queries.Golden.assertGolden;
import static dev.heapload.queries.Golden.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.bolt.RemoteGraphStore;
import dev.heapload.store.bolt.RemoteHooks;

/**
 * The saved queries over Bolt: the event-listeners pair loaded into an in-process Neo4j server with
 * {@link RemoteGraphStore}, every saved query run with {@link RemoteQueryRunner} with the golden tests' parameters,
 * compared with the golden files and with the embedded store's rows; and a load cut off midway, which no saved
 * query sees and the next load removes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("server")
class BoltQueriesTest {

    /** The parameters of {@link EventListenersGoldenTest}, query by query, with the golden file (or null). */
    private static final List<Object[]> CASES = List.of(
        new Object[] {"summary", params("snapshot", "after"), "summary.event-listeners.csv"},
        new Object[] {"snapshot", params("snapshot", "after"), null},
        new Object[] {"type-histogram", params("snapshot", "after"), "type-histogram.event-listeners.csv"},
        new Object[] {"type-histogram-diff", params("baseline", "before", "target", "after"), "type-histogram-diff.event-listeners.csv"},
        new Object[] {"new-objects", params("baseline", "before", "target", "after"), "new-objects.event-listeners.csv"},
        new Object[] {"leak-groups", params("baseline", "before", "target", "after"), "leak-groups.event-listeners.csv"},
        new Object[] {"growth", params("baseline", "before", "target", "after"), "growth.event-listeners.csv"},
        new Object[] {"why-alive", params("snapshot", "after", "address", "0x56013833b340"), "why-alive.event-listeners.csv"},
        new Object[] {"referrers", params("snapshot", "after", "address", "56013833B190"), "referrers.event-listeners.csv"},
        new Object[] {"weak-only", params("snapshot", "after"), "weak-only.event-listeners.csv"},
        new Object[] {"unreachable", params("snapshot", "after"), "unreachable.event-listeners.csv"},
        new Object[] {"categories", params("snapshot", "after", "baseline", "before"), "categories.event-listeners.csv"},
        new Object[] {"categories", params("snapshot", "after"), null},
        new Object[] {"largest-retainers", params("snapshot", "after", "top", "5"), "largest-retainers.event-listeners.csv"},
        // the history: no golden file (loadedAt is the time of the test run; compared without it)
        new Object[] {"trend", params(), null},
        new Object[] {"trend", params("category", "0"), null},
        new Object[] {"trend-categories", params(), null},
        // the dump has no allocation sites: one row (site null) for all its objects
        new Object[] {"allocation-sites", params("snapshot", "after"), null});

    @TempDir
    static Path tmp;

    private Neo4j server;
    private Driver driver;
    private GraphStore embedded;
    private QueryLibrary library;
    private Path caseDir;

    @BeforeAll
    void load() throws Exception {
        server = Neo4jBuilders.newInProcessBuilder()
            .withDisabledServer()
            .withConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ZERO)
            .withConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ZERO)
            .build();
        driver = GraphDatabase.driver(server.boltURI(), AuthTokens.none());
        caseDir = Golden.testdata().resolve("luau").resolve("event-listeners");
        RemoteGraphStore remote = RemoteGraphStore.on(driver, server.boltURI().toString(), null);
        remote.load(List.of(read("before", "before"), read("after", "after")), false, Progress.NONE);
        embedded = Golden.loadPair(tmp.resolve("db"), caseDir);
        library = QueryLibrary.fromDirectory(Golden.cypherDir());
    }

    @AfterAll
    void close() throws Exception {
        if (embedded != null) {
            embedded.close();
        }
        driver.close();
        server.close();
    }

    private HeapSnapshot read(String file, String id) throws Exception {
        HeapSnapshot s = DumpReaders.read(Golden.dump(caseDir, file + ".json"), id, Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        return s;
    }

    private QueryResult remote(String name, Map<String, String> p) throws Exception {
        SavedQuery q = library.get(name);
        return RemoteQueryRunner.run(driver, null, q, QueryRunner.bind(q, p), 0, Golden.HANG_BOUND);
    }

    @Test
    void everySavedQueryGivesTheEmbeddedRowsAndTheGoldenFile() throws Exception {
        TreeSet<String> covered = new TreeSet<>();
        for (Object[] c : CASES) {
            String name = (String) c[0];
            @SuppressWarnings("unchecked")
            Map<String, String> p = (Map<String, String>) c[1];
            QueryResult bolt = withoutLoadedAt(remote(name, p));
            QueryResult local = withoutLoadedAt(Golden.run(embedded, name, p));
            assertEquals(local.columns(), bolt.columns(), name);
            assertEquals(local.rows(), bolt.rows(), name + " " + p);
            assertTrue(!bolt.rows().isEmpty() || name.equals("weak-only"), name + " returned rows");
            if (c[2] != null) {
                assertGolden(bolt, (String) c[2]);
            }
            // identical output in every format
            for (ResultWriter.Format f : ResultWriter.Format.values()) {
                assertEquals(print(local, f), print(bolt, f), name + " as " + f);
            }
            covered.add(name);
        }
        TreeSet<String> all = new TreeSet<>();
        library.queries().forEach(q -> all.add(q.name()));
        assertEquals(all, covered, "every saved query is run over Bolt");
    }

    /** The rows without a {@code loadedAt} column: the two stores were loaded at different times. */
    private static QueryResult withoutLoadedAt(QueryResult r) {
        int c = r.columns().indexOf("loadedAt");
        if (c < 0) {
            return r;
        }
        List<String> columns = new ArrayList<>(r.columns());
        columns.remove(c);
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> row : r.rows()) {
            List<Object> copy = new ArrayList<>(row);
            copy.remove(c);
            rows.add(copy);
        }
        return new QueryResult(columns, rows, r.truncated());
    }

    /** True when {@code q} takes a snapshot id ({@code snapshot}, {@code baseline} or {@code target}). */
    private static boolean takesASnapshot(SavedQuery q) {
        return q.parameters().stream().anyMatch(p -> QueryRunner.SNAPSHOT_PARAMETERS.contains(p.name()));
    }

    private static String print(QueryResult r, ResultWriter.Format f) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        ResultWriter.write(r, f, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * {@code heapload query paths} over Bolt on a long chain: a 2,000-hop chain (root registry → n0 → … → n1999, each
     * a 64-byte table) read back from the server gives its one path, hop by hop, with the stored retained sizes. (The
     * reader and the search use arrays and loops only; {@code PathsQueryTest} walks 100,000 hops in memory, which
     * over Bolt would cost minutes of the suite.)
     */
    @Test
    void pathsOverBoltWalkA2000HopChain() throws Exception {
        int chain = 2_000;
        dev.heapload.model.HeapSnapshotBuilder b = new dev.heapload.model.HeapSnapshotBuilder();
        int kind = b.kind("value");
        int next = b.name("next");
        int registry = b.defineObject("0x1000", "table", 80, 0, null);
        b.addReference(b.objectId(hop(0)), kind, next, 0);
        for (int i = 0; i < chain; i++) {
            b.defineObject(hop(i), "table", 64, 0, null);
            if (i + 1 < chain) {
                b.addReference(b.objectId(hop(i + 1)), kind, next, 0);
            }
        }
        b.addRoot("registry", registry);
        long total = 80 + 64L * chain;
        HeapSnapshot deep = b.build(new dev.heapload.model.SnapshotInfo("deep", "luau", "deep.json", null, total,
            Map.of(0, new dev.heapload.model.MemoryCategory(0, "main", total)), List.of()));
        HeapAnalyzer.analyze(deep, Progress.NONE);
        RemoteGraphStore remote = RemoteGraphStore.on(driver, server.boltURI().toString(), null);
        remote.load(deep, false, Progress.NONE);
        try {
            QueryResult r = dev.heapload.explore.PathsQuery.run(remote.model("deep"),
                dev.heapload.explore.PathsQuery.bind(Map.of("snapshot", "deep", "address", hop(chain - 1))), 0);
            assertEquals(chain + 1, r.rows().size());
            assertEquals(java.util.Arrays.asList(1L, 0L, "0x1000", "table", null, "root registry", 80L, total),
                r.rows().get(0));
            for (int i = 0; i < chain; i++) {
                assertEquals(java.util.Arrays.asList(1L, (long) i + 1, hop(i), "table", null, "next", 64L, 64L * (chain - i)),
                    r.rows().get(i + 1));
            }
        } finally {
            remote.delete("deep");
        }
    }

    private static String hop(int i) {
        return "0x" + Long.toHexString(0x100000L + 64L * i);
    }

    @Test
    void limitAndUnknownSnapshotBehaveAsEmbedded() throws Exception {
        SavedQuery q = library.get("type-histogram");
        QueryResult two = RemoteQueryRunner.run(driver, null, q, QueryRunner.bind(q, params("snapshot", "after")), 2,
            Golden.HANG_BOUND);
        assertEquals(2, two.rows().size());
        assertTrue(two.truncated());
        QueryFailedException e = assertThrows(QueryFailedException.class, () -> remote("summary", params("snapshot", "nope")));
        assertEquals("no snapshot 'nope' in the store (heapload snapshots lists them)", e.getMessage());
        QueryFailedException a = assertThrows(QueryFailedException.class,
            () -> remote("why-alive", params("snapshot", "after", "address", "0x5601383")));
        assertEquals("no object at address '0x5601383' in snapshot 'after' (give it as largest-retainers or the "
            + "leak answer prints it; any case, with or without 0x)", a.getMessage());
    }

    @Test
    void aLoadCutOffMidwayIsSeenByNoQueryAndRemovedByTheNextLoad() throws Exception {
        Driver doomed = GraphDatabase.driver(server.boltURI(), AuthTokens.none());
        RemoteGraphStore cut = RemoteGraphStore.on(doomed, server.boltURI().toString(), null);
        RemoteHooks.afterBatch(cut, 200, 3, doomed::close);
        assertThrows(IOException.class, () -> cut.load(read("after", "cut"), false, Progress.NONE));
        assertEquals(600L, count("MATCH (o:Object {snapshot: 'cut'}) RETURN count(o)"), "three batches of objects written");
        assertEquals(0L, count("MATCH (s:Snapshot {id: 'cut'}) RETURN count(s)"));
        // every saved query taking a snapshot id refuses the incomplete snapshot like an unknown one; the ones over
        // all snapshots (trend, trend-categories) do not list it
        for (SavedQuery q : library.queries()) {
            if (!takesASnapshot(q)) {
                QueryResult all = remote(q.name(), Map.of());
                assertEquals(List.of("before", "after"), all.rows().stream().map(r -> r.get(0)).distinct().toList(), q.name());
                continue;
            }
            Map<String, String> p = new java.util.LinkedHashMap<>();
            for (QueryParameter param : q.parameters()) {
                if (QueryRunner.SNAPSHOT_PARAMETERS.contains(param.name()) && param.required()) {
                    p.put(param.name(), "cut");
                } else if (param.required()) {
                    p.put(param.name(), "0x0");
                }
            }
            QueryFailedException e = assertThrows(QueryFailedException.class, () -> remote(q.name(), p), q.name());
            assertEquals("no snapshot 'cut' in the store (heapload snapshots lists them)", e.getMessage(), q.name());
        }
        // without that check the saved queries return no rows either: they start from the Snapshot or Diff node,
        // which the final transaction writes (why-alive starts from an address; only the check above guards it)
        for (SavedQuery q : library.queries()) {
            if (q.parameter("address") != null || !takesASnapshot(q)) {
                continue;
            }
            Map<String, String> p = new java.util.LinkedHashMap<>();
            for (QueryParameter param : q.parameters()) {
                if (QueryRunner.SNAPSHOT_PARAMETERS.contains(param.name()) && param.required()) {
                    p.put(param.name(), "cut");
                }
            }
            if (q.parameter("baseline") != null && !q.parameter("baseline").required()) {
                p.put("baseline", "after");
            }
            QueryResult raw = RemoteQueryRunner.run(driver, null, q, QueryRunner.bind(q, p), 0, Golden.HANG_BOUND,
                false);
            assertEquals(List.of(), raw.rows(), q.name() + " " + p);
        }
        // a query starting from the snapshot returns no rows even without that check
        Path file = tmp.resolve("objects-by-type.cypher");
        Files.writeString(file, "// name: objects-by-type\n// description: test\n// param: snapshot string\n"
            + "// columns: type, objects\nMATCH (:Snapshot {id: $snapshot})\nMATCH (o:Object {snapshot: $snapshot})\n"
            + "RETURN o.type AS type, count(o) AS objects\n");
        SavedQuery byType = QueryLibrary.readFile(file);
        assertEquals(List.of(), RemoteQueryRunner.run(driver, null, byType, Map.of("snapshot", "cut"), 0,
            Golden.HANG_BOUND, false).rows());
        List<Object> afterRows = new ArrayList<>(RemoteQueryRunner.run(driver, null, byType, Map.of("snapshot", "after"), 0,
            Golden.HANG_BOUND, false).rows());
        assertEquals(6, afterRows.size(), "the complete snapshot has its six types");

        // the next load removes the leftover and succeeds
        RemoteGraphStore next = RemoteGraphStore.on(driver, server.boltURI().toString(), null);
        next.load(read("before", "again"), false, Progress.NONE);
        assertEquals(0L, count("MATCH (o:Object {snapshot: 'cut'}) RETURN count(o)"));
        assertEquals(0L, count("MATCH (m:LoadInProgress) RETURN count(m)"));
        assertGolden(remote("summary", params("snapshot", "after")), "summary.event-listeners.csv");
        next.delete("again");
    }

    private long count(String cypher) {
        try (Session s = driver.session()) {
            return s.run(cypher).single().get(0).asLong();
        }
    }
}
