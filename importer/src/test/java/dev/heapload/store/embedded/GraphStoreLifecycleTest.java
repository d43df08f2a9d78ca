package dev.heapload.store.embedded;

import dev.heapload.store.SnapshotExistsException;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.Catalog;
import dev.heapload.store.TestSnapshots;
import dev.heapload.store.embedded.GraphStore;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
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
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotFile;
import dev.heapload.model.Progress;

/**
 * Load, refuse, fail, replace, delete, reopen and recover on one store, step by step (the steps share the
 * store because every rebuild and DBMS start costs seconds).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GraphStoreLifecycleTest {

    /** An id that is not a plain file name. */
    private static final String B = "run 2/after:b";

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

    private long count(String cypher, Object... params) throws IOException {
        return countIn(null, cypher, params);
    }

    /** A count in the graph of snapshot {@code id} (null: the newest). */
    private long countIn(String id, String cypher, Object... params) throws IOException {
        GraphDatabaseService db = id == null ? store.database() : store.database(id);
        Map<String, Object> p = new TreeMap<>();
        for (int i = 0; i < params.length; i += 2) {
            p.put((String) params[i], params[i + 1]);
        }
        try (Transaction tx = db.beginTx(); Result r = tx.execute(cypher, p)) {
            return ((Number) r.next().values().iterator().next()).longValue();
        }
    }

    /**
     * Per snapshot id, in its own graph: objects, REF, WEAK_REF, ROOT, retention-REF counts, and the number of Snapshot
     * nodes (in each graph: every snapshot of the store; reported once when all agree). No other snapshot's objects are
     * in a snapshot's graph.
     */
    private String graphCounts() throws IOException {
        StringBuilder b = new StringBuilder();
        java.util.Set<Long> snapshotNodes = new java.util.TreeSet<>();
        for (SnapshotSummary s : store.snapshots()) {
            String id = s.id();
            b.append(id).append(':')
                .append(countIn(id, "MATCH (o:Object {snapshot:$s}) RETURN count(o)", "s", id)).append('/')
                .append(countIn(id, "MATCH (:Object {snapshot:$s})-[r:REF]->() RETURN count(r)", "s", id)).append('/')
                .append(countIn(id, "MATCH (:Object {snapshot:$s})-[r:WEAK_REF]->() RETURN count(r)", "s", id)).append('/')
                .append(countIn(id, "MATCH (:Snapshot {id:$s})-[r:ROOT]->() RETURN count(r)", "s", id)).append('/')
                .append(countIn(id, "MATCH (:Object {snapshot:$s})-[r:REF {retention: true}]->() RETURN count(r)", "s", id))
                .append(' ');
            assertEquals(countIn(id, "MATCH (o:Object) RETURN count(o)"),
                countIn(id, "MATCH (o:Object {snapshot:$s}) RETURN count(o)", "s", id), "only its own objects");
            snapshotNodes.add(countIn(id, "MATCH (s:Snapshot) RETURN count(s)"));
        }
        if (snapshotNodes.isEmpty()) {
            snapshotNodes.add(count("MATCH (s:Snapshot) RETURN count(s)"));
        }
        return b.append("snapshots=").append(snapshotNodes.size() == 1 ? snapshotNodes.iterator().next()
            : snapshotNodes.toString()).toString();
    }

    /** Every file and directory of the store except the logs and the lock, with a digest of each file. */
    private Map<String, String> files() throws IOException {
        Map<String, String> state = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.toList()) {
                String rel = dir.relativize(p).toString();
                if (rel.isEmpty() || rel.equals(GraphStore.LOG) || rel.equals(GraphStore.LOCK)
                    || rel.startsWith(GraphStore.LOGS)) {
                    continue;
                }
                if (rel.startsWith("graph") && rel.contains("/")) {
                    continue; // Neo4j's own files inside a graph home change when it opens and closes
                }
                state.put(Files.isDirectory(p) ? rel + "/" : rel, Files.isDirectory(p) ? "" : digest(p));
            }
        }
        return state;
    }

    interface Action {
        void run() throws IOException;
    }

    /** What {@code action} printed to System.out and System.err. */
    private static String terminalOutput(Action action) throws IOException {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        System.setErr(capture);
        try {
            action.run();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private static boolean causedBy(Throwable e, String message) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains(message)) {
                return true;
            }
        }
        return false;
    }

    private static String digest(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @Order(1)
    void freshStoreHasAnEmptyGraph() throws IOException {
        dir = tmp.resolve("store");
        store = GraphStore.open(dir);
        assertEquals(List.of(), store.snapshots());
        assertEquals(0, count("MATCH (n) RETURN count(n)"));
        assertEquals(1, count("SHOW INDEXES YIELD name WHERE name = '" + GraphSchema.OBJECT_ADDRESS_INDEX + "' RETURN count(*)"));
        assertTrue(Files.isRegularFile(dir.resolve("logs").resolve("debug.log")));
    }

    @Test
    @Order(2)
    void loadsQuietlyAndKeepsFilesPerSnapshot() throws IOException {
        String terminal = terminalOutput(() -> {
            store.load(TestSnapshots.analysed("a"), false, Progress.NONE);
            store.load(TestSnapshots.plain(B, 2), false, Progress.NONE);
            assertEquals("a:10/9/1/2/6 " + B + ":12/11/1/2/0 snapshots=2", graphCounts());
        });
        assertEquals("", terminal, "Neo4j wrote to the terminal");
        assertTrue(Files.size(dir.resolve(GraphStore.LOG)) > 0);
        assertEquals(List.of("a", B), store.snapshots().stream().map(SnapshotSummary::id).toList());
        assertTrue(Files.isRegularFile(dir.resolve("snapshots/a.hsnap")));
        assertTrue(Files.isRegularFile(dir.resolve("snapshots/run%202%2Fafter%3Ab.hsnap")));
        assertEquals(12, HeapSnapshotFile.read(dir.resolve("snapshots/run%202%2Fafter%3Ab.hsnap")).objectCount());
        HeapSnapshot a = HeapSnapshotFile.read(dir.resolve("snapshots/a.hsnap"));
        assertTrue(a.analysis() instanceof dev.heapload.analysis.HeapAnalysis);
        List<Path> graphs;
        try (Stream<Path> top = Files.list(dir.resolve(GraphStore.GRAPHS))) {
            graphs = top.toList();
        }
        assertEquals(2, graphs.size(), "one graph per snapshot");
        // transaction logs are not preallocated (Neo4j's default would be 256 MiB per database)
        try (Stream<Path> logs = Files.walk(graphs.get(0).resolve("data/transactions"))) {
            long bytes = logs.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
            assertTrue(bytes < (16 << 20), "transaction logs take " + bytes + " bytes");
        }
    }

    @Test
    @Order(3)
    void duplicateIdIsRefusedAndStoreUnchanged() throws IOException {
        Map<String, String> before = files();
        List<SnapshotSummary> summaries = store.snapshots();
        SnapshotExistsException e = assertThrows(SnapshotExistsException.class,
            () -> store.load(TestSnapshots.plain("a", 1), false, Progress.NONE));
        assertEquals("a", e.id());
        assertFalse(e.getMessage().contains("\n"));
        assertEquals(summaries, store.snapshots());
        assertEquals(before, files());
        assertEquals("a:10/9/1/2/6 " + B + ":12/11/1/2/0 snapshots=2", graphCounts());
    }

    @Test
    @Order(4)
    void failedLoadsLeaveTheStoreAsItWas() throws IOException {
        Map<String, String> before = files();
        List<SnapshotSummary> summaries = store.snapshots();
        // new id, and replace of an existing one, failing at every step of the rebuild
        String terminal = terminalOutput(() -> failEverywhere(before, summaries));
        assertEquals("", terminal, "Neo4j wrote to the terminal");
        store.buildHook = reached -> {
            if (reached.equals("delete")) {
                throw new IOException("injected failure");
            }
        };
        assertThrows(IOException.class, () -> store.delete("a"));
        store.buildHook = reached -> {
        };
        assertEquals(summaries, store.snapshots());
        assertEquals(before, files());
        assertEquals("a:10/9/1/2/6 " + B + ":12/11/1/2/0 snapshots=2", graphCounts());
    }

    private void failEverywhere(Map<String, String> before, List<SnapshotSummary> summaries) throws IOException {
        for (String s : List.of("written", "source", "imported", "renamed")) {
            for (boolean replace : new boolean[] {false, true}) {
                String step = s.equals("source") ? "source " + (replace ? "a" : "c") : s;
                store.buildHook = reached -> {
                    if (reached.equals(step)) {
                        throw new IOException("injected failure at " + step);
                    }
                };
                HeapSnapshot snapshot = TestSnapshots.plain(replace ? "a" : "c", 4);
                IOException e = assertThrows(IOException.class, () -> store.load(snapshot, replace, Progress.NONE));
                assertTrue(causedBy(e, "injected failure at " + step), step + ": " + e);
                assertEquals(summaries, store.snapshots(), step);
                assertEquals(before, files(), step + " replace=" + replace);
            }
        }
    }

    @Test
    @Order(5)
    void replaceKeepsPlaceAndSwapsContent() throws IOException {
        store.load(TestSnapshots.plain("a", 5), true, Progress.NONE);
        assertEquals(List.of("a", B), store.snapshots().stream().map(SnapshotSummary::id).toList());
        SnapshotSummary a = store.snapshot("a").orElseThrow();
        assertEquals(15, a.objectCount());
        assertFalse(a.analysed());
        assertEquals("a:15/14/1/2/0 " + B + ":12/11/1/2/0 snapshots=2", graphCounts());
        assertEquals(0, count("MATCH (o:Object {snapshot:'a'}) WHERE o.retainedSize IS NOT NULL RETURN count(o)"));
        assertEquals(15, HeapSnapshotFile.read(dir.resolve("snapshots/a.hsnap")).objectCount());
        try (Stream<Path> snapshots = Files.list(dir.resolve("snapshots"))) {
            assertEquals(2, snapshots.count());
        }
    }

    @Test
    @Order(6)
    void deleteRemovesOneSnapshot() throws IOException {
        assertThrows(SnapshotNotFoundException.class, () -> store.delete("nope"));
        store.delete(B);
        assertEquals(List.of("a"), store.snapshots().stream().map(SnapshotSummary::id).toList());
        assertEquals("a:15/14/1/2/0 snapshots=1", graphCounts());
        assertEquals(0, count("MATCH (o:Object {snapshot:$s}) RETURN count(o)", "s", B));
        try (Stream<Path> snapshots = Files.list(dir.resolve("snapshots"))) {
            assertEquals(List.of("a.hsnap"), snapshots.map(p -> p.getFileName().toString()).toList());
        }
        try (Stream<Path> summaries = Files.list(dir.resolve(GraphStore.SUMMARIES))) {
            assertEquals(List.of("a.summary"), summaries.map(p -> p.getFileName().toString()).toList());
        }
        try (Stream<Path> graphs = Files.list(dir.resolve(GraphStore.GRAPHS))) {
            assertEquals(1, graphs.count(), "the deleted snapshot's graph is gone");
        }
    }

    @Test
    @Order(7)
    void secondOpenIsRefusedWhileOpen() {
        IOException e = assertThrows(IOException.class, () -> GraphStore.open(dir));
        assertTrue(e.getMessage().contains("in use"), e.getMessage());
    }

    @Test
    @Order(8)
    void reopenAfterClosePersistsAndRecoversLeftovers() throws IOException {
        List<SnapshotSummary> summaries = store.snapshots();
        Map<String, String> before = files();
        store.close();
        // leftovers of a killed process: a half-built graph, an uncommitted snapshot file, an old graph
        Files.createDirectories(dir.resolve("graph.building-99/data"));
        Files.writeString(dir.resolve("graph.building-99/data/x"), "partial");
        Files.writeString(dir.resolve("snapshots/c.hsnap.pending-99"), "partial");
        Files.createDirectories(dir.resolve("graph-1"));
        Files.createDirectories(dir.resolve("graphs/c-99/data"));
        Files.writeString(dir.resolve("summaries/c.summary.pending-99"), "partial");
        Files.writeString(dir.resolve(Catalog.FILE + ".tmp"), "partial");
        store = GraphStore.open(dir);
        assertEquals(summaries, store.snapshots());
        assertEquals(before, files());
        assertEquals("a:15/14/1/2/0 snapshots=1", graphCounts());
    }

    @Test
    @Order(9)
    void reopenRollsForwardACommittedLoad() throws IOException {
        // the state after a commit whose snapshot-file move did not happen: the catalog names generation g,
        // the snapshot file is still <file>.pending-g
        store.close();
        Catalog catalog = Catalog.read(dir);
        Path file = dir.resolve("snapshots/a.hsnap");
        byte[] bytes = Files.readAllBytes(file);
        Path pending = dir.resolve("snapshots/a.hsnap" + GraphStore.PENDING + catalog.generation);
        Files.move(file, pending);
        store = GraphStore.open(dir);
        assertFalse(Files.exists(pending));
        assertArrayEquals(bytes, Files.readAllBytes(file));
        assertEquals(1, store.snapshots().size());
    }

    @Test
    @Order(10)
    void refusesDirectoriesThatAreNotStores() throws IOException {
        Path other = tmp.resolve("not-a-store");
        Files.createDirectories(other);
        Files.writeString(other.resolve("notes.txt"), "mine");
        IOException e = assertThrows(IOException.class, () -> GraphStore.open(other));
        assertTrue(e.getMessage().contains("not a heapload store"), e.getMessage());
        try (Stream<Path> list = Files.list(other)) {
            assertEquals(List.of("notes.txt"), list.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    @Order(11)
    void graphOfAnOlderSchemaIsRebuiltFromTheSnapshotFilesOnFirstUse() throws IOException {
        store.close();
        Path catalogFile = dir.resolve(Catalog.FILE);
        String text = Files.readString(catalogFile, StandardCharsets.ISO_8859_1);
        String current = "snapshot.0.graphSchema=" + GraphSchema.VERSION + "\n";
        assertTrue(text.contains(current), text);
        // as an older heapload wrote it
        Files.writeString(catalogFile, text.replace(current, "snapshot.0.graphSchema=3\n"), StandardCharsets.ISO_8859_1);
        long generation = Catalog.read(dir).generation;
        assertEquals(3, Catalog.read(dir).entries.get(0).graphSchema());
        List<String> notices = new java.util.ArrayList<>();
        GraphStore.setNotices(notices::add);
        try {
            store = GraphStore.open(dir);
            assertEquals(List.of(), notices, "opening alone rebuilds nothing");
            assertEquals("a:15/14/1/2/0 snapshots=1", graphCounts());
            assertEquals(1, notices.size(), notices.toString());
            assertTrue(notices.get(0).endsWith("was built by another heapload version (graph schema 3, now "
                + GraphSchema.VERSION + "): rebuilding it from its stored model"), notices.get(0));
            Catalog now = Catalog.read(dir);
            assertEquals(generation + 1, now.generation);
            assertEquals(GraphSchema.VERSION, now.entries.get(0).graphSchema());
            store.close();
            store = GraphStore.open(dir);
            store.database();
            assertEquals(1, notices.size(), "rebuilt once");
        } finally {
            GraphStore.setNotices(line -> {
            });
        }
    }
}
