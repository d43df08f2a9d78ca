package dev.heapload.queries;

import static dev.heapload.queries.Golden.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.explore.ModelQueries;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;
import dev.heapload.store.StoredSnapshots;
import dev.heapload.store.embedded.GraphStore;

/**
 * The saved queries answered from the store's files ({@link ModelQueries}: {@code why-alive}, {@code referrers},
 * {@code leak-groups}, {@code new-objects}, {@code largest-retainers}, {@code snapshot}, {@code summary},
 * {@code type-histogram}) give the same columns, rows and order as their Cypher on the snapshot's graph: on the golden
 * cases (the golden CSV files hold both routes' rows), and on about 150 objects of each case's target snapshot (every
 * k-th, its roots and unreachable objects) for {@code why-alive} and {@code referrers}. Cases: Luau event-listeners
 * (bundled) and weak-caches (shared), Lua 5.4 ephemerons and Lua 5.1 weak-key values (bundled weak-tables-nogc), Lua
 * stack frames (bundled stack-frames, one snapshot), MicroPython with weak references (shared
 * unix-x64-splitheap-weakref).
 *
 * <p>The new golden files were read off the Cypher route and checked against each case's README (the assertions
 * below): the retention path named there, the weak referrers the case is about.
 */
class ModelRouteGoldenTest {

    @TempDir
    Path tmp;

    /**
     * {@code allocation-sites} on the bundled listener-sites pair (Lua 5.4, tracking on): the same site, objects, bytes
     * and retained bytes on both routes; with a baseline, the model route counts the new objects per site (the
     * case's README: 40 listener tables at line 8, 80 widget and buffer tables at 20, 40 closures at 21, 40 names at
     * 29; nothing else is new).
     */
    @Test
    void allocationSites() throws Exception {
        Path dir = Golden.testdata().resolve("lua").resolve("listener-sites").resolve("lua54");
        try (GraphStore store = loadPair(tmp.resolve("db"), Golden.dump(dir, "before.json"), Golden.dump(dir, "after.json"))) {
            QueryResult alone = both(store, "allocation-sites", params("snapshot", "after"), null);
            QueryResult cypherPair = Golden.run(store, "allocation-sites", params("snapshot", "after", "baseline", "before"));
            QueryResult pair = model(store, "allocation-sites", params("snapshot", "after", "baseline", "before"));
            assertEquals(alone.rows(), cypherPair.rows());
            List<List<Object>> expected = List.of(
                java.util.Arrays.asList(null, 375L, 32867L, 100041L, 0L, 0L),
                List.of("listeners.lua:20 in widget", 80L, 8320L, 9631L, 80L, 8320L),
                List.of("listeners.lua:8 in on", 40L, 4160L, 15391L, 40L, 4160L),
                List.of("listeners.lua:21 in widget", 40L, 1600L, 1600L, 40L, 1600L),
                List.of("listeners.lua:29 in main chunk", 40L, 1311L, 1311L, 40L, 1311L));
            assertEquals(expected, pair.rows());
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i).subList(0, 4), alone.rows().get(i).subList(0, 4));
                assertEquals(java.util.Arrays.asList(null, null), alone.rows().get(i).subList(4, 6));
            }
        }
    }

    @Test
    void eventListeners() throws Exception {
        Path dir = Golden.testdata().resolve("luau").resolve("event-listeners");
        try (GraphStore store = loadPair(tmp.resolve("db"), Golden.dump(dir, "before.json"), Golden.dump(dir, "after.json"))) {
            QueryResult groups = both(store, "leak-groups", params("baseline", "before", "target", "after"),
                "leak-groups.event-listeners.csv");
            assertEquals(3, groups.rows().size());
            // the golden files of EventListenersGoldenTest: the "Settings 3" dialog widget and a ThemeChanged Connection
            both(store, "why-alive", params("snapshot", "after", "address", "0x56013833b340"),
                "why-alive.event-listeners.csv");
            both(store, "referrers", params("snapshot", "after", "address", "0x56013833b190"),
                "referrers.event-listeners.csv");
            // the other direction, the same address spellings, the pair the other way round, no pair
            both(store, "leak-groups", params("baseline", "after", "target", "before"), null);
            both(store, "leak-groups", params("baseline", "after", "target", "after"), null);
            both(store, "leak-groups", params("baseline", "", "target", "after"), null);
            both(store, "why-alive", params("snapshot", "after", "address", " 56013833B340 "), "why-alive.event-listeners.csv");
            // the other saved queries answered from the files, on the golden files of EventListenersGoldenTest
            both(store, "summary", params("snapshot", "after"), "summary.event-listeners.csv");
            both(store, "type-histogram", params("snapshot", "after"), "type-histogram.event-listeners.csv");
            both(store, "new-objects", params("baseline", "before", "target", "after"), "new-objects.event-listeners.csv");
            both(store, "largest-retainers", params("snapshot", "after", "top", "5"),
                "largest-retainers.event-listeners.csv");
            QueryResult snapshot = both(store, "snapshot", params("snapshot", "after"), null);
            // README: after.json has 871 objects, stats.size 102,286
            assertEquals(List.of(871L, 102286L), List.of(snapshot.rows().get(0).get(4), snapshot.rows().get(0).get(6)));
            summaries(store, "before", "after");
            everyObject(store, "after");
            refusals(store);
        }
    }

    @Test
    void weakCaches() throws Exception {
        Path dir = Golden.sharedCase("weak-caches");
        try (GraphStore store = loadPair(tmp.resolve("db"), Golden.dump(dir, "before.json"), Golden.dump(dir, "after.json"))) {
            QueryResult groups = both(store, "leak-groups", params("baseline", "before", "target", "after"),
                "leak-groups.weak-caches.csv");
            String example = (String) groups.rows().get(0).get(10);
            QueryResult why = both(store, "why-alive", params("snapshot", "after", "address", example),
                "why-alive.weak-caches.csv");
            // README: a byUrl entry, held by the cache's byUrl table under its url
            assertTrue(Golden.column(why, "via").contains("byUrl"), why.rows().toString());
            both(store, "referrers", params("snapshot", "after", "address", example), "referrers.weak-caches.csv");
            summaries(store, "after", "before");
            everyObject(store, "after");
        }
    }

    @Test
    void luaEphemerons() throws Exception {
        Path dir = Golden.testdata().resolve("lua").resolve("weak-tables-nogc").resolve("lua54");
        try (GraphStore store = loadPair(tmp.resolve("db"), dir.resolve("before.json"), dir.resolve("after.json"))) {
            QueryResult groups = both(store, "leak-groups", params("baseline", "before", "target", "after"),
                "leak-groups.lua54-weak-tables.csv");
            // README: Lua 5.4 retains 6 new tables and 10 new strings
            assertEquals(16L, Golden.column(groups, "objects").stream().mapToLong(o -> (Long) o).sum());
            HeapSnapshot after = store.model("after");
            // an object of Registry.seen (fully weak) that Registry.strong keeps: one strong and weak referrers
            String kept = weaklyAndStronglyHeld(after);
            QueryResult referrers = both(store, "referrers", params("snapshot", "after", "address", kept),
                "referrers.lua54-weak-tables.csv");
            assertTrue(Golden.column(referrers, "weak").contains(true), referrers.rows().toString());
            assertTrue(Golden.column(referrers, "weak").contains(false), referrers.rows().toString());
            both(store, "why-alive", params("snapshot", "after", "address", kept), "why-alive.lua54-weak-tables.csv");
            summaries(store, "after", "before");
            everyObject(store, "after");
        }
    }

    @Test
    void luaWeakKeyValues() throws Exception {
        Path dir = Golden.testdata().resolve("lua").resolve("weak-tables-nogc").resolve("lua51");
        try (GraphStore store = loadPair(tmp.resolve("db"), dir.resolve("before.json"), dir.resolve("after.json"))) {
            QueryResult groups = both(store, "leak-groups", params("baseline", "before", "target", "after"), null);
            // README: Lua 5.1 retains 16 new tables and 12 new strings (no ephemerons)
            assertEquals(28L, Golden.column(groups, "objects").stream().mapToLong(o -> (Long) o).sum());
            summaries(store, "after", "before");
            everyObject(store, "after");
        }
    }

    @Test
    void luaStackFrames() throws Exception {
        Path file = Golden.testdata().resolve("lua").resolve("stack-frames").resolve("after.json");
        try (GraphStore store = GraphStore.open(tmp.resolve("db"))) {
            load(store, file, "after");
            // StackFrameCommandTest: the session table, a local of handle()
            QueryResult why = both(store, "why-alive", params("snapshot", "after", "address", "0x55ae0b307c40"),
                "why-alive.lua-stack-frames.csv");
            assertTrue(Golden.column(why, "via").contains("session in frame handle (program.lua:11)"), why.rows().toString());
            for (String name : List.of("snapshot", "summary", "type-histogram", "largest-retainers")) {
                both(store, name, params("snapshot", "after"), null);
            }
            everyObject(store, "after");
        }
    }

    @Test
    void microPythonWeakReferences() throws Exception {
        String shared = System.getProperty("heapload.shared");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "micropython", "unix-x64-splitheap-weakref");
        org.junit.jupiter.api.Assumptions.assumeTrue(dir != null && Files.isDirectory(dir),
            "shared test data not found (heapload.shared = " + shared + "): MicroPython model route skipped");
        try (GraphStore store = loadPair(tmp.resolve("db"), dir.resolve("dump1").resolve("regions.json"),
            dir.resolve("dump2").resolve("regions.json"))) {
            QueryResult groups = both(store, "leak-groups", params("baseline", "before", "target", "after"),
                "leak-groups.micropython-weakref.csv");
            String example = (String) groups.rows().get(0).get(10);
            both(store, "why-alive", params("snapshot", "after", "address", example), "why-alive.micropython-weakref.csv");
            HeapSnapshot after = store.model("after");
            String weak = weaklyAndStronglyHeld(after);
            QueryResult referrers = both(store, "referrers", params("snapshot", "after", "address", weak),
                "referrers.micropython-weakref.csv");
            assertTrue(Golden.column(referrers, "weak").contains(true), referrers.rows().toString());
            summaries(store, "after", "before");
            everyObject(store, "after");
        }
    }

    /**
     * The saved queries answered from the summaries and the comparison, on both snapshots of a pair and both
     * directions (largest-retainers also with top 0, 1 and 1,000): the same rows on both routes.
     */
    private static void summaries(GraphStore store, String a, String b) throws Exception {
        for (String id : List.of(a, b)) {
            for (String name : List.of("snapshot", "summary", "type-histogram", "largest-retainers")) {
                both(store, name, params("snapshot", id), null);
            }
            for (String top : List.of("0", "1", "1000")) {
                both(store, "largest-retainers", params("snapshot", id, "top", top), null);
            }
        }
        both(store, "new-objects", params("baseline", a, "target", b), null);
        both(store, "new-objects", params("baseline", b, "target", a), null);
        both(store, "new-objects", params("baseline", "", "target", a), null);
        both(store, "leak-groups", params("baseline", b, "target", a), null);
    }

    /** Both routes' refusals: the same one line. */
    private void refusals(GraphStore store) throws Exception {
        for (Map<String, String> p : List.of(params("snapshot", "nope", "address", "0x1"),
            params("snapshot", "after", "address", "0x1"), params("snapshot", "", "address", "0x1"))) {
            String cypher = assertThrows(QueryFailedException.class, () -> Golden.run(store, "why-alive", p)).getMessage();
            String model = assertThrows(QueryFailedException.class, () -> model(store, "why-alive", p)).getMessage();
            assertEquals(cypher, model, p.toString());
        }
        assertEquals("no object at address '0x1' in snapshot 'after' (give it as largest-retainers or the leak answer "
            + "prints it; any case, with or without 0x)", assertThrows(QueryFailedException.class,
            () -> model(store, "referrers", params("snapshot", "after", "address", "0x1"))).getMessage());
        assertEquals("no snapshot 'nope' in the store (heapload snapshots lists them)", assertThrows(
            QueryFailedException.class, () -> model(store, "leak-groups", params("baseline", "nope", "target", "after")))
            .getMessage());
    }

    /**
     * Runs saved query {@code name} on both routes, asserts they return the same columns and rows, and (with a
     * {@code golden} file name) that the CSV equals testdata/golden/{@code golden}.
     */
    private static QueryResult both(GraphStore store, String name, Map<String, String> params, String golden)
        throws Exception {
        QueryResult cypher = Golden.run(store, name, params);
        QueryResult model = model(store, name, params);
        assertEquals(cypher.columns(), model.columns(), name + " " + params);
        assertEquals(cypher.rows(), model.rows(), name + " " + params);
        if (golden != null) {
            assertGolden(cypher, golden);
        }
        return model;
    }

    /** Saved query {@code name} answered from the store's model files. */
    private static QueryResult model(GraphStore store, String name, Map<String, String> params) throws Exception {
        SavedQuery q = QueryLibrary.fromDirectory(Golden.cypherDir()).get(name);
        Optional<QueryResult> r = ModelQueries.run(q, StoredSnapshots.open(store.directory()), QueryRunner.bind(q, params), 0);
        assertTrue(r.isPresent(), name + " " + params + ": the model route did not answer");
        return r.get();
    }

    /**
     * {@code why-alive} and {@code referrers} of about 150 objects of snapshot {@code id} (every k-th; its roots and up
     * to 20 unreachable objects always): the same rows on both routes. (Every object of both event-listeners
     * snapshots once gave the same rows too; at some 10 s per 100 objects on a busy machine that is not repeated here.)
     */
    private static void everyObject(GraphStore store, String id) throws Exception {
        HeapSnapshot s = store.model(id);
        HeapAnalysis a = s.analysis();
        int n = s.objectCount();
        int stride = Math.max(1, n / 150);
        Set<Integer> objects = new LinkedHashSet<>();
        for (int o = 0; o < n; o += stride) {
            objects.add(o);
        }
        for (HeapSnapshot.GcRoot r : s.roots()) {
            objects.add(r.object());
        }
        for (int o = 0, unreachable = 0; o < n && unreachable < 20; o++) {
            if (!a.reachable()[o] && objects.add(o)) {
                unreachable++;
            }
        }
        List<String> differ = new ArrayList<>();
        for (int o : objects) {
            for (String name : List.of("why-alive", "referrers")) {
                Map<String, String> p = params("snapshot", id, "address", s.address(o));
                if (!Golden.run(store, name, p).rows().equals(model(store, name, p).rows())) {
                    differ.add(name + " " + s.address(o));
                }
            }
        }
        assertEquals(List.of(), differ, "objects of '" + id + "' whose rows differ between the routes");
        assertFalse(objects.isEmpty());
    }

    /** The address of the first object (in address order) with both a strong and a weak referrer. */
    private static String weaklyAndStronglyHeld(HeapSnapshot s) {
        boolean[] weak = new boolean[s.objectCount()];
        boolean[] strong = new boolean[s.objectCount()];
        for (int r = 0; r < s.referenceCount(); r++) {
            if (s.isWeak(r)) {
                weak[s.referenceTarget(r)] = true;
            } else {
                strong[s.referenceTarget(r)] = true;
            }
        }
        String best = null;
        for (int o = 0; o < s.objectCount(); o++) {
            if (weak[o] && strong[o] && (best == null || s.address(o).compareTo(best) < 0)) {
                best = s.address(o);
            }
        }
        assertTrue(best != null, "no object with a strong and a weak referrer in " + s.info().id());
        return best;
    }

    /**
     * {@link Golden#assertGolden}; a golden file not there yet is written to target/golden-new/ for review (and the
     * test fails).
     */
    private static void assertGolden(QueryResult result, String file) throws IOException {
        Path golden = Golden.testdata().resolve("golden").resolve(file);
        if (!Files.exists(golden)) {
            Path out = Path.of("target", "golden-new", file);
            Files.createDirectories(out.getParent());
            Files.writeString(out, ResultWriter.csv(result), StandardCharsets.UTF_8);
            fail("no golden file testdata/golden/" + file + " (the rows are in " + out.toAbsolutePath() + ")");
        }
        Golden.assertGolden(result, file);
    }

    private static GraphStore loadPair(Path db, Path before, Path after) throws Exception {
        GraphStore store = GraphStore.open(db);
        load(store, before, "before");
        load(store, after, "after");
        return store;
    }

    private static void load(GraphStore store, Path file, String id) throws Exception {
        HeapSnapshot s = DumpReaders.read(file, id, Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        store.load(s, false, Progress.NONE);
    }
}
