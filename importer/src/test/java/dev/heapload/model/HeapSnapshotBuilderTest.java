package dev.heapload.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class HeapSnapshotBuilderTest {

    /** A chain of {@code n} tables, each referring to the next and to a shared string, built after {@code hint}. */
    private static HeapSnapshot chain(int n, int[] hint) {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        if (hint != null) {
            b.expect(hint[0], hint[1]);
        }
        int value = b.kind("value");
        int shared = b.objectId("0x10");
        for (int i = 0; i < n; i++) {
            b.defineObject("0x" + Long.toHexString(0x1000 + 16L * i), "table", 56, -1, null);
            if (i + 1 < n) {
                b.addReference(b.objectId("0x" + Long.toHexString(0x1000 + 16L * (i + 1))), value, HeapSnapshot.NO_NAME, 0);
            }
            b.addReference(shared, value, HeapSnapshot.NO_NAME, 0);
        }
        b.defineObject("0x10", "string", 24, -1, "shared");
        b.addRoot("registry", b.objectId("0x1000"));
        return b.build(new SnapshotInfo("chain", "luau", null, null, -1, Map.of(), List.of()));
    }

    @Test
    void sizeHintsDoNotChangeTheModel() {
        HeapSnapshot plain = chain(10_000, null);
        assertEquals(10_001, plain.objectCount());
        assertEquals(19_999, plain.referenceCount());
        HeapSnapshotFileTest.assertSameColumns(plain, chain(10_000, new int[] {50_000, 200_000}));
        HeapSnapshotFileTest.assertSameColumns(plain, chain(10_000, new int[] {100, 300}));
        HeapSnapshotFileTest.assertSameColumns(plain, chain(10_000, new int[] {10_001, 19_999}));
    }

    @Test
    void negativeHintIsRefused() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        assertThrows(IllegalArgumentException.class, () -> b.expect(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> b.expect(0, -1));
    }
}
