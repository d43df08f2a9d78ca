package dev.heapload.cli;

import static dev.heapload.cli.HeapLoadCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/**
 * {@code heapload trend} end to end: the rows of the saved queries {@code trend} and {@code trend-categories} in load
 * order, with and without {@code --category}, the SVG chart (parsed as XML: one point and one bar per snapshot,
 * escaped ids), the load order kept by {@code --replace}, and the errors.
 *
 * <p>Expected values: objects and VM bytes ({@code stats.size}, per-category sizes) from the case READMEs' "Files"
 * sections; shallow bytes recomputed with a Python script summing the {@code size} of every object in the JSON files
 * (memory-categories: 65,959 and 89,422 bytes; event-listeners: 55,147 and 79,118); per-category objects and shallow
 * bytes as in {@code testdata/golden/categories.memory-categories.csv}. Reachable counts are the analysis's, read
 * off a run (they equal the {@code summary} query's).
 */
class TrendCommandTest {

    @TempDir
    static Path tmp;

    static final String ODD_ID = "a<b&\"c";

    static Path bundled(String name) {
        return Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", name);
    }

    static Path sharedCase(String name) {
        String shared = System.getProperty("heapload.shared");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "luau", name);
        Assumptions.assumeTrue(dir != null && Files.isDirectory(dir), "shared test data not found (heapload.shared = "
            + shared + " has no testdata/luau/" + name + "): trend test on " + name + " skipped");
        return dir;
    }

    /** The CSV lines without the loadedAt column (a time of the test run). */
    static List<String> withoutLoadedAt(String csv) {
        List<String> out = new ArrayList<>();
        for (String line : csv.lines().toList()) {
            List<String> cells = new ArrayList<>(List.of(line.split(",", -1)));
            cells.remove(1);
            out.add(String.join(",", cells));
        }
        return out;
    }

    static Document parse(Path svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(Files.readAllBytes(svg)));
    }

    static List<Element> byClass(Document d, String tag, String cls) {
        List<Element> out = new ArrayList<>();
        NodeList all = d.getElementsByTagNameNS("http://www.w3.org/2000/svg", tag);
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if (cls.equals(e.getAttribute("class"))) {
                out.add(e);
            }
        }
        return out;
    }

    static String title(Element e) {
        return e.getElementsByTagNameNS("http://www.w3.org/2000/svg", "title").item(0).getTextContent();
    }

    @Test
    void memoryCategoriesRowsInLoadOrderWithAndWithoutCategory() throws Exception {
        Path dir = sharedCase("memory-categories");
        String db = tmp.resolve("mc").toString();
        Run load = run("--db", db, "--no-progress", dir.resolve("before.json").toString(), dir.resolve("after.json").toString());
        assertEquals(0, load.code(), load.err());
        // a third snapshot, loaded later: the before dump again under another id
        Run third = run("--db", db, "--no-progress", "--name", "before-again", dir.resolve("before.json").toString());
        assertEquals(0, third.code(), third.err());

        Run all = run("trend", "--db", db, "--format", "csv");
        assertEquals(0, all.code(), all.err());
        assertEquals("", all.err());
        assertEquals(List.of(
            "snapshot,vm,objects,bytes,vmBytes,reachableObjects,reachableBytes,deltaObjects,deltaBytes",
            "before,luau,735,65959,88967,670,63467,,",
            "after,luau,932,89422,112430,867,86930,197,23463",
            "before-again,luau,735,65959,88967,670,63467,-197,-23463"), withoutLoadedAt(all.out()));
        assertTrue(all.out().lines().skip(1).allMatch(l -> l.split(",")[1].matches("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z")),
            all.out());

        // category 200 Plugin.Profiler (leak: +90 objects); category 129 Game.ChatLogger (+60): README VM bytes
        Run profiler = run("trend", "--db", db, "--category", "200", "--format", "csv");
        assertEquals(0, profiler.code(), profiler.err());
        assertEquals(List.of(
            "snapshot,vm,category,name,objects,bytes,vmBytes,reachableObjects,reachableBytes,deltaObjects,deltaBytes",
            "before,luau,200,Plugin.Profiler,50,6046,6046,49,5999,,",
            "after,luau,200,Plugin.Profiler,140,18364,18364,139,18317,90,12318",
            "before-again,luau,200,Plugin.Profiler,50,6046,6046,49,5999,-90,-12318"), withoutLoadedAt(profiler.out()));
        Run logger = run("trend", "--db", db, "--category", "129", "--format", "csv");
        assertEquals(List.of(
            "snapshot,vm,category,name,objects,bytes,vmBytes,reachableObjects,reachableBytes,deltaObjects,deltaBytes",
            "before,luau,129,Game.ChatLogger,37,3416,3448,32,3255,,",
            "after,luau,129,Game.ChatLogger,97,8954,8986,92,8793,60,5538",
            "before-again,luau,129,Game.ChatLogger,37,3416,3448,32,3255,-60,-5538"), withoutLoadedAt(logger.out()));
        // a category no snapshot has (a typo, most likely): one line, exit 1, not a table of zeros
        Run none = run("trend", "--db", db, "--category", "77", "--format", "csv");
        assertEquals(1, none.code());
        assertEquals("", none.out());
        assertEquals("heapload: no memory category 77 in any snapshot of the store " + Path.of(db).toAbsolutePath().normalize()
            + " (heapload trend --by-category lists them)\n", none.err());
        // --svg into a directory that does not exist: a usage error before the store is opened
        Run noDir = run("trend", "--db", db, "--svg", Path.of(db).resolve("no").resolve("t.svg").toString());
        assertEquals(2, noDir.code());
        assertTrue(noDir.err().startsWith("heapload: --svg "), noDir.err());

        Run byCategory = run("trend", "--db", db, "--by-category", "--format", "csv");
        assertEquals(0, byCategory.code(), byCategory.err());
        List<String> rows = withoutLoadedAt(byCategory.out());
        assertEquals("snapshot,category,name,objects,bytes,vmBytes,reachableBytes", rows.get(0));
        assertEquals(List.of(
            "before,0,main,516,43328,66256,41377",
            "before,2,CoreScripts.PlayerList,33,3432,3448,3351",
            "before,5,CoreScripts.Chat,54,5282,5314,5176",
            "before,128,Game.Combat,28,2944,2944,2845",
            "before,129,Game.ChatLogger,37,3416,3448,3255",
            "before,200,Plugin.Profiler,50,6046,6046,5999",
            "before,255,Packages.Promise,17,1511,1511,1464",
            "after,0,main,516,43328,66256,41377",
            "after,2,CoreScripts.PlayerList,60,6714,6730,6633",
            "after,5,CoreScripts.Chat,74,7607,7639,7501",
            "after,128,Game.Combat,28,2944,2944,2845",
            "after,129,Game.ChatLogger,97,8954,8986,8793",
            "after,200,Plugin.Profiler,140,18364,18364,18317",
            "after,255,Packages.Promise,17,1511,1511,1464"), rows.subList(1, 15));
        assertEquals(rows.subList(1, 8).stream().map(r -> r.replaceFirst("^before,", "before-again,")).toList(),
            rows.subList(15, 22));
        assertEquals(22, rows.size());

        // the chart: 3 snapshots; 7 categories = the 5 largest + "other (2 categories)" (128 and 255, the smallest)
        Path svg = tmp.resolve("mc.svg");
        Run chart = run("trend", "--db", db, "--svg", svg.toString());
        assertEquals(0, chart.code(), chart.err());
        assertTrue(chart.out().startsWith(" snapshot     | loadedAt "), chart.out());
        Document d = parse(svg);
        assertEquals(3, byClass(d, "circle", "snapshot-point").size());
        assertEquals(3, byClass(d, "rect", "snapshot-bar").size());
        assertEquals(6 * 3, byClass(d, "circle", "category-point").size());
        String text = Files.readString(svg, StandardCharsets.UTF_8);
        for (String legend : List.of("0 main", "200 Plugin.Profiler", "129 Game.ChatLogger", "5 CoreScripts.Chat",
            "2 CoreScripts.PlayerList", "other (2 categories)")) {
            assertTrue(text.contains(">" + legend + "</text>"), legend);
        }
        assertTrue(title(byClass(d, "circle", "snapshot-point").get(1)).contains("objects: 932\nbytes: 87.3 KiB\n"
            + "VM bytes: 110 KiB\nchange from before: +197 objects, +22.9 KiB (23,463 B)"),
            title(byClass(d, "circle", "snapshot-point").get(1)));
        // with --category: that category's figures, no category lines
        Path one = tmp.resolve("mc-200.svg");
        Run chart200 = run("trend", "--db", db, "--category", "200", "--svg", one.toString());
        assertEquals(0, chart200.code(), chart200.err());
        Document d200 = parse(one);
        assertEquals(3, byClass(d200, "circle", "snapshot-point").size());
        assertEquals(0, byClass(d200, "circle", "category-point").size());
        assertTrue(Files.readString(one).contains("heapload trend: memory category 200 (Plugin.Profiler)"));
        assertTrue(title(byClass(d200, "rect", "snapshot-bar").get(1)).contains("objects: 140\n"));
    }

    @Test
    void bundledPairWithAnOddIdAndReplaceKeepsTheLoadOrder() throws Exception {
        String db = tmp.resolve("el").toString();
        Run load = run("--db", db, "--no-progress", bundled("before.json").toString(), bundled("after.json").toString());
        assertEquals(0, load.code(), load.err());
        Run odd = run("--db", db, "--no-progress", "--name", ODD_ID, bundled("after.json").toString());
        assertEquals(0, odd.code(), odd.err());
        // replacing 'before' keeps its place in the load order (first)
        Run replace = run("--db", db, "--no-progress", "--replace", bundled("before.json").toString());
        assertEquals(0, replace.code(), replace.err());

        Run csv = run("trend", "--db", db, "--format", "csv");
        assertEquals(0, csv.code(), csv.err());
        // event-listeners README: 685 and 871 objects, stats.size 78,315 and 102,286; +186 objects (the leak)
        assertEquals(List.of(
            "snapshot,vm,objects,bytes,vmBytes,reachableObjects,reachableBytes,deltaObjects,deltaBytes",
            "before,luau,685,55147,78315,620,52703,,",
            "after,luau,871,79118,102286,806,76674,186,23971",
            "\"a<b&\"\"c\",luau,871,79118,102286,806,76674,0,0"), withoutLoadedAt(csv.out()));
        // the leak history from the summaries: the ThemeChanged group (README: 152 objects, 19,608
        // bytes, 16 handler tables) appears in 'after' (compared with 'before'), the odd id gains nothing; TrendBoltTest
        // gets the same figures over Bolt
        Run leak = run("trend", "--db", db, "--leak", ReportCommandTest.THEME, "--format", "csv");
        assertEquals(0, leak.code(), leak.err());
        assertEquals(List.of(
            "snapshot,pruned,comparedWith,objects,newBytes,retainedBytes,heads",
            "before,false,,,,,",
            "after,false,before,152,19608,19608,16",
            "\"a<b&\"\"c\",false,after,0,0,0,0"), leak.out().lines().toList());
        assertEquals("leak group " + ReportCommandTest.THEME + " (table heads): appeared in after; not growing (did not "
            + "gain objects in each of the last 3 snapshots)\n", leak.err());

        Path svg = tmp.resolve("el.svg");
        Run chart = run("trend", "--db", db, "--svg", svg.toString(), "--format", "json");
        assertEquals(0, chart.code(), chart.err());
        assertTrue(chart.out().contains("\"snapshot\" : \"a<b&\\\"c\""), chart.out());
        String text = Files.readString(svg, StandardCharsets.UTF_8);
        assertFalse(text.contains(ODD_ID), "unescaped id in the SVG");
        assertTrue(text.contains("a&lt;b&amp;&quot;c"), text);
        Document d = parse(svg);
        List<Element> points = byClass(d, "circle", "snapshot-point");
        assertEquals(3, points.size());
        assertEquals(3, byClass(d, "rect", "snapshot-bar").size());
        // one category (0 main): no category lines
        assertEquals(0, byClass(d, "circle", "category-point").size());
        assertTrue(title(points.get(2)).startsWith(ODD_ID + " (loaded "), title(points.get(2)));
        assertTrue(title(points.get(0)).startsWith("before (loaded "), title(points.get(0)));
        // points left to right in load order, the leak's point higher (smaller y) than the baseline's
        double x0 = Double.parseDouble(points.get(0).getAttribute("cx"));
        double x1 = Double.parseDouble(points.get(1).getAttribute("cx"));
        double x2 = Double.parseDouble(points.get(2).getAttribute("cx"));
        assertTrue(x0 < x1 && x1 < x2);
        assertTrue(Double.parseDouble(points.get(1).getAttribute("cy")) < Double.parseDouble(points.get(0).getAttribute("cy")));
        assertEquals(points.get(1).getAttribute("cy"), points.get(2).getAttribute("cy"));
    }

    @Test
    void emptyStoreAndBadOptions() throws Exception {
        Path missing = tmp.resolve("no-store");
        Run none = run("trend", "--db", missing.toString());
        assertEquals(1, none.code());
        assertEquals("heapload: no store at " + missing.toAbsolutePath().normalize()
            + " (name the store with --db DIR or HEAPLOAD_DB; or load a dump first: heapload FILE)\n", none.err());
        assertEquals("", none.out());

        String db = tmp.resolve("emptied").toString();
        assertEquals(0, run("--db", db, "--no-progress", bundled("after.json").toString()).code());
        assertEquals(0, run("snapshots", "--db", db, "--delete", "after").code());
        Path svg = tmp.resolve("empty.svg");
        Run empty = run("trend", "--db", db, "--svg", svg.toString());
        assertEquals(1, empty.code());
        assertEquals("heapload: no snapshots in the store " + Path.of(db).toAbsolutePath().normalize()
            + " (load dumps first: heapload FILE...)\n", empty.err());
        assertEquals("", empty.out());
        assertFalse(Files.exists(svg));

        for (String[] args : List.of(new String[] {"trend", "--db", db, "--category", "-1"},
            new String[] {"trend", "--db", db, "--format", "xml"},
            new String[] {"trend", "--db", db, "--category", "x"},
            new String[] {"trend", "--db", db, "--category", "2", "--by-category"})) {
            Run r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + "\n" + r.err());
            assertTrue(r.err().startsWith("heapload: "), r.err());
        }
    }
}
