package dev.heapload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The commit of a load without graphs ({@link StoreDirectory#prepare}, {@link StoreDirectory#commitFiles}): all or
 * nothing at every step, the committed snapshots listed with their models and summaries and no graph, their
 * comparisons made in memory; and no Neo4j class loaded by any of it.
 */
class StoreDirectoryTest {

    @TempDir
    Path dir;

    @Test
    void aCommitWritesModelsSummariesAndCatalogWithoutGraphs() throws IOException {
        try (StoreDirectory store = StoreDirectory.open(dir)) {
            StoreDirectory.Load first = store.prepare(List.of(TestSnapshots.analysed("a")), false, null, Progress.NONE);
            assertEquals(List.of(), first.comparisons("a"), "a first snapshot is compared with nothing");
            store.commitFiles(first, Progress.NONE);
            HeapSnapshot b = TestSnapshots.analysed("b");
            StoreDirectory.Load second = store.prepare(List.of(b), false, null, Progress.NONE);
            // the previous snapshot is the one partner: its model read back from its file
            assertEquals(List.of("a"), second.comparisons("b").stream().map(StoreDirectory.Compared::baseline).toList());
            assertEquals(TestSnapshots.analysed("a").objectCount(), second.comparisons("b").get(0).baselineObjects());
            store.commitFiles(second, Progress.NONE);
            assertEquals(List.of("a", "b"), store.snapshots().stream().map(SnapshotSummary::id).toList());
            for (Catalog.Entry e : store.catalog().entries) {
                assertNull(e.graph(), e.id() + " has no graph yet");
                assertTrue(Files.isRegularFile(store.modelFile(e)));
            }
            assertEquals(b.objectCount(), store.model("b").objectCount());
            // the load's comparison is kept in b's summary: the leak history
            assertEquals(List.of("a"), store.history().get(1).comparisons().stream().map(StoredComparison::baseline).toList());
        }
        assertEquals(List.of("catalog.properties", "graphs/", "neo4j.log", "snapshots/", "snapshots/a.hsnap",
            "snapshots/b.hsnap", "store.lock", "summaries/", "summaries/a.summary", "summaries/b.summary"),
            List.copyOf(files().keySet()));
    }

    @Test
    void aFailureAtAnyStepOfTheCommitChangesNothing() throws IOException {
        try (StoreDirectory store = StoreDirectory.open(dir)) {
            store.commitFiles(store.prepare(List.of(TestSnapshots.analysed("a")), false, null, Progress.NONE),
                Progress.NONE);
        }
        Map<String, String> before = files();
        for (String step : List.of("source a", "written")) {
            // a replace of the only snapshot compares with nothing, so it reads no stored model
            for (boolean replace : step.equals("written") ? new boolean[] {false, true} : new boolean[] {false}) {
                try (StoreDirectory store = StoreDirectory.open(dir)) {
                    store.steps(reached -> {
                        if (reached.equals(step)) {
                            throw new IOException("injected failure at " + step);
                        }
                    });
                    String id = replace ? "a" : "c";
                    IOException e = assertThrows(IOException.class, () -> store.commitFiles(
                        store.prepare(List.of(TestSnapshots.analysed(id)), replace, null, Progress.NONE), Progress.NONE),
                        step + " replace=" + replace);
                    assertEquals("injected failure at " + step, e.getMessage());
                    assertEquals(List.of("a"), store.snapshots().stream().map(SnapshotSummary::id).toList());
                }
                assertEquals(before, files(), step + " replace=" + replace);
            }
        }
        try (StoreDirectory store = StoreDirectory.open(dir)) {
            assertThrows(SnapshotExistsException.class,
                () -> store.prepare(List.of(TestSnapshots.analysed("a")), false, null, Progress.NONE));
            assertThrows(SnapshotNotFoundException.class,
                () -> store.prepare(List.of(TestSnapshots.analysed("c")), false, "nope", Progress.NONE));
        }
        assertEquals(before, files());
    }

    @Test
    void severalFilesCompareTheLastWithTheFirstAndPruneKeepsTheNewest() throws IOException {
        try (StoreDirectory store = StoreDirectory.open(dir)) {
            StoreDirectory.Load load = store.prepare(List.of(TestSnapshots.analysed("a"), TestSnapshots.analysed("b"),
                TestSnapshots.analysed("c")), false, null, Progress.NONE);
            assertEquals(List.of("b", "a"), load.comparisons("c").stream().map(StoreDirectory.Compared::baseline).toList());
            assertTrue(load.comparison("a", "c").isPresent());
            store.commitFiles(load, Progress.NONE);
            List<String> pruned = new java.util.ArrayList<>();
            store.commit(store.pruned(1, List.of(), pruned), "prune");
            assertEquals(List.of("a", "b"), pruned);
            assertFalse(Files.exists(dir.resolve("snapshots/a.hsnap")));
            assertTrue(store.isPruned("a"));
            store.delete("b");
            assertEquals(List.of("a", "c"), store.snapshots().stream().map(SnapshotSummary::id).toList());
            assertFalse(Files.exists(dir.resolve("summaries/b.summary")));
            assertThrows(SnapshotNotFoundException.class, () -> store.delete("b"));
        }
    }

    @Test
    void theStoreFilesApiNamesNoNeo4jType() throws IOException {
        try (StoreDirectory store = StoreDirectory.open(dir)) {
            store.commitFiles(store.prepare(List.of(TestSnapshots.analysed("a"), TestSnapshots.analysed("b")), false,
                null, Progress.NONE), Progress.NONE);
        }
        // which classes a load loads is checked in a child JVM (cli: LeakAnswerTest); here: none of the API's types
        for (Class<?> c : List.of(StoreDirectory.class, StoreDirectory.Load.class, StoreDirectory.Attempt.class,
            Catalog.class, StoredSummary.class, DiskSpace.class, StoreInUseException.class)) {
            for (var f : c.getDeclaredFields()) {
                assertFalse(f.getType().getName().startsWith("org.neo4j"), c + "." + f.getName());
            }
            for (var m : c.getDeclaredMethods()) {
                for (Class<?> p : m.getParameterTypes()) {
                    assertFalse(p.getName().startsWith("org.neo4j"), c + "." + m.getName());
                }
                assertFalse(m.getReturnType().getName().startsWith("org.neo4j"), c + "." + m.getName());
            }
        }
    }

    /** Every file and directory of the store with a digest of each file. */
    private Map<String, String> files() throws IOException {
        Map<String, String> state = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.toList()) {
                String rel = dir.relativize(p).toString().replace('\\', '/');
                if (rel.isEmpty()) {
                    continue;
                }
                boolean folder = Files.isDirectory(p);
                state.put(folder ? rel + "/" : rel, folder || rel.equals("neo4j.log") || rel.equals("store.lock")
                    ? "" : digest(p));
            }
        }
        return state;
    }

    private static String digest(Path p) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
