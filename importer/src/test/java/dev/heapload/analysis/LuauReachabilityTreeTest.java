package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.heapload.analysis.LuauCases.Case;
import dev.heapload.analysis.ReachabilityTree.Node;

/**
 * The heapgraph.py-style reachability tree of the new objects of each case's after.json (diff against
 * before.json, no split): the totals heapgraph.py reports for three cases, and one node per case whose
 * bytes and object count follow from the README (the leak's subtree).
 */
class LuauReachabilityTreeTest {

    private static final Map<String, Node> TREES = new ConcurrentHashMap<>();

    /** Skips each test, with the reason in the report, when the shared test data is absent. */
    @BeforeEach
    void data() {
        LuauCases.requireData();
    }

    static Stream<String> cases() {
        return Stream.of("closures-timers", "coroutine-scheduler", "coroutine-scheduler-medium", "edge-classes",
            "edge-stats-overflow", "edge-unescaped-names", "edge-vector-double", "entity-system",
            "entity-system-medium", "event-listeners", "event-listeners-medium", "localization-strings",
            "memory-categories", "memory-categories-medium", "snapshot-from-lua", "undo-history", "weak-caches");
    }

    private static Node tree(String name) {
        return TREES.computeIfAbsent(name, n -> {
            Case c = LuauCases.get(n);
            return ReachabilityTree.build(c.after, c::isNew, ReachabilityTree.Split.NONE);
        });
    }

    /** The node reached from the root through children named {@code names}. */
    private static Node node(String caseName, String... names) {
        Node n = tree(caseName);
        for (String name : names) {
            Node parent = n;
            n = parent.children().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no node " + name + " under '" + parent.name() + "' in "
                    + parent.children().stream().map(Node::name).toList()));
        }
        return n;
    }

    private static void assertTotal(long bytes, long objects, Node n) {
        assertEquals(bytes + " bytes in " + objects + " objects", n.total() + " bytes in " + n.totalCount() + " objects",
            "node '" + n.name() + "'");
    }

    @Test
    void totalsEqualHeapgraphs() {
        // heapgraph.py before.json after.json (README of the project, issue acceptance bar)
        assertTotal(22_099, 186, tree("event-listeners"));
        assertTotal(23_338, 217, tree("memory-categories"));
        assertTotal(1_760_000, 10_000, tree("undo-history"));
    }

    /** The tree charges exactly the new objects a root reaches, each once. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void chargesEveryNewReachableObjectOnce(String name) {
        Case c = LuauCases.get(name);
        List<Integer> live = c.newReachable();
        long bytes = 0;
        for (int o : live) {
            bytes += c.after.shallowSize(o);
        }
        assertTotal(bytes, live.size(), tree(name));
    }

    @Test
    void closuresTimers() {
        // every new object hangs off Timers.intervals: 6 records (176) + 18 closures + 6 upvalues (40)
        // + 6 prices (1072) + 6 symbols (30) + the clock text (28)
        Node intervals = node("closures-timers", "registry", "_MODULES", "Timers", "intervals");
        assertTotal(9280, 43, intervals);
        // the records themselves sit in the array part: charged to the intervals node
        assertEquals(6, intervals.count());
        assertEquals(6 * 176, intervals.size());
    }

    @Test
    void coroutineScheduler() {
        // the list (176) + 5 threads x (1232 thread + 176 request + 80 headers + 264 scratch + 64 onProgress
        // + 40 upvalue)
        Node list = node("coroutine-scheduler", "registry", "_MODULES", "Scheduler", "waiting", "ProfileLoaded");
        assertTotal(176 + 5 * 1856, 31, list);
        // stack slots grouped by frame and local name
        assertTotal(5 * 176 + 5 * 80, 10,
            node("coroutine-scheduler", "registry", "_MODULES", "Scheduler", "waiting", "ProfileLoaded", "__stack",
                "@main.luau:5:handleRequest", "request"));
        assertTotal(5 * 264, 5,
            node("coroutine-scheduler", "registry", "_MODULES", "Scheduler", "waiting", "ProfileLoaded", "__stack",
                "@main.luau:5:handleRequest", "scratch"));
        // medium: 6000 threads; the list's array part has 8192 slots (48 + 8192 * 16 = 131120 bytes)
        assertTotal(131_120 + 6000 * 1856, 36_001,
            node("coroutine-scheduler-medium", "registry", "_MODULES", "Scheduler", "waiting", "ProfileLoaded"));
    }

    @Test
    void edgeCases() {
        // 3 Particle objects (40) with a Vec2 object (40) and a "smokeN" string (31) each; heapgraph.py
        // would not follow object members (deliberate difference: the GC marks them)
        assertTotal(333, 9, node("edge-classes", "mainthread", "__env", "shared", "alive"));
        assertTotal(2_147_483_664L, 2, node("edge-stats-overflow", "mainthread", "__env", "shared", "blobs"));
        assertTotal(5 * 56 + 2 * (112 + 560), 9, node("edge-unescaped-names", "mainthread", "__env", "shared", "bindings"));
        assertTotal(112 + 560, 2, node("edge-unescaped-names", "mainthread", "__env", "shared", "bindings", "pluginState"));
        assertTotal(0, 3, node("edge-vector-double", "mainthread", "__env", "shared", "waypoints"));
    }

    @Test
    void entitySystem() {
        // per goblin: entity 304, components/health/ai/loot 4 x 176, path 96, 3 waypoints x 112, handle 48,
        // instance 112, name 36 = 1636 bytes in 12 objects
        assertTotal(16 * 1636, 16 * 12, node("entity-system", "registry", "_MODULES", "EntityManager", "byId"));
        assertTotal(16 * (96 + 3 * 112), 64,
            node("entity-system", "registry", "_MODULES", "EntityManager", "byId", "components", "ai", "path"));
        // medium: same shapes, names "Goblin_wW_N" of varying length (227358 bytes for the 6000)
        assertTotal(6000 * (1636 - 36) + 227_358, 72_000,
            node("entity-system-medium", "registry", "_MODULES", "EntityManager", "byId"));
    }

    @Test
    void eventListeners() {
        // through handlers: per widget the theme connection (176) + closure (48) + widget (304) + style (176)
        // + colors (112) + connections (112) + locale connection (176) + its closure (48) + children (48 for
        // a checkbox, 64 for a dialog), plus the 8 dialog titles "Settings N" (35): 152 objects
        Node handlers = node("event-listeners", "registry", "_MODULES", "EventBus", "ThemeChanged", "handlers");
        assertTotal(8 * 1200 + 8 * 1216 + 8 * 35, 16 * 9 + 8, handlers);
        // the 16 debugInfo values (112) and the 2 trace strings, charged to Widget.debugInfo
        assertTotal(16 * 112 + 43 + 45, 18, node("event-listeners", "registry", "_MODULES", "Widget", "debugInfo"));
        // the 16 titleById strings (array part of a weak-valued table: strings are never cleared)
        assertEquals(16, node("event-listeners", "registry", "_MODULES", "Widget", "titleById").totalCount());
        // medium: 4000 widgets (2000 dialogs, 2000 checkboxes), 2000 titles "Settings N" (74893 bytes)
        assertTotal(2000 * 1200 + 2000 * 1216 + 74_893, 4000 * 9 + 2000,
            node("event-listeners-medium", "registry", "_MODULES", "EventBus", "ThemeChanged", "handlers"));
    }

    @Test
    void localizationStrings() {
        Node cache = node("localization-strings", "registry", "_MODULES", "Localization", "formatCache");
        assertTotal(3932, 64, cache);
        // keys are charged to the cache node itself, each result to a child named by its key's lossy text;
        // colliding keys ("ключ"/"ЖЖЖЖ" -> ????????) share a child
        assertEquals(32, cache.count());
        assertEquals(30, cache.children().size());
        assertEquals(2, cache.children().stream().filter(n -> n.name().equals("de|????????|1,??n??c??d??"))
            .findFirst().orElseThrow().totalCount());
        assertTrue(cache.children().stream().anyMatch(n -> n.name().equals("de|__meta|1,??n??c??d??")));
    }

    @Test
    void memoryCategories() {
        // 30 samples (176) + 30 timings (176) + 30 labels "frame N" (24 + 8 + 1 = 33)
        assertTotal(30 * (176 + 176 + 33), 90, node("memory-categories", "mainthread", "__env", "shared", "Profiler", "samples"));
        assertTotal(30 * 112 + 1410, 60, node("memory-categories", "mainthread", "__env", "shared", "ChatArchive"));
        assertTotal(9 * (176 + 112 + 34), 27, node("memory-categories", "mainthread", "__env", "shared", "PlayerList", "rowsByUserId"));
        assertTotal(20 * 176 + 600, 40, node("memory-categories", "mainthread", "__env", "shared", "Chat", "history"));
        // medium: all 15000 samples and timings, including the 20 at reused addresses
        Node samples = node("memory-categories-medium", "mainthread", "__env", "shared", "Profiler", "samples");
        assertTotal(30_000 * 176 + 535_001, 45_000, samples);
    }

    @Test
    void snapshotFromLua() {
        // 40 entries (176) + 40 bodies (80) + 40 route strings "/api/items/N"
        assertTotal(40 * 176 + 40 * 80 + 1511, 120,
            node("snapshot-from-lua", "mainthread", "__env", "shared", "RequestLog", "entries"));
        // the live second worker, under the script thread's runConsoleCommand frame
        Node worker = node("snapshot-from-lua", "registry", "_SCRIPTS", "main.luau", "__stack",
            "@main.luau:13:runConsoleCommand", "worker");
        assertTotal(1232 + 80 + 112 + 112, 4, worker);
    }

    @Test
    void undoHistory() {
        // 10 000 levels: undoHead, then prev under prev; each level one 176-byte record
        Node n = node("undo-history", "mainthread", "__env", "shared", "openDocument", "undoHead");
        assertTotal(1_760_000, 10_000, n);
        int depth = 1;
        while (!n.children().isEmpty()) {
            assertEquals(List.of("prev"), n.children().stream().map(Node::name).toList());
            n = n.children().get(0);
            depth++;
            assertTotal(176L * (10_001 - depth), 10_001 - depth, n);
        }
        assertEquals(10_000, depth);
    }

    @Test
    void weakCaches() {
        // (a) 6 byUrl entries: entry 176 + mips 112 + pixels 520 + texture 544
        assertTotal(6 * 1352, 24, node("weak-caches", "registry", "_MODULES", "AssetCache", "byUrl"));
        // (b) 6 owners records: record 112 + texture 80 + "catalogTileN" 37
        assertTotal(6 * 229, 18, node("weak-caches", "registry", "_MODULES", "AssetCache", "owners"));
        // the 12 unreachable floating-garbage objects are in no node
        assertTotal(6 * 1352 + 6 * 229 + 6 * 70 + 6 * 112, 54, tree("weak-caches"));
    }
}
