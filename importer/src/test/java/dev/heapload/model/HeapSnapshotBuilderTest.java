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

    /**
     * References to nothing with declared heap areas and a declared sentinel: per reason, kept one by
     * one with their kind, name and direction (a referrer with no record is the source), and through the snapshot file.
     */
    @Test
    void referencesToNothingByReason(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder().keepDangling(true);
        b.heapArea(0x1000, 0x2000);
        b.sentinel(0xffff0);
        int value = b.kind("value");
        int a = b.defineObject("0x1000", "table", 56, -1, null);
        b.addReference(b.objectId("0x1800"), value, b.name("freed"), 0);        // in the area, no object
        b.addReference(b.objectId("0x5000"), value, b.name("far"), HeapSnapshot.WEAK); // outside the area
        b.addReference(b.objectId("0xffff0"), value, HeapSnapshot.NO_NAME, 0);   // the declared sentinel
        b.addReference(b.objectId("0x1800"), value, b.name("again"), 0);         // the same missing address
        b.addReference(b.objectId("0x1040"), a, value, b.name("parent"), 0);     // from a referrer with no record
        b.defineObject("0x1040", "table", 56, -1, null);
        b.addRoot("registry", a);
        HeapSnapshot s = b.build(new SnapshotInfo("d", "lua", null, null, -1, Map.of(), List.of()));
        // 0x1040 became an object after all: its reference is an ordinary one
        assertEquals(1, s.referenceCount());
        DanglingReferences d = s.danglingReferences();
        assertEquals(List.of(1L, 1L, 2L), List.of(d.count(DanglingReferences.Reason.SENTINEL),
            d.count(DanglingReferences.Reason.OUTSIDE_HEAP), d.count(DanglingReferences.Reason.NO_OBJECT)));
        assertEquals(5, d.producerReferences());
        assertEquals(3, d.missingCount());
        List<String> kept = new java.util.ArrayList<>();
        for (int r = 0; r < d.keptCount(); r++) {
            kept.add(s.address(d.object(r)) + (d.incoming(r) ? " <- " : " -> ") + d.missingAddress(d.missing(r)) + " "
                + d.missingReason(d.missing(r)).text() + " " + d.kind(r) + " " + d.name(r) + " " + d.flags(r));
        }
        assertEquals(List.of("0x1000 -> 0x1800 inside the heap but no object value freed 0",
            "0x1000 -> 0x5000 outside every heap area value far 1", "0x1000 -> 0xffff0 sentinel value null 0",
            "0x1000 -> 0x1800 inside the heap but no object value again 0"), kept);
        java.nio.file.Path file = dir.resolve("d.hsnap");
        HeapSnapshotFile.write(s, file);
        DanglingReferences back = HeapSnapshotFile.read(file).danglingReferences();
        assertEquals(d.summaryLine(), back.summaryLine());
        assertEquals(d.keptCount(), back.keptCount());
        assertEquals("0x5000", back.missingAddress(back.missing(1)));
    }

    /** A referrer that never gets a record: the reference comes from nothing. */
    @Test
    void aReferrerWithNoRecordIsIncoming() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder().keepDangling(true);
        int value = b.kind("value");
        int a = b.defineObject("0x1000", "table", 56, -1, null);
        b.addReference(b.objectId("0x1040"), a, value, b.name("parent"), 0);
        b.addRoot("registry", a);
        HeapSnapshot s = b.build(new SnapshotInfo("d", "lua", null, null, -1, Map.of(), List.of()));
        DanglingReferences d = s.danglingReferences();
        assertEquals(0, s.referenceCount());
        assertEquals(1, d.count(DanglingReferences.Reason.OUTSIDE_HEAP), "beyond the end of the only object");
        assertEquals(true, d.incoming(0));
        assertEquals("references to nothing: 1 of 1 (100.0 %): 0 sentinel, 1 outside every heap area, 0 inside the heap "
            + "but no object; kept as Missing nodes", d.summaryLine());
    }
}
