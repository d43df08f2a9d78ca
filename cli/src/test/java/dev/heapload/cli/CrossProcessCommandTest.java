package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.report.LeakReport;

/**
 * The leak answer on a pair from two processes: the bundled event-listeners before.json against after.json with
 * every address moved by {@code 0x10000000000} (a second run). It says so in one line and names the
 * ThemeChanged handlers group first (152 objects, 19,608 bytes: what the same-process pair finds), not the whole
 * heap.
 */
class CrossProcessCommandTest {

    /**
     * The bundled event-listeners after.json with every address moved by {@code 0x10000000000}, as a second run of the
     * program would place its heap: {@code dir/other.json}.
     */
    static Path secondRun(Path dir) throws IOException {
        Path after = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", "after.json");
        Matcher m = Pattern.compile("\"0x([0-9a-f]+)\"").matcher(Files.readString(after));
        StringBuilder moved = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(moved, "\"0x" + Long.toHexString(Long.parseLong(m.group(1), 16) + 0x10000000000L) + "\"");
        }
        m.appendTail(moved);
        return Files.writeString(dir.resolve("other.json"), moved.toString(), StandardCharsets.UTF_8);
    }

    @TempDir
    Path tmp;

    @Test
    void theLeakAnswerSaysCrossProcessAndNamesTheHandlers() throws IOException {
        Path dir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        Path other = secondRun(tmp);

        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--no-progress", "--db", tmp.resolve("db").toString(),
            dir.resolve("before.json").toString(), other.toString());
        assertEquals(0, r.code(), r.err());
        // the answer comes first
        assertTrue(r.out().startsWith("cross-process pair: 0 of the 685 objects of before are in other at the same "
            + "address, no root is (two runs?): compared by retention path, type and memory category instead\n"
            + "leaks: other relative to before: 188 new reachable objects, 22,163 bytes, in 5 leak group(s)\n"
            + "  group 1: 152 objects, 19,608 new bytes, "), r.out());
        assertTrue(r.out().contains(" path:\n      root registry (table)\n      _MODULES in table\n      EventBus in table\n"
            + "      ThemeChanged in table\n      handlers in table\n      [array] in table\n"
            + "    heads: class metatable {Disconnect}; memory category 0 (main)\n"
            + "    example head 0x570138339de0 (largest retained size), all its paths:\n"), r.out());

        // the report says so too, and its groups are the same
        Path out = tmp.resolve("report");
        HeapLoadCommandTest.Run report = HeapLoadCommandTest.run("report", "--db", tmp.resolve("db").toString(),
            "--out", out.toString(), "--baseline-id", "before", "--target-id", "other", "--format", "md,json,html");
        assertEquals(0, report.code(), report.err());
        String md = Files.readString(out.resolve("report.md"));
        assertTrue(md.contains("\n" + LeakReport.Headline.CROSS_PROCESS + "\n"), md);
        assertTrue(Files.readString(out.resolve("report.html")).contains("<p class=\"notice\">Cross-process pair: "));
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve("report.json").toFile());
        assertTrue(json.get("headline").get("crossProcess").asBoolean());
        assertEquals(19_608, json.get("leakGroups").get(0).get("newBytes").asLong());
        assertEquals(188, json.get("headline").get("newObjects").asLong());

        // the same pair from one process says nothing of the kind
        HeapLoadCommandTest.Run same = HeapLoadCommandTest.run("--no-progress", "--db", tmp.resolve("db2").toString(),
            dir.resolve("before.json").toString(), dir.resolve("after.json").toString());
        assertEquals(0, same.code(), same.err());
        assertFalse(same.out().contains("cross-process"), same.out());
        assertTrue(same.out().contains("leaks: after relative to before: 186 new reachable objects, 22,099 bytes"), same.out());
        HeapLoadCommandTest.Run sameReport = HeapLoadCommandTest.run("report", "--db", tmp.resolve("db2").toString(),
            "--out", tmp.resolve("report2").toString(), "--baseline-id", "before", "--target-id", "after", "--format", "md");
        assertEquals(0, sameReport.code(), sameReport.err());
        assertFalse(Files.readString(tmp.resolve("report2").resolve("report.md")).contains("Cross-process"));
    }
}
