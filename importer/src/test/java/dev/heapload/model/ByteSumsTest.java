package dev.heapload.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.SnapshotStatistics;

/** Byte totals saturate at 2^63-1 with a warning instead of wrapping to negative numbers. */
class ByteSumsTest {

    @Test
    void addSaturates() {
        assertEquals(Long.MAX_VALUE, ByteSums.add(1L << 62, 1L << 62));
        assertEquals(Long.MAX_VALUE, ByteSums.add(Long.MAX_VALUE, 1));
        assertEquals(Long.MIN_VALUE, ByteSums.add(Long.MIN_VALUE, -1));
        assertEquals(3L << 61, ByteSums.add(1L << 62, 1L << 61));
        assertEquals(-5, ByteSums.add(-2, -3));
    }

    @Test
    void threeObjectsOfTwoToTheSixtyTwoBytesGiveCappedTotalsAndAWarning() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        // references belong to the object defined last
        b.defineObject("0x10", "table", 1L << 62, 0, null);
        b.addReference(b.objectId("0x20"), value, HeapSnapshot.NO_NAME, 0);
        b.addReference(b.objectId("0x30"), value, HeapSnapshot.NO_NAME, 0);
        b.defineObject("0x20", "string", 1L << 62, 0, null);
        b.defineObject("0x30", "string", 1L << 62, 0, null);
        b.addRoot("registry", b.objectId("0x10"));
        HeapSnapshot s = b.build(new SnapshotInfo("big", "luau", null, null, -1, Map.of(), List.of()));
        assertEquals(List.of(ByteSums.SATURATED_WARNING), s.info().warnings());
        assertEquals(Long.MAX_VALUE, s.totalShallowBytes());
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals(Long.MAX_VALUE, a.retainedSize()[0], "the root retains all three");
        assertEquals(1L << 62, a.retainedSize()[1]);
        SnapshotStatistics st = SnapshotStatistics.compute(s, a);
        long strings = st.buckets().stream().filter(x -> x.type().equals("string")).mapToLong(SnapshotStatistics.Bucket::bytes)
            .sum();
        assertEquals(Long.MAX_VALUE, strings, "two strings of 2^62 bytes: capped, not negative");
    }

    @Test
    void ordinarySizesGetNoWarning() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        b.defineObject("0x10", "table", 56, 0, null);
        b.addRoot("registry", b.objectId("0x10"));
        HeapSnapshot s = b.build(new SnapshotInfo("small", "luau", null, null, -1, Map.of(), List.of()));
        assertEquals(List.of(), s.info().warnings());
        assertEquals(56, s.totalShallowBytes());
    }
}
