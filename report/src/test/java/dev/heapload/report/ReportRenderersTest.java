package dev.heapload.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import dev.heapload.analysis.PathHop;
import dev.heapload.queries.QueryResult;

/** The HTML (template), Markdown and JUnit XML (StAX) forms of a constructed report: verdicts, escaping, layout. */
class ReportRenderersTest {

    static final String HOSTILE = "<script>alert(1)</script>\u001b]0;x\u0007 & \"q\" \u202e";

    static LeakReport report(List<LeakReport.GateResult> gates, int groups) {
        LeakReport.Snapshot b = new LeakReport.Snapshot("before", "luau", "/d/before.json", "aa", 10, 1000);
        LeakReport.Snapshot t = new LeakReport.Snapshot("after", "luau", "/d/after.json", "bb", 20, 2000);
        List<LeakReport.Group> list = groups == 0 ? List.of() : List.of(new LeakReport.Group(1, 3, 120, 150, 1, "table",
            List.of("root registry (table)", HOSTILE + " in table"),
            List.of(new PathHop("registry", PathHop.ROOT_KIND, "name", "table"), new PathHop(HOSTILE, "value", "string", "table")),
            "registry/" + HOSTILE, "0123456789abcdef", null, null,
            gates.stream().anyMatch(LeakReport.GateResult::failed) ? List.of("leak-groups>0") : List.of(), "0x1234"));
        LeakReport.Headline hl = new LeakReport.Headline("luau", 10, 1000, 0, 3, 120, 150, groups, 0, false);
        QueryResult rows = new QueryResult(List.of("name", "bytes"), List.of(List.of(HOSTILE, 5L)), false);
        List<LeakReport.Section> sections = List.of(
            new LeakReport.Section("@headline", "Headline", Map.of(), null, 0, null),
            new LeakReport.Section("@leak-groups", "Leak groups", Map.of(), null, 0, null),
            new LeakReport.Section("categories", "Categories", Map.of("target", "after"), rows, 1, null));
        return new LeakReport("nightly", "Nightly", "2026-12-02T00:00:00Z", "heapload test", b, t, hl, list, null, gates,
            sections, null, "nothing to draw");
    }

    @Test
    void withoutGatesLeakGroupsAreAWarningNeverAPass() {
        String html = ReportHtml.render(report(List.of(), 1));
        assertTrue(html.contains("<p class=\"verdict warn\">1 leak group(s) to review (0 known); no gates given "
            + "(--fail-on).</p>"), html);
        assertFalse(html.contains("verdict pass"), html);
        assertTrue(ReportMarkdown.render(report(List.of(), 1)).contains(
            "**WARNING**: 1 leak group(s) to review (0 known); no gates given (--fail-on).\n"));
        String none = ReportHtml.render(report(List.of(), 0));
        assertTrue(none.contains("<p class=\"verdict neutral\">No leak groups (0 known); no gates given (--fail-on).</p>"),
            none);
        String passed = ReportHtml.render(report(List.of(new LeakReport.GateResult("leak-groups>5", "leak-groups", ">", 5, 1,
            false)), 1));
        assertTrue(passed.contains("<p class=\"verdict pass\">PASSED</p>\n<ul>\n<li>passed: <code>leak-groups&gt;5</code> "
            + "(leak-groups = 1)</li>\n</ul>"), passed);
    }

    @Test
    void everyDumpStringIsEscapedByTheTemplateAndTablesScrollInTheirBox() {
        String html = ReportHtml.render(report(List.of(), 1));
        String escaped = "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b]0;x\\x07 &amp; &quot;q&quot; \\u202e";
        assertTrue(html.contains("<pre class=\"path\">root registry (table)\n" + escaped + " in table</pre>"), html);
        assertTrue(html.contains("<p class=\"name\">path <code>registry/" + escaped + "</code></p>"), html);
        assertTrue(html.contains("<div class=\"table\"><table><thead><tr><th>name</th><th>bytes</th></tr></thead><tbody>\n"
            + "<tr><td class=\"t\">" + escaped + "</td><td class=\"n\">5</td></tr>\n</tbody></table></div>"), html);
        assertTrue(html.contains("<p class=\"meta\">saved query <code>categories</code> <code>target=after</code></p>"), html);
        assertFalse(html.contains("<script>alert") || html.contains("\u001b") || html.contains("\u202e"), html);
        assertFalse(html.contains("<script"), "no script element without an icicle graph");
    }

    @Test
    void junitXmlWrittenByStaxParsesAndShowsControlCharacters() throws Exception {
        LeakReport r = report(List.of(new LeakReport.GateResult("leak-groups>0", "leak-groups", ">", 0, 1, true)), 1);
        String xml = ReportJunit.render(r);
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        Document d = f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        Element suites = d.getDocumentElement();
        assertEquals("testsuites", suites.getTagName());
        assertEquals("2", suites.getAttribute("tests"));
        assertEquals("2", suites.getAttribute("failures"));
        Element groupCase = (Element) d.getElementsByTagName("testcase").item(0);
        assertEquals("#1 registry/<script>alert(1)</script>\\x1b]0;x\\x07 & \"q\" \\u202e [0123456789abcdef]",
            groupCase.getAttribute("name"));
        Element failure = (Element) groupCase.getElementsByTagName("failure").item(0);
        assertEquals("breaks leak-groups>0: 1 table head(s), 3 objects, 120 new bytes, 150 retained bytes",
            failure.getAttribute("message"));
        assertEquals("root registry (table)\n<script>alert(1)</script>\\x1b]0;x\\x07 & \"q\" \\u202e in table",
            failure.getTextContent());
        Element gateCase = (Element) d.getElementsByTagName("testcase").item(1);
        assertEquals("leak-groups>0", gateCase.getAttribute("name"));
        assertEquals("leak-groups = 1", ((Element) gateCase.getElementsByTagName("failure").item(0)).getAttribute("message"));
    }
}
