package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.store.embedded.GraphStore;

/**
 * The {@code heapload} command end to end on the bundled event-listeners dump: load, summary, graph
 * contents, and bad input that must leave the store exactly as it was.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HeapLoadCommandTest {

    @TempDir
    static Path tmp;

    static Path db;
    static Path example;

    record Run(int code, String out, String err) {
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = HeapLoad.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Loads the bundled event-listeners pair ({@code before}, {@code after}) into a new store {@code db} in process.
     *
     * @return the address of a leaked handler table of {@code after} ({@code 0x560138339de0}), for exploring queries
     */
    static String loadEventListenersPair(Path db) {
        Path cases = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        Run load = run("--db", db.toString(), "--no-progress", cases.resolve("before.json").toString(),
            cases.resolve("after.json").toString());
        org.junit.jupiter.api.Assertions.assertEquals(0, load.code(), load.err());
        return "0x560138339de0";
    }

    @BeforeAll
    static void paths() {
        example = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", "after.json");
        db = tmp.resolve("db");
    }

    @Test
    @Order(1)
    void loadPrintsTheSummaryWithTheFilesCounts() {
        Run r = run("--db", db.toString(), example.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("snapshot after (luau)"), r.out());
        assertTrue(r.out().matches("(?s).*objects\\s+871 \\(79,118 bytes shallow\\).*"), r.out());
        // per-type counts of event-listeners/after.json (its README: 274 function, 11 proto, 369 string,
        // 213 table, 2 thread, 2 upvalue)
        for (String line : List.of("\\n    function +\\| +274 \\|", "\\n    proto +\\| +11 \\|",
            "\\n    string +\\| +369 \\|", "\\n    table +\\| +213 \\|", "\\n    thread +\\| +2 \\|",
            "\\n    upvalue +\\| +2 \\|")) {
            assertTrue(r.out().matches("(?s).*" + line + ".*"), line + "\n" + r.out());
        }
        // category bytes equal stats: category 0 "main" = 102286 (= stats.size)
        assertTrue(r.out().matches("(?s).*\\n +0 \\| main +\\| +871 \\| +79,118 \\| +102,286\\n.*"), r.out());
        assertTrue(r.out().contains("roots: mainthread=0x"), r.out());
        assertTrue(r.out().contains("repaired spots: none"), r.out());
        assertTrue(r.out().matches("(?s).*time: read .* s, analyse .* s.*"), r.out());
        assertEquals("", r.err());
    }

    @Test
    @Order(2)
    void theGraphHoldsTheSnapshotAndTheEventBusPath() throws IOException {
        try (GraphStore store = GraphStore.open(db)) {
            var gdb = store.database();
            try (Transaction tx = gdb.beginTx()) {
                Map<String, Long> types = new TreeMap<>();
                try (Result res = tx.execute("MATCH (o:Object {snapshot:'after'}) RETURN o.type AS t, count(*) AS n")) {
                    res.forEachRemaining(row -> types.put((String) row.get("t"), (Long) row.get("n")));
                }
                assertEquals(Map.of("function", 274L, "proto", 11L, "string", 369L, "table", 213L, "thread", 2L,
                    "upvalue", 2L), types);
                // the README's path: registry -> _MODULES -> EventBus -> ThemeChanged -> handlers
                try (Result res = tx.execute("""
                    MATCH (:Snapshot {id:'after'})-[:ROOT {name:'registry'}]->(reg)
                    MATCH (reg)-[:REF {name:'_MODULES'}]->(m)-[:REF {name:'EventBus'}]->(bus)
                          -[:REF {name:'ThemeChanged'}]->(sig)-[:REF {name:'handlers'}]->(h:Table)
                    RETURN count(h) AS n, h.reachable AS reachable""")) {
                    Map<String, Object> row = res.next();
                    assertEquals(1L, row.get("n"));
                    assertEquals(true, row.get("reachable"));
                }
                try (Result res = tx.execute("MATCH (s:Snapshot {id:'after'}) RETURN s.objectCount AS n, s.totalBytes AS b")) {
                    Map<String, Object> row = res.next();
                    assertEquals(871L, ((Number) row.get("n")).longValue());
                    assertEquals(102286L, ((Number) row.get("b")).longValue());
                }
                tx.commit();
            }
        }
    }

    @Test
    @Order(3)
    void badInputIsOneLineExitOneAndLeavesTheStoreUnchanged() throws IOException {
        Path empty = Files.createFile(tmp.resolve("empty.json"));
        byte[] good = Files.readAllBytes(example);
        Path truncated = Files.write(tmp.resolve("truncated.json"), java.util.Arrays.copyOf(good, good.length / 2));
        Path notJson = Files.writeString(tmp.resolve("notes.json"), "this is not json at all\n");
        Path notDump = Files.writeString(tmp.resolve("config.json"), "{\"name\": \"x\", \"values\": [1, 2, 3]}\n");
        Path truncatedGz = tmp.resolve("truncated.json.gz");
        try (var gz = new GZIPOutputStream(Files.newOutputStream(truncatedGz))) {
            gz.write(good, 0, good.length / 3);
        }
        Path missing = tmp.resolve("missing.json");
        List<String> problems = new ArrayList<>();
        for (Path bad : List.of(empty, truncated, notJson, notDump, truncatedGz, missing)) {
            Run r = run("--db", db.toString(), bad.toString());
            if (r.code() != 1) {
                problems.add(bad.getFileName() + ": exit " + r.code());
            }
            String err = r.err().strip();
            if (err.isEmpty() || err.contains("\n") || !err.contains(bad.getFileName().toString()) || err.contains("Exception")) {
                problems.add(bad.getFileName() + ": message not one clear line naming the file: " + r.err());
            }
            if (!r.out().isEmpty()) {
                problems.add(bad.getFileName() + ": printed a summary: " + r.out());
            }
        }
        assertEquals(List.of(), problems);
        assertStoreHoldsOnlyAfter();
        // a failed first load does not even create the store directory
        Path fresh = tmp.resolve("fresh-db");
        assertEquals(1, run("--db", fresh.toString(), truncated.toString()).code());
        assertFalse(Files.exists(fresh));
    }

    @Test
    @Order(4)
    void loadingAnExistingIdIsRefusedUnlessReplaced() throws IOException {
        Run r = run("--db", db.toString(), example.toString());
        assertEquals(1, r.code());
        assertTrue(r.err().contains("--replace"), r.err());
        assertStoreHoldsOnlyAfter();
    }

    @Test
    @Order(5)
    void usageErrorsExitTwo() {
        assertEquals(2, run("--no-such-option").code());
        assertEquals(2, run("--db", db.toString()).code());
        assertEquals(2, run("--name", "x", example.toString(), example.toString()).code());
        assertEquals(0, run("--help").code());
        assertTrue(run("--version").out().startsWith("heapload "));
    }

    @Test
    @Order(6)
    void aBadFileAnywhereInTheListLoadsNothing() throws IOException {
        byte[] good = Files.readAllBytes(example);
        Path truncated = Files.write(tmp.resolve("cut.json"), java.util.Arrays.copyOf(good, good.length / 4));
        Path before = example.resolveSibling("before.json");
        Run r = run("--db", db.toString(), before.toString(), truncated.toString());
        assertEquals(1, r.code());
        assertEquals(truncated + ": byte " + good.length / 4 + ": unexpected end of input (truncated dump?)",
            r.err().strip().replaceFirst("^heapload: ", ""));
        assertStoreHoldsOnlyAfter();
    }

    @Test
    @Order(7)
    void treeJsonOnStdoutIsPureJson() throws IOException {
        Path before = example.resolveSibling("before.json");
        Run r = run("tree", "--svg", "-", "--json", "-", before.toString(), example.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("{\"name\":\"\",\"size\":0,\"count\":0,\"total\":22099,\"totalCount\":186,"), r.out());
        assertTrue(r.err().contains("tree total: 22,099 bytes in 186 objects"), r.err());
    }

    @Test
    @Order(8)
    void twoFilesPrintTheLeakAnswer() {
        // event-listeners README: 186 new objects, all reachable; the ThemeChanged handlers keep 16 widgets
        // (16 x 9 + 8 = 152 objects); 22,099 bytes is heapgraph.py's total for the pair
        Path pairDb = tmp.resolve("pair-db");
        Run r = run("--db", pairDb.toString(), example.resolveSibling("before.json").toString(), example.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("leaks: after relative to before: 186 new reachable objects, 22,099 bytes, in 3 leak group(s)\n"
            + "  group 1: 152 objects, 19,608 new bytes, 19,608 retained bytes, 16 table head(s), path:\n"
            + "      root registry (table)\n      _MODULES in table\n      EventBus in table\n"
            + "      ThemeChanged in table\n      handlers in table\n      [array] in table\n"
            + "    heads: class metatable {Disconnect}; memory category 0 (main)\n"
            + "    example head 0x560138339de0 (largest retained size), all its paths:\n"
            + "      heapload query paths -p snapshot=after -p address=0x560138339de0 --db " + pairDb + "\n"), r.out());
        assertTrue(r.out().contains("  heapload query why-alive -p snapshot=after -p address=0x560138339de0 --db " + pairDb
            + "\n"), r.out());
    }

    @Test
    @Order(9)
    void luaDumpsAreDetectedAndFormatOverrides() {
        // testdata/lua/weak-tables-nogc/README.md: Lua 5.4 keeps 6 tables + 10 strings
        Path lua = Path.of(System.getProperty("heapload.testdata", "../testdata"), "lua", "weak-tables-nogc", "lua54");
        Path luaDb = tmp.resolve("lua-db");
        Run r = run("--db", luaDb.toString(), lua.resolve("before.json").toString(), lua.resolve("after.json").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("leaks: after relative to before: 16 new reachable objects, "), r.out());
        assertTrue(r.out().contains("      root globals (table)\n      Registry in table\n"), r.out());
        Run wrong = run("--db", tmp.resolve("lua-db2").toString(), "--format", "lua-snapshot", lua.resolve("after.json").toString());
        assertEquals(1, wrong.code());
        assertEquals(1, wrong.err().strip().lines().count(), wrong.err());
        assertTrue(wrong.err().contains("after.json: byte 1: not a lua-snapshot raw table: member \"format\" is not an address"), wrong.err());
        assertEquals(2, run("--format", "nope", lua.resolve("after.json").toString()).code());
    }

    private void assertStoreHoldsOnlyAfter() throws IOException {
        try (GraphStore store = GraphStore.open(db)) {
            assertEquals(List.of("after"), store.snapshots().stream().map(s -> s.id()).toList());
            try (Transaction tx = store.database().beginTx();
                 Result res = tx.execute("MATCH (o:Object) RETURN count(o) AS n")) {
                assertEquals(871L, res.next().get("n"));
            }
        }
        try (var files = Files.list(db)) {
            assertFalse(files.anyMatch(f -> f.getFileName().toString().startsWith("graph.building")),
                "no half-built graph left behind");
        }
    }
}
