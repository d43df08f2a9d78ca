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
 * Cypher ({@code cypher}, {@code query -e}, standard input) and {@code next:} hints that name the command the user
 * ran. One load of the bundled event-listeners pair serves every test.
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
            new String[] {"heapload: no snapshot 'later' in the store (heapload snapshots lists them)",
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
