package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Net growth on real dumps of every installed Lua (5.1-5.4, LuaJIT) with heapload's dumper: the programs of
 * testdata/lua/growth (README.md there). An LRU cache that only evicts and refills is no leak (every group it makes
 * is replaced); a chat history capped at 20 grows while it fills and is replaced once full; a listener list that
 * dialogs forget to leave grows at every step.
 */
@Tag("process")
class LuaNetGrowthTest {

    @TempDir
    static Path tmp;

    static Stream<String> vms() {
        return LuaRuns.INTERPRETERS.keySet().stream();
    }

    private static List<HeapSnapshot> run(String vm, String program, String... snapshots) {
        String exe = LuaRuns.INTERPRETERS.get(vm);
        LuaRuns.requireInterpreter(exe);
        Path work = tmp.resolve(program + "-" + vm);
        Path dir = Path.of(System.getProperty("heapload.testdata", "../testdata")).resolve("lua").resolve("growth");
        LuaRuns.run(exe, dir.resolve(program + ".lua"), work);
        List<HeapSnapshot> out = new ArrayList<>();
        for (String id : snapshots) {
            HeapSnapshot s = LuaRuns.read(work.resolve(id + ".json"));
            HeapAnalyzer.analyze(s, Progress.NONE);
            out.add(s);
        }
        return out;
    }

    private static SnapshotComparison compare(HeapSnapshot baseline, HeapSnapshot target) {
        return SnapshotComparison.compute(baseline, target, target.analysis());
    }

    private static List<String> verdicts(SnapshotComparison c) {
        return c.leakGroups().stream().map(g -> g.verdict().label()).distinct().toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vms")
    void anLruCacheThatOnlyChurnsIsNoLeak(String vm) {
        List<HeapSnapshot> s = run(vm, "lru-cache", "before", "after");
        SnapshotComparison c = compare(s.get(0), s.get(1));
        assertFalse(c.leakGroups().isEmpty(), "300 entries went through the cache");
        assertEquals(List.of("replaced"), verdicts(c), () -> vm + ": " + c.leakGroups());
        long net = c.leakGroups().stream().mapToLong(SnapshotComparison.LeakGroup::netObjects).sum();
        assertEquals(0, net, vm + ": the cache holds 100 entries before and after");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vms")
    void aCappedHistoryIsReplacedOnceFull(String vm) {
        List<HeapSnapshot> s = run(vm, "capped-history", "s1", "s2", "s3");
        SnapshotComparison filling = compare(s.get(0), s.get(1));
        assertEquals(List.of("growing"), verdicts(filling), () -> vm + ": " + filling.leakGroups());
        assertEquals(20, filling.leakGroups().get(0).heads(), vm + ": 20 entries, 10 of them in place of freed ones");
        assertEquals(10, filling.leakGroups().get(0).freedHeads(), vm);
        SnapshotComparison full = compare(s.get(1), s.get(2));
        assertEquals(List.of("replaced"), verdicts(full), () -> vm + ": " + full.leakGroups());
        assertEquals(20, full.leakGroups().get(0).heads(), vm);
        assertEquals(20, full.leakGroups().get(0).freedHeads(), vm);
        assertEquals(0, full.leakGroups().get(0).netObjects(), vm);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vms")
    void aListenerListGrowsAtEveryStep(String vm) {
        List<HeapSnapshot> s = run(vm, "listeners", "s1", "s2", "s3");
        for (int step = 1; step <= 2; step++) {
            SnapshotComparison c = compare(s.get(step - 1), s.get(step));
            List<SnapshotComparison.LeakGroup> leaks = c.leakGroups().stream().filter(SnapshotComparison.LeakGroup::leak).toList();
            assertEquals(1, leaks.size(), () -> vm + ": " + c.leakGroups());
            SnapshotComparison.LeakGroup g = leaks.get(0);
            // 10 dialogs per step, the 5 with an odd number never unsubscribe: their listener closures stay
            assertEquals(SnapshotComparison.Verdict.GROWING, g.verdict(), vm);
            assertEquals(5, g.heads(), vm);
            assertEquals("function", g.headType(), vm);
            assertEquals(g.objects(), g.netObjects(), vm + ": nothing at the listeners' path was freed");
            assertEquals("listeners in table", g.path().get(g.path().size() - 2), vm);
        }
    }
}
