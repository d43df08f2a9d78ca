package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Net growth and verdicts of leak groups ({@link SnapshotComparison.LeakGroup}, {@link SnapshotComparison.Verdict}) on
 * real dumps of the Luau VM (shared/tools/luau-heapdump, testdata/luau/*-steps/README.md): the memory-categories
 * program dumped after 1, 4 and 7 sessions. Its chat history is capped at 20 messages: it fills from 10 to 20 in the
 * first step (growth: 10 of its entries freed, 20 new) and is only replaced in the second (20 new in place of 20
 * freed); the three real leaks grow at every step. Also the survivor view ({@link SurvivorView}) and the order check
 * ({@link PairOrder}).
 */
class NetGrowthTest {

    private static HeapSnapshot read(String dir, String id) throws Exception {
        Path file = Path.of(System.getProperty("heapload.testdata", "../testdata")).resolve("luau").resolve(dir)
            .resolve(id + ".json");
        HeapSnapshot s = DumpReaders.read(file, id, Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        return s;
    }

    /** One line per group: verdict, objects, new bytes, heads, net objects, net bytes, freed objects, freed bytes, baseline heads, last hop. */
    private static List<String> rows(SnapshotComparison c) {
        List<String> out = new ArrayList<>();
        for (SnapshotComparison.LeakGroup g : c.leakGroups()) {
            out.add(String.join(" ", g.verdict().label(), "" + g.objects(), "" + g.newBytes(), "" + g.heads(),
                "net", "" + g.netObjects(), "" + g.netBytes(), "freed", "" + g.freedObjects(), "" + g.freedBytes(),
                "before", "" + g.baselineHeads(), "" + g.freedHeads(), g.path().get(g.path().size() - 2)));
        }
        return out;
    }

    @Test
    void aCappedHistoryGrowsWhileItFillsAndIsReplacedOnceFull() throws Exception {
        HeapSnapshot s1 = read("memory-categories-steps", "s1");
        HeapSnapshot s2 = read("memory-categories-steps", "s2");
        HeapSnapshot s3 = read("memory-categories-steps", "s3");
        // the three leaks of the case README grow; the chat history fills from 10 to 20 entries: growing by 10
        assertEquals(List.of(
            "growing 90 11550 30 net 90 11550 freed 0 0 before 10 0 samples in table",
            "growing 60 4770 30 net 60 4770 freed 0 0 before 10 0 ChatArchive in table",
            "growing 27 2898 9 net 27 2898 freed 0 0 before 3 0 rowsByUserId in table",
            "growing 40 4120 20 net 20 2069 freed 20 2051 before 10 10 history in table"),
            rows(SnapshotComparison.compute(s1, s2, s2.analysis())));
        // once full, the history's 20 new entries took the place of its 20 freed ones: replaced, ranked after the leaks
        assertEquals(List.of(
            "growing 90 11550 30 net 90 11550 freed 0 0 before 40 0 samples in table",
            "growing 60 4770 30 net 60 4770 freed 0 0 before 40 0 ChatArchive in table",
            "growing 27 2898 9 net 27 2898 freed 0 0 before 12 0 rowsByUserId in table",
            "replaced 40 4120 20 net 0 0 freed 40 4120 before 20 20 history in table"),
            rows(SnapshotComparison.compute(s2, s3, s3.analysis())));
    }

    @Test
    void theSurvivorsOfTheThreeSnapshotMethodAreTheLeaksOnly() throws Exception {
        HeapSnapshot s1 = read("memory-categories-steps", "s1");
        HeapSnapshot s2 = read("memory-categories-steps", "s2");
        HeapSnapshot s3 = read("memory-categories-steps", "s3");
        SurvivorView v = SurvivorView.compute(s1, s2, s3);
        // new in s2 and alive in s3: the Profiler samples, the chat archive and the player rows; the chat history's
        // entries of s2 were all freed by s3
        assertEquals(177, v.objects());
        assertEquals(19_218, v.bytes());
        List<String> lines = new ArrayList<>();
        for (SnapshotComparison.LeakGroup g : v.groups()) {
            lines.add(g.objects() + " " + g.newBytes() + " " + g.heads() + " " + g.path().get(g.path().size() - 2));
        }
        assertEquals(List.of("90 11550 30 samples in table", "60 4770 30 ChatArchive in table",
            "27 2898 9 rowsByUserId in table"), lines);
    }

    @Test
    void aListenerListGrowsAtEveryStep() throws Exception {
        HeapSnapshot s1 = read("event-listeners-steps", "s1");
        HeapSnapshot s2 = read("event-listeners-steps", "s2");
        HeapSnapshot s3 = read("event-listeners-steps", "s3");
        for (SnapshotComparison c : List.of(SnapshotComparison.compute(s1, s2, s2.analysis()),
            SnapshotComparison.compute(s2, s3, s3.analysis()))) {
            assertEquals(3, c.leakGroups().size());
            for (SnapshotComparison.LeakGroup g : c.leakGroups()) {
                assertEquals(SnapshotComparison.Verdict.GROWING, g.verdict(), g.path().toString());
                assertEquals(0, g.freedObjects(), g.path().toString());
                assertEquals(g.objects(), g.netObjects());
            }
            assertEquals("[array] in table", c.leakGroups().get(0).path().get(c.leakGroups().get(0).path().size() - 1));
            assertEquals(16, c.leakGroups().get(0).heads());
        }
    }

    @Test
    void swappedPairsAreToldByNameAndSize() throws Exception {
        HeapSnapshot s1 = read("event-listeners-steps", "s1");
        HeapSnapshot s2 = read("event-listeners-steps", "s2");
        assertNull(PairOrder.swapped(s1, s2));
        assertEquals("the baseline 's2' is numbered after the target 's1'; 's1' has fewer objects (685 < 871) and "
            + "bytes (55,147 < 79,118) than 's2'", PairOrder.swapped(s2, s1));
        assertEquals("the baseline is named 'after' and the target 'before'", PairOrder.byName("after", "before"));
        assertEquals("the baseline is named 'heap-new' and the target 'heap-old'", PairOrder.byName("heap-new", "heap-old"));
        assertEquals("the baseline is named 'afterLoad' and the target 'beforeLoad'", PairOrder.byName("afterLoad", "beforeLoad"));
        assertEquals("the baseline 'dump10' is numbered after the target 'dump9'", PairOrder.byName("dump10", "dump9"));
        assertEquals("the baseline 'heap-2026-12-04' is numbered after the target 'heap-2026-11-30'",
            PairOrder.byName("heap-2026-12-04", "heap-2026-11-30"));
        assertNull(PairOrder.byName("before", "after"));
        assertNull(PairOrder.byName("dump9", "dump10"));
        assertNull(PairOrder.byName("nightly-7", "release-3"));
        assertNull(PairOrder.byName("renewal", "beforehand"));
        assertNotNull(PairOrder.byName("s3", "s1"));
        assertTrue(PairOrder.byName("run1-after", "run2-before") != null, "the words decide before the numbers");
    }
}
