package dev.heapload.queries;

import static dev.heapload.queries.Golden.assertGolden;
import static dev.heapload.queries.Golden.column;
import static dev.heapload.queries.Golden.params;
import static dev.heapload.queries.Golden.row;
import static dev.heapload.queries.Golden.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * {@code new-objects}, {@code leak-groups}, {@code weak-only} and {@code unreachable} on the shared weak-caches
 * pair (skipped without {@code heapload.shared}).
 *
 * <p>Expected values from the case README: 66 new objects (30 tables, 18 strings, 12 userdata, 6 buffers), 54 of
 * them reachable; the 12 others are floating garbage (6 "#preview" strings, 6 stats tables); the leak is (a) 6
 * byUrl entries, each entry + mips + pixels buffer + texture userdata (4 under the entry), the url string and the
 * texture's stats value table, and (b) 6 owners records of 3 objects (record, texture userdata, "catalogTileN").
 * The preview textures are collected, so nothing is held by weak references alone. The 6 byUrl entries form one
 * leak group: they sit under 6 distinct url keys of one table ({@code SnapshotComparison.MAP_KEYS}).
 */
class WeakCachesGoldenTest {

    @TempDir
    static Path tmp;

    static GraphStore store;

    @BeforeAll
    static void load() throws Exception {
        store = Golden.loadPair(tmp.resolve("db"), Golden.sharedCase("weak-caches"));
    }

    @AfterAll
    static void close() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void newObjects() throws Exception {
        QueryResult r = run(store, "new-objects", params("baseline", "before", "target", "after"));
        assertGolden(r, "new-objects.weak-caches.csv");
        Map<String, Object> all = row(r, "type", "all");
        assertEquals(30L + 18 + 12 + 6, all.get("objects"));
        assertEquals(54L, all.get("reachableObjects"));
        assertEquals(List.of(30L, 12L, 6L, 18L), column(r, "objects").subList(1, 5));
        assertEquals(30L - 6, row(r, "type", "table").get("reachableObjects"));
        assertEquals(18L - 6, row(r, "type", "string").get("reachableObjects"));
    }

    @Test
    void leakGroups() throws Exception {
        QueryResult r = run(store, "leak-groups", params("baseline", "before", "target", "after"));
        assertGolden(r, "leak-groups.weak-caches.csv");
        // (a) byUrl: the 6 entries are one group (6 distinct url keys under one table: a map, so the hop is
        // shown as [value]), 4 objects under each entry
        assertEquals(List.of(6L * 4, 6L), List.of(r.rows().get(0).get(0), r.rows().get(0).get(3)));
        assertTrue(r.rows().get(0).get(5).toString().contains("byUrl in table, [value] in table"), r.rows().get(0).toString());
        // (b) owners: 6 records x 3 objects, one group of 6 heads
        assertEquals(List.of(6L * 3, 6L), List.of(r.rows().get(1).get(0), r.rows().get(1).get(3)));
        // the stats value tables and the url strings (held as keys of textures)
        List<Object> objects = column(r, "objects");
        assertEquals(List.of(6L, 6L), objects.subList(2, 4));
        assertEquals(54L, objects.stream().mapToLong(o -> (Long) o).sum());
    }

    @Test
    void weakOnlyAndUnreachable() throws Exception {
        assertGolden(run(store, "weak-only", params("snapshot", "after")), "weak-only.weak-caches.csv");
        assertEquals(List.of(), run(store, "weak-only", params("snapshot", "after")).rows());
        QueryResult u = run(store, "unreachable", params("snapshot", "after"));
        assertGolden(u, "unreachable.weak-caches.csv");
        assertEquals(List.of(0L, 0L, 0L), column(u, "weaklyReferenced"));
    }
}
