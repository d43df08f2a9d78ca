package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.store.embedded.GraphStore;

/**
 * A load killed (SIGTERM, as Ctrl-C or a CI timeout does) while Neo4j's importer is building the new graph
 * leaves the store exactly as it was: same snapshots, same graph, no half-built folder.
 */
class InterruptedLoadTest {

    @TempDir
    Path tmp;

    @Test
    void killedDuringImportLeavesTheStoreAsItWas() throws Exception {
        Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        Path db = tmp.resolve("db");
        assertEquals(0, HeapLoadCommandTest.run("--db", db.toString(), testdata.resolve("before.json").toString()).code());

        List<String> cmd = ChildHeapLoad.command("--db", db.toString(), testdata.resolve("after.json").toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(tmp.resolve("child.log").toFile()).start();
        boolean sawBuild = ChildHeapLoad.awaitGraphBuild(p, db, 120);
        assertTrue(sawBuild, "the child never started building a graph: " + Files.readString(tmp.resolve("child.log")));
        Thread.sleep(300);
        p.destroy(); // SIGTERM: shutdown hooks run, as on Ctrl-C
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child did not stop");
        assertTrue(p.exitValue() != 0, "the load finished before it could be interrupted; log: "
            + Files.readString(tmp.resolve("child.log")));

        // nothing of the interrupted snapshot was committed (the catalog is the commit point); a half-built graph
        // folder may survive a kill that lands while the importer still writes, and is removed by the next open
        try (Stream<Path> files = Files.walk(db)) {
            List<String> committed = files.map(f -> db.relativize(f).toString())
                .filter(n -> n.startsWith("snapshots" + File.separator + "after"))
                .toList();
            assertEquals(List.of(), committed);
        }
        assertFalse(Files.readString(db.resolve("catalog.properties")).contains("after"), "catalog unchanged");
        try (GraphStore store = GraphStore.open(db)) {
            assertEquals(List.of("before"), store.snapshots().stream().map(s -> s.id()).toList());
            try (Transaction tx = store.database().beginTx();
                 Result r = tx.execute("MATCH (o:Object) RETURN count(o) AS n, count(DISTINCT o.snapshot) AS s")) {
                var row = r.next();
                assertEquals(685L, row.get("n"));
                assertEquals(1L, row.get("s"));
            }
        }
        try (Stream<Path> files = Files.list(db)) {
            assertEquals(List.of(), files.map(f -> f.getFileName().toString()).filter(n -> n.contains("building")).toList(),
                "no half-built graph after the store was opened again");
        }
        assertFalse(Files.readString(tmp.resolve("child.log")).contains("Exception"), "no stack trace on the terminal");
    }

}
