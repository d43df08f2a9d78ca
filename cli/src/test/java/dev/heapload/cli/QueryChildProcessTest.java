package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * Queries that must end a {@code heapload} process of their own (a child JVM) leave the store as it
 * was. One store (the bundled event-listeners {@code after.json}) serves the three cases: each child only reads it,
 * and each case compares the store's snapshot list, summary rows and snapshot files ({@link StoreState}) with those
 * taken once before the first child. The waits are hang guards; the times they took are printed, not asserted.
 * <ul>
 *   <li>a query that would exhaust the heap ({@code collect} of 20 million numbers under a per-transaction memory limit
 *       of 50 MB, {@code -Dheapload.query.memoryMax}) stops with one exact line on stderr and exit 1 (a child JVM:
 *       the limit is read once per JVM);
 *   <li>{@code heapload query --timeout S} stops a CPU-bound query (a list comprehension over 40 billion elements,
 *       one row) with one line and exit 1: the watchdog terminates the transaction at S, and halts the JVM when the
 *       query is still running 10 s later (that path: {@code QueryWatchdogUnitTest} in the queries module);
 *   <li>SIGTERM (what Ctrl-C's SIGINT, {@code kill} and a CI timeout send) stops a command that is busy in a CPU-bound
 *       query: the child ends without a stack trace and with at most one line. The load's SIGTERM is
 *       {@link InterruptedLoadTest}, serve's {@link ServeCommandTest}.
 * </ul>
 */
@Tag("process")
class QueryChildProcessTest {

    @TempDir
    static Path tmp;

    static Path db;

    /** {@link StoreState} of {@link #db} after the load, before any child ran. */
    static String state;

    @BeforeAll
    static void load() throws IOException {
        db = tmp.resolve("db");
        Path dump = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners",
            "after.json");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", dump.toString());
        assertEquals(0, load.code(), load.err());
        state = StoreState.of(db, "after");
    }

    @Test
    void aQueryOverTheMemoryLimitIsOneLineAndExitOne() throws Exception {
        List<String> command = new ArrayList<>(ChildHeapLoad.command("cypher",
            "UNWIND range(1, 20000000) AS x WITH collect(x) AS xs RETURN size(xs) AS n", "--db", db.toString()));
        command.add(1, "-Dheapload.query.memoryMax=50000000");
        Path out = tmp.resolve("memory.out");
        Path err = tmp.resolve("memory.err");
        long start = System.nanoTime();
        Process child = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = child.waitFor(180, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor();
        }
        assertTrue(ended, "the query did not end: " + Files.readString(err));
        String line = Files.readString(err);
        System.out.printf("QueryChildProcessTest: the query over the memory limit ended after %.1f s (JVM and Neo4j "
            + "start included), exit %d: %s", (System.nanoTime() - start) / 1e9, child.exitValue(), line);
        assertEquals(1, child.exitValue(), line);
        assertEquals("heapload: query 'ad-hoc' stopped: it needed more memory than a transaction may use "
            + "(db.memory.transaction.max; narrow it with parameters or --limit)\n", line);
        assertEquals("", Files.readString(out));
        assertEquals(state, StoreState.of(db, "after"));
    }

    @Test
    void aCpuBoundQueryStopsWithOneLineAndExitOne() throws Exception {
        Path cypher = tmp.resolve("spin-one-row.cypher");
        Files.writeString(cypher, "// name: spin\n// description: CPU-bound, one row\n// columns: n\n"
            + "RETURN size([x IN range(1, 40000000000) WHERE x < 0]) AS n\n");
        Path out = tmp.resolve("watchdog.out");
        Path err = tmp.resolve("watchdog.err");
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
        // the store was only read: the same snapshot list, summary rows and snapshot files
        assertEquals(state, StoreState.of(db, "after"));
        // the store was only read: it opens, with its snapshot
        try (GraphStore store = GraphStore.open(db)) {
            assertEquals(List.of("after"), store.snapshots().stream().map(s -> s.id()).toList());
        }
    }

    @Test
    void sigtermStopsABusyQueryAndTheStoreIsUnchanged() throws Exception {
        Path debugLog = db.resolve("logs").resolve("debug.log");
        int started = readyLines(debugLog);
        Path cypher = Files.writeString(tmp.resolve("spin.cypher"), "// name: spin\n// description: CPU-bound\n"
            + "// columns: n\nUNWIND range(1, 4000000000) AS x WITH x WHERE x % 1000000007 = -1 RETURN count(*) AS n\n");
        Path out = tmp.resolve("sigterm.out");
        Path err = tmp.resolve("sigterm.err");
        Process child = new ProcessBuilder(ChildHeapLoad.command("query", cypher.toString(), "--timeout", "600", "--db",
            db.toString())).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            // the child's Neo4j is up (one more "is ready" line for the graph), then the query runs a few seconds
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (readyLines(debugLog) <= started && child.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(child.isAlive(), "the query ended by itself: " + Files.readString(err));
            // busy in the query: the child has spent 3 s of CPU since its graph was ready (CPU time, not wall-clock
            // time, so a slow or loaded machine waits longer instead of signalling before the query runs)
            long cpuAtReady = cpuMillis(child);
            while (cpuMillis(child) - cpuAtReady < 3000 && child.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(child.isAlive(), "the query ended by itself: " + Files.readString(err));
            assertTrue(cpuMillis(child) - cpuAtReady >= 3000, "the child did not get busy within the bound");
            long signalled = System.nanoTime();
            child.destroy(); // SIGTERM
            boolean ended = child.waitFor(5, TimeUnit.MINUTES); // a bound for a hang only
            double seconds = (System.nanoTime() - signalled) / 1e9;
            assertTrue(ended, "the query did not stop within 5 minutes of SIGTERM");
            System.out.printf("QueryChildProcessTest: a CPU-bound query ended %.1f s after SIGTERM, exit %d%n", seconds,
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

    private static int readyLines(Path debugLog) throws IOException {
        if (!Files.exists(debugLog)) {
            return 0;
        }
        return (int) Files.readAllLines(debugLog).stream().filter(l -> l.contains("[neo4j]} is ready.")).count();
    }

    /** CPU time the process {@code p} has used so far (user + system, all threads), in milliseconds. */
    private static long cpuMillis(Process p) {
        return p.info().totalCpuDuration().map(d -> d.toMillis())
            .orElseThrow(() -> new AssertionError("no CPU time for process " + p.pid()));
    }
}
