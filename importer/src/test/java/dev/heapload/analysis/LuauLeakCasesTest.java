package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.heapload.analysis.LuauCases.Case;

/**
 * Acceptance of the analysis pass on the ten program cases of shared/testdata/luau: per case, the new
 * objects of after.json that a root reaches are exactly the ones its README says leak (counts and bytes
 * by type, and every group by retention path), a representative leaked object has the retention path the
 * README describes, and what the README says must not be reported is not (weakly held objects, floating
 * garbage, freed objects). Paths are rendered by {@link Case#path}: root name, then each reference's
 * name, or its kind in brackets when it has none.
 */
class LuauLeakCasesTest {

    /** Skips each test, with the reason in the report, when the shared test data is absent. */
    @BeforeEach
    void data() {
        LuauCases.requireData();
    }

    private static Map<String, Long> bytes(Object... kv) {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
        }
        return m;
    }

    /** Nothing else is new, and the count of unreachable objects did not change (no new garbage). */
    private static void noNewGarbage(Case c) {
        assertEquals(List.of(), c.newUnreachable(), "new objects that no root reaches");
        assertEquals(Case.unreachableCount(c.beforeAnalysis), Case.unreachableCount(c.analysis),
            "unreachable objects (unexported roots: fixed strings, type metatables, ...) before vs after");
    }

    /** Objects of before.json that are gone from after.json, as "type label" (label only for strings). */
    private static List<String> freed(Case c) {
        SnapshotDiff back = SnapshotDiff.compare(c.after, c.before);
        List<String> out = new ArrayList<>();
        for (int o = 0; o < c.before.objectCount(); o++) {
            if (back.isNew()[o]) {
                out.add(c.before.type(o) + ("string".equals(c.before.type(o)) ? " '" + c.before.label(o) + "'" : ""));
            }
        }
        out.sort(null);
        return out;
    }

    @Test
    void eventListeners() {
        Case c = LuauCases.get("event-listeners");
        // README: 128 tables + 32 functions + 26 strings = 186 new objects, all retained, nothing freed
        assertEquals(186, c.diff.newCount());
        assertEquals(LuauCases.counts("function", 32, "string", 26, "table", 128), c.countByType(c.newReachable()));
        assertEquals(bytes("function", 1536, "string", 979, "table", 19584), c.bytesByType(c.newReachable()));
        noNewGarbage(c);
        assertEquals(List.of(), freed(c), "README: nothing freed");

        // 16 widgets x (7 tables + 2 closures on the ThemeChanged path + 1 debugInfo value table),
        // 8 dialog titles, 16 titleById strings, 2 trace strings
        String h = "registry/_MODULES/EventBus/ThemeChanged/handlers/[array]";
        assertEquals(LuauCases.lines(
            "16 768 function " + h + "/fn",
            "16 768 function " + h + "/fn/@Widget.luau/connections/locale/fn",
            "8 280 string " + h + "/fn/@Widget.luau/title",
            "2 88 string registry/_MODULES/Widget/debugInfo/[value]/trace",
            "16 611 string registry/_MODULES/Widget/titleById/[array]",
            "16 2816 table " + h,
            "16 4864 table " + h + "/fn/@Widget.luau",
            "16 896 table " + h + "/fn/@Widget.luau/children",
            "16 1792 table " + h + "/fn/@Widget.luau/connections",
            "16 2816 table " + h + "/fn/@Widget.luau/connections/locale",
            "16 2816 table " + h + "/fn/@Widget.luau/style",
            "16 1792 table " + h + "/fn/@Widget.luau/style/colors",
            "16 1792 table registry/_MODULES/Widget/debugInfo/[value]"), c.newReachableByPath(p -> p));

        // representative: the widget of dialog "Settings 3" (its title field), retained by the theme
        // connection's closure through the captured self (an upvalue). The README's "upvalue self" renders
        // as @Widget.luau: the dump has no upvalue names, the reader names a Lua closure's upvalue
        // references by the proto's source (heapgraph.py's grouping)
        int title = c.labelled("string", "Settings 3");
        List<Integer> toTitle = c.referencesTo(title);
        assertEquals(1, toTitle.size());
        int widget = c.sourceOf(toTitle.get(0));
        assertEquals("title", c.after.referenceName(toTitle.get(0)));
        assertEquals(h + "/fn/@Widget.luau", c.path(widget));
        int lastHop = c.analysis.retainedBy()[widget];
        assertEquals("upvalue", c.after.referenceKind(lastHop));
        int closure = c.sourceOf(lastHop);
        assertEquals("function", c.after.type(closure));
        int connection = c.sourceOf(c.analysis.retainedBy()[closure]);
        int handlers = c.at("registry", "_MODULES", "EventBus", "ThemeChanged", "handlers");
        assertEquals(handlers, c.sourceOf(c.analysis.retainedBy()[connection]));
        assertEquals(16, c.referencesFrom(handlers).stream().filter(r -> c.isNew(c.after.referenceTarget(r))).count(),
            "16 theme connections left in handlers");
        // the locale connection was disconnected: LocaleChanged.handlers holds none of the new objects
        int localeHandlers = c.at("registry", "_MODULES", "EventBus", "LocaleChanged", "handlers");
        assertEquals(0, c.referencesFrom(localeHandlers).stream().filter(r -> c.isNew(c.after.referenceTarget(r))).count());

        // weak-key trap: Widget.debugInfo has the widget as a (weak) key; that edge is not the path
        int debugInfo = c.at("registry", "_MODULES", "Widget", "debugInfo");
        List<Integer> weakToWidget = c.referencesTo(widget).stream()
            .filter(r -> c.sourceOf(r) == debugInfo).toList();
        assertEquals(1, weakToWidget.size());
        assertTrue(c.after.isWeak(weakToWidget.get(0)));
        assertEquals("key", c.after.referenceKind(weakToWidget.get(0)));
        long weakKeysToNew = c.referencesFrom(debugInfo).stream()
            .filter(r -> c.after.isWeak(r) && c.isNew(c.after.referenceTarget(r))).count();
        assertEquals(16, weakKeysToNew, "all 16 leaked widgets are weak keys of debugInfo");
        for (int o : c.newReachable()) {
            String p = c.path(o);
            assertTrue(!p.contains("debugInfo/[key]"), p);
        }
        // the value of that entry is strong: retained by debugInfo itself
        int value = c.after.referenceTarget(weakToWidget.get(0) + 1);
        assertEquals("value", c.after.referenceKind(weakToWidget.get(0) + 1));
        assertEquals("registry/_MODULES/Widget/debugInfo/[value]", c.path(value));
    }

    @Test
    void closuresTimers() {
        Case c = LuauCases.get("closures-timers");
        // README: 12 tables, 18 closures, 6 upvalues, 7 strings (6 symbols + the new clock text)
        assertEquals(43, c.diff.newCount());
        assertEquals(LuauCases.counts("function", 18, "string", 7, "table", 12, "upvalue", 6), c.countByType(c.newReachable()));
        noNewGarbage(c);
        // the previous clock text (the empty string) is the only object freed
        assertEquals(List.of("string ''"), freed(c));

        String rec = "registry/_MODULES/Timers/intervals/[array]";
        assertEquals(LuauCases.lines(
            "6 384 function " + rec + "/fn",
            // sample (64 B, 2 upvalues) and render (96 B, 4 upvalues) closures
            "12 960 function " + rec + "/fn/@main.luau",
            // "TICK1".."TICK6" (24 + 5 + 1 bytes each)
            "6 180 string " + rec + "/fn/@main.luau/@main.luau",
            // the clock text, held by the clock interval's shared upvalue
            "1 28 string " + rec + "/fn/@main.luau/[upvalue-object]",
            "6 1056 table " + rec,
            // prices = table.create(64, 0): 48 + 64 * 16 bytes
            "6 6432 table " + rec + "/fn/@main.luau/@main.luau",
            // the count upvalue shared by sample and render
            "6 240 upvalue " + rec + "/fn/@main.luau/@main.luau"), c.newReachableByPath(p -> p));

        // representative: the "TICK4" symbol, reached interval record -> fn -> sample/render closure -> upvalue
        int tick = c.labelled("string", "TICK4");
        assertEquals(rec + "/fn/@main.luau/@main.luau", c.path(tick));
        assertEquals("upvalue", c.after.referenceKind(c.analysis.retainedBy()[tick]));
        int owner = c.sourceOf(c.analysis.retainedBy()[tick]);
        assertEquals("function", c.after.type(owner));
        assertTrue(List.of("sample", "render").contains(c.after.label(owner)), c.after.label(owner));
        // the shared count upvalue object: both closures of a ticker reference the same one
        for (int up : c.select(o -> c.isNew(o) && c.after.type(o).equals("upvalue"))) {
            List<String> users = c.referencesTo(up).stream().map(r -> c.after.label(c.sourceOf(r))).sorted().toList();
            assertEquals(List.of("render", "sample"), users);
        }
        // debug level 1: the spinner coroutine's local (its frames table) has no name
        int spinner = c.select(o -> c.after.type(o).equals("thread") && "@main.luau:14".equals(c.after.label(o))).get(0);
        assertEquals(List.of("frame:@main.luau:14:", "[stack]", "frame:yield"),
            c.referencesFrom(spinner).stream().filter(r -> c.after.referenceKind(r).equals("stack")).map(c::hop).toList());
        // clearInterval only sets cancelled: 6 new records in intervals besides the old clock interval
        int intervals = c.at("registry", "_MODULES", "Timers", "intervals");
        assertEquals(6, c.referencesFrom(intervals).stream().filter(r -> c.isNew(c.after.referenceTarget(r))).count());
    }

    @Test
    void coroutineScheduler() {
        Case c = LuauCases.get("coroutine-scheduler");
        // README: 5 threads, 11 tables, 5 buffers, 5 closures, 5 upvalues = 31 objects
        assertEquals(31, c.diff.newCount());
        assertEquals(LuauCases.counts("buffer", 5, "function", 5, "table", 11, "thread", 5, "upvalue", 5),
            c.countByType(c.newReachable()));
        noNewGarbage(c);
        assertEquals(List.of(), freed(c));

        String list = "registry/_MODULES/Scheduler/waiting/ProfileLoaded";
        assertEquals(LuauCases.lines(
            // scratch = 256-byte buffer: 8 + 256
            "5 1320 buffer " + list + "/[array]/scratch",
            "5 320 function " + list + "/[array]/onProgress",
            "1 176 table " + list,
            "5 880 table " + list + "/[array]/request",
            "5 400 table " + list + "/[array]/request/headers",
            "5 6160 thread " + list + "/[array]",
            // attempts, the mutable upvalue of onProgress
            "5 200 upvalue " + list + "/[array]/onProgress/@main.luau"), c.newReachableByPath(p -> p));

        // representative: a parked thread and the locals on its stack. README: "the locals
        // requestId/route"; requestId is a number, which the dump never writes as a stack slot, so only
        // route appears. (The README's "open":true of the attempts upvalue is not kept in the model.)
        int thread = c.select(o -> c.isNew(o) && c.after.type(o).equals("thread")).get(0);
        assertEquals("@main.luau:5", c.after.label(thread));
        assertEquals(list + "/[array]", c.path(thread));
        List<String> stack = c.referencesFrom(thread).stream()
            .filter(r -> c.after.referenceKind(r).equals("stack")).map(c::hop).toList();
        assertEquals(List.of("frame:@main.luau:5:handleRequest", "route", "request", "scratch", "onProgress",
            "frame:@Scheduler.luau:17:waitFor", "eventName", "list", "frame:yield"), stack);
        int buffer = c.follow(thread, "scratch");
        assertEquals(list + "/[array]/scratch", c.path(buffer));

        // the finished DataReady (/inventory) coroutines are gone: only Heartbeat and ProfileLoaded wait
        int waiting = c.at("registry", "_MODULES", "Scheduler", "waiting");
        assertEquals(List.of("Heartbeat", "ProfileLoaded"),
            c.referencesFrom(waiting).stream().filter(r -> c.after.referenceName(r) != null).map(c::hop).sorted().toList());
        assertEquals(5, c.select(o -> c.isNew(o) && c.after.type(o).equals("thread")).size());
    }

    @Test
    void entitySystem() {
        Case c = LuauCases.get("entity-system");
        // README: 16 goblins x (9 tables + 2 userdata + 1 name string) = 192 objects
        assertEquals(192, c.diff.newCount());
        assertEquals(LuauCases.counts("string", 16, "table", 144, "userdata", 32), c.countByType(c.newReachable()));
        noNewGarbage(c);
        assertEquals(List.of(), freed(c));

        String e = "registry/_MODULES/EntityManager/byId/[array]";
        assertEquals(LuauCases.lines(
            "16 576 string " + e + "/name",
            "16 4864 table " + e,
            "16 2816 table " + e + "/components",
            "16 2816 table " + e + "/components/ai",
            "16 1536 table " + e + "/components/ai/path",
            "48 5376 table " + e + "/components/ai/path/[array]",
            "16 2816 table " + e + "/components/health",
            "16 2816 table " + e + "/components/loot",
            // tag-2 handle without metatable, tag-1 Instance with the shared metatable
            "16 768 userdata " + e + "/components/loot/handle",
            "16 1792 userdata " + e + "/instance"), c.newReachableByPath(p -> p));

        int name = c.labelled("string", "Goblin_w2_5");
        int goblin = c.sourceOf(c.analysis.retainedBy()[name]);
        assertEquals(e, c.path(goblin));
        assertEquals(c.at("registry", "_MODULES", "EntityManager", "byId"), c.sourceOf(c.analysis.retainedBy()[goblin]));
        // despawn removed them from active
        int active = c.at("registry", "_MODULES", "EntityManager", "active");
        assertEquals(0, c.referencesFrom(active).stream().filter(r -> c.isNew(c.after.referenceTarget(r))).count());
        // lastHitBy (weak keys) holds all 16 goblins as weak keys and is never the retaining path
        int lastHitBy = c.at("registry", "_MODULES", "EntityManager", "lastHitBy");
        List<Integer> weakKeys = c.referencesFrom(lastHitBy).stream().filter(c.after::isWeak).toList();
        assertEquals(16, weakKeys.size());
        for (int r : weakKeys) {
            assertEquals("key", c.after.referenceKind(r));
            assertEquals(e, c.path(c.after.referenceTarget(r)));
        }
        for (int o : c.newReachable()) {
            assertFalse(c.path(o).contains("lastHitBy"), c.path(o));
        }
    }

    @Test
    void localizationStrings() {
        Case c = LuauCases.get("localization-strings");
        // README: 32 cache entries = 64 new strings (32 keys + 32 results) in formatCache; nothing else
        assertEquals(64, c.diff.newCount());
        assertEquals(LuauCases.counts("string", 64), c.countByType(c.newReachable()));
        noNewGarbage(c);
        assertEquals(List.of(), freed(c));
        // keys are retained as keys, results under their key's (lossy) text
        assertEquals(LuauCases.lines(
            "32 2308 string registry/_MODULES/Localization/formatCache/<key text>",
            "32 1624 string registry/_MODULES/Localization/formatCache/[key]"),
            c.newReachableByPath(p -> p.replaceFirst("formatCache/de\\|.*", "formatCache/<key text>")));

        // representative: the result for key "greeting" in frame 2 ("Grüß Gott", lossy as ?)
        int cache = c.at("registry", "_MODULES", "Localization", "formatCache");
        int result = c.follow(cache, "de|greeting|2,??n??c??d??");
        assertEquals("registry/_MODULES/Localization/formatCache/de|greeting|2,??n??c??d??", c.path(result));
        assertTrue(c.after.label(result).startsWith("Gr???? Gott"), c.after.label(result));
        // colliding lossy keys ("ключ" and "ЖЖЖЖ" are both ????????): two distinct key strings per frame
        // with the same text, each entry still its own retained pair
        assertEquals(2, c.select(o -> c.isNew(o) && "de|????????|1,??n??c??d??".equals(c.after.label(o))).size());
        assertEquals(2, c.referencesFrom(cache).stream().filter(r -> "de|????????|1,??n??c??d??".equals(c.after.referenceName(r))).count());
        // the 16 KB helpText exists in both snapshots: not new
        assertTrue(c.select(o -> c.isNew(o) && c.after.shallowSize(o) > 1000).isEmpty());
    }

    @Test
    void memoryCategories() {
        Case c = LuauCases.get("memory-categories");
        assertEquals(217, c.diff.newCount());
        assertEquals(LuauCases.counts("string", 89, "table", 128), c.countByType(c.newReachable()));
        noNewGarbage(c);
        // README per category
        Map<Integer, Integer> byCategory = new TreeMap<>();
        for (int o : c.newReachable()) {
            byCategory.merge(c.after.category(o), 1, Integer::sum);
        }
        // 200: 30 samples + 30 timings + 30 labels; 129: 30 entries + 30 lines; 2: 9 x (row, stats, name);
        // 5: 20 entries + 20 texts (churn); 0, 128, 255: nothing
        assertEquals(Map.of(2, 27, 5, 40, 129, 60, 200, 90), byCategory);
        String s = "mainthread/[env]/shared/";
        assertEquals(LuauCases.lines(
            "20 600 string " + s + "Chat/history/[array]/text",
            "30 1410 string " + s + "ChatArchive/[array]/line",
            "9 306 string " + s + "PlayerList/rowsByUserId/[value]/displayName",
            "30 990 string " + s + "Profiler/samples/[array]/label",
            "20 3520 table " + s + "Chat/history/[array]",
            "30 3360 table " + s + "ChatArchive/[array]",
            "9 1584 table " + s + "PlayerList/rowsByUserId/[value]",
            "9 1008 table " + s + "PlayerList/rowsByUserId/[value]/stats",
            "30 5280 table " + s + "Profiler/samples/[array]",
            "30 5280 table " + s + "Profiler/samples/[array]/timings"), c.newReachableByPath(p -> p));
        // the 10 history entries of before.json (and their texts) are freed: bounded churn, not a leak
        List<String> freed = freed(c);
        assertEquals(20, freed.size());
        assertEquals(10, freed.stream().filter(f -> f.equals("table")).count());
        assertEquals(10, freed.stream().filter(f -> f.matches("string 'gg \\d+'")).count());

        int line = c.select(o -> c.isNew(o) && c.after.type(o).equals("string") && c.after.category(o) == 129).get(0);
        assertTrue(c.after.label(line).matches("\\[00\\d\\d] <Player\\d> gg \\d+"), c.after.label(line));
        assertEquals(s + "ChatArchive/[array]/line", c.path(line));
    }

    @Test
    void snapshotFromLua() {
        Case c = LuauCases.get("snapshot-from-lua");
        assertEquals(126, c.diff.newCount());
        assertEquals(LuauCases.counts("function", 1, "string", 41, "table", 83, "thread", 1), c.countByType(c.newReachable()));
        noNewGarbage(c);
        String log = "mainthread/[env]/shared/RequestLog/entries/[array]";
        String cmd = "registry/_SCRIPTS/main.luau";
        assertEquals(LuauCases.lines(
            // the second console command, live on the stacks (not leaks)
            "1 80 function " + cmd + "/worker/frame:@main.luau:15:",
            // the leak: 40 entries, 40 bodies, 40 route strings
            "40 1511 string " + log + "/route",
            // README: "a few argument strings"; the dump has one new one, "after" (the others are
            // constants that exist in both snapshots)
            "1 30 string " + cmd + "/args/[array]",
            "40 7040 table " + log,
            "40 3200 table " + log + "/body",
            "1 80 table " + cmd + "/args",
            "1 112 table " + cmd + "/worker/ctx",
            "1 112 table " + cmd + "/worker/header",
            "1 1232 thread " + cmd + "/worker"), c.newReachableByPath(p -> p));
        assertEquals("after", c.after.label(c.labelled("string", "after")));

        int route = c.labelled("string", "/api/items/17");
        assertEquals(log + "/route", c.path(route));
        // the first command's worker, closure, tables and its "before" argument are freed
        assertEquals(List.of("function", "string 'before'", "table", "table", "table", "thread"), freed(c));
        // the worker's frames, as the README lists them
        int worker = c.at("registry", "_SCRIPTS", "main.luau", "worker");
        List<String> frames = c.referencesFrom(worker).stream().map(c::hop).filter(h -> h.startsWith("frame:")).toList();
        assertEquals(List.of("frame:@main.luau:15:", "frame:@main.luau:7:dumpHeap", "frame:host.snapshot"), frames);
    }

    @Test
    void undoHistory() {
        Case c = LuauCases.get("undo-history");
        // README: exactly 10 000 new tables of 176 bytes; the detached TempGroup subtree is absent
        assertEquals(10_000, c.diff.newCount());
        assertEquals(LuauCases.counts("table", 10_000), c.countByType(c.newReachable()));
        assertEquals(bytes("table", 1_760_000), c.bytesByType(c.newReachable()));
        noNewGarbage(c);
        assertEquals(List.of(), freed(c));
        String head = "mainthread/[env]/shared/openDocument/undoHead";
        int first = c.at("mainthread", "[env]", "shared", "openDocument", "undoHead");
        assertEquals(head, c.path(first));
        // every other record is retained by the prev field of a newer record (checked hop by hop:
        // rendering 10 000 paths of up to 10 000 steps would be quadratic)
        for (int o : c.newReachable()) {
            assertEquals(176, c.after.shallowSize(o));
            if (o != first) {
                int r = c.analysis.retainedBy()[o];
                assertEquals("prev", c.after.referenceName(r));
                assertTrue(c.isNew(c.sourceOf(r)));
            }
        }
        // the chain is 10 000 levels deep: the oldest record is 9 999 prev hops below undoHead
        int last = first;
        for (int i = 0; i < 9_999; i++) {
            last = c.follow(last, "prev");
        }
        assertTrue(c.isNew(last));
        assertEquals(c.analysis.distance()[first] + 9_999, c.analysis.distance()[last]);
        assertEquals(head + "/prev".repeat(9_999), c.path(last));
        assertTrue(c.referencesFrom(last).stream().noneMatch(r -> "prev".equals(c.after.referenceName(r))),
            "the oldest record has no prev");
    }

    @Test
    void weakCaches() {
        Case c = LuauCases.get("weak-caches");
        // README: 66 new objects (30 tables, 18 strings, 12 userdata, 6 buffers), of which 54 reachable
        assertEquals(66, c.diff.newCount());
        assertEquals(LuauCases.counts("buffer", 6, "string", 12, "table", 24, "userdata", 12), c.countByType(c.newReachable()));
        assertEquals(List.of(), freed(c));
        String m = "registry/_MODULES/AssetCache/";
        assertEquals(LuauCases.lines(
            // (a) byUrl entries: pixels (8 + 512 B), texture (dtor userdata, 512 B payload), mips, entry
            "6 3120 buffer " + m + "byUrl/<url>/pixels",
            // (b) owners records: "catalogTileN", the record, its texture: README "48-byte" is the
            // payload; the record size is 16 (header) + 64 (48 + 8 for the destructor, rounded up to 16)
            "6 222 string " + m + "owners/[value]/owner",
            // the url strings: strong keys of byUrl AND of the v-weak textures table (strings are never
            // weak); the first shortest path found is the textures key
            "6 420 string " + m + "textures/[key]",
            "6 1056 table " + m + "byUrl/<url>",
            "6 672 table " + m + "byUrl/<url>/mips",
            "6 672 table " + m + "owners/[value]",
            // stats values of the live textures: values of a k-weak table are strong
            "6 672 table " + m + "stats/[value]",
            "6 3264 userdata " + m + "byUrl/<url>/texture",
            "6 480 userdata " + m + "owners/[value]/texture"),
            c.newReachableByPath(p -> p.replaceAll("https://cdn\\.example\\.com/catalog/item_000[1-6]\\.png", "<url>")));

        // must NOT be reported: 12 unreachable objects of floating garbage (6 "#preview" strings and the
        // 6 {hits, lastUsed} tables of the collected preview textures); no retained size, no path
        List<Integer> garbage = c.newUnreachable();
        assertEquals(LuauCases.counts("string", 6, "table", 6), c.countByType(garbage));
        for (int o : garbage) {
            assertEquals(0, c.analysis.retainedSize()[o]);
            assertEquals(-1, c.analysis.retainedBy()[o]);
            if (c.after.type(o).equals("string")) {
                assertTrue(c.after.label(o).matches("https://cdn\\.example\\.com/catalog/item_000[1-6]\\.png#preview"));
            } else {
                assertEquals(112, c.after.shallowSize(o));
            }
        }
        assertEquals(Case.unreachableCount(c.beforeAnalysis) + 12, Case.unreachableCount(c.analysis));
        // the 6 preview textures, their thumbnails and recent entries are gone: the only new userdata are
        // the 6 byUrl textures and the 6 owners textures (above)
        int thumbnails = c.at("registry", "_MODULES", "AssetCache", "thumbnails");
        int recent = c.at("registry", "_MODULES", "AssetCache", "recent");
        for (int t : List.of(thumbnails, recent)) {
            assertEquals(0, c.referencesFrom(t).stream().filter(r -> c.isNew(c.after.referenceTarget(r))).count());
        }

        // representative of (a): the texture of item_0004, held by its byUrl entry, not by textures
        String url = "https://cdn.example.com/catalog/item_0004.png";
        int texture = c.at("registry", "_MODULES", "AssetCache", "byUrl", url, "texture");
        assertEquals(m + "byUrl/" + url + "/texture", c.path(texture));
        int textures = c.at("registry", "_MODULES", "AssetCache", "textures");
        List<Integer> fromTextures = c.referencesTo(texture).stream().filter(r -> c.sourceOf(r) == textures).toList();
        assertEquals(1, fromTextures.size());
        assertTrue(c.after.isWeak(fromTextures.get(0)), "textures (__mode v) holds the texture weakly");
        int urlString = c.labelled("string", url);
        int byUrl = c.at("registry", "_MODULES", "AssetCache", "byUrl");
        assertTrue(c.referencesTo(urlString).stream().anyMatch(r -> c.sourceOf(r) == byUrl && !c.after.isWeak(r)));

        // representative of (b): owners[tex] = {owner, texture = tex}: the key is weak, but the strong value
        // points back to it (no ephemerons), so the record retains the texture
        int owners = c.at("registry", "_MODULES", "AssetCache", "owners");
        int tile = c.labelled("string", "catalogTile2");
        int record = c.sourceOf(c.analysis.retainedBy()[tile]);
        assertEquals(m + "owners/[value]", c.path(record));
        int ownerTexture = c.follow(record, "texture");
        assertEquals(m + "owners/[value]/texture", c.path(ownerTexture));
        List<Integer> keyRefs = c.referencesTo(ownerTexture).stream().filter(r -> c.sourceOf(r) == owners).toList();
        assertEquals(1, keyRefs.size());
        assertTrue(c.after.isWeak(keyRefs.get(0)));
        assertEquals("key", c.after.referenceKind(keyRefs.get(0)));
    }
}
