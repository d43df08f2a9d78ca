package dev.heapload.queries;

import static dev.heapload.queries.Golden.assertGolden;
import static dev.heapload.queries.Golden.column;
import static dev.heapload.queries.Golden.params;
import static dev.heapload.queries.Golden.row;
import static dev.heapload.queries.Golden.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * Golden test of every saved query on the bundled event-listeners pair (testdata/luau/event-listeners).
 *
 * <p>Where the numbers come from. The case README (testdata/luau/event-listeners/README.md) states the leak:
 * 16 destroyed widgets (8 dialogs + 8 checkboxes) kept by their ThemeChanged connections in
 * {@code EventBus.ThemeChanged.handlers}; per widget 8 tables and 2 closures; 26 new strings (8 "Settings N"
 * titles, 16 titleById values, 2 trace strings); 128 tables + 32 functions + 26 strings = 186 new objects,
 * nothing freed; per-type counts of both files; {@code stats.size} 78,315 and 102,286. The assertions in each
 * test derive their expected values from those statements (arithmetic shown in comments). The project README
 * gives the new bytes (22,099, equal to heapgraph.py). Shallow byte totals per type and per category were
 * recomputed independently with a short Python script over the JSON files (sum of {@code size} per
 * {@code type}/{@code cat}, and the identity rule for "new"). The golden CSV files hold the whole result, so
 * values the README does not state (addresses, retained sizes) are pinned too: those were read off a run and
 * checked for consistency (the README's retention path, sums equal to the README's totals).
 */
class EventListenersGoldenTest {

    @TempDir
    static Path tmp;

    static GraphStore store;

    @BeforeAll
    static void load() throws Exception {
        store = Golden.loadPair(tmp.resolve("db"), Golden.testdata().resolve("luau").resolve("event-listeners"));
    }

    @AfterAll
    static void close() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    /** What {@code heapload serve} does at start: every saved query plans; a query Cypher rejects is one line. */
    @Test
    void everySavedQueryPlansAndABrokenOneFailsInOneLine() throws Exception {
        int planned = 0;
        for (SavedQuery q : QueryLibrary.builtIn().queries()) {
            QueryRunner.plan(store.database(), q);
            planned++;
        }
        assertEquals(16, planned);
        SavedQuery broken = SavedQuery.parse("""
            // name: broken
            // description: Not Cypher.
            // param: snapshot string
            // columns: n
            MATCH (o:Object {snapshot: $snapshot}) RETURN count(o AS n
            """, "broken.cypher");
        QueryFailedException e = assertThrows(QueryFailedException.class, () -> QueryRunner.plan(store.database(), broken));
        assertTrue(e.getMessage().startsWith("query 'broken' failed: "), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void summary() throws Exception {
        QueryResult r = run(store, "summary", params("snapshot", "after"));
        assertGolden(r, "summary.event-listeners.csv");
        // README: after.json has 871 objects: 274 function, 11 proto, 369 string, 213 table, 2 thread, 2 upvalue
        assertEquals(871L, row(r, "by", "all").get("objects"));
        assertEquals(List.of("", "table", "function", "string", "proto", "thread", "upvalue", "0 main"), column(r, "key"));
        assertEquals(List.of(871L, 213L, 274L, 369L, 11L, 2L, 2L, 871L), column(r, "objects"));
        // shallow bytes recomputed from the JSON: 79,118 in total
        assertEquals(79118L, row(r, "by", "all").get("bytes"));
    }

    @Test
    void typeHistogram() throws Exception {
        QueryResult r = run(store, "type-histogram", params("snapshot", "after"));
        assertGolden(r, "type-histogram.event-listeners.csv");
        assertEquals(213L, row(r, "type", "table").get("objects"));
        assertEquals(43456L, row(r, "type", "table").get("bytes"));
    }

    @Test
    void typeHistogramDiff() throws Exception {
        QueryResult r = run(store, "type-histogram-diff", params("baseline", "before", "target", "after"));
        assertGolden(r, "type-histogram-diff.event-listeners.csv");
        // README: tables 85 -> 213, functions 242 -> 274, strings 343 -> 369; nothing freed, so new = delta
        assertEquals(128L, row(r, "type", "table").get("deltaObjects"));
        assertEquals(128L, row(r, "type", "table").get("newObjects"));
        assertEquals(32L, row(r, "type", "function").get("newObjects"));
        assertEquals(26L, row(r, "type", "string").get("newObjects"));
        assertEquals(0L, row(r, "type", "proto").get("newObjects"));
    }

    @Test
    void newObjects() throws Exception {
        QueryResult r = run(store, "new-objects", params("baseline", "before", "target", "after"));
        assertGolden(r, "new-objects.event-listeners.csv");
        Map<String, Object> all = row(r, "type", "all");
        assertEquals(128L + 32L + 26L, all.get("objects"));
        assertEquals(22099L, all.get("bytes"));
        assertEquals(186L, all.get("reachableObjects"), "README: the whole leak is retained");
        assertEquals(0L, all.get("reusedAddresses"));
    }

    @Test
    void leakGroups() throws Exception {
        QueryResult r = run(store, "leak-groups", params("baseline", "before", "target", "after"));
        assertGolden(r, "leak-groups.event-listeners.csv");
        assertEquals(3, r.rows().size());
        // the ThemeChanged handlers group: 16 heads (the theme Connections in the handlers array) holding the
        // 16 widgets: per widget 8 tables + 2 closures, minus the debugInfo value table (retained by debugInfo
        // itself, README's weak-reference trap) = 9, plus the 8 "Settings N" titles: 16 * 9 + 8 = 152
        List<Object> first = r.rows().get(0);
        assertEquals(16L * 9 + 8, first.get(0));
        assertEquals(16L, first.get(3));
        assertEquals(List.of("root registry (table)", "_MODULES in table", "EventBus in table", "ThemeChanged in table",
            "handlers in table", "[array] in table"), first.get(5));
        // the 16 debugInfo value tables and the 2 trace strings; the 16 titleById strings
        assertEquals(16L + 2, r.rows().get(1).get(0));
        assertEquals(16L, r.rows().get(2).get(0));
        assertEquals(186L, column(r, "objects").stream().mapToLong(o -> (Long) o).sum());
        assertEquals(22099L, column(r, "newBytes").stream().mapToLong(o -> (Long) o).sum());
    }

    @Test
    void growth() throws Exception {
        QueryResult r = run(store, "growth", params("baseline", "before", "target", "after"));
        assertGolden(r, "growth.event-listeners.csv");
        // 16 new widgets: +16 entries in debugInfo (keys), titleById (values) and ThemeChanged.handlers
        assertEquals(List.of(16L, 16L, 16L, 0L, 0L), column(r, "refsGrowth"));
        assertEquals(List.of("registry", "_MODULES", "EventBus", "ThemeChanged", "handlers"), r.rows().get(2).get(10));
    }

    @Test
    void whyAlive() throws Exception {
        // the "Settings 3" dialog widget
        QueryResult r = run(store, "why-alive", params("snapshot", "after", "address", "0x56013833b340"));
        assertGolden(r, "why-alive.event-listeners.csv");
        // README path: registry -> _MODULES -> EventBus -> ThemeChanged -> handlers -> connection -> fn -> upvalue self
        // (the upvalue reference is named by the function's source, @Widget.luau)
        assertEquals(List.of("root registry", "_MODULES", "EventBus", "ThemeChanged", "handlers", "[array]", "fn", "@Widget.luau"),
            column(r, "via").subList(0, 8));
        // any case, with or without 0x, leading zeros: the same rows
        for (String spelling : List.of("56013833B340", "0X56013833B340", "0x000056013833b340", " 56013833b340 ")) {
            assertEquals(r.rows(), run(store, "why-alive", params("snapshot", "after", "address", spelling)).rows(), spelling);
        }
    }

    @Test
    void referrers() throws Exception {
        // a Connection in EventBus.ThemeChanged.handlers: the handlers array (its retention path's last hop) and the
        // widget's connections table (`theme`); the widget itself: its two closures' upvalues and the weak key of
        // Widget.debugInfo (README's weak-reference trap), weak last
        assertGolden(run(store, "referrers", params("snapshot", "after", "address", "0x56013833b190")),
            "referrers.event-listeners.csv");
        QueryResult widget = run(store, "referrers", params("snapshot", "after", "address", "0x56013833B340"));
        assertEquals(List.of("0x56013833b1c0", "0x56013833b220", "0x56013833c4e0"), column(widget, "address"));
        assertEquals(List.of(false, false, true), column(widget, "weak"));
        assertEquals(List.of("upvalue", "upvalue", "key"), column(widget, "kind"));
    }

    @Test
    void weakOnly() throws Exception {
        QueryResult r = run(store, "weak-only", params("snapshot", "after"));
        assertGolden(r, "weak-only.event-listeners.csv");
        // README: the widgets are weak keys of debugInfo but strongly retained through handlers: not weak-only;
        // no other object of after.json is held by a weak reference alone
        assertEquals(List.of(), r.rows());
    }

    @Test
    void unreachable() throws Exception {
        QueryResult r = run(store, "unreachable", params("snapshot", "after"));
        assertGolden(r, "unreachable.event-listeners.csv");
        // summary's unreachable bytes equal these
        assertEquals(2444L, column(r, "bytes").stream().mapToLong(o -> (Long) o).sum());
    }

    @Test
    void categories() throws Exception {
        QueryResult r = run(store, "categories", params("snapshot", "after", "baseline", "before"));
        assertGolden(r, "categories.event-listeners.csv");
        Map<String, Object> main = row(r, "category", 0L);
        assertEquals("main", main.get("name"));
        assertEquals(102286L, main.get("vmBytes"));        // README: stats.size of after.json
        assertEquals(78315L, main.get("baselineVmBytes")); // README: stats.size of before.json
        assertEquals(102286L - 78315L, main.get("deltaVmBytes"));
        assertEquals(186L, main.get("newObjects"));
        assertEquals(0L, main.get("freedObjects"));        // README: nothing freed
        QueryResult alone = run(store, "categories", params("snapshot", "after"));
        assertEquals(null, row(alone, "category", 0L).get("deltaBytes"));
    }

    @Test
    void largestRetainers() throws Exception {
        QueryResult r = run(store, "largest-retainers", params("snapshot", "after", "top", "5"));
        assertGolden(r, "largest-retainers.event-listeners.csv");
        // the leak dominates: the ThemeChanged signal and its handlers list retain the most
        assertEquals(List.of("registry", "_MODULES", "EventBus", "ThemeChanged"), r.rows().get(0).get(5));
        assertTrue((Long) r.rows().get(1).get(4) > 16L * 1000, "handlers retain the 16 widgets");
    }
}
