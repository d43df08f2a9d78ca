package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * Two queries on one store at once: while one holds the store for a query, a second
 * {@code heapload query} waits for it with one line naming the holder and its pid, then runs; a load holding the
 * store is one line naming it, exit 1.
 */
class ConcurrentQueryTest {

    @TempDir
    Path tmp;

    @Test
    void aSecondQueryWaitsForTheFirstAndALoadIsNamedWithItsPid() throws Exception {
        Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"));
        Path db = tmp.resolve("db");
        String dump = testdata.resolve("luau").resolve("event-listeners").resolve("after.json").toString();
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", dump);
        assertEquals(0, load.code(), load.err());
        Path abs = db.toAbsolutePath().normalize();
        long pid = ProcessHandle.current().pid();
        CompletableFuture<HeapLoadCommandTest.Run> second;
        try (GraphStore first = GraphStore.open(db)) {
            first.database(); // the first query's store: its lock file says "a query"
            ByteArrayOutputStream secondOut = new ByteArrayOutputStream();
            ByteArrayOutputStream secondErr = new ByteArrayOutputStream();
            second = CompletableFuture.supplyAsync(() -> new HeapLoadCommandTest.Run(HeapLoad.run(new String[] {"query",
                "categories", "-p", "snapshot=after", "--format", "csv", "--db", db.toString()},
                new PrintStream(secondOut, true, StandardCharsets.UTF_8),
                new PrintStream(secondErr, true, StandardCharsets.UTF_8)), secondOut.toString(StandardCharsets.UTF_8),
                secondErr.toString(StandardCharsets.UTF_8)));
            // until the second query says it waits (or ends without waiting: a failure below); the first holds the
            // store all that time, however slow the machine. The bound is for a hang only.
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!secondErr.toString(StandardCharsets.UTF_8).contains("waiting for it to finish") && !second.isDone()
                && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(10);
            }
            if (second.isDone()) {
                HeapLoadCommandTest.Run early = second.get();
                throw new AssertionError("the second query did not wait: " + early);
            }
            assertTrue(secondErr.toString(StandardCharsets.UTF_8).contains("waiting for it to finish"),
                "the second query neither waited nor ended in 10 minutes: " + secondErr);
        }
        HeapLoadCommandTest.Run r = second.get(10, TimeUnit.MINUTES);
        assertEquals(0, r.code(), r.err());
        assertEquals("heapload: store " + abs + " is in use by another heapload process (a query, pid " + pid
            + "); waiting for it to finish\n", r.err());
        assertTrue(r.out().startsWith("category,name,objects,bytes,vmBytes,"), r.out());
        assertTrue(r.out().contains("\n0,main,871,79118,102286,"), r.out());

        // a load holds the store: the query does not wait, and the message names the load and its pid
        try (GraphStore loading = GraphStore.open(db)) {
            loading.delete("after");
            HeapLoadCommandTest.Run refused = HeapLoadCommandTest.run("query", "categories", "-p", "snapshot=after",
                "--db", db.toString());
            assertEquals(1, refused.code(), refused.err());
            assertEquals("heapload: store " + abs + " is in use by another heapload process (a snapshot delete, pid "
                + pid + ")\n", refused.err());
        }
    }
}
