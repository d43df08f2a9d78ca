package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.heapload.analysis.LuauCases.Case;
import dev.heapload.model.HeapSnapshot;

/**
 * Dominators and retained sizes on the shared Luau dumps: the dominator tree is consistent on all 34
 * files (the super-root's children retain exactly the reachable bytes), retained sizes equal a brute-force
 * "remove the object and see what dies" on sampled objects, and the retained size of each case's leak
 * root equals what its README implies.
 */
class LuauDominatorTest {

    /** Skips each test, with the reason in the report, when the shared test data is absent. */
    @BeforeEach
    void data() {
        LuauCases.requireData();
    }

    static Stream<Arguments> files() {
        return LuauReachabilityTreeTest.cases()
            .flatMap(name -> Stream.of(Arguments.of(name, "before"), Arguments.of(name, "after")));
    }

    private static HeapSnapshot snapshot(Case c, String which) {
        return which.equals("before") ? c.before : c.after;
    }

    private static HeapAnalysis analysis(Case c, String which) {
        return which.equals("before") ? c.beforeAnalysis : c.analysis;
    }

    /**
     * The super-root's children (reachable objects without an immediate dominator) retain exactly the
     * reachable shallow bytes, and every retained size is the object's shallow size plus the retained sizes
     * of the objects it immediately dominates.
     */
    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("files")
    void dominatorTreeAddsUp(String name, String which) {
        Case c = LuauCases.get(name);
        HeapSnapshot s = snapshot(c, which);
        HeapAnalysis a = analysis(c, which);
        int n = s.objectCount();
        long[] childSum = new long[n];
        long superRoot = 0;
        for (int o = 0; o < n; o++) {
            if (!a.reachable()[o]) {
                assertEquals(0, a.retainedSize()[o]);
                assertEquals(-1, a.immediateDominator()[o]);
                continue;
            }
            int d = a.immediateDominator()[o];
            if (d < 0) {
                superRoot += a.retainedSize()[o];
            } else {
                assertTrue(a.reachable()[d]);
                assertTrue(a.distance()[d] < a.distance()[o], "a dominator lies on every path, so it is nearer a root");
                childSum[d] += a.retainedSize()[o];
            }
        }
        assertEquals(Case.reachableBytes(s, a), superRoot);
        for (int o = 0; o < n; o++) {
            if (a.reachable()[o]) {
                assertEquals(s.shallowSize(o) + childSum[o], a.retainedSize()[o]);
            }
        }
        // each root is dominated by the super-root only
        for (HeapSnapshot.GcRoot r : s.roots()) {
            assertEquals(-1, a.immediateDominator()[r.object()]);
        }
    }

    /**
     * Bytes that become unreachable when {@code removed} is deleted, by a plain search over the strong
     * references (Luau dumps have no ephemeron values).
     */
    private static long freedIfRemoved(HeapSnapshot s, HeapAnalysis a, int removed) {
        boolean[] seen = new boolean[s.objectCount()];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (HeapSnapshot.GcRoot r : s.roots()) {
            if (r.object() != removed && !seen[r.object()]) {
                seen[r.object()] = true;
                queue.add(r.object());
            }
        }
        while (!queue.isEmpty()) {
            int u = queue.poll();
            for (int e = s.firstReference(u); e < s.firstReference(u + 1); e++) {
                assertEquals(0, s.referenceFlags(e) & HeapSnapshot.EPHEMERON_VALUE);
                int v = s.referenceTarget(e);
                if (!s.isWeak(e) && v != removed && !seen[v]) {
                    seen[v] = true;
                    queue.add(v);
                }
            }
        }
        long freed = 0;
        for (int o = 0; o < s.objectCount(); o++) {
            if (a.reachable()[o] && !seen[o]) {
                freed += s.shallowSize(o);
            }
        }
        return freed;
    }

    static Stream<String> smallCases() {
        return LuauReachabilityTreeTest.cases().filter(n -> !n.endsWith("-medium") && !n.equals("undo-history"));
    }

    /** On the small cases: every 7th reachable object of after.json and every new reachable one. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("smallCases")
    void retainedSizeIsWhatDiesWithTheObject(String name) {
        Case c = LuauCases.get(name);
        int checked = 0;
        for (int o = 0; o < c.after.objectCount(); o++) {
            if (c.reachable(o) && (o % 7 == 0 || c.isNew(o))) {
                long freed = freedIfRemoved(c.after, c.analysis, o);
                int obj = o;
                assertEquals(freed, c.analysis.retainedSize()[o], () -> c.after.type(obj) + " " + c.path(obj));
                checked++;
            }
        }
        assertTrue(checked >= 70, "checked " + checked);
    }

    /**
     * What an object that exists in both snapshots retains in after.json beyond what it retained in
     * before.json (its own shallow size, which can grow, left out).
     */
    private static long retainedGrowth(Case c, int inAfter) {
        assertFalse(c.isNew(inAfter));
        int inBefore = -1;
        for (int o = 0; o < c.before.objectCount(); o++) {
            if (c.before.address(o).equals(c.after.address(inAfter))) {
                inBefore = o;
            }
        }
        assertTrue(inBefore >= 0);
        return (c.analysis.retainedSize()[inAfter] - c.after.shallowSize(inAfter))
            - (c.beforeAnalysis.retainedSize()[inBefore] - c.before.shallowSize(inBefore));
    }

    @Test
    void eventListeners() {
        Case c = LuauCases.get("event-listeners");
        // each leaked theme connection retains its whole widget: connection 176 + closure 48 + widget 304
        // + style 176 + colors 112 + connections 112 + locale connection 176 + its closure 48 + children
        // (48, or 64 and the 35-byte title "Settings N" for a dialog); not the debugInfo value (held by
        // debugInfo) nor the titleById string
        int handlers = c.at("registry", "_MODULES", "EventBus", "ThemeChanged", "handlers");
        List<Long> connections = c.referencesFrom(handlers).stream().map(c.after::referenceTarget)
            .filter(c::isNew).map(o -> c.analysis.retainedSize()[o]).sorted().toList();
        assertEquals(List.of(1200L, 1200L, 1200L, 1200L, 1200L, 1200L, 1200L, 1200L,
            1251L, 1251L, 1251L, 1251L, 1251L, 1251L, 1251L, 1251L), connections);
        // the handlers table retains what it did before plus the 16 widgets (the tree's handlers node)
        assertEquals(8 * 1200 + 8 * 1251, retainedGrowth(c, handlers));
        // a widget is dominated by its connection's closure (the weak debugInfo key does not count)
        int widget = c.sourceOf(c.referencesTo(c.labelled("string", "Settings 5")).get(0));
        int closure = c.analysis.immediateDominator()[widget];
        assertEquals("function", c.after.type(closure));
        assertEquals(handlers, c.analysis.immediateDominator()[c.analysis.immediateDominator()[closure]]);

        Case m = LuauCases.get("event-listeners-medium");
        int mh = m.at("registry", "_MODULES", "EventBus", "ThemeChanged", "handlers");
        assertEquals(2000 * 1200 + 2000 * 1216 + 74_893, retainedGrowth(m, mh));
    }

    @Test
    void undoHistory() {
        Case c = LuauCases.get("undo-history");
        // undoHead retains exactly the 10 000 records (the kind strings are shared constants)
        int head = c.at("mainthread", "[env]", "shared", "openDocument", "undoHead");
        assertEquals(1_760_000, c.analysis.retainedSize()[head]);
        int doc = c.at("mainthread", "[env]", "shared", "openDocument");
        assertEquals(doc, c.analysis.immediateDominator()[head]);
        int at = head;
        for (int i = 0; i < 10_000; i++) {
            assertEquals(176L * (10_000 - i), c.analysis.retainedSize()[at]);
            if (i < 9_999) {
                int next = c.follow(at, "prev");
                assertEquals(at, c.analysis.immediateDominator()[next]);
                at = next;
            }
        }
        assertEquals(1_760_000, retainedGrowth(c, doc));
        assertEquals(1_760_000, freedIfRemoved(c.after, c.analysis, head));
    }

    @Test
    void leakRootsOfTheOtherCases() {
        // closures-timers: record 176 + interval closure 64 + sample 64 + render 96 + count upvalue 40
        // + prices 1072 + "TICKn" 30
        Case ct = LuauCases.get("closures-timers");
        int intervals = ct.at("registry", "_MODULES", "Timers", "intervals");
        assertEquals(List.of(1542L, 1542L, 1542L, 1542L, 1542L, 1542L), ct.referencesFrom(intervals).stream()
            .map(ct.after::referenceTarget).filter(ct::isNew).map(o -> ct.analysis.retainedSize()[o]).toList());

        // coroutine-scheduler: the new waiting list retains all 31 new objects
        Case cs = LuauCases.get("coroutine-scheduler");
        int list = cs.at("registry", "_MODULES", "Scheduler", "waiting", "ProfileLoaded");
        assertEquals(176 + 5 * 1856, cs.analysis.retainedSize()[list]);
        Case csm = LuauCases.get("coroutine-scheduler-medium");
        assertEquals(131_120 + 6000 * 1856,
            csm.analysis.retainedSize()[csm.at("registry", "_MODULES", "Scheduler", "waiting", "ProfileLoaded")]);

        // entity-system: a goblin retains its 12 objects (1636 bytes); byId gained the 16 goblins
        Case es = LuauCases.get("entity-system");
        int byId = es.at("registry", "_MODULES", "EntityManager", "byId");
        int goblin = es.sourceOf(es.analysis.retainedBy()[es.labelled("string", "Goblin_w1_3")]);
        assertEquals(1636, es.analysis.retainedSize()[goblin]);
        assertEquals(byId, es.analysis.immediateDominator()[goblin]);
        assertEquals(16 * 1636, retainedGrowth(es, byId));
        Case esm = LuauCases.get("entity-system-medium");
        assertEquals(6000 * (1636 - 36) + 227_358,
            retainedGrowth(esm, esm.at("registry", "_MODULES", "EntityManager", "byId")));

        // weak-caches: a byUrl entry retains mips, pixels and texture (not the url string, also a key of
        // textures, nor the stats value, held by stats); an owners record retains its texture and name
        Case wc = LuauCases.get("weak-caches");
        int entry = wc.at("registry", "_MODULES", "AssetCache", "byUrl", "https://cdn.example.com/catalog/item_0002.png");
        assertEquals(176 + 112 + 520 + 544, wc.analysis.retainedSize()[entry]);
        int record = wc.sourceOf(wc.analysis.retainedBy()[wc.labelled("string", "catalogTile5")]);
        assertEquals(112 + 80 + 37, wc.analysis.retainedSize()[record]);
        assertEquals(6 * 1352, retainedGrowth(wc, wc.at("registry", "_MODULES", "AssetCache", "byUrl")));

        // localization-strings: formatCache gained the 64 strings
        Case ls = LuauCases.get("localization-strings");
        assertEquals(3932, retainedGrowth(ls, ls.at("registry", "_MODULES", "Localization", "formatCache")));

        // memory-categories: each sample retains its timings and label; the leaking containers grew by
        // exactly their leaked objects
        Case mc = LuauCases.get("memory-categories");
        int samples = mc.at("mainthread", "[env]", "shared", "Profiler", "samples");
        assertEquals(30 * 385, retainedGrowth(mc, samples));
        assertEquals(30 * 112 + 1410, retainedGrowth(mc, mc.at("mainthread", "[env]", "shared", "ChatArchive")));
        assertEquals(9 * 322, retainedGrowth(mc, mc.at("mainthread", "[env]", "shared", "PlayerList", "rowsByUserId")));
        // the chat history is bounded: 20 new entries ("gg 21".."gg 40", 30 bytes) replace the 10 freed ones
        // ("gg 1".."gg 10": 9 x 29 + 30 bytes)
        int history = mc.at("mainthread", "[env]", "shared", "Chat", "history");
        assertEquals(20 * (176 + 30) - (10 * 176 + 291), retainedGrowth(mc, history));
        Case mcm = LuauCases.get("memory-categories-medium");
        assertEquals(30_000 * 176 + 535_001,
            retainedGrowth(mcm, mcm.at("mainthread", "[env]", "shared", "Profiler", "samples")));

        // snapshot-from-lua: 40 entries (176) with body (80) and route
        Case sl = LuauCases.get("snapshot-from-lua");
        assertEquals(40 * 176 + 40 * 80 + 1511,
            retainedGrowth(sl, sl.at("mainthread", "[env]", "shared", "RequestLog", "entries")));

        // edge-stats-overflow: 2 GiB retained without overflow
        Case so = LuauCases.get("edge-stats-overflow");
        assertEquals(2 * 1_073_741_832L, retainedGrowth(so, so.at("mainthread", "[env]", "shared", "blobs")));
    }
}
