package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;

/**
 * A cross-process pair is compared by retention path, and a hop's name is compared with its
 * key type, so the string key {@code "[1]"} and the number key {@code 1} (both named {@code [1]}) are different paths.
 * Baseline (one process): registry → byName table → under the string key {@code "[1]"} a table. Target (another
 * process, every address different): the same, plus a table under the number key {@code 1} of the same byName table.
 * Only that table is new; without key types (snapshots with none) it would match the baseline's string-keyed one, and
 * the string-keyed one would be new instead of none.
 */
class RetentionPathMatchKeyTypeTest {

    /** registry (0) → byName (1) → [string "[1]"] table (2), and with {@code numberKey} → [number 1] table (3). */
    private static HeapSnapshot snapshot(String id, long base, boolean numberKey, boolean keyTypes) {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        int registry = b.objectId(hex(base));
        int byName = b.objectId(hex(base + 0x100));
        int stringKeyed = b.objectId(hex(base + 0x200));
        int numberKeyed = b.objectId(hex(base + 0x300));
        b.defineObject(hex(base), "table", 64, -1, null);
        b.addReference(byName, value, b.name("byName"), keyTypes ? HeapSnapshot.keyTypeFlag(HeapSnapshot.KEY_STRING) : 0);
        b.defineObject(hex(base + 0x100), "table", 64, -1, null);
        b.addReference(stringKeyed, value, b.name("[1]"), keyTypes ? HeapSnapshot.keyTypeFlag(HeapSnapshot.KEY_STRING) : 0);
        if (numberKey) {
            b.addReference(numberKeyed, value, b.name("[1]"), keyTypes ? HeapSnapshot.keyTypeFlag(HeapSnapshot.KEY_NUMBER) : 0);
        }
        b.defineObject(hex(base + 0x200), "table", 64, -1, null);
        if (numberKey) {
            b.defineObject(hex(base + 0x300), "table", 64, -1, null);
        }
        b.addRoot("registry", registry);
        HeapSnapshot s = b.build(new SnapshotInfo(id, "lua5.4", null, null, -1, Map.of(), List.of()));
        HeapAnalyzer.analyze(s, Progress.NONE);
        return s;
    }

    private static String hex(long a) {
        return "0x" + Long.toHexString(a);
    }

    private static boolean[] newObjects(boolean keyTypes) {
        HeapSnapshot baseline = snapshot("before", 0x1000, false, keyTypes);
        HeapSnapshot target = snapshot("after", 0x7f0000001000L, true, keyTypes);
        return RetentionPathMatch.newObjects(baseline, baseline.analysis(), target, target.analysis());
    }

    @Test
    void theNumberKeyDoesNotMatchTheStringKey() {
        // target objects in definition order: registry, byName, the "[1]"-keyed table, the 1-keyed table
        assertArrayEquals(new boolean[] {false, false, false, true}, newObjects(true));
    }

    @Test
    void withoutKeyTypesTheNamesAloneAreCompared() {
        // both tables are named [1] and nothing tells them apart: one of them is new (the first in object order)
        assertArrayEquals(new boolean[] {false, false, true, false}, newObjects(false));
    }
}
