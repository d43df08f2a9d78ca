package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Every command on a retention path of 100,000 hops: the leak answer, {@code why-alive}, the report and
 * {@code tree}. Nothing may recurse on path length, in heapload or in the Cypher it runs.
 *
 * <p>The dumps are Luau {@code lua_memorydump} JSON made by the test. Both hold the main thread and the
 * registry (a table with a key {@code "head"}); in {@code after.json} the registry's {@code head} is the first of
 * 100,000 tables of 64 bytes, each holding the next under the key {@code "prev"} (the undo list of
 * ../shared/testdata/luau/undo-history, ten times longer). So 100,000 objects, 6,400,000 bytes are new, in one
 * leak group whose head is {@code registry.head}; the last table is 100,001 hops from the registry.
 */
class DeepChainCommandTest {

    static final int CHAIN = 100_000;

    @TempDir
    static Path tmp;

    static Path before;
    static Path after;
    static Path db;

    static String address(int i) {
        return "\"0x" + Long.toHexString(0x10000000L + 64L * i) + "\"";
    }

    /** A dump with the thread, the registry and, when {@code chain}, the 100,000 tables under {@code head}. */
    static String dump(boolean chain) {
        StringBuilder b = new StringBuilder(CHAIN * 96);
        b.append("{\"objects\":{\n");
        b.append(address(0)).append(":{\"type\":\"string\",\"cat\":0,\"size\":20,\"data\":\"prev\"},\n");
        b.append(address(1)).append(":{\"type\":\"string\",\"cat\":0,\"size\":20,\"data\":\"head\"},\n");
        b.append(address(2)).append(":{\"type\":\"thread\",\"cat\":0,\"size\":100,\"env\":").append(address(3))
            .append(",\"stack\":[],\"stacknames\":[]},\n");
        b.append(address(3)).append(":{\"type\":\"table\",\"cat\":0,\"size\":80,\"pairs\":[")
            .append(chain ? address(1) + "," + address(10) : "").append("]}");
        for (int i = 0; chain && i < CHAIN; i++) {
            b.append(",\n").append(address(10 + i)).append(":{\"type\":\"table\",\"cat\":0,\"size\":64");
            if (i + 1 < CHAIN) {
                b.append(",\"pairs\":[").append(address(0)).append(',').append(address(11 + i)).append(']');
            }
            b.append('}');
        }
        long total = 300 + (chain ? 64L * CHAIN : 0);
        b.append("\n},\"roots\":{\"mainthread\":").append(address(2)).append(",\"registry\":").append(address(3))
            .append("},\"stats\":{\"size\":").append(total).append(",\"categories\":{\"0\":{\"name\":\"main\",\"size\":")
            .append(total).append("}}}}\n");
        return b.toString();
    }

    @BeforeAll
    static void dumps() throws IOException {
        before = Files.writeString(tmp.resolve("before.json"), dump(false), StandardCharsets.UTF_8);
        after = Files.writeString(tmp.resolve("after.json"), dump(true), StandardCharsets.UTF_8);
        db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--no-progress", "--db", db.toString(),
            before.toString(), after.toString());
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("leaks: after relative to before: 100,000 new reachable objects, 6,400,000 bytes, "
            + "in 1 leak group(s)\n  group 1: 100,000 objects, 6,400,000 new bytes, 6,400,020 retained bytes, 1 table "
            + "head(s), path:\n      root registry (table)\n      head in table\n"), load.out());
    }

    @Test
    void whyAlivePrintsTheWholePathOfTheLastTable() {
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("query", "--db", db.toString(), "why-alive", "-p",
            "snapshot=after", "-p", "address=0x" + Long.toHexString(0x10000000L + 64L * (10 + CHAIN - 1)),
            "--format", "csv");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().split("\n");
        // header, the retention path (registry + 100,000 tables), the dominator chain (the same, reversed)
        assertEquals(1 + 2 * (CHAIN + 1), lines.length);
        assertEquals("retention,0,0x100000c0,table,,root registry,80,6400120", lines[1]);
        assertEquals("retention,1,0x10000280,table,,head,64,6400020", lines[2]);
        assertEquals("retention,100000,0x1061aa40,table,,prev,64,64", lines[CHAIN + 1]);
        assertEquals("dominator,0,0x1061aa40,table,,,64,64", lines[CHAIN + 2]);
        assertEquals("dominator,100000,0x100000c0,table,,,80,6400120", lines[lines.length - 1]);
    }

    @Test
    void reportAndTreeOnTheDeepPair() throws IOException {
        Path out = tmp.resolve("report");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("report", "--db", db.toString(), "--out", out.toString(),
            "--baseline-id", "before", "--target-id", "after", "--format", "md,json");
        assertEquals(0, r.code(), r.err());
        JsonNode group = new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("leakGroups").get(0);
        assertEquals(100_000, group.get("objects").asLong());
        assertEquals(6_400_000, group.get("newBytes").asLong());
        assertEquals(6_400_020, group.get("retainedBytes").asLong());
        assertEquals("[\"root registry (table)\",\"head in table\"]", group.get("path").toString());
        assertTrue(Files.readString(out.resolve("report.md")).contains("root registry (table)"));

        HeapLoadCommandTest.Run tree = HeapLoadCommandTest.run("tree", "--svg", tmp.resolve("tree.svg").toString(),
            "--json", tmp.resolve("tree.json").toString(), before.toString(), after.toString());
        assertEquals(0, tree.code(), tree.err());
        assertTrue(tree.out().contains("tree total: 6,400,000 bytes in 100,000 objects")
            || tree.err().contains("tree total: 6,400,000 bytes in 100,000 objects"), tree.out() + tree.err());
        String treeJson = Files.readString(tmp.resolve("tree.json"));
        // one "children" member per node: the synthetic top, registry, and the 100,000 tables nested one in another
        int levels = 0;
        for (int i = treeJson.indexOf("\"children\""); i >= 0; i = treeJson.indexOf("\"children\"", i + 1)) {
            levels++;
        }
        assertEquals(CHAIN + 2, levels);
    }
}
