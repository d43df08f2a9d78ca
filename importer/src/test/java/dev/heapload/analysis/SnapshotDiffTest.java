package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.SnapshotInfo;

/** The identity rule of {@link SnapshotDiff} on hand-built snapshots. */
class SnapshotDiffTest {

    /** Each entry "address:type:size:category". */
    private static HeapSnapshot heap(String... objects) {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        for (String spec : objects) {
            String[] p = spec.split(":");
            b.defineObject(p[0], p[1], Long.parseLong(p[2]), Integer.parseInt(p[3]), null);
        }
        b.addRoot("root", 0);
        return b.build(new SnapshotInfo("t", "test", "t", "", -1, Map.of(), List.of()));
    }

    @Test
    void sameAddressTypeAndCategoryIsTheSameObjectEvenWhenATableGrew() {
        HeapSnapshot before = heap("0x10:table:48:0", "0x20:string:30:0", "0x30:table:176:5");
        HeapSnapshot after = heap("0x10:table:1072:0", "0x20:string:30:0", "0x30:table:176:5", "0x40:table:48:0");
        SnapshotDiff d = SnapshotDiff.compare(before, after);
        assertArrayEquals(new boolean[] {false, false, false, true}, d.isNew());
        assertEquals(1, d.newCount());
        assertEquals(0, d.reusedAddresses());
    }

    @Test
    void reusedAddressWithAnotherTypeCategoryOrStringLengthIsNew() {
        HeapSnapshot before = heap("0x10:table:176:5", "0x20:table:176:0", "0x30:string:30:0", "0x40:table:176:5");
        // 0x10: same type and size, other category (memory-categories-medium: chat entry -> profiler sample)
        // 0x20: other type; 0x30: string of another length; 0x40: unchanged
        HeapSnapshot after = heap("0x10:table:176:200", "0x20:userdata:176:0", "0x30:string:31:0", "0x40:table:176:5");
        SnapshotDiff d = SnapshotDiff.compare(before, after);
        assertArrayEquals(new boolean[] {true, true, true, false}, d.isNew());
        assertEquals(3, d.newCount());
        assertEquals(3, d.reusedAddresses());
    }
}
