package dev.heapload.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.PathHop;
import dev.heapload.store.SnapshotHistory;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.StoredComparison;
import dev.heapload.store.StoredComparison.StoredLeakGroup;

/**
 * The leak history: a leak group's objects and bytes night by night from the stored comparisons, when it appeared,
 * and "growing" when it gained objects in each of the last N nights; its fingerprint is the report's (same leak,
 * other addresses and counters: same fingerprint).
 */
class LeakHistoryTest {

    private static final List<String> LISTENERS = List.of("root registry (table)", "_MODULES in table",
        "EventBus in table", "handlers_17 in table", "[value] in table");
    private static final List<String> CACHE = List.of("root registry (table)", "cache in table");

    private static SnapshotHistory night(String id, boolean pruned, StoredComparison... comparisons) {
        return new SnapshotHistory(new SnapshotSummary(id, "luau", null, null, Instant.parse("2026-12-01T00:00:00Z"),
            100, 100, 1000, 1000, true, null, null), pruned, List.of(comparisons));
    }

    private static StoredComparison vs(String baseline, StoredLeakGroup... groups) {
        return new StoredComparison(baseline, 0, 0, groups.length, List.of(groups));
    }

    private static StoredLeakGroup listeners(long objects, String counter) {
        List<String> path = new ArrayList<>(LISTENERS);
        path.set(3, "handlers_" + counter + " in table"); // a counter in a name: normalised away
        return new StoredLeakGroup(objects, objects * 40, objects * 60, objects / 2, "table", path);
    }

    private static StoredLeakGroup cache(long objects) {
        return new StoredLeakGroup(objects, objects * 24, objects * 24, objects, "string", CACHE);
    }

    @Test
    void aGroupGainingObjectsEachNightIsGrowingAndItsFingerprintIsTheReports() {
        List<SnapshotHistory> h = List.of(
            night("n1", true),
            night("n2", true, vs("n1", cache(5))),
            night("n3", false, vs("n2", listeners(10, "3"), cache(2))),
            night("n4", false, vs("n3", listeners(12, "4")), vs("n1", listeners(22, "4"), cache(7))),
            night("n5", false, vs("n4", listeners(14, "5"), cache(1))));
        LeakHistory all = LeakHistory.of(h, null, 3);
        assertEquals(List.of("n1", "n2", "n3", "n4", "n5"), all.snapshots());

        String fp = LeakHistory.fingerprint(listeners(1, "99"));
        List<PathHop> hops = List.of(new PathHop("registry", PathHop.ROOT_KIND, "", "table"),
            new PathHop("_MODULES", "value", "string", "table"), new PathHop("EventBus", "value", "string", "table"),
            new PathHop("handlers_1", "value", "string", "table"), new PathHop(null, "value", "", "table"));
        assertEquals(LeakFingerprint.ofHops("table", hops), fp, "the report's fingerprint of the same group");

        LeakHistory.Series s = all.group(fp);
        assertEquals("n3", s.appeared());
        assertTrue(s.growing());
        assertEquals(List.of(
                new LeakHistory.Night("n1", true, null, null, null, null, null),
                new LeakHistory.Night("n2", true, "n1", 0L, 0L, 0L, 0L),
                new LeakHistory.Night("n3", false, "n2", 10L, 400L, 600L, 5L),
                new LeakHistory.Night("n4", false, "n3", 12L, 480L, 720L, 6L),
                new LeakHistory.Night("n5", false, "n4", 14L, 560L, 840L, 7L)),
            s.nights(), "the comparison with the snapshot before, not the one with the baseline n1");

        LeakHistory.Series c = all.group(LeakHistory.fingerprint(cache(1)));
        assertEquals("n2", c.appeared());
        assertFalse(c.growing(), "no objects gained in n4");
        assertEquals(java.util.Arrays.asList(null, 5L, 2L, 0L, 1L), c.nights().stream().map(LeakHistory.Night::objects).toList());
        assertEquals(List.of(s), all.growing());

        // up to n4 the listeners grew in 2 nights only; with N = 2 they are growing
        assertFalse(LeakHistory.of(h, "n4", 3).group(fp).growing());
        assertTrue(LeakHistory.of(h, "n4", 2).group(fp).growing());
        assertNull(LeakHistory.of(h, "n2", 3).group(fp), "not seen before n3");
    }
}
