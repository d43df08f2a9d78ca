package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leak answer a load prints from the comparison it made in memory, before any graph is written: byte for byte
 * the answer heapload printed when it read the groups back from the graph (golden files
 * {@code testdata/golden/leak-answer.CASE.txt}, captured from that version, the store directory written as
 * {@code DB}); the same answer for a pair loaded in one command and in two; and no Neo4j class loaded on the way.
 */
class LeakAnswerTest {

    @TempDir
    Path tmp;

    static final Path TESTDATA = Path.of(System.getProperty("heapload.testdata", "../testdata"));

    /**
     * The answer part of a load's output: for several files the start, up to the blank line before the brief summaries
     * ({@code loaded:}); for one file after the {@code time:} line and its blank line, up to a {@code graph} line.
     */
    static String answer(String out) {
        int loaded = out.indexOf("\n\nloaded:\n");
        if (loaded >= 0) {
            return out.substring(0, loaded + 1);
        }
        int time = out.indexOf("\ntime: ");
        assertTrue(time >= 0, out);
        int start = out.indexOf("\n\n", time) + 2;
        String rest = out.substring(start);
        int graph = rest.indexOf("\ngraph");
        return graph >= 0 ? rest.substring(0, graph + 1) : rest;
    }

    private String loadAnswer(String name, Path before, Path after) throws IOException {
        Path db = tmp.resolve("db-" + name);
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--no-progress", "--no-graph", "--db", db.toString(),
            before.toString(), after.toString());
        assertEquals(0, r.code(), name + ": " + r.err());
        assertFalse(r.out().contains("\ngraph"), "--no-graph wrote a graph: " + r.out());
        return answer(r.out()).replace(db.toString(), "DB");
    }

    private static String golden(String name) throws IOException {
        return Files.readString(TESTDATA.resolve("golden").resolve("leak-answer." + name + ".txt"), StandardCharsets.UTF_8);
    }

    /**
     * The golden answer {@code name}; with {@code -Dheapload.golden.update=true} first replaced by {@code got} (then
     * review the change with {@code git diff testdata/golden}).
     */
    private static String golden(String name, String got) throws IOException {
        if (Boolean.getBoolean("heapload.golden.update")) {
            Files.writeString(TESTDATA.resolve("golden").resolve("leak-answer." + name + ".txt"), got, StandardCharsets.UTF_8);
        }
        return golden(name);
    }

    @Test
    void theBundledPairsGiveTheGoldenAnswers() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (String[] c : new String[][] {{"event-listeners", "luau/event-listeners"}, {"script-in-key", "luau/script-in-key"},
            {"host-objects", "luau/host-objects"}, {"weak-tables-nogc-lua51", "lua/weak-tables-nogc/lua51"},
            {"weak-tables-nogc-lua54", "lua/weak-tables-nogc/lua54"}, {"listener-sites-lua54", "lua/listener-sites/lua54"}}) {
            Path dir = TESTDATA.resolve(c[1]);
            String got = loadAnswer(c[0], dir.resolve("before.json"), dir.resolve("after.json"));
            if (!got.equals(golden(c[0], got))) {
                wrong.add(c[0] + ":\n" + got);
            }
        }
        assertEquals(List.of(), wrong);
    }

    /** The pair of {@link CrossProcessCommandTest}: after.json with every address moved (a second run). */
    @Test
    void aCrossProcessPairGivesTheGoldenAnswer() throws IOException {
        Path dir = TESTDATA.resolve("luau").resolve("event-listeners");
        Path other = CrossProcessCommandTest.secondRun(tmp);
        String got = loadAnswer("cross", dir.resolve("before.json"), other);
        assertEquals(golden("cross-process", got), got);
    }

    @Test
    void theSharedPairsGiveTheGoldenAnswers() throws IOException {
        Path shared = Path.of(System.getProperty("heapload.shared", "../../shared"), "testdata");
        if (!Files.isDirectory(shared.resolve("luau"))) {
            System.out.println("LeakAnswerTest: shared test data not found (heapload.shared): shared pairs skipped");
            Assumptions.abort("no shared test data");
        }
        List<String> wrong = new ArrayList<>();
        for (String c : List.of("weak-caches", "memory-categories", "edge-unescaped-names", "closures-timers")) {
            Path dir = shared.resolve("luau").resolve(c);
            String got = loadAnswer("luau-" + c, dir.resolve("before.json"), dir.resolve("after.json"));
            if (!got.equals(golden("luau-" + c, got))) {
                wrong.add(c + ":\n" + got);
            }
        }
        for (String c : List.of("weak_tables/cloudwu-lua54", "classes_userdata/cloudwu-luajit")) {
            Path dir = shared.resolve("lua").resolve(c);
            String name = "lua-" + c.replace('/', '-');
            String got = loadAnswer(name, dir.resolve("raw-before.json"), dir.resolve("raw-after.json"));
            if (!got.equals(golden(name, got))) {
                wrong.add(c + ":\n" + got);
            }
        }
        assertEquals(List.of(), wrong);
    }

    /**
     * A nightly job loads one dump per run: the second load answers against the first, as one two-file load does;
     * {@code --baseline} names another snapshot to answer against.
     */
    @Test
    void aLoadIntoAStoreAnswersAgainstThePreviousSnapshotOrTheBaseline() throws IOException {
        Path dir = TESTDATA.resolve("luau").resolve("event-listeners");
        Path db = tmp.resolve("nightly");
        HeapLoadCommandTest.Run first = HeapLoadCommandTest.run("--no-progress", "--no-graph", "--db", db.toString(),
            dir.resolve("before.json").toString());
        assertEquals(0, first.code(), first.err());
        assertFalse(first.out().contains("leaks:"), "a first snapshot has nothing to answer against: " + first.out());
        HeapLoadCommandTest.Run second = HeapLoadCommandTest.run("--no-progress", "--no-graph", "--db", db.toString(),
            dir.resolve("after.json").toString());
        assertEquals(0, second.code(), second.err());
        assertEquals(golden("event-listeners"), answer(second.out()).replace(db.toString(), "DB"));

        // a third load (the same dump under another id) answers against 'after' by default, against 'before' with
        // --baseline before
        HeapLoadCommandTest.Run third = HeapLoadCommandTest.run("--no-progress", "--no-graph", "--db", db.toString(),
            "--name", "again", dir.resolve("after.json").toString());
        assertEquals(0, third.code(), third.err());
        assertTrue(answer(third.out()).startsWith("leaks: again relative to after: 0 new reachable objects, 0 bytes, in 0 leak"
            + " group(s)\n"), third.out());
        HeapLoadCommandTest.Run fourth = HeapLoadCommandTest.run("--no-progress", "--no-graph", "--db", db.toString(),
            "--name", "fourth", "--baseline", "before", dir.resolve("after.json").toString());
        assertEquals(0, fourth.code(), fourth.err());
        assertEquals(golden("event-listeners").replace("after", "fourth"), answer(fourth.out()).replace(db.toString(), "DB"));
    }

    /**
     * Nothing before the answer loads Neo4j: a load with {@code --no-graph} in a child JVM loads no Neo4j class at
     * all ({@code -Xlog:class+load}); with the graph (the default) the first Neo4j class comes after the answer's.
     */
    @Test
    @Tag("process")
    void nothingBeforeTheAnswerLoadsNeo4j() throws Exception {
        Path dir = TESTDATA.resolve("luau").resolve("event-listeners");
        for (boolean graph : new boolean[] {false, true}) {
            Path classes = tmp.resolve("classes-" + graph + ".txt");
            List<String> cmd = new ArrayList<>(ChildHeapLoad.command("--no-progress", graph ? "--graph" : "--no-graph",
                "--db", tmp.resolve("child-" + graph).toString(), dir.resolve("before.json").toString(),
                dir.resolve("after.json").toString()));
            cmd.add(1, "-Xlog:class+load=info:file=" + classes);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("child-" + graph + ".log").toFile()).start();
            assertTrue(p.waitFor(10, TimeUnit.MINUTES), "child did not end");
            String log = Files.readString(tmp.resolve("child-" + graph + ".log"));
            assertEquals(0, p.exitValue(), log);
            assertEquals(golden("event-listeners"), answer(log).replace(tmp.resolve("child-" + graph).toString(), "DB"));
            List<String> loaded = Files.readAllLines(classes);
            int answer = indexOf(loaded, " dev.heapload.report.text.LeakAnswer ");
            int neo4j = indexOf(loaded, " org.neo4j.");
            assertTrue(answer >= 0, "the answer's class was not loaded");
            if (graph) {
                assertTrue(neo4j > answer, "a Neo4j class was loaded before the answer: " + (neo4j < 0 ? "none" : loaded.get(neo4j)));
                assertTrue(log.contains("\ngraph of 'after': import "), log);
            } else {
                assertEquals(-1, neo4j, () -> "a Neo4j class was loaded: " + loaded.get(indexOf(loaded, " org.neo4j.")));
            }
        }
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }
}
