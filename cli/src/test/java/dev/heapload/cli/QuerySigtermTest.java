package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16 item 4: SIGTERM (what Ctrl-C's SIGINT, {@code kill} and a CI timeout send) stops a command that is busy in
 * a CPU-bound query: the child ends without a stack trace, and the store's snapshot list, summary rows and snapshot
 * files are those of before. The load's SIGTERM is {@link InterruptedLoadTest}, serve's {@link ServeCommandTest}. The
 * 60 s wait is a hang guard; the time it took is printed for the reader of the test log, not asserted.
 */
class QuerySigtermTest {

    @TempDir
    Path tmp;

    @Test
    void sigtermStopsABusyQueryAndTheStoreIsUnchanged() throws Exception {
        Path db = tmp.resolve("db");
        Path dump = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners",
            "after.json");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", dump.toString());
        assertEquals(0, load.code(), load.err());
        String state = StoreState.of(db, "after");
        Path debugLog = db.resolve("logs").resolve("debug.log");
        int started = readyLines(debugLog);
        Path cypher = Files.writeString(tmp.resolve("spin.cypher"), "// name: spin\n// description: CPU-bound\n"
            + "// columns: n\nUNWIND range(1, 4000000000) AS x WITH x WHERE x % 1000000007 = -1 RETURN count(*) AS n\n");
        Path out = tmp.resolve("query.out");
        Path err = tmp.resolve("query.err");
        Process child = new ProcessBuilder(ChildHeapLoad.command("query", cypher.toString(), "--timeout", "600", "--db",
            db.toString())).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            // the child's Neo4j is up (one more "is ready" line for the graph), then the query runs a few seconds
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (readyLines(debugLog) <= started && child.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(child.isAlive(), "the query ended by itself: " + Files.readString(err));
            Thread.sleep(3000);
            assertTrue(child.isAlive(), "the query ended by itself: " + Files.readString(err));
            long signalled = System.nanoTime();
            child.destroy(); // SIGTERM
            boolean ended = child.waitFor(60, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - signalled) / 1e9;
            assertTrue(ended, "the query did not stop within 60 s of SIGTERM");
            System.out.printf("QuerySigtermTest: a CPU-bound query ended %.1f s after SIGTERM, exit %d%n", seconds,
                child.exitValue());
        } finally {
            if (child.isAlive()) {
                child.destroyForcibly().waitFor();
            }
        }
        String text = Files.readString(err);
        assertTrue(child.exitValue() != 0, "exit 0 after SIGTERM");
        assertFalse(text.contains("Exception") || text.contains("\tat "), "a stack trace: " + text);
        assertTrue(text.lines().count() <= 1, "more than one line: " + text);
        assertEquals("", Files.readString(out));
        assertEquals(state, StoreState.of(db, "after"));
    }

    private static int readyLines(Path debugLog) throws java.io.IOException {
        if (!Files.exists(debugLog)) {
            return 0;
        }
        return (int) Files.readAllLines(debugLog).stream().filter(l -> l.contains("[neo4j]} is ready.")).count();
    }
}
