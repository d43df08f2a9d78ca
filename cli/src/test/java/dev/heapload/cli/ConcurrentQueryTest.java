package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
            second = CompletableFuture.supplyAsync(() -> HeapLoadCommandTest.run("query", "categories", "-p",
                "snapshot=after", "--format", "csv", "--db", db.toString()));
            Thread.sleep(1500);
            if (second.isDone()) {
                HeapLoadCommandTest.Run early = second.get();
                throw new AssertionError("the second query did not wait: " + early);
            }
        }
        HeapLoadCommandTest.Run r = second.get(120, TimeUnit.SECONDS);
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
