package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16 item 4 on the embedded store: a query that would exhaust the heap ({@code collect} of 20 million numbers
 * under a per-transaction memory limit of 50 MB, {@code -Dheapload.query.memoryMax}) stops with one line on stderr
 * and exit 1, and the store's snapshot list, summary rows and snapshot files are those of before. In a child JVM,
 * since the limit is read once per JVM. The 180 s wait is a hang guard; the time it took is printed.
 */
class QueryMemoryLimitTest {

    @TempDir
    Path tmp;

    @Test
    void aQueryOverTheMemoryLimitIsOneLineAndExitOne() throws Exception {
        Path db = tmp.resolve("db");
        Path dump = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners",
            "after.json");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", dump.toString());
        assertEquals(0, load.code(), load.err());
        String state = StoreState.of(db, "after");
        List<String> command = new ArrayList<>(ChildHeapLoad.command("cypher",
            "UNWIND range(1, 20000000) AS x WITH collect(x) AS xs RETURN size(xs) AS n", "--db", db.toString()));
        command.add(1, "-Dheapload.query.memoryMax=50000000");
        Path out = tmp.resolve("query.out");
        Path err = tmp.resolve("query.err");
        long start = System.nanoTime();
        Process child = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = child.waitFor(180, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor();
        }
        assertTrue(ended, "the query did not end: " + Files.readString(err));
        String line = Files.readString(err);
        System.out.printf("QueryMemoryLimitTest: ended after %.1f s (JVM and Neo4j start included), exit %d: %s",
            (System.nanoTime() - start) / 1e9, child.exitValue(), line);
        assertEquals(1, child.exitValue(), line);
        assertEquals("heapload: query 'ad-hoc' stopped: it needed more memory than a transaction may use "
            + "(db.memory.transaction.max; narrow it with parameters or --limit)\n", line);
        assertEquals("", Files.readString(out));
        assertEquals(state, StoreState.of(db, "after"));
    }
}
