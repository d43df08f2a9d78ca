package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code heapload queries} and {@code heapload query} in-process on the bundled event-listeners pair: formats,
 * --limit, a .cypher path, and one-line errors with exit 1 (2 for usage errors).
 */
class QueryCommandTest {

    @TempDir
    static Path tmp;

    static Path db;
    static Path testdata;

    static HeapLoadCommandTest.Run run(String... args) {
        return HeapLoadCommandTest.run(args);
    }

    @BeforeAll
    static void load() {
        testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"));
        Path dir = testdata.resolve("luau").resolve("event-listeners");
        db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = run("--db", db.toString(), "--no-progress", dir.resolve("before.json").toString(), dir.resolve("after.json").toString());
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void queriesListsTheLibrary() {
        HeapLoadCommandTest.Run r = run("queries");
        assertEquals(0, r.code(), r.err());
        for (String name : List.of("summary", "largest-retainers", "new-objects", "leak-groups", "growth", "why-alive",
            "weak-only", "unreachable", "categories", "type-histogram", "type-histogram-diff", "referrers")) {
            assertTrue(r.out().contains(name + "\n"), name + " missing from\n" + r.out());
        }
        assertTrue(r.out().contains("    parameters: baseline string, target string\n"), r.out());
    }

    @Test
    void csvOutputEqualsTheGoldenFile() throws Exception {
        HeapLoadCommandTest.Run r = run("query", "new-objects", "-p", "baseline=before", "-p", "target=after", "--format", "csv", "--db", db.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(Files.readString(testdata.resolve("golden").resolve("new-objects.event-listeners.csv")), r.out());
        assertEquals("", r.err());
    }

    @Test
    void jsonTableAndLimit() {
        HeapLoadCommandTest.Run json = run("query", "type-histogram", "-p", "snapshot=after", "--format", "json", "--limit", "1", "--db", db.toString());
        assertEquals(0, json.code(), json.err());
        assertEquals("""
            [ {
              "type" : "table",
              "objects" : 213,
              "bytes" : 43456,
              "reachableObjects" : 208,
              "reachableBytes" : 43056,
              "maxRetainedSize" : 20280
            } ]
            """, json.out());
        HeapLoadCommandTest.Run table = run("query", "type-histogram", "-p", "snapshot=after", "--limit", "2", "--db", db.toString());
        assertEquals("""
             type     | objects | bytes | reachableObjects | reachableBytes | maxRetainedSize
            ----------+---------+-------+------------------+----------------+-----------------
             table    |     213 | 43456 |              208 |          43056 |           20280
             function |     274 | 15016 |              272 |          14904 |            2529
            (2 rows, more cut off by --limit)
            """, table.out());
    }

    @Test
    void aCypherFileWithAHeaderRuns() throws Exception {
        Path f = Files.writeString(tmp.resolve("count.cypher"), """
            // name: count
            // description: Objects of one type.
            // param: snapshot string
            // param: type string = table
            // columns: n
            MATCH (o:Object {snapshot: $snapshot, type: $type}) RETURN count(o) AS n
            """);
        HeapLoadCommandTest.Run r = run("query", f.toString(), "-p", "snapshot=after", "--format", "csv", "--db", db.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("n\n213\n", r.out());
        // a value is a parameter, never Cypher text
        HeapLoadCommandTest.Run inj = run("query", f.toString(), "-p", "snapshot=after' OR 1=1 //", "--format", "csv", "--db", db.toString());
        assertEquals(1, inj.code());
        assertEquals("heapload: no snapshot 'after' OR 1=1 //' in the store (heapload snapshots lists them)\n", inj.err());
    }

    @Test
    void errorsAreOneLineWithExitOne() throws Exception {
        Path slow = Files.writeString(tmp.resolve("slow.cypher"), """
            // name: slow
            // description: Never finishes in time.
            // columns: n
            UNWIND range(1, 2000000000) AS x WITH x WHERE x < 0 RETURN count(x) AS n
            """);
        Path writer = Files.writeString(tmp.resolve("writer.cypher"), """
            // name: writer
            // description: Tries to delete everything.
            // columns: n
            MATCH (n) DETACH DELETE n RETURN count(*) AS n
            """);
        Path secret = Files.writeString(tmp.resolve("secret.csv"), "the secret\n");
        Path fileReader = Files.writeString(tmp.resolve("file-reader.cypher"), """
            // name: file-reader
            // description: Reads a local file.
            // columns: row
            LOAD CSV FROM '%s' AS row RETURN row
            """.formatted(secret.toUri()));
        Path urlReader = Files.writeString(tmp.resolve("url-reader.cypher"), """
            // name: url-reader
            // description: Fetches a URL.
            // columns: row
            LOAD CSV FROM 'http://127.0.0.1:9/x.csv' AS row RETURN row
            """);
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        String state = StoreState.of(db, "after");
        List<String[]> cases = List.of(
            new String[] {"heapload: query 'file-reader' refused: LOAD CSV is off (queries read the graph only, no files or URLs)",
                "query", fileReader.toString(), "--db", db.toString()},
            new String[] {"heapload: query 'url-reader' refused: LOAD CSV is off (queries read the graph only, no files or URLs)",
                "query", urlReader.toString(), "--db", db.toString()},
            new String[] {"heapload: query 'writer' would change the graph; queries are read-only (nothing was changed)",
                "query", writer.toString(), "--db", db.toString()},
            new String[] {"heapload: parameter 'snapshot' is empty: give a snapshot id (heapload snapshots lists them)",
                "query", "summary", "-p", "snapshot=", "--db", db.toString()},
            // an unknown query name and wrong parameters are usage errors (exit 2): CliMannersTest
            new String[] {"heapload: no snapshot 'later' in the store; did you mean after? (heapload snapshots lists them)",
                "query", "new-objects", "-p", "baseline=before", "-p", "target=later", "--db", db.toString()},
            new String[] {"heapload: no store at " + tmp.resolve("none").toAbsolutePath().normalize() + " (name the store with --db DIR or HEAPLOAD_DB; or load a dump first: heapload FILE)",
                "query", "summary", "-p", "snapshot=after", "--db", tmp.resolve("none").toString()},
            new String[] {"heapload: no store at " + tmp.resolve("none").toAbsolutePath().normalize() + " (name the store with --db DIR or HEAPLOAD_DB; or load a dump first: heapload FILE)",
                "snapshots", "--db", tmp.resolve("none").toString()},
            // an empty directory is no store either, and reading it must not make one (a fresh user's trial found it did)
            new String[] {"heapload: no store at " + empty.toAbsolutePath().normalize() + " (name the store with --db DIR or HEAPLOAD_DB; or load a dump first: heapload FILE)",
                "query", "summary", "-p", "snapshot=after", "--db", empty.toString()},
            new String[] {"heapload: no store at " + empty.toAbsolutePath().normalize() + " (name the store with --db DIR or HEAPLOAD_DB; or load a dump first: heapload FILE)",
                "snapshots", "--db", empty.toString()},
            new String[] {"heapload: " + slow + " is not a directory (give the store directory with --db)",
                "query", "summary", "-p", "snapshot=after", "--db", slow.toString()},
            // an address no object of the snapshot has
            new String[] {"heapload: no object at address '0x5601383' in snapshot 'after' (give it as largest-retainers or "
                + "the leak answer prints it; any case, with or without 0x)",
                "query", "why-alive", "-p", "snapshot=after", "-p", "address=0x5601383", "--db", db.toString()},
            new String[] {"heapload: query 'slow' stopped after the transaction timeout of 1 s (raise it with --timeout)",
                "query", slow.toString(), "--timeout", "1", "--db", db.toString()});
        List<String> problems = new ArrayList<>();
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
            HeapLoadCommandTest.Run r = run(args);
            if (r.code() != 1 || !r.err().equals(c[0] + "\n") || !r.out().isEmpty()) {
                problems.add(String.join(" ", args) + " -> exit " + r.code() + ", err " + r.err());
            }
        }
        assertEquals(List.of(), problems);
        try (var left = Files.list(empty)) {
            assertEquals(List.of(), left.toList(), "reading an empty directory wrote into it");
        }
        assertEquals(871L, run("query", "summary", "-p", "snapshot=after", "--format", "csv", "--db", db.toString()).out()
            .lines().filter(l -> l.startsWith("all,")).map(l -> Long.parseLong(l.split(",")[2])).findFirst().orElse(-1L),
            "the refused writer changed nothing");
        assertEquals(state, StoreState.of(db, "after"), "snapshot list, summary rows or snapshot files changed");
        HeapLoadCommandTest.Run usage = run("query", "summary", "-p", "snapshot=after", "--format", "xml", "--db", db.toString());
        assertEquals(2, usage.code());
        assertEquals("heapload: --format must be table, csv or json, not 'xml'\n"
            + "Try 'heapload query --help' for more information.\n", usage.err());
    }
}
