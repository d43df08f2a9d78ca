package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Terminal- and spreadsheet-safe output. The fixture is generated from the bundled event-listeners
 * pair: the key {@code ThemeChanged} (on the first leak group's retention path) reads
 * {@code Theme ESC]0;pwned BEL ESC[2J CR Changed LF U+202E =cmd()} in both files, and memory category 0 is named
 * {@code =cmd() ESC[2J} in before.json and {@code @SUM(1) U+202E CR} in after.json. Every text output must show
 * them escaped and hold no raw ESC, BEL, CR or U+202E; CSV string cells starting with = or @ get a leading quote
 * unless --csv-raw. The micropython text is checked with a printed map whose file name holds such characters.
 */
class SafeOutputTest {

    @TempDir
    static Path tmp;

    static Path db;
    static Path before;
    static Path after;

    /** The key as the load summary, tree, table and CSV show it. */
    static final String KEY = "Theme\\x1b]0;pwned\\x07\\x1b[2J\\rChanged\\n\\u202e=cmd()";

    static HeapLoadCommandTest.Run run(String... args) {
        return HeapLoadCommandTest.run(args);
    }

    @BeforeAll
    static void fixture() throws Exception {
        Path src = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        before = tmp.resolve("before.json");
        after = tmp.resolve("after.json");
        write(src.resolve("before.json"), before, "=cmd()\u001b[2J");
        write(src.resolve("after.json"), after, "@SUM(1)\u202e\r");
        db = tmp.resolve("db");
    }

    /** Writes the names raw, as the Luau VM does (its dump escapes nothing). */
    private static void write(Path from, Path to, String categoryName) throws Exception {
        String json = Files.readString(from, StandardCharsets.UTF_8);
        String key = "\"data\":\"ThemeChanged\"";
        String cat = "\"0\":{\"name\":\"main\",";
        assertEquals(1, json.split(java.util.regex.Pattern.quote(key), -1).length - 1, from.toString());
        assertEquals(1, json.split(java.util.regex.Pattern.quote(cat), -1).length - 1, from.toString());
        json = json.replace(key, "\"data\":\"Theme\u001b]0;pwned\u0007\u001b[2J\rChanged\n\u202e=cmd()\"")
            .replace(cat, "\"0\":{\"name\":\"" + categoryName + "\",");
        Files.writeString(to, json, StandardCharsets.UTF_8);
    }

    /** No raw ESC, BEL, CR, U+202E or other control character but LF. */
    static void assertSafe(String what, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean bad = (c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f) || c == '\u202e';
            assertFalse(bad, what + ": raw U+" + String.format("%04X", (int) c) + " at " + i + " in\n" + text);
        }
    }

    private static HeapLoadCommandTest.Run ok(String what, String... args) {
        HeapLoadCommandTest.Run r = run(args);
        assertEquals(0, r.code(), what + ": " + r.err());
        assertSafe(what + " stdout", r.out());
        assertSafe(what + " stderr", r.err());
        return r;
    }

    private static synchronized void load() {
        if (!Files.exists(db)) {
            HeapLoadCommandTest.Run r = ok("load", "--db", db.toString(), "--no-progress", before.toString(), after.toString());
            // the load summary of one file (a pair's summaries are brief, without the tables): category names escaped
            for (Path file : List.of(before, after)) {
                HeapLoadCommandTest.Run one = ok("load " + file.getFileName(), "--db", tmp.resolve("db-one-"
                    + file.getFileName()).toString(), "--no-progress", "--no-graph", file.toString());
                assertTrue(one.out().contains(file == before ? "  0 | =cmd()\\x1b[2J " : "  0 | @SUM(1)\\u202e\\r "),
                    one.out());
            }
            // the leak answer: the retention path's hop with the key
            assertTrue(r.out().contains(KEY), r.out());
        }
    }

    @Test
    void loadSummaryAndLeakAnswer() {
        load();
    }

    @Test
    void tree() {
        HeapLoadCommandTest.Run r = ok("tree", "tree", "--svg", tmp.resolve("tree.svg").toString(), before.toString(),
            after.toString());
        assertTrue(r.out().contains("/" + KEY + "/"), r.out());
    }

    @Test
    void queryTableCsvAndRaw() {
        load();
        HeapLoadCommandTest.Run table = ok("query table", "query", "leak-groups", "-p", "baseline=before", "-p",
            "target=after", "--db", db.toString());
        assertTrue(table.out().contains(KEY), table.out());
        HeapLoadCommandTest.Run csv = ok("query csv", "query", "categories", "-p", "snapshot=after", "-p", "baseline=before",
            "--format", "csv", "--db", db.toString());
        String[] lines = csv.out().split("\n");
        assertTrue(lines[1].startsWith("0,\"'@SUM(1)\\u202e\\r\",871,"), csv.out());
        HeapLoadCommandTest.Run paths = ok("query csv", "query", "leak-groups", "-p", "baseline=before", "-p",
            "target=after", "--format", "csv", "--db", db.toString());
        assertTrue(paths.out().contains(KEY), paths.out());
        HeapLoadCommandTest.Run raw = run("query", "categories", "-p", "snapshot=after", "--format", "csv", "--csv-raw",
            "--db", db.toString());
        assertEquals(0, raw.code(), raw.err());
        assertTrue(raw.out().split("\n")[1].startsWith("0,\"@SUM(1)\u202e\r\",871,"), raw.out());
        HeapLoadCommandTest.Run json = run("query", "categories", "-p", "snapshot=after", "--format", "json",
            "--db", db.toString());
        assertTrue(json.out().contains("\"name\" : \"@SUM(1)\u202e\\r\""), json.out());
    }

    @Test
    void trendTableCsvAndRaw() {
        load();
        HeapLoadCommandTest.Run table = ok("trend", "trend", "--by-category", "--db", db.toString());
        assertTrue(table.out().contains("=cmd()\\x1b[2J"), table.out());
        assertTrue(table.out().contains("@SUM(1)\\u202e\\r"), table.out());
        HeapLoadCommandTest.Run csv = ok("trend csv", "trend", "--by-category", "--format", "csv", "--db", db.toString());
        assertTrue(csv.out().contains(",\"'=cmd()\\x1b[2J\","), csv.out());
        assertTrue(csv.out().contains(",\"'@SUM(1)\\u202e\\r\","), csv.out());
        HeapLoadCommandTest.Run raw = run("trend", "--by-category", "--format", "csv", "--csv-raw", "--db", db.toString());
        assertEquals(0, raw.code(), raw.err());
        assertTrue(raw.out().contains(",=cmd()\u001b[2J,"), raw.out());
        assertTrue(raw.out().contains(",\"@SUM(1)\u202e\r\","), raw.out());
    }

    @Test
    void snapshotsListing() {
        load();
        HeapLoadCommandTest.Run r = ok("snapshots", "snapshots", "--db", db.toString());
        assertTrue(r.out().contains("before"), r.out());
    }

    @Test
    void reportMarkdownJunitHtml() throws Exception {
        load();
        Path out = tmp.resolve("report");
        HeapLoadCommandTest.Run r = run("report", "--baseline-id", "before", "--target-id", "after", "--db", db.toString(),
            "--out", out.toString(), "--format", "html,md,junit");
        assertEquals(0, r.code(), r.err());
        assertSafe("report stdout", r.out());
        String md = Files.readString(out.resolve("report.md"), StandardCharsets.UTF_8);
        assertSafe("report.md", md);
        // in the path's code block: the visible form as the terminal shows it
        assertTrue(md.contains(KEY), md);
        String xml = Files.readString(out.resolve("report.junit.xml"), StandardCharsets.UTF_8);
        assertSafe("report.junit.xml", xml);
        assertTrue(xml.contains("Theme\\x1b]0;pwned\\x07\\x1b[2J\\rChanged\\n\\u202e=cmd()"), xml);
        // well-formed XML 1.0
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(
            xml.getBytes(StandardCharsets.UTF_8)));
        String html = Files.readString(out.resolve("report.html"), StandardCharsets.UTF_8);
        assertFalse(html.contains("\u001b") || html.contains("\u202e") || html.contains("\u0007"), "raw control in html");
        assertTrue(html.contains("Theme\\x1b]0;pwned\\x07\\x1b[2J"), "escaped key in html");
    }

    @Test
    void microPythonText() throws Exception {
        // the printed-map label is the file's name: one with an OSC title sequence and a bidi override in it
        Path map = tmp.resolve("map\u001b]0;pwned\u0007\u202e.txt");
        Files.copy(MicroPythonCommandTest.fixture("v1.18-qemu-mem_info.txt"), map);
        HeapLoadCommandTest.Run r = ok("micropython", "micropython", "--printed-map", map.toString(), "--heap-map");
        assertTrue(r.out().contains("map\\x1b]0;pwned\\x07\\u202e.txt: 1 area(s)"), r.out());
        assertTrue(r.out().matches("(?s).*\\n    T tuple +\\| +111 \\| +113 \\| +1,808\n.*"), r.out());
    }
}
