package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.Catalog;

/**
 * A load killed (SIGTERM, as Ctrl-C or a CI timeout does) while Neo4j's importer writes the new graph, after the
 * answer was printed, loses nothing: the snapshot stays listed with its model and summary, no half-built graph
 * remains, and the next query builds its graph from the stored model (one line says so) and gives the rows a
 * completed load gives.
 */
@Tag("process")
class InterruptedLoadTest {

    @TempDir
    Path tmp;

    @Test
    void killedDuringTheGraphWriteKeepsTheSnapshotAndTheNextQueryBuildsItsGraph() throws Exception {
        Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        Path db = tmp.resolve("db");
        assertEquals(0, HeapLoadCommandTest.run("--db", db.toString(), testdata.resolve("before.json").toString()).code());

        List<String> cmd = ChildHeapLoad.command("--db", db.toString(), testdata.resolve("after.json").toString());
        Path log = tmp.resolve("child.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean sawBuild = ChildHeapLoad.awaitGraphBuild(p, db, 600);
        assertTrue(sawBuild, "the child never started building a graph: " + Files.readString(log));
        p.destroy(); // SIGTERM: shutdown hooks run, as on Ctrl-C
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "child did not stop"); // a hang bound
        String out = Files.readString(log);
        assertTrue(p.exitValue() != 0, "the load finished before it could be interrupted; log: " + out);
        // the answer came before the graph write, and the interrupt says what it kept
        String golden = Files.readString(Path.of(System.getProperty("heapload.testdata", "../testdata"), "golden",
            "leak-answer.event-listeners.txt"));
        assertTrue(LeakAnswerTest.answer(out).replace(db.toString(), "DB").startsWith(golden), out);
        assertTrue(out.contains("heapload: interrupted while writing the graph; the snapshots are stored, and a graph not"
            + " written is built when it is next queried\n"), out);
        assertFalse(out.contains("Exception"), "no stack trace on the terminal: " + out);

        // committed: listed in the catalog with its model and summary, without a graph
        Catalog catalog = Catalog.read(db);
        assertEquals(List.of("before", "after"), catalog.entries.stream().map(Catalog.Entry::id).toList());
        assertEquals(null, catalog.find("after").graph());
        assertTrue(Files.isRegularFile(db.resolve("snapshots").resolve("after.hsnap")));
        assertTrue(Files.isRegularFile(db.resolve("summaries").resolve("after.summary")));

        // a question answered from the stored models needs no graph: the golden rows, nothing on stderr
        HeapLoadCommandTest.Run groups = HeapLoadCommandTest.run("query", "--db", db.toString(), "--format", "csv",
            "leak-groups", "-p", "baseline=before", "-p", "target=after");
        assertEquals(0, groups.code(), groups.err());
        assertEquals(Files.readString(Path.of(System.getProperty("heapload.testdata", "../testdata"), "golden",
            "leak-groups.event-listeners.csv")), groups.out());
        assertEquals(null, Catalog.read(db).find("after").graph());

        // the next query that needs the graph (a child, which prints the store's notices as the launcher's heapload
        // does) builds it, with the load's comparison, in one line, and gives the rows of a store whose loads completed
        Path reference = tmp.resolve("reference");
        assertEquals(0, HeapLoadCommandTest.run("--db", reference.toString(), testdata.resolve("before.json").toString()).code());
        assertEquals(0, HeapLoadCommandTest.run("--db", reference.toString(), testdata.resolve("after.json").toString()).code());
        HeapLoadCommandTest.Run expected = HeapLoadCommandTest.run("query", "--db", reference.toString(), "--format",
            "csv", "categories", "-p", "snapshot=after", "-p", "baseline=before");
        assertEquals(0, expected.code(), expected.err());
        assertTrue(expected.out().startsWith("category,name,objects,bytes,"), expected.out());
        Path queryErr = tmp.resolve("query.err");
        Process q = new ProcessBuilder(ChildHeapLoad.command("query", "--db", db.toString(), "--format", "csv",
            "categories", "-p", "snapshot=after", "-p", "baseline=before"))
            .redirectOutput(tmp.resolve("query.out").toFile()).redirectError(queryErr.toFile()).start();
        assertTrue(q.waitFor(10, TimeUnit.MINUTES), "query did not end");
        assertEquals(0, q.exitValue(), Files.readString(queryErr));
        assertEquals("heapload: building the graph of snapshot 'after' from its stored model (first query that needs"
            + " it)\n", Files.readString(queryErr));
        assertEquals(expected.out(), Files.readString(tmp.resolve("query.out")));
        try (Stream<Path> files = Files.list(db)) {
            assertEquals(List.of(), files.map(f -> f.getFileName().toString()).filter(n -> n.contains("building")).toList(),
                "no half-built graph left");
        }
        assertTrue(Catalog.read(db).find("after").graph() != null, "the rebuilt graph is committed");

        // the store now reads as one where both loads completed: same listing, same summary rows, same models
        assertEquals(withoutGenerations(StoreState.of(reference, "after")), withoutGenerations(StoreState.of(db, "after")));
    }

    /** A store state without generation numbers (a rebuilt graph has a later one) and load times. */
    private static String withoutGenerations(String state) {
        return state.replaceAll("(?m)^(generation=|snapshot\\.\\d+\\.graph=|snapshot\\.\\d+\\.loadedAt=).*$", "$1G");
    }
}
