package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.heapload.report.KnownLeaks;
import dev.heapload.report.LeakFingerprint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names are data, never structure. A generated Lua 5.4 pair (heapload's dumper format) holds a
 * table under the string key {@code "cache\nroot registry (table)\nX in table"} that grows a new table under
 * {@code x}, a new table under the string key {@code "[1]"} and one under the integer key {@code 1}. Every output
 * must show the hostile key as one escaped hop (no forged {@code root} line, no extra hop), and the two {@code [1]}
 * keys apart: {@code "[1]"} (string, quoted) and {@code [1]} (number).
 */
class NamesAreDataTest {

    @TempDir
    static Path tmp;

    static Path db;

    static final String HOSTILE = "cache\nroot registry (table)\nX in table";
    /** The hostile key as every text output shows it. */
    static final String SHOWN = "cache\\nroot registry (table)\\nX in table";

    static final List<String> GROUP1 = List.of("root registry (table)", "cache in table", SHOWN + " in table", "x in table");
    static final List<String> GROUP2 = List.of("root registry (table)", "byName in table", "\"[1]\" in table");
    static final List<String> GROUP3 = List.of("root registry (table)", "byIndex in table", "[1] in table");

    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void load() throws Exception {
        Path before = tmp.resolve("before.json");
        Path after = tmp.resolve("after.json");
        Files.writeString(before, dump(false), StandardCharsets.UTF_8);
        Files.writeString(after, dump(true), StandardCharsets.UTF_8);
        db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", before.toString(),
            after.toString());
        assertEquals(0, r.code(), r.err());
        loadOut = r.out();
    }

    static String loadOut;

    /** The pair: strings first (the dumper writes a string before any reference to it). */
    static String dump(boolean after) {
        List<String> o = new ArrayList<>();
        o.add(str("0x2001", "cache"));
        o.add(str("0x2002", "byName"));
        o.add(str("0x2003", "byIndex"));
        o.add(str("0x2004", "keys"));
        o.add(str("0x2005", HOSTILE));
        o.add(str("0x2006", "x"));
        o.add(str("0x2007", "[1]"));
        o.add(table("0x1000", 120, "[\"0x2001\",\"0x1100\"],[\"0x2002\",\"0x1200\"],[\"0x2003\",\"0x1300\"],"
            + "[\"0x2004\",\"0x1400\"]"));
        o.add(table("0x1400", 80, "[1,\"0x2006\"],[2,\"0x2007\"]"));
        o.add(table("0x1100", 64, "[\"0x2005\",\"0x1110\"]"));
        o.add(table("0x1110", after ? 96 : 64, after ? "[\"0x2006\",\"0x4001\"]" : ""));
        o.add(table("0x1200", after ? 96 : 64, after ? "[\"0x2007\",\"0x4002\"]" : ""));
        o.add(table("0x1300", after ? 96 : 64, after ? "[1,\"0x4003\"]" : ""));
        if (after) {
            o.add(table("0x4001", 300, ""));
            o.add(table("0x4002", 200, ""));
            o.add(table("0x4003", 100, ""));
        }
        return "{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,\n"
            + "\"lua\":{\"version\":\"Lua 5.4\",\"jit\":null,\"addressesAreReal\":true,\"stringIds\":\"address\"},\n"
            + "\"dumper\":{\"name\":\"heapload heapdump.lua\",\"kind\":\"pure-lua\",\"sizes\":\"estimated\"},\n"
            + "\"stats\":{\"gcCountKB\":4},\n\"objects\":{\n" + String.join(",\n", o) + "},\n"
            + "\"roots\":{\"registry\":\"0x1000\"}}\n";
    }

    private static String str(String id, String text) {
        String quoted;
        try {
            quoted = JSON.writeValueAsString(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return "\"" + id + "\":{\"type\":\"string\",\"len\":" + text.length() + ",\"size\":" + (25 + text.length())
            + ",\"value\":" + quoted + "}";
    }

    private static String table(String id, long size, String pairs) {
        return "\"" + id + "\":{\"type\":\"table\",\"narr\":0,\"nhash\":4,\"pairs\":[" + pairs + "],\"size\":" + size + "}";
    }

    private static HeapLoadCommandTest.Run ok(String... args) {
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run(args);
        assertEquals(0, r.code(), r.err());
        return r;
    }

    /** The lines of a block: those after {@code header} up to the first that does not start with {@code indent}. */
    private static List<String> linesAfter(String text, String header, String indent) {
        List<String> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].startsWith(header)) {
                for (int j = i + 1; j < lines.length && lines[j].startsWith(indent); j++) {
                    out.add(lines[j].substring(indent.length()));
                }
                return out;
            }
        }
        throw new AssertionError("no line starting with " + header + " in\n" + text);
    }

    @Test
    void leakAnswer() {
        assertEquals(GROUP1, linesAfter(loadOut, "  group 1: 1 objects, 300 new bytes", "      "), loadOut);
        assertEquals(GROUP2, linesAfter(loadOut, "  group 2: 1 objects, 200 new bytes", "      "), loadOut);
        assertEquals(GROUP3, linesAfter(loadOut, "  group 3: 1 objects, 100 new bytes", "      "), loadOut);
        assertEquals(3, loadOut.lines().filter(l -> l.startsWith("      root ")).count(), loadOut);
    }

    @Test
    void leakGroupsInTheGraphAndCsv() throws Exception {
        JsonNode rows = JSON.readTree(ok("query", "leak-groups", "-p", "baseline=before", "-p", "target=after",
            "--format", "json", "--db", db.toString()).out());
        assertEquals(3, rows.size());
        JsonNode g = rows.get(0);
        // the graph's LeakGroup.path: one element per hop, the key raw inside its one element
        assertEquals(List.of("root registry (table)", "cache in table", HOSTILE + " in table", "x in table"), list(g.get("path")));
        assertEquals(List.of("registry", "cache", HOSTILE, "x"), list(g.get("pathNames")));
        assertEquals(List.of("root", "value", "value", "value"), list(g.get("pathKinds")));
        assertEquals(List.of("name", "string", "string", "string"), list(g.get("pathKeyTypes")));
        assertEquals(List.of("table", "table", "table", "table"), list(g.get("pathTypes")));
        assertEquals(List.of("name", "string", "string"), list(rows.get(1).get("pathKeyTypes")));
        assertEquals(List.of("registry", "byName", "[1]"), list(rows.get(1).get("pathNames")));
        assertEquals(List.of("name", "string", "number"), list(rows.get(2).get("pathKeyTypes")));
        assertEquals(List.of("registry", "byIndex", "[1]"), list(rows.get(2).get("pathNames")));

        String csv = ok("query", "leak-groups", "-p", "baseline=before", "-p", "target=after", "--format", "csv",
            "--db", db.toString()).out();
        // RFC 4180: the cell in quotes, its quotes doubled
        for (List<String> group : List.of(GROUP1, GROUP2, GROUP3)) {
            assertTrue(csv.contains("\"" + String.join("\n", group).replace("\"", "\"\"") + "\""), csv);
        }
        assertEquals(3, csv.lines().filter(l -> l.startsWith("root ") || l.matches("^[0-9]+,.*\"root .*")).count(), csv);
    }

    @Test
    void topRetainerAndGrowthPaths() throws Exception {
        JsonNode top = JSON.readTree(ok("query", "largest-retainers", "-p", "snapshot=after", "--format", "json",
            "--db", db.toString()).out());
        JsonNode a = find(top, "address", "0x1110");
        assertEquals(List.of("registry", "cache", HOSTILE), list(a.get("path")));
        JsonNode n2 = find(top, "address", "0x4002");
        JsonNode n3 = find(top, "address", "0x4003");
        assertEquals(List.of("registry", "byName", "\"[1]\""), list(n2.get("path")));
        assertEquals(List.of("registry", "byIndex", "[1]"), list(n3.get("path")));
        String csv = ok("query", "largest-retainers", "-p", "snapshot=after", "--format", "csv", "--db", db.toString()).out();
        assertTrue(csv.contains("0x1110,table,,96,396,\"registry\ncache\n" + SHOWN + "\"\n"), csv);

        JsonNode grew = JSON.readTree(ok("query", "growth", "-p", "baseline=before", "-p", "target=after", "--format",
            "json", "--db", db.toString()).out());
        assertEquals(List.of("registry", "cache", HOSTILE), list(find(grew, "address", "0x1110").get("path")));
        String grewCsv = ok("query", "growth", "-p", "baseline=before", "-p", "target=after", "--format", "csv",
            "--db", db.toString()).out();
        assertTrue(grewCsv.contains("\"registry\ncache\n" + SHOWN + "\"\n"), grewCsv);
    }

    @Test
    void whyAlive() {
        String csv = ok("query", "why-alive", "-p", "snapshot=after", "-p", "address=0x4001", "--format", "csv",
            "--db", db.toString()).out();
        List<String> via = new ArrayList<>();
        for (String line : csv.split("\n")) {
            if (line.startsWith("retention,")) {
                via.add(line.split(",")[5]);
            }
        }
        // columns chain, step, address, type, label, via, …: one row per hop, the key one escaped cell
        assertEquals(List.of("root registry", "cache", SHOWN, "x"), via, csv);
        String two = ok("query", "why-alive", "-p", "snapshot=after", "-p", "address=0x4002", "--format", "csv",
            "--db", db.toString()).out();
        assertTrue(two.contains("retention,2,0x4002,table,,\"\"\"[1]\"\"\","), two);
        String three = ok("query", "why-alive", "-p", "snapshot=after", "-p", "address=0x4003", "--format", "csv",
            "--db", db.toString()).out();
        assertTrue(three.contains("retention,2,0x4003,table,,[1],"), three);
    }

    @Test
    void reportsAndKnownLeaks() throws Exception {
        Path known = tmp.resolve("known.txt");
        // patterns match the names as shown: the number key [1], the string key "[1]", the hostile key escaped
        Files.writeString(known, "registry/byIndex/[1]\n", StandardCharsets.UTF_8);
        Path out = tmp.resolve("report");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("report", "--baseline-id", "before", "--target-id", "after",
            "--db", db.toString(), "--out", out.toString(), "--format", "html,md,junit,json", "--known", known.toString());
        assertEquals(0, r.code(), r.err());

        JsonNode j = JSON.readTree(out.resolve("report.json").toFile());
        JsonNode groups = j.get("leakGroups");
        assertEquals(GROUP1, list(groups.get(0).get("path")));
        assertEquals("registry/cache/" + SHOWN + "/x", groups.get(0).get("name").asText());
        assertEquals(HOSTILE, groups.get(0).get("hops").get(2).get("name").asText());
        assertEquals("string", groups.get(0).get("hops").get(2).get("keyType").asText());
        assertEquals(GROUP2, list(groups.get(1).get("path")));
        assertEquals("registry/byName/\"[1]\"", groups.get(1).get("name").asText());
        assertEquals(false, groups.get(1).get("known").asBoolean());
        assertEquals(GROUP3, list(groups.get(2).get("path")));
        assertEquals("registry/byIndex/[1]", groups.get(2).get("knownBy").asText());
        assertTrue(!groups.get(1).get("fingerprint").asText().equals(groups.get(2).get("fingerprint").asText()));

        String md = Files.readString(out.resolve("report.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("```\n" + String.join("\n", GROUP1) + "\n```"), md);
        assertTrue(md.contains("```\n" + String.join("\n", GROUP2) + "\n```"), md);
        assertTrue(md.contains("```\n" + String.join("\n", GROUP3) + "\n```"), md);

        String html = Files.readString(out.resolve("report.html"), StandardCharsets.UTF_8);
        List<String> pres = new ArrayList<>();
        Matcher m = Pattern.compile("<pre class=\"path\">(.*?)</pre>", Pattern.DOTALL).matcher(html);
        while (m.find()) {
            pres.add(m.group(1));
        }
        assertEquals(List.of(String.join("\n", xml(GROUP1)), String.join("\n", xml(GROUP2))), pres.subList(0, 2));

        String junit = Files.readString(out.resolve("report.junit.xml"), StandardCharsets.UTF_8);
        // StAX escapes & < > in text and leaves quotes as they are
        assertTrue(junit.contains(String.join("\n", xmlText(GROUP1)) + "</"), junit);
        assertTrue(junit.contains(String.join("\n", xmlText(GROUP2)) + "</"), junit);

        // the hostile group is matched by its escaped name, never by a forged segment
        Files.writeString(known, "registry/cache/" + SHOWN + "/x\nregistry/X in table/*\n", StandardCharsets.UTF_8);
        KnownLeaks k = KnownLeaks.read(known);
        List<String> segments = LeakFingerprint.segments(hops(groups.get(0).get("hops")));
        assertEquals(List.of("registry", "cache", SHOWN, "x"), segments);
        assertEquals("registry/cache/" + SHOWN + "/x", k.match("x", segments).text());
        assertNull(k.match("x", List.of("registry", "cache", "cache")));
    }

    /**
     * {@code tree} (its heaviest-paths text and its icicle graph) names a string key by the same rule as the paths:
     * the string key {@code "[1]"} quoted, the number key {@code [1]} bare, two nodes; the hostile key escaped.
     */
    @Test
    void treeTextAndIcicleQuoteStringKeys() throws Exception {
        Path svg = tmp.resolve("tree.svg");
        String out = ok("tree", tmp.resolve("before.json").toString(), tmp.resolve("after.json").toString(), "--svg",
            svg.toString(), "--top", "3").out();
        List<String> table = linesFrom(out, "heaviest nodes", 6);
        assertEquals(List.of("heaviest nodes:", "  self bytes | objects | path"),
            table.subList(0, 2).stream().map(String::stripTrailing).toList(), out);
        assertEquals(List.of(
                "         300 |       1 | /registry/cache/" + SHOWN + "/x",
                "         200 |       1 | /registry/byName/\"[1]\"",
                "         100 |       1 | /registry/byIndex/[1]"),
            table.subList(3, 6).stream().map(String::stripTrailing).toList(), out);
        String drawn = Files.readString(svg, StandardCharsets.UTF_8);
        assertTrue(drawn.contains("<title>registry/byName/&quot;[1]&quot; (200 bytes"), drawn);
        assertTrue(drawn.contains("<title>registry/byIndex/[1] (100 bytes"), drawn);
    }

    private static List<String> linesFrom(String text, String first, int count) {
        List<String> lines = List.of(text.split("\n", -1));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(first)) {
                return lines.subList(i, Math.min(lines.size(), i + count));
            }
        }
        throw new AssertionError("no line starting with " + first + " in\n" + text);
    }

    private static List<dev.heapload.analysis.PathHop> hops(JsonNode hops) {
        List<dev.heapload.analysis.PathHop> out = new ArrayList<>();
        for (JsonNode h : hops) {
            out.add(new dev.heapload.analysis.PathHop(h.get("name").isNull() ? null : h.get("name").asText(),
                h.get("kind").asText(), h.get("keyType").asText(), h.get("type").asText()));
        }
        return out;
    }

    private static List<String> xmlText(List<String> lines) {
        return lines.stream().map(l -> l.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")).toList();
    }

    private static List<String> xml(List<String> lines) {
        return lines.stream().map(l -> l.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;")).toList();
    }

    private static JsonNode find(JsonNode rows, String column, String value) {
        for (JsonNode row : rows) {
            if (value.equals(row.get(column).asText())) {
                return row;
            }
        }
        throw new AssertionError("no row with " + column + " = " + value + " in " + rows);
    }

    private static List<String> list(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(e -> out.add(e.asText()));
        return out;
    }
}
