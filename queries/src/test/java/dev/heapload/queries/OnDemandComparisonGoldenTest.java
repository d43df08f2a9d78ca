package dev.heapload.queries;

import static dev.heapload.queries.Golden.assertGolden;
import static dev.heapload.queries.Golden.params;
import static dev.heapload.queries.Golden.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;
import dev.heapload.io.DumpReaders;
import dev.heapload.store.embedded.GraphStore;

/**
 * A pair a load did not compare is compared on its first request and gives the same golden rows as a pair
 * compared at load (EventListenersGoldenTest). The event-listeners pair is loaded in reverse order ('after' first),
 * so the load of 'before' compares only after → before; before → after is compared when the first pair query asks
 * for it, with one notice, and reused by every later query.
 */
class OnDemandComparisonGoldenTest {

    @TempDir
    static Path tmp;

    static GraphStore store;
    static final List<String> notices = new ArrayList<>();

    @BeforeAll
    static void load() throws Exception {
        GraphStore.setNotices(notices::add);
        store = GraphStore.open(tmp.resolve("db"));
        Path dir = Golden.testdata().resolve("luau").resolve("event-listeners");
        for (String id : List.of("after", "before")) {
            HeapSnapshot s = DumpReaders.read(Golden.dump(dir, id + ".json"), id, Progress.NONE);
            HeapAnalyzer.analyze(s, Progress.NONE);
            store.load(s, false, Progress.NONE);
        }
    }

    @AfterAll
    static void close() throws Exception {
        GraphStore.setNotices(line -> {
        });
        if (store != null) {
            store.close();
        }
    }

    @Test
    void pairQueriesComparedOnDemandGiveTheGoldenRows() throws Exception {
        assertEquals(List.of(), notices, "loading compares with the previous snapshot only, silently");
        assertGolden(run(store, "new-objects", params("baseline", "before", "target", "after")),
            "new-objects.event-listeners.csv");
        assertEquals(List.of("comparing 'after' with 'before' (first request for this pair; kept for later)"), notices);
        assertGolden(run(store, "leak-groups", params("baseline", "before", "target", "after")),
            "leak-groups.event-listeners.csv");
        assertGolden(run(store, "growth", params("baseline", "before", "target", "after")),
            "growth.event-listeners.csv");
        assertGolden(run(store, "type-histogram-diff", params("baseline", "before", "target", "after")),
            "type-histogram-diff.event-listeners.csv");
        assertGolden(run(store, "categories", params("snapshot", "after", "baseline", "before")),
            "categories.event-listeners.csv");
        assertEquals(1, notices.size(), "compared once, then reused: " + notices);
        assertTrue(!store.compare("before", "after"), "already compared");
    }
}
