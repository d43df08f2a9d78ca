package dev.heapload.queries;

import static dev.heapload.queries.Golden.assertGolden;
import static dev.heapload.queries.Golden.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
import dev.heapload.store.SnapshotSummary;

/**
 * Two snapshots loaded over Bolt in two separate loads get the comparisons the embedded store makes when both are
 * loaded together: the second load reads the first snapshot back from the server and compares it with the new one
 * in both directions. The pair queries over Bolt then give exactly the golden rows and the embedded store's rows, in
 * either load order, for both pair directions; deleting a snapshot over Bolt removes the comparisons with it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("server")
class BoltSeparateLoadsTest {

    /** The pair queries with the golden tests' parameters (baseline before, target after) and their golden files. */
    private static final List<Object[]> EVENT_LISTENERS = List.of(
        new Object[] {"leak-groups", "leak-groups.event-listeners.csv"},
        new Object[] {"new-objects", "new-objects.event-listeners.csv"},
        new Object[] {"growth", "growth.event-listeners.csv"},
        new Object[] {"type-histogram-diff", "type-histogram-diff.event-listeners.csv"},
        new Object[] {"categories", "categories.event-listeners.csv"});

    @TempDir
    static Path tmp;

    private Neo4j server;
    private Driver driver;
    private GraphStore embedded;
    private QueryLibrary library;
    private Path eventListeners;

    @BeforeAll
    void start() throws Exception {
        server = Neo4jBuilders.newInProcessBuilder()
            .withDisabledServer()
            .withConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ZERO)
            .withConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ZERO)
            .build();
        driver = GraphDatabase.driver(server.boltURI(), AuthTokens.none());
        eventListeners = Golden.testdata().resolve("luau").resolve("event-listeners");
        embedded = Golden.loadPair(tmp.resolve("db"), eventListeners);
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

    @Test
    void beforeThenAfterGivesTheEmbeddedPairRows() throws Exception {
        loadSeparately(eventListeners, "before", "after");
        assertPairQueriesAsEmbedded();
    }

    /**
     * Comparisons over Bolt: before, before again as 'again', then after: each load compares with the previous one
     * only, so before↔after is compared on first request. A comparison that fails inside its transaction leaves the
     * server exactly as it was; the next request compares the pair (reading both snapshots back from the server), the
     * pair queries give the golden and the embedded rows in both directions, and a later request (another process: a
     * new store object) finds the pair and compares nothing. The load history ({@code LoadComparison} nodes) equals the
     * embedded store's summaries for the same pair and is not changed by comparisons on first request.
     */
    @Test
    void aPairNoLoadComparedIsComparedOnFirstRequestWithTheEmbeddedRows() throws Exception {
        RemoteGraphStore store = RemoteGraphStore.on(driver, server.boltURI().toString(), null);
        for (SnapshotSummary s : store.snapshots()) {
            store.delete(s.id());
        }
        store.load(read(eventListeners, "before"), false, Progress.NONE);
        store.load(read(eventListeners, "before", "again"), false, Progress.NONE);
        store.load(read(eventListeners, "after"), false, Progress.NONE);
        assertEquals(List.of("again>after", "after>again", "before>again", "again>before"),
            strings("MATCH (d:Diff) RETURN d.baseline + '>' + d.target AS p ORDER BY d.target, d.baseline"));
        // the history: each load's comparison with the snapshot before it, the groups as the embedded summary keeps them
        List<dev.heapload.store.SnapshotHistory> history = store.history();
        assertEquals(List.of("before", "again", "after"), history.stream().map(h -> h.snapshot().id()).toList());
        assertEquals(List.of(), history.get(0).comparisons());
        dev.heapload.store.StoredComparison afterVsAgain = history.get(2).comparisons().get(0);
        assertEquals(1, history.get(2).comparisons().size());
        assertEquals("again", afterVsAgain.baseline());
        assertEquals(embedded.history().get(1).comparisons().get(0).leakGroups(), afterVsAgain.leakGroups(),
            "the same pair's groups as the embedded store's summary of 'after'");
        assertEquals(3, afterVsAgain.leakGroupCount());
        assertEquals(embedded.history().get(1).comparisons().get(0).newObjects(), afterVsAgain.newObjects());
        assertEquals(embedded.history().get(1).comparisons().get(0).newBytes(), afterVsAgain.newBytes());
        assertEquals(new dev.heapload.store.StoredComparison.StoredLeakGroup(152, 19608, 19608, 16, "table",
            List.of("root registry (table)", "_MODULES in table", "EventBus in table", "ThemeChanged in table",
                "handlers in table", "[array] in table"), "growing", 152, 19608), afterVsAgain.leakGroups().get(0));

        List<String> notices = new java.util.ArrayList<>();
        RemoteGraphStore.setNotices(notices::add);
        try {
            long nodes = count("MATCH (n) RETURN count(n)");
            long relationships = count("MATCH ()-[r]->() RETURN count(r)");
            dev.heapload.store.bolt.RemoteHooks.failComparisonWrites(store, "injected failure");
            java.io.IOException failed = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> store.compareFor("leak-groups", Map.of("baseline", "before", "target", "after")));
            assertEquals("Neo4j at " + server.boltURI() + " failed while writing: injected failure", failed.getMessage());
            assertEquals(nodes, count("MATCH (n) RETURN count(n)"), "nothing written");
            assertEquals(relationships, count("MATCH ()-[r]->() RETURN count(r)"), "nothing written");
            dev.heapload.store.bolt.RemoteHooks.failComparisonWrites(store, null);

            for (Object[] c : EVENT_LISTENERS) {
                String name = (String) c[0];
                Map<String, String> forward = pair(name, "before", "after");
                Map<String, String> backward = pair(name, "after", "before");
                QueryResult bolt = remoteComparing(store, name, forward);
                assertGolden(bolt, (String) c[1]);
                assertEquals(Golden.run(embedded, name, forward).rows(), bolt.rows(), name + " " + forward);
                assertEquals(Golden.run(embedded, name, backward).rows(), remoteComparing(store, name, backward).rows(),
                    name + " " + backward);
            }
            assertEquals(List.of(
                "comparing 'after' with 'before' (first request for this pair; kept for later)",
                "comparing 'after' with 'before' (first request for this pair; kept for later)",
                "comparing 'before' with 'after' (first request for this pair; kept for later)"), notices,
                "the failed attempt, then each direction once");
            assertEquals(1L, count("MATCH (d:Diff {baseline: 'before', target: 'after'}) RETURN count(d)"));
            // another process: finds the pair on the server, compares nothing
            RemoteGraphStore later = RemoteGraphStore.on(driver, server.boltURI().toString(), null);
            assertFalse(later.compare("before", "after"));
            assertFalse(later.compare("after", "before"));
            assertEquals(3, notices.size());
            assertEquals(6L, count("MATCH (d:Diff) RETURN count(d)"));
            // the load history is the loads' only
            assertEquals(history, later.history());
        } finally {
            RemoteGraphStore.setNotices(line -> {
            });
        }
        // deleting 'again' removes its comparisons and history, not the history of 'after' (as the embedded summaries)
        store.delete("again");
        assertEquals(List.of("before>after", "after>before"),
            strings("MATCH (d:Diff) RETURN d.baseline + '>' + d.target AS p ORDER BY d.target, d.baseline"));
        assertEquals(1L, count("MATCH (:Snapshot {id: 'after'})-[:LOAD_COMPARISON]->(c:LoadComparison {baseline: 'again'}) "
            + "RETURN count(c)"));
        assertEquals(3L + 1, count("MATCH (n) WHERE n:LoadComparison OR n:LoadLeakGroup RETURN count(n)"));
    }

    @Test
    void afterThenBeforeGivesTheEmbeddedPairRows() throws Exception {
        // the second load reads 'after' back from the server as the target of before→after: leak groups, examples and
        // growth come from its stored retention paths and retained sizes
        loadSeparately(eventListeners, "after", "before");
        assertPairQueriesAsEmbedded();
    }

    @Test
    void deletingASnapshotRemovesItsComparisons() throws Exception {
        loadSeparately(eventListeners, "before", "after");
        assertEquals(2L, count("MATCH (d:Diff) RETURN count(d)"));
        RemoteGraphStore store = RemoteGraphStore.on(driver, server.boltURI().toString(), null);
        store.delete("before");
        assertEquals(0L, count("MATCH (n) WHERE n:Diff OR n:NewObjects OR n:LeakGroup RETURN count(n)"));
        assertEquals(0L, count("MATCH ()-[g:GREW]->() RETURN count(g)"));
        // loaded again on its own, it is compared with 'after' once more
        store.load(read(eventListeners, "before"), false, Progress.NONE);
        assertEquals(2L, count("MATCH (d:Diff) RETURN count(d)"));
        assertGolden(remote("leak-groups", params("baseline", "before", "target", "after")), "leak-groups.event-listeners.csv");
    }

    @Test
    void memoryCategoriesMediumCountsTheTablesAtReusedAddressesAsNewInEitherOrder() throws Exception {
        Path medium = Golden.sharedCase("memory-categories-medium");
        // before, then after: 'before' is read back from the server as the baseline
        loadSeparately(medium, "before", "after");
        assertMediumPair("before");
        // before once more, as 'again': 'after' is read back from the server as the target (the rows name no ids)
        RemoteGraphStore.on(driver, server.boltURI().toString(), null).load(read(medium, "before", "again"), false,
            Progress.NONE);
        // a load over Bolt compares the new snapshot with the previous one only, both ways: before↔after
        // at the second load, after↔again at the third; before and again are not compared
        assertEquals(4L, count("MATCH (d:Diff) RETURN count(d)"), "the pairs of each load and the one before it");
        assertEquals(0L, count("MATCH (d:Diff) WHERE (d.baseline = 'before' AND d.target = 'again') "
            + "OR (d.baseline = 'again' AND d.target = 'before') RETURN count(d)"));
        assertMediumPair("again");
    }

    private void assertMediumPair(String baseline) throws Exception {
        QueryResult newObjects = remote("new-objects", params("baseline", baseline, "target", "after"));
        assertGolden(newObjects, "new-objects.memory-categories-medium.csv");
        assertEquals(20L, newObjects.rows().get(1).get(6), "the 20 Profiler tables at reused addresses, baseline " + baseline);
        assertGolden(remote("categories", params("snapshot", "after", "baseline", baseline)),
            "categories.memory-categories-medium.csv");
    }

    /** The parameters of pair query {@code name} for baseline {@code b} and target {@code t} ({@code categories} names
     * its target {@code snapshot}). */
    private static Map<String, String> pair(String name, String b, String t) {
        return name.equals("categories") ? params("snapshot", t, "baseline", b) : params("baseline", b, "target", t);
    }

    /** Every pair query, both pair directions, over Bolt equals the embedded store's rows (and the golden files). */
    private void assertPairQueriesAsEmbedded() throws Exception {
        for (Object[] c : EVENT_LISTENERS) {
            String name = (String) c[0];
            Map<String, String> forward = pair(name, "before", "after");
            Map<String, String> backward = pair(name, "after", "before");
            QueryResult bolt = remote(name, forward);
            assertGolden(bolt, (String) c[1]);
            assertEquals(Golden.run(embedded, name, forward).rows(), bolt.rows(), name + " " + forward);
            QueryResult back = remote(name, backward);
            assertEquals(Golden.run(embedded, name, backward).rows(), back.rows(), name + " " + backward);
            if (!name.equals("leak-groups") && !name.equals("growth")) {
                assertFalse(back.rows().isEmpty(), name + " " + backward + " has rows");
            }
        }
    }

    /** Empties the server, then loads {@code first} and, in a second load, {@code second} of {@code caseDir}. */
    private void loadSeparately(Path caseDir, String first, String second) throws Exception {
        RemoteGraphStore store = RemoteGraphStore.on(driver, server.boltURI().toString(), null);
        for (SnapshotSummary s : store.snapshots()) {
            store.delete(s.id());
        }
        assertEquals(0L, count("MATCH (n) RETURN count(n)"), "server emptied");
        store.load(read(caseDir, first), false, Progress.NONE);
        assertEquals(0L, count("MATCH (d:Diff) RETURN count(d)"), "one snapshot, no comparison");
        store.load(read(caseDir, second), false, Progress.NONE);
        assertEquals(2L, count("MATCH (d:Diff) RETURN count(d)"), "one comparison per direction");
    }

    private static HeapSnapshot read(Path caseDir, String id) throws Exception {
        return read(caseDir, id, id);
    }

    /** {@code file}.json of {@code caseDir}, analysed, as snapshot {@code id}. */
    private static HeapSnapshot read(Path caseDir, String file, String id) throws Exception {
        HeapSnapshot s = DumpReaders.read(Golden.dump(caseDir, file + ".json"), id, Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        return s;
    }

    private QueryResult remote(String name, Map<String, String> p) throws Exception {
        SavedQuery q = library.get(name);
        return RemoteQueryRunner.run(driver, null, q, QueryRunner.bind(q, p), 0, Golden.HANG_BOUND);
    }

    /** The query on the server after comparing its pair on first request, as {@code heapload --uri} does. */
    private QueryResult remoteComparing(RemoteGraphStore store, String name, Map<String, String> p) throws Exception {
        SavedQuery q = library.get(name);
        Map<String, Object> bound = QueryRunner.bind(q, p);
        store.compareFor(name, bound);
        return RemoteQueryRunner.run(driver, null, q, bound, 0, Golden.HANG_BOUND);
    }

    private List<String> strings(String cypher) {
        try (Session s = driver.session()) {
            return s.run(cypher).list(r -> r.get(0).asString());
        }
    }

    private long count(String cypher) {
        try (Session s = driver.session()) {
            return s.run(cypher).single().get(0).asLong();
        }
    }
}
