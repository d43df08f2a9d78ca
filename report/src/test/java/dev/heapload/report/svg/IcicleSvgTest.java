package dev.heapload.report.svg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.SnapshotInfo;

/** {@link IcicleSvg}: equal siblings drawn as one box, boxes named by their path as leak groups name it. */
class IcicleSvgTest {

    /**
     * registry → cache → 100 Points under keys p1..p100 (48 bytes, each with a 32-byte table under key x) and 7
     * tables under keys q1..q7 (16 bytes); registry → settings (64 bytes).
     */
    static HeapSnapshot cacheOfPoints() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        b.defineObject("0x10", "table", 40, -1, null);
        b.addReference(b.objectId("0x20"), value, b.name("cache"), 0);
        b.addReference(b.objectId("0x30"), value, b.name("settings"), 0);
        b.defineObject("0x20", "table", 56, -1, null);
        for (int i = 1; i <= 100; i++) {
            b.addReference(b.objectId("0x" + Integer.toHexString(0x1000 + i)), value, b.name("p" + i), 0);
        }
        for (int i = 1; i <= 7; i++) {
            b.addReference(b.objectId("0x" + Integer.toHexString(0x3000 + i)), value, b.name("q" + i), 0);
        }
        b.defineObject("0x30", "table", 64, -1, null);
        for (int i = 1; i <= 100; i++) {
            b.defineObject("0x" + Integer.toHexString(0x1000 + i), "Point", 48, -1, null);
            b.addReference(b.objectId("0x" + Integer.toHexString(0x2000 + i)), value, b.name("x"), 0);
            b.defineObject("0x" + Integer.toHexString(0x2000 + i), "table", 32, -1, null);
        }
        for (int i = 1; i <= 7; i++) {
            b.defineObject("0x" + Integer.toHexString(0x3000 + i), "table", 16, -1, null);
        }
        b.addRoot("registry", b.objectId("0x10"));
        return b.build(new SnapshotInfo("points", "luau", null, null, -1, Map.of(), List.of()));
    }

    static List<String> titles(String svg) throws Exception {
        Document d = TrendChartSvgTest.parse(svg);
        NodeList t = d.getElementsByTagNameNS(TrendChartSvgTest.SVG, "title");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < t.getLength(); i++) {
            out.add(t.item(i).getTextContent());
        }
        return out;
    }

    @Test
    void manySiblingsDifferingInDigitsAreOneBoxAndBoxesAreNamedByTheirPath() throws Exception {
        ReachabilityTree.Node root = ReachabilityTree.build(cacheOfPoints(), o -> true, ReachabilityTree.Split.NONE);
        StringWriter w = new StringWriter();
        IcicleSvg.write(root, "t", w);
        List<String> titles = titles(w.toString());
        // the root, registry, cache, settings, one box for p1..p100 and one for their x, q1..q7 each
        assertEquals(6 + 7, titles.size(), titles.toString());
        assertTrue(titles.contains("registry/cache/100 \u00d7 Point (8,000 bytes, 96.7%); self: 4,800 bytes in 100 objects"),
            titles.toString());
        assertTrue(titles.contains("registry/cache/100 \u00d7 Point/x (3,200 bytes, 38.7%); self: 3,200 bytes in 100 objects"),
            titles.toString());
        assertTrue(titles.contains("registry/cache/q7 (16 bytes, 0.2%); self: 16 bytes in 1 objects"), titles.toString());
        assertTrue(titles.contains("registry/settings (64 bytes, 0.8%); self: 64 bytes in 1 objects"), titles.toString());
        assertFalse(w.toString().contains("p17"), "no box of its own for one of the hundred");
        assertTrue(w.toString().contains(">100 \u00d7 Point</text>"), "labelled with the count and the type");
    }

    /**
     * A dictionary keyed by numbers, like MicroPython's {@code _cache} (keys 100..1099): {@code count} entries, the
     * first {@code points} of them Points (24 bytes), the rest tuples (16 bytes).
     */
    static HeapSnapshot dictOfNumbers(int count, int points) {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        b.defineObject("0x10", "dict", 40, -1, null);
        for (int i = 0; i < count; i++) {
            b.addReference(b.objectId("0x" + Integer.toHexString(0x1000 + i)), value, b.name(Integer.toString(100 + i)), 0);
        }
        for (int i = 0; i < count; i++) {
            b.defineObject("0x" + Integer.toHexString(0x1000 + i), i < points ? "Point" : "tuple", i < points ? 24 : 16,
                -1, null);
        }
        b.addRoot("_cache", b.objectId("0x10"));
        return b.build(new SnapshotInfo("cache", "micropython", null, null, -1, Map.of(), List.of()));
    }

    @Test
    void aMergedBoxNamesTheTypeOfItsSiblings() throws Exception {
        ReachabilityTree.Node root = ReachabilityTree.build(dictOfNumbers(1_000, 1_000), o -> true,
            ReachabilityTree.Split.NONE);
        assertEquals("Point", root.children().get(0).children().get(0).type());
        assertEquals("dict", root.children().get(0).type());
        StringWriter w = new StringWriter();
        IcicleSvg.write(root, "t", w);
        List<String> titles = titles(w.toString());
        assertEquals(List.of("all (24,040 bytes, 100.0%); self: 0 bytes in 0 objects",
            "_cache (24,040 bytes, 100.0%); self: 40 bytes in 1 objects",
            "_cache/1,000 \u00d7 Point (24,000 bytes, 99.8%); self: 24,000 bytes in 1,000 objects"), titles);
        assertTrue(w.toString().contains(">1,000 \u00d7 Point</text>"), w.toString());

        // types differ: the name pattern
        root = ReachabilityTree.build(dictOfNumbers(10, 4), o -> true, ReachabilityTree.Split.NONE);
        w = new StringWriter();
        IcicleSvg.write(root, "t", w);
        assertEquals("_cache/10 \u00d7 # (192 bytes, 82.8%); self: 192 bytes in 10 objects", titles(w.toString()).get(2));
    }

    @Test
    void aDeepChainKeepsTheLastNamesOfItsPath() throws Exception {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            b.defineObject("0x" + Integer.toHexString(0x1000 + i), "table", 40, -1, null);
            if (i + 1 < n) {
                b.addReference(b.objectId("0x" + Integer.toHexString(0x1001 + i)), value, b.name("next"), 0);
            }
        }
        b.addRoot("head", b.objectId("0x1000"));
        HeapSnapshot s = b.build(new SnapshotInfo("chain", "luau", null, null, -1, Map.of(), List.of()));
        ReachabilityTree.Node root = ReachabilityTree.build(s, o -> true, ReachabilityTree.Split.NONE);
        StringWriter w = new StringWriter();
        IcicleSvg.write(root, "chain", w);
        List<String> titles = titles(w.toString());
        assertEquals(n + 1, titles.size());
        String deepest = titles.get(titles.size() - 1);
        assertTrue(deepest.startsWith("\u2026/" + "next/".repeat(IcicleSvg.PATH_NAMES - 1) + "next (40 bytes"), deepest);
    }
}
