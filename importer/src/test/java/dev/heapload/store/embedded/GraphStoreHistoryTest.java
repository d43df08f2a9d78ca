package dev.heapload.store.embedded;

import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.Catalog;
import dev.heapload.store.SnapshotPrunedException;
import dev.heapload.store.TestSnapshots;
import dev.heapload.store.embedded.GraphStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.model.Progress;

/**
 * One graph per snapshot. Which comparisons a load writes (previous snapshot, baseline), on-demand
 * comparisons, the other snapshots' summary nodes kept current after a delete, prune (figures kept, graph and model
 * gone, one-line refusal), the all-or-nothing guarantee of delete, prune and on-demand comparison (each interrupted
 * by a failing hook: the store's files stay byte for byte), and the conversion of a store of the one-graph layout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GraphStoreHistoryTest {

    @TempDir
    static Path tmp;

    private Path dir;
    private GraphStore store;

    @AfterAll
    void close() throws IOException {
        if (store != null) {
            store.close();
        }
    }

    private List<String> strings(String snapshot, String cypher) throws IOException {
        List<String> out = new ArrayList<>();
        try (Transaction tx = store.database(snapshot).beginTx(); Result r = tx.execute(cypher)) {
            r.forEachRemaining(row -> out.add(String.valueOf(row.values().iterator().next())));
        }
        return out;
    }

    /** The pairs compared into {@code target}'s graph, as "baseline>target", sorted. */
    private List<String> diffs(String target) throws IOException {
        return strings(target, "MATCH (d:Diff) RETURN d.baseline + '>' + d.target AS p ORDER BY p");
    }

    /** The Snapshot nodes of {@code snapshot}'s graph in loadOrder, as "id:loadOrder". */
    private List<String> snapshotNodes(String snapshot) throws IOException {
        return strings(snapshot, "MATCH (s:Snapshot) WITH s ORDER BY s.loadOrder RETURN s.id + ':' + s.loadOrder AS x");
    }

    /** Every file of the store but logs and lock (graph homes by name only: Neo4j rewrites its files on open). */
    private Map<String, String> files() throws IOException {
        Map<String, String> state = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.toList()) {
                String rel = dir.relativize(p).toString();
                if (rel.isEmpty() || rel.equals(GraphStore.LOG) || rel.equals(GraphStore.LOCK)
                    || rel.startsWith(GraphStore.LOGS) || (rel.startsWith(GraphStore.GRAPHS + "/")
                    && rel.indexOf('/', GraphStore.GRAPHS.length() + 1) > 0)) {
                    continue;
                }
                state.put(rel, Files.isDirectory(p) ? "/" : digest(p));
            }
        }
        return state;
    }

    private static String digest(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private void failAt(String step) {
        store.buildHook = reached -> {
            if (reached.equals(step)) {
                throw new IOException("injected failure at " + step);
            }
        };
    }

    private void noFailure() {
        store.buildHook = reached -> {
        };
    }

    @Test
    @Order(1)
    void aLoadComparesWithThePreviousSnapshotAndTheBaselineOnly() throws IOException {
        dir = tmp.resolve("store");
        store = GraphStore.open(dir);
        for (String id : List.of("a", "b", "c")) {
            store.load(TestSnapshots.analysed(id), false, Progress.NONE);
        }
        store.setBaseline("a");
        store.load(TestSnapshots.analysed("d"), false, Progress.NONE);
        assertEquals(List.of(), diffs("a"));
        assertEquals(List.of("a>b"), diffs("b"));
        assertEquals(List.of("b>c"), diffs("c"));
        assertEquals(List.of("a>d", "c>d"), diffs("d"));
        try (Stream<Path> graphs = Files.list(dir.resolve(GraphStore.GRAPHS))) {
            assertEquals(4, graphs.count(), "one graph per snapshot");
        }
        // every graph knows every snapshot (summary nodes), in load order; 'a' was built before b, c, d existed
        assertEquals(List.of("a:0", "b:1", "c:2", "d:3"), snapshotNodes("a"));
        assertEquals(List.of("a:0", "b:1", "c:2", "d:3"), snapshotNodes("d"));
        assertEquals(List.of("7"), strings("a", "MATCH (:Snapshot {id: 'd'})-[:HAS_STATS]->(s:Stats) RETURN count(s)"));
        assertEquals(List.of("10"), strings("a", "MATCH (o:Object) RETURN count(o)"), "only its own objects");

        // the summaries keep each load's comparisons (previous first, then the baseline): the leak history
        List<dev.heapload.store.SnapshotHistory> history = store.history();
        assertEquals(List.of("a", "b", "c", "d"), history.stream().map(h -> h.snapshot().id()).toList());
        assertEquals(List.of(), history.get(0).comparisons());
        assertEquals(List.of("c", "a"), history.get(3).comparisons().stream()
            .map(dev.heapload.store.StoredComparison::baseline).toList());
        assertEquals(new dev.heapload.store.StoredComparison("a", 0, 0, 0, List.of()), history.get(1).comparisons().get(0));

        // --baseline with a load is committed with it: a load that fails leaves the setting (and every file) as it was
        Map<String, String> before = files();
        failAt("imported");
        IOException e = assertThrows(IOException.class,
            () -> store.load(List.of(TestSnapshots.analysed("e")), false, "b", Progress.NONE));
        assertTrue(e.getMessage().contains("injected failure at imported"), e.getMessage());
        noFailure();
        assertEquals(java.util.Optional.of("a"), store.baseline());
        assertEquals(before, files());
        assertThrows(dev.heapload.store.SnapshotNotFoundException.class,
            () -> store.load(List.of(TestSnapshots.analysed("e")), false, "nope", Progress.NONE));
        assertEquals(before, files());
    }

    @Test
    @Order(2)
    void anInterruptedOnDemandComparisonWritesNothingAndTheNextOneIsKept() throws IOException {
        Map<String, String> before = files();
        failAt("compared");
        IOException e = assertThrows(IOException.class, () -> store.compare("a", "c"));
        assertTrue(e.getMessage().contains("injected failure at compared"), e.getMessage());
        noFailure();
        assertEquals(List.of("b>c"), diffs("c"));
        assertEquals(before, files());
        assertTrue(store.compare("a", "c"));
        assertEquals(List.of("a>c", "b>c"), diffs("c"));
        assertFalse(store.compare("a", "c"), "kept for later");
        // the reverse of a load's pair, too: what 'b' freed relative to 'c'
        assertTrue(store.compare("c", "b"));
        assertEquals(List.of("a>b", "c>b"), diffs("b"));
    }

    @Test
    @Order(3)
    void anInterruptedDeleteChangesNothingAndADeleteUpdatesTheOtherGraphsWhenOpened() throws IOException {
        Map<String, String> before = files();
        failAt("delete");
        assertThrows(IOException.class, () -> store.delete("b"));
        noFailure();
        assertEquals(before, files());
        assertEquals(List.of("a", "b", "c", "d"), store.snapshots().stream().map(SnapshotSummary::id).toList());
        store.delete("b");
        assertEquals(List.of("a", "c", "d"), store.snapshots().stream().map(SnapshotSummary::id).toList());
        assertFalse(Files.exists(dir.resolve("snapshots/b.hsnap")));
        assertFalse(Files.exists(dir.resolve("summaries/b.summary")));
        // c's graph was built when b existed: opening it drops b's summary and the comparison against b
        assertEquals(List.of("a:0", "c:1", "d:2"), snapshotNodes("c"));
        assertEquals(List.of("a>c"), diffs("c"));
    }

    @Test
    @Order(4)
    void pruneKeepsFiguresDropsGraphsAndModelsAndIsAllOrNothing() throws IOException {
        Map<String, String> before = files();
        failAt("prune");
        assertThrows(IOException.class, () -> store.prune(1, List.of()));
        noFailure();
        assertEquals(before, files());
        assertFalse(store.isPruned("c"));
        // the baseline 'a' is kept; 'c' is pruned
        assertEquals(List.of("c"), store.prune(1, List.of()));
        assertTrue(store.isPruned("c"));
        assertFalse(Files.exists(dir.resolve("snapshots/c.hsnap")));
        assertTrue(Files.exists(dir.resolve("summaries/c.summary")));
        try (Stream<Path> graphs = Files.list(dir.resolve(GraphStore.GRAPHS))) {
            assertEquals(2, graphs.count());
        }
        SnapshotPrunedException e = assertThrows(SnapshotPrunedException.class, () -> store.database("c"));
        assertFalse(e.getMessage().contains("\n"));
        assertTrue(e.getMessage().startsWith("snapshot 'c' in "), e.getMessage());
        assertThrows(SnapshotPrunedException.class, () -> store.model("c"));
        // what query paths and export --devtools read (also while another process holds the store)
        assertEquals(e.getMessage(), assertThrows(SnapshotPrunedException.class,
            () -> GraphStore.readModel(dir, "c")).getMessage());
        assertThrows(SnapshotPrunedException.class, () -> store.compare("c", "a"));
        // its figures stay in every graph: what trend reads
        assertEquals(List.of("a:0", "c:1", "d:2"), snapshotNodes("d"));
        assertEquals(List.of("7"), strings("d", "MATCH (:Snapshot {id: 'c'})-[:HAS_STATS]->(s:Stats) RETURN count(s)"));
        assertEquals(List.of("c>d"), strings("d", "MATCH (d:Diff {baseline: 'c'}) RETURN d.baseline + '>' + d.target"),
            "a pair compared before the prune stays readable");
        store.load(TestSnapshots.analysed("e"), false, Progress.NONE);
        assertEquals(List.of("a>e", "d>e"), diffs("e"), "the previous unpruned snapshot and the baseline");
        assertEquals(List.of("a:0", "c:1", "d:2", "e:3"), snapshotNodes("e"));
    }

    @Test
    @Order(5)
    void aStoreOfTheOneGraphLayoutIsConvertedAndKeepsEverySnapshot() throws IOException {
        if (store != null) {
            store.close();
        }
        store = null;
        // as heapload-store-1 wrote it: no graph, graphSchema or pruned lines, no summaries, one graph-<g> folder
        Path legacy = tmp.resolve("legacy");
        try (GraphStore s = GraphStore.open(legacy)) {
            s.load(List.of(TestSnapshots.analysed("x"), TestSnapshots.plain("y", 2)), false, Progress.NONE);
        }
        Path catalogFile = legacy.resolve(Catalog.FILE);
        StringBuilder b = new StringBuilder();
        for (String line : Files.readAllLines(catalogFile, StandardCharsets.ISO_8859_1)) {
            if (!line.matches("snapshot\\.\\d+\\.(graph|graphSchema|pruned)=.*")) {
                b.append(line.replace("heapload-store-2", "heapload-store-1")).append('\n');
            }
        }
        Files.writeString(catalogFile, b, StandardCharsets.ISO_8859_1);
        GraphStore.deleteRecursively(legacy.resolve(GraphStore.GRAPHS));
        GraphStore.deleteRecursively(legacy.resolve(GraphStore.SUMMARIES));
        Files.createDirectories(legacy.resolve("graph-7/data"));
        List<String> notices = new ArrayList<>();
        GraphStore.setNotices(notices::add);
        try {
            dir = legacy;
            store = GraphStore.open(legacy);
            assertEquals(1, notices.size(), notices.toString());
            assertTrue(notices.get(0).contains("converting it to one graph per snapshot, every snapshot kept"),
                notices.get(0));
            assertFalse(Files.exists(legacy.resolve("graph-7")));
            assertTrue(Files.exists(legacy.resolve("summaries/x.summary")));
            assertEquals(List.of("x", "y"), store.snapshots().stream().map(SnapshotSummary::id).toList());
            assertEquals(List.of("x:0", "y:1"), snapshotNodes("x"));
            assertEquals(2, notices.size(), "its graph built on first use: " + notices);
            assertEquals(List.of("10"), strings("x", "MATCH (o:Object) RETURN count(o)"));
            assertEquals(List.of("7"), strings("y", "MATCH (:Snapshot {id: 'x'})-[:HAS_STATS]->(s:Stats) RETURN count(s)"));
            assertEquals(List.of("12"), strings("y", "MATCH (o:Object {snapshot: 'y'}) RETURN count(o)"));
            store.close();
            store = GraphStore.open(legacy);
            assertEquals(List.of("10"), strings("x", "MATCH (o:Object) RETURN count(o)"));
            assertEquals(3, notices.size(), "converted and built once each: " + notices);
        } finally {
            GraphStore.setNotices(line -> {
            });
        }
    }
}
