package dev.heapload.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.queries.QueryResult;

/**
 * The report ranks and gates by net growth: a replaced group (churn) is listed apart in every format, one line, and
 * never counts for a gate; the net-objects and net-bytes gates measure the leak groups' growth. Rows as
 * {@code leak-groups} returns them for memory-categories s2 → s3 (testdata/luau/memory-categories-steps): three
 * growing leaks and the chat history replaced.
 */
class ReplacedGroupsTest {

    private static final List<String> COLUMNS = List.of("objects", "newBytes", "retainedBytes", "heads", "headType",
        "path", "example", "verdict", "netObjects", "netBytes", "freedObjects", "freedBytes", "baselineHeads", "freedHeads");

    private static List<Object> row(long objects, long bytes, long heads, String last, String example, String verdict,
                                    long net, long netBytes, long freed, long freedBytes, long before) {
        return List.of(objects, bytes, bytes, heads, "table",
            List.of("root mainthread (thread)", "[env] in thread", "shared in table", last, "[array] in table"), example,
            verdict, net, netBytes, freed, freedBytes, before, verdict.equals("replaced") ? 20L : 0L);
    }

    private static final QueryResult ROWS = new QueryResult(COLUMNS, List.of(
        row(90, 11_550, 30, "samples in table", "0x1", "growing", 90, 11_550, 0, 0, 40),
        row(60, 4_770, 30, "ChatArchive in table", "0x2", "growing", 60, 4_770, 0, 0, 40),
        row(27, 2_898, 9, "rowsByUserId in table", "0x3", "growing", 27, 2_898, 0, 0, 12),
        row(40, 4_120, 20, "history in table", "0x4", "replaced", 0, 0, 40, 4_120, 20)), false);

    private static LeakReport report(List<String> gateExpressions) {
        List<Gate> gates = gateExpressions.stream().map(Gate::parse).toList();
        List<LeakReport.GateResult> results = new ArrayList<>();
        List<LeakReport.Group> groups = LeakReport.groups(ROWS, KnownLeaks.none(), null, gates, results);
        LeakReport.Snapshot b = new LeakReport.Snapshot("s2", "luau", "/d/s2.json", "aa", 932, 99_366);
        LeakReport.Snapshot t = new LeakReport.Snapshot("s3", "luau", "/d/s3.json", "bb", 1_129, 120_762);
        LeakReport.Headline hl = new LeakReport.Headline("luau", 217, 23_338, 0, 177, 19_218, 19_218, 3, 0, false, 177,
            19_218, 1);
        return new LeakReport("nightly", "Nightly", "2026-12-04T00:00:00Z", "heapload test", b, t, hl, groups, null,
            results, List.of(new LeakReport.Section("@leak-groups", "Leak groups", Map.of(), null, 0, null)), null, "none");
    }

    @Test
    void replacedGroupsAreNeverGated() {
        LeakReport r = report(List.of("leak-groups>3", "new-objects>177", "net-objects>=177", "net-bytes>19218"));
        assertEquals(List.of(3L, 177L, 177L, 19_218L), r.gates().stream().map(LeakReport.GateResult::actual).toList());
        assertEquals(List.of(false, false, true, false), r.gates().stream().map(LeakReport.GateResult::failed).toList());
        assertEquals(3, r.unknownGroups().size());
        assertEquals(1, r.replacedGroups().size());
        assertTrue(r.replacedGroups().get(0).brokenGates().isEmpty());
        assertEquals("growing: net +90 objects, +11,550 bytes (40 at this path in the baseline; 0 objects, 0 bytes freed)",
            r.unknownGroups().get(0).growthSummary());
    }

    @Test
    void everyFormatListsTheReplacedGroupApartInOneLine() throws Exception {
        LeakReport r = report(List.of("net-bytes>0"));
        String line = "20 table head(s): 40 new objects (4,120 bytes) in place of 40 freed (4,120 bytes), net +0 objects, "
            + "+0 bytes; path root mainthread (thread) > [env] in thread > shared in table > history in table > [array] in table";
        String md = ReportMarkdown.render(r);
        assertTrue(md.contains("### Replaced, not leaks (1; churn: new objects took the place of freed ones at the same "
            + "path)\n\n- " + ReportMarkdown.text(line) + "\n"), md);
        assertTrue(md.contains("### Leak groups (3)"), md);
        String html = ReportHtml.render(r);
        assertTrue(html.contains("<h3 id=\"replaced\">Replaced, not leaks (1; churn: new objects took the place of freed "
            + "ones at the same path, never fail a gate)</h3>\n<ul class=\"replaced\">\n<li><code>"
            + line.replace(">", "&gt;") + "</code></li>\n</ul>"), html);
        String xml = ReportJunit.render(r);
        assertTrue(xml.contains("<skipped message=\"replaced, not a leak (churn): " + line.replace(">", "&gt;") + "\"/>"),
            xml);
        assertTrue(xml.contains("skipped=\"1\""), xml);
        var json = ReportJson.tree(r);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> groups = (List<Map<String, Object>>) json.get("leakGroups");
        assertEquals(List.of("growing", "growing", "growing", "replaced"), groups.stream().map(g -> g.get("verdict")).toList());
        assertEquals(0L, groups.get(3).get("netObjects"));
        assertEquals(40L, groups.get(3).get("freedObjects"));
        @SuppressWarnings("unchecked")
        Map<String, Object> head = (Map<String, Object>) json.get("headline");
        assertEquals(1, head.get("replacedGroups"));
        assertEquals(19_218L, head.get("netBytes"));
        // the three leaks grow: net-bytes>0 fails, broken by each of them, not by the replaced history
        assertFalse(r.passed());
        assertEquals(List.of(List.of("net-bytes>0"), List.of("net-bytes>0"), List.of("net-bytes>0"), List.of()),
            r.groups().stream().map(LeakReport.Group::brokenGates).toList());
    }
}
