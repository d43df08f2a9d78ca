package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;

/**
 * Leak groups, new-object totals and growth of {@link SnapshotComparison} on a hand-built pair.
 *
 * <pre>
 * before: 0x10 table 64 (root "r")  -- "cache" --> 0x20 table 48
 * after:  0x10 table 64 (root "r")  -- "cache" --> 0x20 table 112 -- "a","b","c" --> 0x30,0x40,0x50 table 32
 *                                                                     each -- "s" --> 0x31,0x41,0x51 string 20
 *                                   -- "log" --> 0x60 table 40
 *                                   -- "tmp" --> 0x70 table 16
 * </pre>
 */
class SnapshotComparisonTest {

    private static HeapSnapshot before() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        int module = b.objectId("0x10");
        int cache = b.objectId("0x20");
        b.defineObject("0x10", "table", 64, -1, null);
        b.addReference(cache, value, b.name("cache"), 0);
        b.defineObject("0x20", "table", 48, -1, null);
        b.addRoot("r", module);
        return analysed(b);
    }

    private static HeapSnapshot after() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        int module = b.objectId("0x10");
        int cache = b.objectId("0x20");
        b.defineObject("0x10", "table", 64, -1, null);
        b.addReference(cache, value, b.name("cache"), 0);
        b.addReference(b.objectId("0x60"), value, b.name("log"), 0);
        b.addReference(b.objectId("0x70"), value, b.name("tmp"), 0);
        b.defineObject("0x20", "table", 112, -1, null);
        for (String key : List.of("a", "b", "c")) {
            b.addReference(b.objectId(entry(key)), value, b.name(key), 0);
        }
        for (String key : List.of("a", "b", "c")) {
            b.defineObject(entry(key), "table", 32, -1, null);
            b.addReference(b.objectId(text(key)), value, b.name("s"), 0);
            b.defineObject(text(key), "string", 20, -1, key);
        }
        b.defineObject("0x60", "table", 40, -1, null);
        b.defineObject("0x70", "table", 16, -1, null);
        b.addRoot("r", module);
        return analysed(b);
    }

    /** 0x30, 0x40, 0x50 for a, b, c (their strings: 0x31, 0x41, 0x51). */
    private static String entry(String key) {
        return "0x" + (3 + key.charAt(0) - 'a') + "0";
    }

    private static String text(String key) {
        return "0x" + (3 + key.charAt(0) - 'a') + "1";
    }

    private static HeapSnapshot analysed(HeapSnapshotBuilder b) {
        HeapSnapshot s = b.build(new SnapshotInfo("t", "test", "t", "", -1, Map.of(), List.of()));
        s.attachAnalysis(HeapAnalyzer.analyze(s, Progress.NONE));
        return s;
    }

    @Test
    void mapEntriesAreOneGroupNamedFieldsAreNot() {
        HeapSnapshot after = after();
        SnapshotComparison c = SnapshotComparison.compute(before(), after, after.analysis());
        assertEquals(8, c.newObjects());
        assertEquals(3 * 32 + 3 * 20 + 40 + 16, c.newBytes());
        assertEquals(0, c.reusedAddresses());
        List<SnapshotComparison.LeakGroup> groups = c.leakGroups();
        assertEquals(3, groups.size());
        SnapshotComparison.LeakGroup map = groups.get(0);
        assertEquals(List.of(6L, 156L, 156L, 3L), List.of(map.objects(), map.newBytes(), map.retainedBytes(), map.heads()));
        assertEquals("table", map.headType());
        assertEquals(List.of("root r (table)", "cache in table", "[value] in table"), map.path());
        assertEquals("0x30", after.address(map.example()), "ties on retained size: lowest address");
        assertEquals(List.of("root r (table)", "log in table"), groups.get(1).path());
        assertEquals(40L, groups.get(1).newBytes());
        assertEquals(List.of("root r (table)", "tmp in table"), groups.get(2).path());
    }

    @Test
    void newObjectBucketsAndGrowth() {
        HeapSnapshot after = after();
        SnapshotComparison c = SnapshotComparison.compute(before(), after, after.analysis());
        assertEquals(List.of(new SnapshotComparison.NewBucket("string", -1, 3, 60, 3, 60, 0),
            new SnapshotComparison.NewBucket("table", -1, 5, 152, 5, 152, 0)), c.newBuckets());
        // 0x20 grew by 64 bytes and 3 references, 0x10 by 2 references only
        List<String> growth = c.growth().stream().map(g -> after.address(g.target()) + " " + g.sizeBefore() + ">"
            + g.sizeAfter() + " " + g.refsBefore() + ">" + g.refsAfter()).toList();
        assertEquals(List.of("0x20 48>112 0>3", "0x10 64>64 1>3"), growth);
    }

    @Test
    void comparedWithItselfNothingIsNew() {
        HeapSnapshot after = after();
        SnapshotComparison c = SnapshotComparison.compute(after, after, after.analysis());
        assertEquals(0, c.newObjects());
        assertEquals(List.of(), c.leakGroups());
        assertEquals(List.of(), c.growth());
    }
}
