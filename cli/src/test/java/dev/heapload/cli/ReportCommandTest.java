package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import dev.heapload.report.KnownLeaks;
import dev.heapload.report.LeakFingerprint;
import dev.heapload.report.ReportJson;

/**
 * {@code heapload report} in-process on the bundled event-listeners pair (3 leak groups: the 16 widgets held by
 * {@code EventBus.ThemeChanged.handlers}, 152 objects, 19,608 bytes; the 16 {@code Widget.debugInfo} values; the 16
 * {@code titleById} strings, per the case README): the four formats, the JSON schema, fingerprints, gates and exit
 * codes, known leaks, {@code --previous}.
 */
class ReportCommandTest {

    @TempDir
    static Path tmp;

    static Path db;
    static Path pair;
    static final ObjectMapper JSON = new ObjectMapper();

    static final String THEME = "c0694a7d75b1bfb5";
    static final String DEBUG_INFO = "009a9ed0a7f4e8c3";
    static final String TITLES = "51538f12e06c1c47";

    static HeapLoadCommandTest.Run run(String... args) {
        return HeapLoadCommandTest.run(args);
    }

    @BeforeAll
    static void loadByReport() {
        pair = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = run("report", "--db", db.toString(), "--out", tmp.resolve("first").toString(),
            pair.resolve("before.json").toString(), pair.resolve("after.json").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("loaded " + pair.resolve("before.json") + " as snapshot 'before'"), r.err());
        assertTrue(r.out().contains("report: after relative to before: 186 new objects, 22,099 new bytes; 3 leak group(s) "
            + "(186 objects, 22,099 bytes, 22,011 retained bytes), 0 known"), r.out());
    }

    /** Runs a report by ids on the loaded pair into a fresh folder; returns the run and the folder. */
    static Result report(String name, String... extra) {
        Path out = tmp.resolve(name);
        List<String> args = new ArrayList<>(List.of("report", "--db", db.toString(), "--out", out.toString(),
            "--baseline-id", "before", "--target-id", "after"));
        args.addAll(List.of(extra));
        return new Result(run(args.toArray(String[]::new)), out);
    }

    record Result(HeapLoadCommandTest.Run run, Path out) {
        JsonNode json() throws Exception {
            return JSON.readTree(out.resolve("report.json").toFile());
        }
    }

    static void assertValid(Path json) throws Exception {
        Schema schema;
        try (InputStream in = ReportCommandTest.class.getClassLoader().getResourceAsStream(ReportJson.SCHEMA_RESOURCE)) {
            schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
        }
        var errors = schema.validate(Files.readString(json), InputFormat.JSON);
        assertTrue(errors.isEmpty(), json + " does not match report.schema.json: " + errors);
    }

    @Test
    void sameFilesAgainReuseTheStoredSnapshots() {
        HeapLoadCommandTest.Run r = run("report", "--db", db.toString(), "--out", tmp.resolve("again").toString(),
            "--format", "json", pair.resolve("before.json").toString(), pair.resolve("after.json").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("is snapshot 'before' in the store (same SHA-256): reused"), r.err());
        assertTrue(r.err().contains("is snapshot 'after' in the store (same SHA-256): reused"), r.err());
        assertFalse(r.err().contains("loaded"), r.err());
    }

    @Test
    void jsonMatchesItsSchemaAndCarriesTheGroups() throws Exception {
        Result r = report("json", "--format", "json");
        assertEquals(0, r.run().code(), r.run().err());
        assertValid(r.out().resolve("report.json"));
        JsonNode j = r.json();
        assertEquals(1, j.get("schemaVersion").asInt());
        assertEquals("nightly", j.get("report").asText());
        assertEquals("luau", j.at("/headline/vm").asText());
        assertEquals(186, j.at("/headline/newObjects").asLong());
        assertEquals(22099, j.at("/headline/newBytes").asLong());
        assertEquals(22011, j.at("/headline/newRetainedBytes").asLong());
        assertEquals(3, j.at("/headline/leakGroups").asLong());
        JsonNode g = j.get("leakGroups").get(0);
        assertEquals(THEME, g.get("fingerprint").asText());
        assertEquals("registry/_MODULES/EventBus/ThemeChanged/handlers/[array]", g.get("name").asText());
        assertEquals(152, g.get("objects").asLong());
        assertEquals(19608, g.get("newBytes").asLong());
        assertEquals(16, g.get("heads").asLong());
        assertEquals("table", g.get("headType").asText());
        assertEquals(List.of("root registry (table)", "_MODULES in table", "EventBus in table", "ThemeChanged in table",
            "handlers in table", "[array] in table"), JSON.convertValue(g.get("path"), List.class));
        assertEquals(DEBUG_INFO, j.get("leakGroups").get(1).get("fingerprint").asText());
        assertEquals(TITLES, j.get("leakGroups").get(2).get("fingerprint").asText());
        assertFalse(j.has("resolvedLeakGroups"));
        // the sections of the nightly report, in order, with the query sections' rows
        List<String> whats = new ArrayList<>();
        j.get("sections").forEach(s -> whats.add(s.get("what").asText()));
        assertEquals(List.of("@headline", "@leak-groups", "@icicle", "categories", "type-histogram-diff",
            "@class-histogram", "largest-retainers", "@history"), whats);
        JsonNode histogram = j.get("sections").get(4);
        assertEquals("table", histogram.at("/rows/0/0").asText());
        assertEquals(128, histogram.at("/rows/0/3").asLong(), "table objects: 213 - 85");
        // the classes, largest growth of retained bytes first: the 3 Signal tables (+20,120 retained bytes), the
        // Connection tables (metatable {Disconnect}) 8 in 'before', 40 in 'after'
        JsonNode classes = j.get("sections").get(5);
        assertEquals(List.of("type", "class", "objects", "bytes", "retainedBytes", "objectsChange", "bytesChange",
            "retainedChange", "baselineObjects"), JSON.convertValue(classes.get("columns"), List.class));
        assertEquals(List.of("table", "Signal", 3, 336, 20728, 0, 0, 20120, 3),
            JSON.convertValue(classes.at("/rows/0"), List.class));
        assertEquals(List.of("table", "metatable {Disconnect}", 40, 7040, 21400, 32, 5632, 19608, 8),
            JSON.convertValue(classes.at("/rows/1"), List.class));
    }

    @Test
    void htmlMarkdownAndJunit() throws Exception {
        Result r = report("all", "--fail-on", "new-retained-bytes>10KiB");
        assertEquals(3, r.run().code(), r.run().err());
        String html = Files.readString(r.out().resolve("report.html"));
        assertTrue(html.contains("<pre class=\"path\">root registry (table)\n_MODULES in table\nEventBus in table\n"
            + "ThemeChanged in table\nhandlers in table\n[array] in table</pre>"), html);
        assertTrue(html.contains("#1 16 table head(s), 152 objects, 19,608 new bytes, 19,608 retained bytes"), html);
        assertTrue(html.contains("<svg version=\"1.1\""), "icicle graph embedded");
        // History: the trend chart of the store's snapshots (before, after) and the trend rows
        String history = html.substring(html.indexOf("<section id=\"history\">"));
        history = history.substring(0, history.indexOf("</section>"));
        assertTrue(history.contains("<svg") && history.contains("Snapshots of the store in load order"), history);
        assertTrue(history.contains("saved query <code>trend</code>"), history);
        assertEquals(2, history.split("<tr>", -1).length - 2, "two trend rows (plus the header): " + history);
        assertFalse(html.contains("http://") && html.contains("src=\"http"), "no external resources");
        String md = Files.readString(r.out().resolve("report.md"));
        assertTrue(md.contains("**FAILED**"), md);
        assertTrue(md.contains("| luau | 186 | 22,099 | 22,011 | 3 | +186 | +22,099 | 0 | 0 |"), md);
        assertTrue(md.contains("```\nroot registry (table)\n_MODULES in table\nEventBus in table\n"), md);
        // the example head's address and the commands to follow it up
        assertTrue(md.contains("Example head <code>0x560138339de0</code> (largest retained size):\n\n```\n"
            + "heapload query why-alive -p snapshot=after -p address=0x560138339de0\n"
            + "heapload query paths -p snapshot=after -p address=0x560138339de0\n```\n"), md);
        assertTrue(html.contains("<p>example head <code>0x560138339de0</code> (largest retained size):</p>"
            + "<pre class=\"cmd\">heapload query why-alive -p snapshot=after -p address=0x560138339de0\n"), html);
        // JUnit XML: a strict parser, one test case per group, the one group over 10 KiB fails
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(r.out().resolve("report.junit.xml").toFile());
        Element groups = suite(doc, "heapload.leak-groups");
        NodeList cases = groups.getElementsByTagName("testcase");
        assertEquals(3, cases.getLength());
        assertEquals("3", groups.getAttribute("tests"));
        assertEquals("1", groups.getAttribute("failures"));
        assertEquals(1, ((Element) cases.item(0)).getElementsByTagName("failure").getLength());
        assertEquals(0, ((Element) cases.item(1)).getElementsByTagName("failure").getLength());
        assertTrue(((Element) cases.item(0)).getAttribute("name").contains("ThemeChanged/handlers"));
        Element gates = suite(doc, "heapload.gates");
        assertEquals("1", gates.getAttribute("failures"));
        // and as a CI server reads it: Maven Surefire's JUnit XML report parser
        var parsed = new org.apache.maven.plugins.surefire.report.TestSuiteXmlParser(
            new org.apache.maven.plugin.surefire.log.api.NullConsoleLogger())
            .parse(r.out().resolve("report.junit.xml").toString());
        var leakSuite = parsed.stream().filter(t -> t.getFullClassName().equals("heapload.leak-groups")).findFirst().orElseThrow();
        assertEquals(3, leakSuite.getNumberOfTests(), parsed.toString());
        assertEquals(1, leakSuite.getNumberOfFailures());
        assertEquals(3, leakSuite.getTestCases().size());
        assertEquals(1, leakSuite.getTestCases().stream().filter(c -> c.hasFailure()).count());
    }

    static Element suite(Document doc, String name) {
        NodeList suites = doc.getElementsByTagName("testsuite");
        for (int i = 0; i < suites.getLength(); i++) {
            Element e = (Element) suites.item(i);
            if (e.getAttribute("name").equals(name)) {
                return e;
            }
        }
        throw new AssertionError("no testsuite " + name);
    }

    @Test
    void everyGateFiresAndNotFires() throws Exception {
        // totals of the pair: 3 groups, 186 objects, 22,099 new bytes, 22,011 retained bytes
        Map<String, Integer> cases = new java.util.LinkedHashMap<>();
        cases.put("leak-groups>0", 3);
        cases.put("leak-groups>3", 0);
        cases.put("leak-groups>=3", 3);
        cases.put("leak-groups<3", 0);
        cases.put("leak-groups<=3", 3);
        cases.put("leak-groups==3", 3);
        cases.put("leak-groups==2", 0);
        cases.put("new-objects>185", 3);
        cases.put("new-objects>186", 0);
        cases.put("new-bytes>=22099B", 3);
        cases.put("new-bytes>22099", 0);
        cases.put("new-retained-bytes>21KiB", 3);
        cases.put("new-retained-bytes>21.5KiB", 0);
        cases.put("new-retained-bytes < 1MiB", 3);
        cases.put("new-retained-bytes>0.5MiB", 0);
        List<String> args = new ArrayList<>(List.of("--format", "json"));
        cases.keySet().forEach(g -> args.addAll(List.of("--fail-on", g)));
        Result all = report("gates", args.toArray(String[]::new));
        assertEquals(3, all.run().code(), all.run().out());
        JsonNode gates = all.json().get("gates");
        int i = 0;
        for (Map.Entry<String, Integer> c : cases.entrySet()) {
            JsonNode gate = gates.get(i++);
            assertEquals(c.getKey().replace(" ", ""), gate.get("expression").asText().replace(" ", ""));
            assertEquals(c.getValue() == 3, gate.get("failed").asBoolean(), c.getKey());
        }
        // exit codes: 0 when none of the gates fires, 3 as soon as one does
        List<String> quiet = new ArrayList<>(List.of("--format", "json"));
        cases.entrySet().stream().filter(c -> c.getValue() == 0).forEach(c -> quiet.addAll(List.of("--fail-on", c.getKey())));
        Result none = report("gates-quiet", quiet.toArray(String[]::new));
        assertEquals(0, none.run().code(), none.run().out());
        assertTrue(none.json().get("passed").asBoolean());
        assertFalse(all.json().get("passed").asBoolean());
        assertEquals(22011, gates.get(11).get("actual").asLong());
        assertEquals(21504, gates.get(11).get("limit").asLong(), "21KiB");
        assertEquals(22016, gates.get(12).get("limit").asLong(), "21.5KiB");
    }

    @Test
    void badGatesAreUsageErrors() {
        for (String bad : List.of("leak-groups>1KiB", "leaks>0", "new-bytes>1XB", "new-bytes=>1", "new-bytes>", "new-bytes>0.5")) {
            Result r = report("bad", "--fail-on", bad);
            assertEquals(2, r.run().code(), bad + ": " + r.run().err());
            assertTrue(r.run().err().startsWith("heapload: --fail-on '" + bad + "'"), r.run().err());
            assertFalse(r.run().err().contains("\tat "), "no stack trace");
        }
    }

    @Test
    void exitCodesForBadInputAndUsage() throws Exception {
        HeapLoadCommandTest.Run missing = run("report", "--db", db.toString(), "--out", tmp.resolve("x").toString(),
            pair.resolve("before.json").toString(), tmp.resolve("nope.json").toString());
        assertEquals(1, missing.code(), missing.err());
        assertEquals(1, missing.err().lines().count(), missing.err());
        assertEquals(2, report("x", "--target-id", "nope").run().code(), "usage: --target-id twice");
        HeapLoadCommandTest.Run unknown = run("report", "--db", db.toString(), "--out", tmp.resolve("x").toString(),
            "--baseline-id", "before", "--target-id", "nope");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().contains("no snapshot 'nope'"), unknown.err());
        assertEquals(2, run("report", "--db", db.toString(), pair.resolve("before.json").toString()).code());
        assertEquals(2, run("report", "--db", db.toString(), "--baseline-id", "before").code());
        assertEquals(2, report("x", "--format", "pdf").run().code());
        Path notJson = tmp.resolve("prev.txt");
        Files.writeString(notJson, "{ not json");
        Result badPrevious = report("x", "--previous", notJson.toString());
        assertEquals(1, badPrevious.run().code());
        assertTrue(badPrevious.run().err().startsWith("heapload: " + notJson + ": not JSON"), badPrevious.run().err());
        Path badKnown = tmp.resolve("known-bad.txt");
        Files.writeString(badKnown, "registry//EventBus\n");
        Result k = report("x", "--known", badKnown.toString());
        assertEquals(1, k.run().code());
        assertTrue(k.run().err().contains(badKnown + ":1: pattern 'registry//EventBus' has an empty segment"), k.run().err());
        Path badReport = tmp.resolve("bad.report");
        Files.writeString(badReport, "name: x\ntitle: X\nno-such-query | Nothing\n");
        Result d = report("x", "--report", badReport.toString());
        assertEquals(1, d.run().code());
        assertTrue(d.run().err().contains(badReport + ":3: no saved query 'no-such-query'"), d.run().err());
        // checked before anything is read or loaded: a directory as input, an --out that is a file
        Result dirKnown = report("x", "--known", tmp.toString());
        assertEquals(1, dirKnown.run().code());
        assertEquals("heapload: --known " + tmp + ": is a directory, not a file\n", dirKnown.run().err());
        Path fresh = tmp.resolve("fresh-db");
        HeapLoadCommandTest.Run dirDump = run("report", "--db", fresh.toString(), "--out", tmp.resolve("y").toString(),
            pair.resolve("before.json").toString(), pair.toString());
        assertEquals(1, dirDump.code());
        assertEquals("heapload: " + pair + ": is a directory, not a file\n", dirDump.err());
        Path aFile = Files.writeString(tmp.resolve("a-file"), "x");
        HeapLoadCommandTest.Run outFile = run("report", "--db", fresh.toString(), "--out", aFile.toString(),
            pair.resolve("before.json").toString(), pair.resolve("after.json").toString());
        assertEquals(2, outFile.code());
        assertTrue(outFile.err().startsWith("heapload: --out " + aFile + ": exists and is not a directory\n"), outFile.err());
        assertFalse(Files.exists(fresh), "nothing loaded: no store created");
    }

    @Test
    void knownLeaksAreListedApartAndNeverFailAGate() throws Exception {
        Path known = tmp.resolve("known.txt");
        Files.writeString(known, "# accepted for now\nregistry/_MODULES/EventBus/*   # bus rewrite\n" + TITLES + "\n");
        Result r = report("known", "--known", known.toString(), "--fail-on", "leak-groups>1");
        assertEquals(0, r.run().code(), r.run().out());
        JsonNode j = r.json();
        assertValid(r.out().resolve("report.json"));
        assertEquals(1, j.at("/headline/leakGroups").asLong());
        assertEquals(2, j.at("/headline/knownLeakGroups").asLong());
        assertEquals(1880, j.at("/headline/newBytes").asLong() - 20219, "sanity: headline counts all new objects");
        assertEquals(1792, j.at("/headline/newRetainedBytes").asLong(), "only the debugInfo group counts");
        assertTrue(j.at("/leakGroups/0/known").asBoolean());
        assertEquals("registry/_MODULES/EventBus/*", j.at("/leakGroups/0/knownBy").asText());
        assertFalse(j.at("/leakGroups/1/known").asBoolean());
        assertEquals(TITLES, j.at("/leakGroups/2/knownBy").asText());
        String html = Files.readString(r.out().resolve("report.html"));
        int knownHeading = html.indexOf("<h3 id=\"known\">Known leaks (2, never fail a gate)</h3>");
        assertTrue(knownHeading > 0, html);
        assertTrue(html.indexOf("ThemeChanged in table") > knownHeading, "the ThemeChanged group is listed under known leaks");
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(r.out().resolve("report.junit.xml").toFile());
        Element groups = suite(doc, "heapload.leak-groups");
        assertEquals("3", groups.getAttribute("tests"));
        assertEquals("2", groups.getAttribute("skipped"));
        assertEquals(2, groups.getElementsByTagName("skipped").getLength());
        // without the known list the same gate fails
        assertEquals(3, report("unknown", "--format", "json", "--fail-on", "leak-groups>1").run().code());
    }

    @Test
    void previousMarksNewPersistingAndResolved() throws Exception {
        Result first = report("night1", "--format", "json");
        // night 0 had the ThemeChanged group and one that is gone now, not the debugInfo or titleById groups
        ObjectNode night0 = (ObjectNode) first.json();
        ArrayNode groups = (ArrayNode) night0.get("leakGroups");
        groups.remove(2);
        groups.remove(1);
        ObjectNode gone = groups.addObject();
        gone.put("rank", 2).put("fingerprint", "0123456789abcdef").put("name", "registry/_MODULES/Old/cache")
            .put("objects", 5).put("newBytes", 500).put("retainedBytes", 600).put("heads", 1).put("headType", "table")
            .put("known", false);
        gone.putArray("path").add("root registry (table)").add("_MODULES in table").add("Old in table").add("cache in table");
        gone.putArray("brokenGates");
        Path previous = tmp.resolve("night0.json");
        JSON.writeValue(previous.toFile(), night0);
        assertValid(previous);
        Result second = report("night2", "--previous", previous.toString());
        assertEquals(0, second.run().code(), second.run().err());
        assertValid(second.out().resolve("report.json"));
        JsonNode j = second.json();
        assertEquals("persisting", j.at("/leakGroups/0/status").asText());
        assertEquals("new", j.at("/leakGroups/1/status").asText());
        assertEquals("new", j.at("/leakGroups/2/status").asText());
        assertEquals(1, j.get("resolvedLeakGroups").size());
        assertEquals("0123456789abcdef", j.at("/resolvedLeakGroups/0/fingerprint").asText());
        assertEquals("resolved", j.at("/resolvedLeakGroups/0/status").asText());
        assertTrue(Files.readString(second.out().resolve("report.html")).contains("Resolved since the previous report (1)"));
        // the next night the program is fixed: the reverse pair (after → before) has no leak groups, all three resolved
        Path night2 = second.out().resolve("report.json");
        HeapLoadCommandTest.Run fixed = run("report", "--db", db.toString(), "--out", tmp.resolve("night3").toString(),
            "--format", "json", "--baseline-id", "after", "--target-id", "before", "--previous", night2.toString(),
            "--fail-on", "leak-groups>0");
        assertEquals(0, fixed.code(), fixed.err());
        JsonNode j3 = JSON.readTree(tmp.resolve("night3").resolve("report.json").toFile());
        assertEquals(0, j3.get("leakGroups").size());
        List<String> resolved = new ArrayList<>();
        j3.get("resolvedLeakGroups").forEach(g -> resolved.add(g.get("fingerprint").asText()));
        assertEquals(List.of(THEME, DEBUG_INFO, TITLES), resolved);
    }

    @Test
    void aReportDefinitionFileChoosesTheSections() throws Exception {
        Path def = tmp.resolve("small.report");
        Files.writeString(def, "name: small\ntitle: Only histogram\n@leak-groups | Leaks\ntype-histogram | Target types | snapshot=$target\n");
        Result r = report("small", "--report", def.toString(), "--format", "json,html");
        assertEquals(0, r.run().code(), r.run().err());
        JsonNode j = r.json();
        assertEquals("small", j.get("report").asText());
        assertEquals(2, j.get("sections").size());
        assertEquals("after", j.at("/sections/1/parameters/snapshot").asText());
        assertEquals("table", j.at("/sections/1/rows/0/0").asText());
        assertEquals(213, j.at("/sections/1/rows/0/1").asLong());
        assertFalse(Files.exists(r.out().resolve("report.md")));
        assertFalse(Files.readString(r.out().resolve("report.html")).contains("<svg"), "no @icicle section");
    }

    @Test
    void fingerprintsIgnoreCountersAndAddresses() {
        assertEquals(LeakFingerprint.of("table", List.of("root registry (table)", "widget_17 in table", "0x5601ab in table")),
            LeakFingerprint.of("table", List.of("root registry (table)", "widget_3 in table", "0x7f00 in table")));
        assertFalse(LeakFingerprint.of("table", List.of("root registry (table)", "a in table"))
            .equals(LeakFingerprint.of("string", List.of("root registry (table)", "a in table"))));
        // segments come from the hops, never from splitting lines: " in ", a newline or a "root" line stay in one
        List<dev.heapload.analysis.PathHop> hops = List.of(
            new dev.heapload.analysis.PathHop("registry", "root", "name", "table"),
            new dev.heapload.analysis.PathHop("_MODULES", "value", "string", "table"),
            new dev.heapload.analysis.PathHop("a in b\nroot registry (table)", "value", "string", "table"),
            new dev.heapload.analysis.PathHop("[1]", "value", "string", "table"),
            new dev.heapload.analysis.PathHop("[1]", "value", "number", "table"),
            new dev.heapload.analysis.PathHop(null, "array", "", "table"));
        assertEquals(List.of("registry", "_MODULES", "a in b\\nroot registry (table)", "\"[1]\"", "[1]", "[array]"),
            LeakFingerprint.segments(hops));
        assertEquals(List.of("root registry (table)", "_MODULES in table", "a in b\\nroot registry (table) in table",
            "\"[1]\" in table", "[1] in table", "[array] in table"), LeakFingerprint.lines(hops));
        // plain names: the fingerprint of the lines earlier versions stored
        assertEquals(LeakFingerprint.of("table", List.of("root registry (table)", "_MODULES in table", "[array] in table")),
            LeakFingerprint.ofHops("table", List.of(hops.get(0), hops.get(1), hops.get(5))));
    }

    @Test
    void knownLeakPatterns() throws Exception {
        Path f = tmp.resolve("patterns.txt");
        Files.writeString(f, "registry/_MODULES/EventBus/*\n**/titleById/*\nregistry/*/Wid*/debugInfo/[value]\n");
        KnownLeaks k = KnownLeaks.read(f);
        List<String> theme = List.of("registry", "_MODULES", "EventBus", "ThemeChanged", "handlers", "[array]");
        assertEquals("registry/_MODULES/EventBus/*", k.match("x", theme).text());
        assertNull(k.match("x", List.of("registry", "_MODULES", "EventBus")), "a trailing * needs one more segment");
        assertEquals("**/titleById/*", k.match("x", List.of("registry", "_MODULES", "Widget", "titleById", "[array]")).text());
        assertEquals("registry/*/Wid*/debugInfo/[value]",
            k.match("x", List.of("registry", "_MODULES", "Widget", "debugInfo", "[value]")).text());
        assertNull(k.match("x", List.of("registry", "_MODULES", "Widget", "debugInfo", "[value]", "more")));
        assertNull(k.match("x", List.of("mainthread", "_MODULES", "EventBus", "x")));
    }

    static String read(Path p) throws Exception {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
