package dev.heapload.report.svg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import dev.heapload.queries.QueryResult;

/** {@link TrendChartSvg} on constructed rows: many snapshots and categories, hostile names, the value axes. */
class TrendChartSvgTest {

    static final String SVG = "http://www.w3.org/2000/svg";

    static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    static int count(Document d, String tag, String cls) {
        NodeList all = d.getElementsByTagNameNS(SVG, tag);
        int n = 0;
        for (int i = 0; i < all.getLength(); i++) {
            if (cls.equals(((Element) all.item(i)).getAttribute("class"))) {
                n++;
            }
        }
        return n;
    }

    @Test
    void manySnapshotsEightCategoriesAndHostileNames() throws Exception {
        List<List<Object>> trend = new ArrayList<>();
        List<List<Object>> cats = new ArrayList<>();
        int n = 60;
        for (int i = 0; i < n; i++) {
            String id = i == 7 ? "<script>alert(1)</script>\u0001\uD800" : "night-" + i;
            trend.add(Arrays.asList(id, "2026-11-30T20:00:00Z", "luau", null, null, 1000L + i, 100_000L + 1000L * i,
                200_000L + 1000L * i, 900L, 90_000L, null, null));
            for (long c = 0; c < 8; c++) {
                // category c has (c + 1) × 1000 bytes, growing by c per snapshot; category 3's name is hostile
                cats.add(Arrays.asList(id, "2026-11-30T20:00:00Z", c, c == 3 ? "Evil\"&<b>" : "cat" + c, 10L,
                    (c + 1) * 1000 + c * i, null, 0L));
            }
        }
        QueryResult t = new QueryResult(List.of("snapshot", "loadedAt", "vm", "category", "name", "objects", "bytes",
            "vmBytes", "reachableObjects", "reachableBytes", "deltaObjects", "deltaBytes"), trend, false);
        QueryResult c = new QueryResult(List.of("snapshot", "loadedAt", "category", "name", "objects", "bytes", "vmBytes",
            "reachableBytes"), cats, false);
        String svg = TrendChartSvg.render(t, c, "title with <tags> & \"quotes\"");
        Document d = parse(svg);
        assertEquals(n, count(d, "circle", "snapshot-point"));
        assertEquals(n, count(d, "rect", "snapshot-bar"));
        // 5 largest categories (7, 6, 5, 4, 3) and "other (3 categories)"
        assertEquals(6 * n, count(d, "circle", "category-point"));
        assertTrue(svg.contains(">other (3 categories)</text>"), svg);
        assertTrue(svg.contains(">3 Evil&quot;&amp;&lt;b&gt;</text>"), svg);
        assertFalse(svg.contains("<script"), "unescaped script tag");
        assertFalse(svg.contains("\u0001") || svg.contains("\uD800"), "characters XML forbids");
        assertTrue(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;\\x01\\ud800"), "escaped id, control characters visible");
        assertTrue(svg.contains("title with &lt;tags&gt; &amp; &quot;quotes&quot;"));
        // 60 snapshots: every 3rd one labelled on the x axis (at most 25 labels)
        int labels = 0;
        NodeList texts = d.getElementsByTagNameNS(SVG, "text");
        for (int i = 0; i < texts.getLength(); i++) {
            if (((Element) texts.item(i)).getAttribute("transform").startsWith("rotate(")) {
                labels++;
            }
        }
        assertEquals(20, labels);
        assertFalse(svg.contains("<script>") || svg.contains(" id=\""), "no scripts, no ids");
    }

    @Test
    void noSnapshotsAndMismatchedSeries() throws Exception {
        String svg = TrendChartSvg.render(List.of(), List.of(), "empty");
        assertTrue(parse(svg).getDocumentElement().getTextContent().contains("no snapshots in the store"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrendChartSvg.render(
            List.of(new TrendChartSvg.Snapshot("a", null, 1L, 2L, null)),
            List.of(new TrendChartSvg.CategorySeries("0 main", new long[] {1, 2})), "x"));
        assertEquals("category series '0 main' has 2 values for 1 snapshots", e.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> TrendChartSvg.render(
            new QueryResult(List.of("snapshot"), List.of(), false), null, "x"));
        assertTrue(missing.getMessage().startsWith("the rows have no column 'loadedAt'"), missing.getMessage());
    }

    @Test
    void valueAxesStepOnRoundValues() {
        // memory-categories after: 112,430 VM bytes → 0, 50, 100, 150 KiB; 932 objects → 0 … 1,000 by 200
        TrendChartSvg.Scale bytes = TrendChartSvg.Scale.of(112_430, true);
        assertEquals("KiB", bytes.unitName());
        assertEquals(50, bytes.step());
        assertEquals(3, bytes.ticks());
        assertEquals("150 KiB", bytes.label(3));
        TrendChartSvg.Scale objects = TrendChartSvg.Scale.of(932, false);
        assertEquals(200, objects.step());
        assertEquals(5, objects.ticks());
        assertEquals("1,000", objects.label(5));
        assertEquals("0", objects.label(0));
        assertEquals(3, TrendChartSvg.Scale.of(3, false).ticks());
        assertEquals(1, TrendChartSvg.Scale.of(0, true).ticks());
        TrendChartSvg.Scale mib = TrendChartSvg.Scale.of(1_500_000, true);
        assertEquals(0.5, mib.step());
        assertEquals(3, mib.ticks());
        assertEquals("1.5 MiB", mib.label(3));
    }
}
