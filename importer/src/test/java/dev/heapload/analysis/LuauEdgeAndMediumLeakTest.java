package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.heapload.analysis.LuauCases.Case;

/**
 * Acceptance of the analysis pass on the edge-* cases (invalid JSON the reader repairs, int overflow in
 * stats, double vectors) and the -medium cases (the same programs scaled up, gzipped): the new reachable
 * objects are exactly what each README lists, by type, by category and by retention path.
 */
class LuauEdgeAndMediumLeakTest {

    /** Skips each test, with the reason in the report, when the shared test data is absent. */
    @BeforeEach
    void data() {
        LuauCases.requireData();
    }

    private static Map<Integer, Integer> byCategory(Case c, List<Integer> objects) {
        Map<Integer, Integer> m = new TreeMap<>();
        for (int o : objects) {
            m.merge(c.after.category(o), 1, Integer::sum);
        }
        return m;
    }

    @Test
    void edgeClasses() {
        Case c = LuauCases.get("edge-classes");
        // README: 6 object records (3 Particle + 3 Vec2) and 3 strings; shared.alive grew in place
        assertEquals(9, c.diff.newCount());
        assertEquals(LuauCases.counts("object", 6, "string", 3), c.countByType(c.newReachable()));
        assertEquals(List.of(), c.newUnreachable());
        String alive = "mainthread/[env]/shared/alive/[array]";
        assertEquals(LuauCases.lines(
            "3 120 object " + alive,
            "3 120 object " + alive + "/[member]",
            "3 93 string " + alive + "/[member]"), c.newReachableByPath(p -> p));
        int aliveTable = c.at("mainthread", "[env]", "shared", "alive");
        assertFalse(c.isNew(aliveTable));
        for (int o : c.select(c::isNew)) {
            if (!c.after.type(o).equals("object")) {
                assertTrue(c.after.label(o).matches("smoke[1-3]"), c.after.label(o));
                continue;
            }
            // a Particle sits in alive's array; its Vec2 is one of its members
            int cls = c.follow(o, "[class]");
            boolean inAlive = c.sourceOf(c.analysis.retainedBy()[o]) == aliveTable;
            assertEquals(inAlive ? "Particle" : "Vec2", c.after.label(cls));
        }
    }

    @Test
    void edgeStatsOverflow() {
        Case c = LuauCases.get("edge-stats-overflow");
        // README: the 2 buffers of 1 GiB (2 x 1073741832 = 2147483664 bytes) in shared.blobs, category 140
        assertEquals(2, c.diff.newCount());
        assertEquals(LuauCases.lines("2 2147483664 buffer mainthread/[env]/shared/blobs/[array]"), c.newReachableByPath(p -> p));
        assertEquals(Map.of(140, 2), byCategory(c, c.newReachable()));
        int blobs = c.at("mainthread", "[env]", "shared", "blobs");
        // retained sizes above 2^31 do not wrap
        assertEquals(c.after.shallowSize(blobs) + 2_147_483_664L, c.analysis.retainedSize()[blobs]);
    }

    @Test
    void edgeUnescapedNames() {
        Case c = LuauCases.get("edge-unescaped-names");
        // README: 5 C functions and 4 tables (pluginState in category 130, packageState in 131, each with
        // a 32-slot data table: 48 + 32 * 16 = 560 bytes) in shared.bindings
        assertEquals(9, c.diff.newCount());
        assertEquals(LuauCases.counts("function", 5, "table", 4), c.countByType(c.newReachable()));
        String b = "mainthread/[env]/shared/bindings/";
        assertEquals(LuauCases.lines(
            "1 56 function " + b + "latin1",
            "1 56 function " + b + "path",
            "1 56 function " + b + "tab",
            "1 56 function " + b + "utf8",
            "1 56 function " + b + "waitForChild",
            "1 112 table " + b + "packageState",
            "1 560 table " + b + "packageState/data",
            "1 112 table " + b + "pluginState",
            "1 560 table " + b + "pluginState/data"), c.newReachableByPath(p -> p));
        assertEquals(Map.of(0, 5, 130, 2, 131, 2), byCategory(c, c.newReachable()));
        // the recovered names of the C functions (0xE9 read as Latin-1)
        int bindings = c.at("mainthread", "[env]", "shared", "bindings");
        assertEquals("Instance:WaitForChild(\"Handle\")", c.after.label(c.follow(bindings, "waitForChild")));
        assertEquals("C:\\engine\\bindings\\io", c.after.label(c.follow(bindings, "path")));
        assertEquals("tab\there", c.after.label(c.follow(bindings, "tab")));
        assertEquals("Größe→Breite", c.after.label(c.follow(bindings, "utf8")));
        assertEquals("caf\u00e9", c.after.label(c.follow(bindings, "latin1")));
    }

    @Test
    void edgeVectorDouble() {
        Case c = LuauCases.get("edge-vector-double");
        // README: 3 vectors (empty records: size 0, no category) in shared.waypoints' array
        assertEquals(3, c.diff.newCount());
        assertEquals(LuauCases.lines("3 0 vector mainthread/[env]/shared/waypoints/[array]"), c.newReachableByPath(p -> p));
        assertEquals(Map.of(-1, 3), byCategory(c, c.newReachable()));
    }

    @Test
    void coroutineSchedulerMedium() {
        Case c = LuauCases.get("coroutine-scheduler-medium");
        // README: 6000 threads, 12001 tables (request + headers per thread, plus the waiting list),
        // 6000 buffers, 6000 closures, 6000 open upvalues = 36001
        assertEquals(36_001, c.diff.newCount());
        assertEquals(LuauCases.counts("buffer", 6000, "function", 6000, "table", 12_001, "thread", 6000, "upvalue", 6000),
            c.countByType(c.newReachable()));
        assertEquals(List.of(), c.newUnreachable());
        String list = "registry/_MODULES/Scheduler/waiting/ProfileLoaded";
        assertEquals(LuauCases.lines(
            "6000 1584000 buffer " + list + "/[array]/scratch",
            "6000 384000 function " + list + "/[array]/onProgress",
            "1 131120 table " + list,
            "6000 1056000 table " + list + "/[array]/request",
            "6000 480000 table " + list + "/[array]/request/headers",
            "6000 7392000 thread " + list + "/[array]",
            "6000 240000 upvalue " + list + "/[array]/onProgress/@main.luau"), c.newReachableByPath(p -> p));
    }

    @Test
    void entitySystemMedium() {
        Case c = LuauCases.get("entity-system-medium");
        // README: 6000 goblins: 54000 tables, 12000 userdata, 6000 strings = 72000
        assertEquals(72_000, c.diff.newCount());
        assertEquals(LuauCases.counts("string", 6000, "table", 54_000, "userdata", 12_000), c.countByType(c.newReachable()));
        assertEquals(List.of(), c.newUnreachable());
        String e = "registry/_MODULES/EntityManager/byId/[array]";
        assertEquals(LuauCases.lines(
            "6000 227358 string " + e + "/name",
            "6000 1824000 table " + e,
            "6000 1056000 table " + e + "/components",
            "6000 1056000 table " + e + "/components/ai",
            "6000 576000 table " + e + "/components/ai/path",
            "18000 2016000 table " + e + "/components/ai/path/[array]",
            "6000 1056000 table " + e + "/components/health",
            "6000 1056000 table " + e + "/components/loot",
            "6000 288000 userdata " + e + "/components/loot/handle",
            "6000 672000 userdata " + e + "/instance"), c.newReachableByPath(p -> p));
        // the weak-keyed lastHitBy is never the path
        int lastHitBy = c.at("registry", "_MODULES", "EntityManager", "lastHitBy");
        assertEquals(6000, c.referencesFrom(lastHitBy).stream().filter(c.after::isWeak).count());
    }

    @Test
    void eventListenersMedium() {
        Case c = LuauCases.get("event-listeners-medium");
        // README: 4000 widgets: 32000 tables, 8000 closures, 6002 strings (2000 titles, 4000 titleById
        // values, 2 traces) = 46002; nothing freed
        assertEquals(46_002, c.diff.newCount());
        assertEquals(LuauCases.counts("function", 8000, "string", 6002, "table", 32_000), c.countByType(c.newReachable()));
        assertEquals(List.of(), c.newUnreachable());
        assertEquals(0, SnapshotDiff.compare(c.after, c.before).newCount(), "nothing freed");
        String h = "registry/_MODULES/EventBus/ThemeChanged/handlers/[array]";
        assertEquals(LuauCases.lines(
            "4000 192000 function " + h + "/fn",
            "4000 192000 function " + h + "/fn/@Widget.luau/connections/locale/fn",
            "2000 74893 string " + h + "/fn/@Widget.luau/title",
            "2 88 string registry/_MODULES/Widget/debugInfo/[value]/trace",
            "4000 165798 string registry/_MODULES/Widget/titleById/[array]",
            "4000 704000 table " + h,
            "4000 1216000 table " + h + "/fn/@Widget.luau",
            "4000 224000 table " + h + "/fn/@Widget.luau/children",
            "4000 448000 table " + h + "/fn/@Widget.luau/connections",
            "4000 704000 table " + h + "/fn/@Widget.luau/connections/locale",
            "4000 704000 table " + h + "/fn/@Widget.luau/style",
            "4000 448000 table " + h + "/fn/@Widget.luau/style/colors",
            "4000 448000 table registry/_MODULES/Widget/debugInfo/[value]"), c.newReachableByPath(p -> p));
    }

    @Test
    void memoryCategoriesMedium() {
        Case c = LuauCases.get("memory-categories-medium");
        // README: 200: 15000 samples + 15000 timings + 15000 labels; 2: 1500 rows + 1500 stats + 1500 names;
        // 129: 60 entries + 60 strings; 5: 20 entries + 20 strings (churn) = 49660
        assertEquals(49_660, c.diff.newCount());
        assertEquals(Map.of(2, 4500, 5, 40, 129, 120, 200, 45_000), byCategory(c, c.newReachable()));
        assertEquals(List.of(), c.newUnreachable());
        String s = "mainthread/[env]/shared/";
        assertEquals(LuauCases.lines(
            "20 640 string " + s + "Chat/history/[array]/text",
            "60 2940 string " + s + "ChatArchive/[array]/line",
            "1500 51000 string " + s + "PlayerList/rowsByUserId/[array]/displayName",
            "15000 535001 string " + s + "Profiler/samples/[array]/label",
            "20 3520 table " + s + "Chat/history/[array]",
            "60 6720 table " + s + "ChatArchive/[array]",
            "1500 264000 table " + s + "PlayerList/rowsByUserId/[array]",
            "1500 168000 table " + s + "PlayerList/rowsByUserId/[array]/stats",
            "15000 2640000 table " + s + "Profiler/samples/[array]",
            "15000 2640000 table " + s + "Profiler/samples/[array]/timings"), c.newReachableByPath(p -> p));

        // address-reuse trap: 20 leaked Profiler tables (10 samples, 10 timings) sit at addresses of freed
        // chat-history tables of before.json; they are new although address and type match
        assertEquals(20, c.diff.reusedAddresses());
        Map<String, Integer> reused = new TreeMap<>();
        Map<String, Integer> byAddress = new java.util.HashMap<>();
        for (int o = 0; o < c.before.objectCount(); o++) {
            byAddress.put(c.before.address(o), o);
        }
        for (int o : c.newReachable()) {
            Integer was = byAddress.get(c.after.address(o));
            if (was != null) {
                assertEquals("table", c.before.type(was));
                assertEquals(5, c.before.category(was), "a CoreScripts.Chat table in before.json");
                assertEquals(s + "Chat/history/[array]", LuauCases.path(c.before, c.beforeAnalysis, was));
                reused.merge(c.after.type(o) + " cat " + c.after.category(o) + " " + c.path(o), 1, Integer::sum);
            }
        }
        assertEquals(Map.of("table cat 200 " + s + "Profiler/samples/[array]", 10,
            "table cat 200 " + s + "Profiler/samples/[array]/timings", 10), reused);
    }
}
