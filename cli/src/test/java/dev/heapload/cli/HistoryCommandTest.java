package dev.heapload.cli;

import static dev.heapload.cli.HeapLoadCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/**
 * Comparisons on first request on the command line: a pair not compared at load is compared on the first query and gives the same rows
 * on the next (prune, trend of pruned snapshots and the refusal on a pruned snapshot: GraphStoreHistoryTest).
 */
class HistoryCommandTest {

    @TempDir
    static Path tmp;

    @Test
    void aPairNotComparedAtLoadIsComparedOnTheFirstQueryAndKept() throws Exception {
        String db = tmp.resolve("db").toString();
        String before = TrendCommandTest.bundled("before.json").toString();
        String after = TrendCommandTest.bundled("after.json").toString();
        Run load = run("--db", db, "--no-progress", before, after);
        assertEquals(0, load.code(), load.err());
        Run trend = run("trend", "--db", db, "--format", "csv");
        assertEquals(0, trend.code(), trend.err());
        Run newObjects = run("query", "new-objects", "-p", "baseline=before", "-p", "target=after", "--db", db,
            "--format", "csv");
        assertEquals(0, newObjects.code(), newObjects.err());

        // the reverse pair was not compared at load: compared on this first query (the one-line notice goes to
        // stderr through HeapLoad.main's notice sink, which the in-process runner does not install), then kept
        Run freed = run("query", "new-objects", "-p", "baseline=after", "-p", "target=before", "--db", db, "--format", "csv");
        assertEquals(0, freed.code(), freed.err());
        Run again = run("query", "new-objects", "-p", "baseline=after", "-p", "target=before", "--db", db, "--format", "csv");
        assertEquals(0, again.code(), again.err());
        assertEquals("", again.err());
        assertEquals(freed.out(), again.out());
        assertTrue(trend.out().lines().count() == 3, trend.out());
    }
}
