package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's manners: {@code help}, shell completion of subcommands and saved query names (run
 * in a real bash), "did you mean" for mistyped commands, options, query names and parameters, exit 2 for every
 * usage error, {@code HEAPLOAD_DB} / {@code NEO4J_URI} / {@code NEO4J_DATABASE} as defaults, ad-hoc read-only
 * Cypher ({@code cypher}, {@code query -e}, standard input), {@code next:} hints that name the command the user
 * ran, options given before the command, long strings cut with their length in every text table, summaries of many
 * memory categories cut to the largest, a pair load that answers first, and the "no store" / unknown snapshot
 * messages. One load of the bundled event-listeners pair serves most tests.
 */
class CliMannersTest {

    @TempDir
    static Path tmp;

    static Path db;

    static HeapLoadCommandTest.Run run(String... args) {
        return HeapLoadCommandTest.run(args);
    }

    @BeforeAll
    static void load() {
        Path dir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        db = tmp.resolve("db");
        System.setProperty("heapload.command", "./heapload");
        HeapLoadCommandTest.Run r;
        try {
            r = run("--db", db.toString(), "--no-progress", dir.resolve("before.json").toString(),
                dir.resolve("after.json").toString());
        } finally {
            System.clearProperty("heapload.command");
        }
        assertEquals(0, r.code(), r.err());
        // the hints call the command the user ran (the launcher passes it), not a heapload that is not on the PATH
        assertTrue(r.out().contains("next:\n  ./heapload query leak-groups -p baseline=before -p target=after --db "
            + db + "\n  ./heapload query new-objects"), r.out());
        assertTrue(r.out().contains("\n  ./heapload serve --db " + db + "      (Neo4j Browser on the store)\n"), r.out());
    }

    @AfterEach
    void restoreEnvironment() {
        BoltOptions.environment = System.getenv();
    }

    @Test
    void everyUsageErrorExitsTwoWithOneLineAndTheClosestNames() {
        String d = db.toString();
        List<String[]> cases = List.of(
            new String[] {"heapload: 'reprot' is neither a command nor a file; did you mean report?", "", "reprot"},
            new String[] {"heapload: 'qeury' is neither a command nor a file; did you mean query?", "", "qeury", "x"},
            new String[] {"heapload: 'frobnicate' is neither a command nor a file (commands: snapshots, micropython, tree, "
                + "export, queries, query, cypher, trend, report, serve, prune, help, completion)", "", "frobnicate"},
            new String[] {"heapload: Unknown option: '--fromat'; did you mean --format?", " report", "report", "--fromat", "html"},
            new String[] {"heapload: Unknown option: '--limt=3'; did you mean --limit?", " query", "query", "summary", "--limt=3"},
            new String[] {"heapload: no saved query 'leak-grops'; did you mean leak-groups? (heapload queries lists them; a "
                + "path to a .cypher file also works)", " query", "query", "leak-grops", "--db", d},
            new String[] {"heapload: query 'leak-groups' has no parameter 'targte'; did you mean target? (it takes: "
                + "baseline string, target string)", " query", "query", "leak-groups", "-p", "baseline=before",
                "-p", "targte=after", "--db", d},
            new String[] {"heapload: query 'summary' needs -p snapshot=STRING (it takes: snapshot string)", " query",
                "query", "summary", "--db", d},
            new String[] {"heapload: parameter 'top' must be an integer, not 'ten'", " query",
                "query", "largest-retainers", "-p", "snapshot=after", "-p", "top=ten", "--db", d},
            new String[] {"heapload: give a saved query NAME (heapload queries lists them), a .cypher file, or -e CYPHER",
                " query", "query", "--db", d},
            new String[] {"heapload: give a saved query NAME (heapload queries lists them), a .cypher file, or -e CYPHER",
                " query", "query", "summary", "-e", "RETURN 1 AS x", "--db", d},
            new String[] {"heapload: the Cypher statement is empty", " cypher", "cypher", " ", "--db", d},
            new String[] {"heapload: completion is for bash or zsh, not 'fish'", " completion", "completion", "fish"},
            new String[] {"heapload: completion is for bash or zsh, not 'bsh'; did you mean bash or zsh?", " completion",
                "completion", "bsh"});
        List<String> problems = new ArrayList<>();
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOfRange(c, 2, c.length);
            HeapLoadCommandTest.Run r = run(args);
            String expected = c[0] + "\nTry 'heapload" + c[1] + " --help' for more information.\n";
            if (r.code() != 2 || !r.err().equals(expected) || !r.out().isEmpty()) {
                problems.add(String.join(" ", args) + " -> exit " + r.code() + ", err " + r.err() + ", out " + r.out());
            }
        }
        assertEquals(List.of(), problems);
        // a missing file that looks like a path stays a missing file (bad input, exit 1)
        HeapLoadCommandTest.Run missing = run("--db", db.toString(), "reprot.json");
        assertEquals(1, missing.code());
        assertEquals("heapload: reprot.json: no such file\n", missing.err());
    }

    /**
     * Options given before the subcommand: the store and server options apply to it as if given after it; anything
     * else there is a usage error naming where it belongs (picocli alone would hand them to the load and run the
     * subcommand without them).
     */
    @Test
    void optionsBeforeTheCommandApplyToItOrAreUsageErrors() {
        String d = db.toString();
        HeapLoadCommandTest.Run before = run("--db", d, "query", "summary", "-p", "snapshot=after", "--format", "csv");
        assertEquals(0, before.code(), before.err());
        HeapLoadCommandTest.Run after = run("query", "summary", "-p", "snapshot=after", "--format", "csv", "--db", d);
        assertEquals(0, after.code(), after.err());
        assertEquals(after.out(), before.out());
        assertTrue(before.out().startsWith("by,key,objects,bytes,reachableBytes,unreachableBytes\nall,,871,79118,76674,2444\n"),
            before.out());
        HeapLoadCommandTest.Run snapshots = run("--db=" + d, "snapshots");
        assertEquals(0, snapshots.code(), snapshots.err());
        assertTrue(snapshots.out().contains("\n before | luau |     685 |"), snapshots.out());
        // the same value on both sides is one store
        HeapLoadCommandTest.Run twice = run("--db", d, "cypher", "MATCH (s:Snapshot) RETURN count(s) AS n", "--format",
            "csv", "--db", d);
        assertEquals("n\n2\n", twice.out(), twice.err());
        // --uri before the command points it at the server (unreachable here: the error names it)
        HeapLoadCommandTest.Run server = run("--uri", "bolt://127.0.0.1:1", "query", "summary", "-p", "snapshot=after");
        assertEquals(1, server.code(), server.err());
        assertTrue(server.err().startsWith("heapload: ") && server.err().contains("bolt://127.0.0.1:1"), server.err());
        List<String[]> cases = List.of(
            new String[] {"heapload: --db is given both before and after 'query' with different values; give it once",
                " query", "--db", d, "query", "summary", "-p", "snapshot=after", "--db", tmp.resolve("other").toString()},
            new String[] {"heapload: --keep before 'query' is an option of the load (heapload FILE...), not of query",
                " query", "--keep", "2", "query", "summary", "-p", "snapshot=after", "--db", d},
            new String[] {"heapload: --format before 'query' is an option of the load (heapload FILE...); for query's own "
                + "--format give it after 'query'", " query", "--format", "csv", "query", "summary", "-p", "snapshot=after"},
            new String[] {"heapload: --db does not apply to completion", " completion", "--db", d, "completion", "bash"},
            new String[] {"heapload: 'x.json' comes before 'query': a command takes no files before its name (to load "
                + "dumps: heapload FILE...)", " query", "x.json", "query", "summary", "-p", "snapshot=after"});
        List<String> problems = new ArrayList<>();
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOfRange(c, 2, c.length);
            HeapLoadCommandTest.Run r = run(args);
            String expected = c[0] + "\nTry 'heapload" + c[1] + " --help' for more information.\n";
            if (r.code() != 2 || !r.err().equals(expected) || !r.out().isEmpty()) {
                problems.add(String.join(" ", args) + " -> exit " + r.code() + ", err " + r.err() + ", out " + r.out());
            }
        }
        assertEquals(List.of(), problems);
    }

    /** "no store" says how to name one; an unknown snapshot id gets the stored ids close to it. */
    @Test
    void noStoreNamesTheOptionsAndAnUnknownSnapshotGetsDidYouMean() {
        Path none = tmp.resolve("none");
        HeapLoadCommandTest.Run missing = run("snapshots", "--db", none.toString());
        assertEquals(1, missing.code());
        assertEquals("heapload: no store at " + none.toAbsolutePath().normalize() + " (name the store with --db DIR or "
            + "HEAPLOAD_DB; or load a dump first: heapload FILE)\n", missing.err());
        HeapLoadCommandTest.Run query = run("query", "summary", "-p", "snapshot=aftr", "--db", db.toString());
        assertEquals(1, query.code());
        assertEquals("heapload: no snapshot 'aftr' in the store; did you mean after? (heapload snapshots lists them)\n",
            query.err());
        HeapLoadCommandTest.Run paths = run("query", "paths", "-p", "snapshot=befor", "-p", "address=0x1", "--db",
            db.toString());
        assertEquals(1, paths.code());
        assertEquals("heapload: no snapshot 'befor' in the store; did you mean before? (heapload snapshots lists them)\n",
            paths.err());
        HeapLoadCommandTest.Run far = run("query", "summary", "-p", "snapshot=nightly", "--db", db.toString());
        assertEquals("heapload: no snapshot 'nightly' in the store (heapload snapshots lists them)\n", far.err());
    }

    /** The 300,000 characters of {@link #LONG_KEY}: 30,000 times {@code abcdefghij}. */
    private static final String LONG_KEY = "abcdefghij".repeat(30_000);

    /**
     * A Luau dump whose registry maps {@link #LONG_KEY} to a table (category 1, named {@link #LONG_KEY} too) that holds
     * {@code leaked} new 48-byte tables.
     */
    private static Path longKeyDump(String name, int leaked) throws Exception {
        StringBuilder objects = new StringBuilder("{\"objects\":{\n");
        objects.append("\"0x1000\":{\"type\":\"thread\",\"cat\":0,\"size\":1232,\"env\":\"0x1100\",\"stack\":[],\"stacknames\":[]},\n");
        objects.append("\"0x1200\":{\"type\":\"string\",\"cat\":0,\"size\":300024,\"data\":\"").append(LONG_KEY).append("\"},\n");
        List<String> array = new ArrayList<>();
        for (int i = 0; i < leaked; i++) {
            String address = "0x" + Integer.toHexString(0x2000 + 0x100 * i);
            objects.append("\"").append(address).append("\":{\"type\":\"table\",\"cat\":1,\"size\":48},\n");
            array.add("\"" + address + "\"");
        }
        objects.append("\"0x1300\":{\"type\":\"table\",\"cat\":1,\"size\":64,\"array\":[").append(String.join(",", array))
            .append("]},\n");
        objects.append("\"0x1100\":{\"type\":\"table\",\"cat\":0,\"size\":96,\"pairs\":[\"0x1200\",\"0x1300\"]},\n");
        objects.append("\"0\":{\"type\":\"userdata\",\"cat\":0,\"size\":0}\n},\"roots\":{\n");
        objects.append("\"mainthread\":\"0x1000\",\"registry\":\"0x1100\"},\"stats\":{\n\"size\":400000,\n\"categories\":{\n");
        objects.append("\"0\":{\"name\":\"main\", \"size\":350000},\n\"1\":{\"name\":\"").append(LONG_KEY)
            .append("\", \"size\":50000},\n\"none\":{}\n}\n}}\n");
        return Files.writeString(tmp.resolve(name + ".json"), objects.toString());
    }

    /**
     * A 300,000-character string from a dump (a table key, a memory category name) shows cut, with its length, in the
     * load summary, the leak answer, the query tables and the tree; CSV keeps it whole.
     */
    @Test
    void longStringsAreCutWithTheirLengthInEveryTable() throws Exception {
        Path longDb = tmp.resolve("long");
        Path before = longKeyDump("long-before", 0);
        Path after = longKeyDump("long-after", 3);
        HeapLoadCommandTest.Run first = run("--db", longDb.toString(), "--no-progress", "--no-graph", before.toString());
        assertEquals(0, first.code(), first.err());
        HeapLoadCommandTest.Run second = run("--db", longDb.toString(), "--no-progress", "--no-graph", after.toString());
        assertEquals(0, second.code(), second.err());
        String cut = "abcdefghij".repeat(8) + "abc\u2026 (300,000 chars)";
        assertTrue(second.out().contains("""
              by memory category:
                id | category                                 | objects | object bytes | VM bytes
               ----+------------------------------------------+---------+--------------+----------
                 0 | main                                     |       3 |      301,352 |  350,000
                 1 | abcdefghijabcdefghijabc\u2026 (300,000 chars) |       4 |          208 |   50,000
            """), second.out());
        assertTrue(second.out().contains("""
              group 1: 3 objects, 144 new bytes, 144 retained bytes, 3 table head(s), path:
                  root registry (table)
                  %s
                  [array] in table
            """.formatted("abcdefghij".repeat(8) + "abc\u2026 (300,009 chars)")), second.out());
        // the heads' memory category, named by the long string, is cut as in the table
        assertTrue(second.out().contains("\n    heads: memory category 1 (abcdefghijabcdefghijabc\u2026 (300,000 chars))\n"),
            second.out());
        assertTrue(second.out().length() < 5_000, second.out().length() + " characters printed");
        // the paths query (from the model): the via cell cut; its CSV has the whole key
        HeapLoadCommandTest.Run paths = run("query", "paths", "-p", "snapshot=long-after", "-p", "address=0x2000",
            "--db", longDb.toString());
        assertEquals(0, paths.code(), paths.err());
        assertTrue(paths.out().contains("\n    1 |    1 | 0x1300  | table  |       | " + cut + " |   64 |          208\n"),
            paths.out());
        HeapLoadCommandTest.Run csv = run("query", "paths", "-p", "snapshot=long-after", "-p", "address=0x2000",
            "--format", "csv", "--db", longDb.toString());
        assertEquals(0, csv.code(), csv.err());
        assertTrue(csv.out().contains("," + LONG_KEY + ","), "CSV keeps the whole key");
        HeapLoadCommandTest.Run tree = run("tree", after.toString(), "--svg", tmp.resolve("long.svg").toString());
        assertEquals(0, tree.code(), tree.err());
        assertTrue(tree.out().contains("\n         208 |       4 | /registry/" + "abcdefghij".repeat(7) + "abc\u2026 (300,010 chars)\n"),
            tree.out());
    }

    /**
     * A pair load prints the leak answer first, then a short summary of each snapshot; a summary of 256 memory
     * categories shows the 20 largest and counts the rest in one line.
     */
    @Test
    void aPairLoadAnswersFirstAndManyCategoriesAreCutToTheLargest() {
        Path dir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "many-categories");
        HeapLoadCommandTest.Run pair = run("--db", tmp.resolve("many").toString(), "--no-progress", "--no-graph",
            dir.resolve("before.json").toString(), dir.resolve("after.json").toString());
        assertEquals(0, pair.code(), pair.err());
        assertTrue(pair.out().startsWith("leaks: after relative to before: 24 new reachable objects, 1,152 bytes, in 6 "
            + "leak group(s)\n  group 1: 4 objects, 192 new bytes, 192 retained bytes, 4 table head(s), path:\n"), pair.out());
        String brief = """

            loaded:
            snapshot before (luau) from %s
              objects     514 (62,258 bytes shallow)
              references  513 (513 strong, 0 weak)
              VM total    63,258 bytes (stats.size: every allocation, not only objects)
              reachable   514 objects, 62,258 bytes; unreachable from exported roots 0 objects, 0 bytes
              roots: mainthread=0x1000 registry=0x1100
              repaired spots: none
              store: %s

            snapshot after (luau) from""".formatted(dir.resolve("before.json"), tmp.resolve("many").toAbsolutePath().normalize());
        assertTrue(pair.out().contains("(Neo4j Browser on the store)\n" + brief), pair.out());
        assertEquals(69, pair.out().lines().count(), pair.out());
        HeapLoadCommandTest.Run one = run("--db", tmp.resolve("many-one").toString(), "--no-progress", "--no-graph",
            dir.resolve("after.json").toString());
        assertEquals(0, one.code(), one.err());
        assertTrue(one.out().contains("""
              by memory category (the 20 largest of 256):
                 id | category      | objects | object bytes | VM bytes
               -----+---------------+---------+--------------+----------
                  0 | main          |     259 |       13,298 |   14,298
                255 | Plugin.Cat255 |       5 |          511 |      511
            """), one.out());
        assertTrue(one.out().contains("""
                237 | Plugin.Cat237 |       1 |          301 |      301
                \u2026 236 more categories: 43,070 object bytes, 43,070 VM bytes (heapload query summary -p snapshot=after lists them all)
              roots: mainthread=0x1000 registry=0x1100
            """), one.out());
    }

    @Test
    void helpShowsTheCommandsAndEachCommandsHelp() {
        HeapLoadCommandTest.Run all = run("help");
        assertEquals(0, all.code(), all.err());
        for (String command : List.of("snapshots", "query", "cypher", "report", "serve", "help", "completion")) {
            assertTrue(all.out().contains("\n  " + command + " "), command + " missing from\n" + all.out());
        }
        assertTrue(all.out().contains("HEAPLOAD_DB      default of --db"), all.out());
        HeapLoadCommandTest.Run query = run("help", "query");
        assertEquals(0, query.code(), query.err());
        assertEquals(run("query", "--help").out(), query.out());
        assertTrue(query.out().startsWith("Usage: heapload query "), query.out());
    }

    @Test
    @Tag("process")
    void bashCompletionCompletesSubcommandsAndSavedQueryNames() throws Exception {
        HeapLoadCommandTest.Run bash = run("completion", "bash");
        assertEquals(0, bash.code(), bash.err());
        Path script = Files.writeString(tmp.resolve("heapload-completion.bash"), bash.out());
        assertEquals(List.of("query", "queries"), complete(script, "heapload qu"));
        assertEquals(List.of("leak-groups", "largest-retainers"), complete(script, "heapload query l"));
        assertEquals(List.of("why-alive", "weak-only"), complete(script, "heapload query w"));
        assertEquals(List.of("cypher", "completion"), complete(script, "heapload c"));
        assertEquals(List.of("--format"), complete(script, "heapload cypher --fo"));
        HeapLoadCommandTest.Run zsh = run("completion", "zsh");
        assertEquals(0, zsh.code(), zsh.err());
        assertTrue(zsh.out().startsWith("# heapload completion for zsh"), zsh.out());
        assertTrue(zsh.out().contains("autoload -U +X bashcompinit && bashcompinit\n"), zsh.out());
        assertTrue(zsh.out().endsWith(bash.out()));
    }

    /** The candidates bash offers for {@code line} (cursor at its end) with the completion script sourced. */
    private static List<String> complete(Path script, String line) throws Exception {
        Path bash = Path.of("/bin/bash");
        Assumptions.assumeTrue(Files.isExecutable(bash), "no /bin/bash: completion not run in a shell");
        String words = line.endsWith(" ") ? line + "''" : line;
        String program = "source '" + script + "'\n"
            + "COMP_LINE='" + line + "'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(" + words + ");"
            + " COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))\n"
            + "_complete_heapload heapload \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
            + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        Process p = new ProcessBuilder(bash.toString(), "--norc", "--noprofile", "-c", program)
            // bash says "compopt: not currently executing completion function" outside a real completion
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES)); // a hang bound
        return out.lines().filter(l -> !l.isBlank()).map(String::strip).sorted(java.util.Comparator.reverseOrder())
            .toList();
    }

    @Test
    void environmentVariablesAreDefaultsThatTheCommandLineOverrides() {
        BoltOptions.environment = Map.of("HEAPLOAD_DB", db.toString(), "NEO4J_DATABASE", "ignored");
        HeapLoadCommandTest.Run viaEnv = run("cypher", "MATCH (s:Snapshot) RETURN s.id AS id ORDER BY id", "--format", "csv");
        assertEquals(0, viaEnv.code(), viaEnv.err());
        assertEquals("id\nafter\nbefore\n", viaEnv.out());
        // --db on the command line wins over HEAPLOAD_DB
        HeapLoadCommandTest.Run other = run("snapshots", "--db", tmp.resolve("none").toString());
        assertEquals(1, other.code());
        assertTrue(other.err().startsWith("heapload: no store at " + tmp.resolve("none")), other.err());
        // NEO4J_URI points every command at a server; --db given on the command line wins over it
        BoltOptions.environment = Map.of("NEO4J_URI", "bolt://127.0.0.1:1", "NEO4J_DATABASE", "heaps");
        HeapLoadCommandTest.Run server = run("query", "summary", "-p", "snapshot=after");
        assertEquals(1, server.code(), server.err());
        assertTrue(server.err().startsWith("heapload: ") && server.err().contains("bolt://127.0.0.1:1"), server.err());
        HeapLoadCommandTest.Run local = run("cypher", "MATCH (s:Snapshot) RETURN count(s) AS n", "--format", "csv",
            "--db", db.toString());
        assertEquals(0, local.code(), local.err());
        assertEquals("n\n2\n", local.out());
        // both on the command line still exclude each other
        HeapLoadCommandTest.Run both = run("snapshots", "--db", db.toString(), "--uri", "bolt://127.0.0.1:1");
        assertEquals(2, both.code());
    }

    /** query, cypher and trend take the store and timeout options from one mixin (StoreOptions): same help, same checks. */
    @Test
    void queryCypherAndTrendShareTheStoreAndTimeoutOptions() {
        for (String command : List.of("query", "cypher", "trend")) {
            String help = run(command, "--help").out();
            String words = help.replaceAll("\\s+", " ");
            assertTrue(words.contains(" --db=DIR Store directory (default: heapload-db; $HEAPLOAD_DB when set). "),
                command + "\n" + help);
            assertTrue(words.contains(" --timeout=SECONDS Stop a query after this many seconds (default: 120). "),
                command + "\n" + help);
            assertTrue(words.contains(" --uri=URI Use the Neo4j server"), command + "\n" + help);
        }
        HeapLoadCommandTest.Run trend = run("trend", "--timeout", "0", "--db", db.toString());
        assertEquals(2, trend.code(), trend.err());
        assertTrue(trend.err().startsWith("heapload: --timeout must be > 0"), trend.err());
        HeapLoadCommandTest.Run query = run("query", "summary", "-p", "snapshot=after", "--timeout", "0", "--db",
            db.toString());
        assertEquals(2, query.code(), query.err());
        assertTrue(query.err().startsWith("heapload: --timeout must be > 0"), query.err());
        BoltOptions.environment = Map.of("HEAPLOAD_DB", db.toString());
        try {
            HeapLoadCommandTest.Run viaEnv = run("trend", "--format", "csv");
            assertEquals(0, viaEnv.code(), viaEnv.err());
            assertTrue(viaEnv.out().startsWith("snapshot,"), viaEnv.out());
            assertEquals(3, viaEnv.out().lines().count(), viaEnv.out());
        } finally {
            BoltOptions.environment = System.getenv();
        }
    }

    @Test
    void adHocCypherHasTheQueryOutputsAndRules() throws Exception {
        String d = db.toString();
        HeapLoadCommandTest.Run table = run("cypher", "MATCH (o:Object {snapshot: $s, type: $t}) RETURN o.type AS type, "
            + "count(*) AS n, sum(o.size) AS bytes", "-p", "s=after", "-p", "t=table", "--db", d);
        assertEquals(0, table.code(), table.err());
        assertEquals("""
             type  |   n | bytes
            -------+-----+-------
             table | 213 | 43456
            (1 row)
            """, table.out());
        // typed parameters: integer and boolean values are not strings
        HeapLoadCommandTest.Run typed = run("cypher", "RETURN $n + 1 AS n, $b AS b, $s AS s", "-p", "n=41", "-p", "b=true",
            "-p", "s=0x56", "--format", "json", "--db", d);
        assertEquals(0, typed.code(), typed.err());
        assertEquals("[ {\n  \"n\" : 42,\n  \"b\" : true,\n  \"s\" : \"0x56\"\n} ]\n", typed.out());
        HeapLoadCommandTest.Run e = run("query", "-e", "MATCH (s:Snapshot) RETURN s.id AS id ORDER BY id", "--format", "csv",
            "--limit", "1", "--db", d);
        assertEquals(0, e.code(), e.err());
        assertEquals("id\nafter\n", e.out());
        // each snapshot has a graph of its own (docs/design/store.md): ad-hoc Cypher runs on the graph its -p snapshot= (or
        // target=) names, else on the newest
        HeapLoadCommandTest.Run stdin = withStdin("MATCH (:Snapshot {id: $snapshot})-[:ROOT]->(r)\nRETURN count(r) AS roots\n",
            () -> run("cypher", "-", "-p", "snapshot=before", "--format", "csv", "--db", d));
        assertEquals(0, stdin.code(), stdin.err());
        assertEquals("roots\n2\n", stdin.out());
        Path secret = Files.writeString(tmp.resolve("secret.csv"), "the secret\n");
        String state = StoreState.of(db, "after");
        List<String[]> refused = List.of(
            new String[] {"heapload: query 'ad-hoc' would change the graph; queries are read-only (nothing was changed)",
                "cypher", "MATCH (n) DETACH DELETE n"},
            new String[] {"heapload: query 'ad-hoc' would change the graph; queries are read-only (nothing was changed)",
                "query", "-e", "CREATE (:Object {snapshot: 'after'})"},
            new String[] {"heapload: query 'ad-hoc' refused: LOAD CSV is off (queries read the graph only, no files or URLs)",
                "cypher", "LOAD CSV FROM '" + secret.toUri() + "' AS row RETURN row"},
            new String[] {"heapload: query 'ad-hoc' refused: LOAD CSV is off (queries read the graph only, no files or URLs)",
                "cypher", "LOAD CSV FROM 'http://127.0.0.1:9/x.csv' AS row RETURN row"},
            new String[] {"heapload: no snapshot 'later' in the store; did you mean after? (heapload snapshots lists them)",
                "cypher", "MATCH (o:Object {snapshot: $snapshot}) RETURN count(o) AS n", "-p", "snapshot=later"},
            new String[] {"heapload: query 'ad-hoc' stopped after the transaction timeout of 1 s (raise it with --timeout)",
                "cypher", "UNWIND range(1, 2000000000) AS x WITH x WHERE x < 0 RETURN count(x) AS n", "--timeout", "1"});
        List<String> problems = new ArrayList<>();
        for (String[] c : refused) {
            List<String> args = new ArrayList<>(List.of(c).subList(1, c.length));
            args.addAll(List.of("--db", d));
            HeapLoadCommandTest.Run r = run(args.toArray(String[]::new));
            if (r.code() != 1 || !r.err().equals(c[0] + "\n") || !r.out().isEmpty()) {
                problems.add(String.join(" ", args) + " -> exit " + r.code() + ", err " + r.err());
            }
        }
        assertEquals(List.of(), problems);
        // one graph per snapshot (docs/design/store.md): each still holds its own objects
        for (String[] snapshot : new String[][] {{"before", "685"}, {"after", "871"}}) {
            HeapLoadCommandTest.Run count = run("cypher", "MATCH (o:Object {snapshot: $snapshot}) RETURN count(o) AS n",
                "-p", "snapshot=" + snapshot[0], "--format", "csv", "--db", d);
            assertEquals("n\n" + snapshot[1] + "\n", count.out(), "the refused writes changed nothing");
        }
        assertEquals(state, StoreState.of(db, "after"), "snapshot list, summary rows or snapshot files changed");
    }

    private static HeapLoadCommandTest.Run withStdin(String text, java.util.function.Supplier<HeapLoadCommandTest.Run> run) {
        InputStream saved = System.in;
        System.setIn(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        try {
            return run.get();
        } finally {
            System.setIn(saved);
        }
    }
}
