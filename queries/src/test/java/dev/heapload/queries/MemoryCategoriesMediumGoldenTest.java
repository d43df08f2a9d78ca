package dev.heapload.queries;

import static dev.heapload.queries.Golden.assertGolden;
import static dev.heapload.queries.Golden.params;
import static dev.heapload.queries.Golden.row;
import static dev.heapload.queries.Golden.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * {@code new-objects} and {@code categories} on the shared memory-categories-medium pair (skipped without
 * {@code heapload.shared}).
 *
 * <p>Expected values from the case README: new per category: 200 Plugin.Profiler 15000 samples + 15000 timings
 * tables + 15000 labels; 2 CoreScripts.PlayerList 1500 rows + 1500 stats + 1500 names; 129 Game.ChatLogger
 * 60 entries + 60 strings; 5 CoreScripts.Chat 20 entries + 20 strings (churn). Address-reuse trap: 20 tables
 * of category 200 sit at addresses of freed chat entries, and must count as new. VM bytes of category 5:
 * 7,679 in both files. Shallow bytes recomputed with a Python script over the JSON files.
 */
class MemoryCategoriesMediumGoldenTest {

    @TempDir
    static Path tmp;

    static GraphStore store;

    @BeforeAll
    static void load() throws Exception {
        store = Golden.loadPair(tmp.resolve("db"), Golden.sharedCase("memory-categories-medium"));
    }

    @AfterAll
    static void close() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void theTwentyLeakedTablesAtReusedAddressesCountAsNew() throws Exception {
        QueryResult r = run(store, "new-objects", params("baseline", "before", "target", "after"));
        assertGolden(r, "new-objects.memory-categories-medium.csv");
        List<Object> profilerTables = r.rows().get(1);
        assertEquals(List.of("table", 200L), profilerTables.subList(0, 2));
        assertEquals(15000L * 2, profilerTables.get(2));
        assertEquals(20L, profilerTables.get(6));
        assertEquals(20L, row(r, "type", "all").get("reusedAddresses"));
        assertEquals(15000L * 3 + 1500L * 3 + 60L * 2 + 20L * 2, row(r, "type", "all").get("objects"));
    }

    @Test
    void categoriesShowNoGrowthInTheBoundedChat() throws Exception {
        QueryResult r = run(store, "categories", params("snapshot", "after", "baseline", "before"));
        assertGolden(r, "categories.memory-categories-medium.csv");
        assertEquals(0L, row(r, "category", 5L).get("deltaVmBytes"));
        assertEquals(0L, row(r, "category", 5L).get("deltaBytes"));
        assertEquals(0L, row(r, "category", 5L).get("deltaObjects"));
        assertEquals(40L, row(r, "category", 5L).get("newObjects"));   // churn: 20 entries + 20 texts replaced
        assertEquals(40L, row(r, "category", 5L).get("freedObjects"));
        assertEquals(8275131L - 2066914L, row(r, "category", 200L).get("deltaVmBytes"));
        assertEquals(703602L - 187866L, row(r, "category", 2L).get("deltaVmBytes"));
        assertEquals(16539L - 5343L, row(r, "category", 129L).get("deltaVmBytes"));
        assertEquals(45000L, row(r, "category", 200L).get("newObjects"));
    }
}
