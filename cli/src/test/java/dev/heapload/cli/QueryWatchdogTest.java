package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * {@code heapload query --timeout S} stops a CPU-bound query (a list comprehension over 40 billion elements, one
 * row) with one line and exit 1: the watchdog terminates the transaction at S, and halts the JVM when the query is
 * still running 10 s later (that path: {@code QueryWatchdogUnitTest} in the queries module). Runs {@code heapload}
 * in a child JVM, since the watchdog may halt the JVM.
 */
class QueryWatchdogTest {

    @TempDir
    Path tmp;

    @Test
    void aCpuBoundQueryStopsWithOneLineAndExitOne() throws Exception {
        Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"));
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress",
            testdata.resolve("luau").resolve("event-listeners").resolve("after.json").toString());
        assertEquals(0, load.code(), load.err());
        Path cypher = tmp.resolve("spin.cypher");
        Files.writeString(cypher, "// name: spin\n// description: CPU-bound, one row\n// columns: n\n"
            + "RETURN size([x IN range(1, 40000000000) WHERE x < 0]) AS n\n");
        Path out = tmp.resolve("query.out");
        Path err = tmp.resolve("query.err");
        Process child = new ProcessBuilder(ChildHeapLoad.command("query", cypher.toString(), "--timeout", "1", "--db",
            db.toString()))
            .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        // a hang guard only (timeout 1 s + the 10 s grace + JVM and Neo4j start), not a timing assertion
        boolean ended = child.waitFor(180, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor();
        }
        assertTrue(ended, "the query did not end:\n" + Files.readString(err));
        assertEquals(1, child.exitValue(), Files.readString(err));
        // Neo4j 5.26 checks the timeout inside this list comprehension, so the transaction ends at once when it is
        // terminated; a query that does not is halted by the watchdog 10 s later (QueryWatchdogUnitTest)
        String line = Files.readString(err);
        assertTrue(line.equals("heapload: query 'spin' stopped after the transaction timeout of 1 s (raise it with "
            + "--timeout)\n") || line.equals("heapload: query 'spin' did not stop within 10 s after its timeout of 1 s "
            + "(CPU- or GC-bound); exiting\n"), line);
        assertEquals("", Files.readString(out));
        // the store was only read: it opens, with its snapshot
        try (GraphStore store = GraphStore.open(db)) {
            assertEquals(List.of("after"), store.snapshots().stream().map(s -> s.id()).toList());
        }
    }
}
