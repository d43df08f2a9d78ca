package dev.heapload.cli;

import static dev.heapload.cli.HeapLoadCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/**
 * Issue 18 on the command line: {@code --keep N} and {@code heapload prune} drop older snapshots' graphs and models;
 * {@code trend} still lists them with the same figures; a query on a pruned snapshot is one line, exit 1; a pair not
 * compared at load is compared on the first query (one line on stderr) and gives the same rows.
 */
class HistoryCommandTest {

    @TempDir
    static Path tmp;

    @Test
    void prunedSnapshotsStayInTheTrendAndQueriesOnThemSaySoInOneLine() throws Exception {
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

        // the reverse pair was not compared at load: compared now, one line, then kept
        Run freed = run("query", "new-objects", "-p", "baseline=after", "-p", "target=before", "--db", db, "--format", "csv");
        assertEquals(0, freed.code(), freed.err());
        assertEquals("heapload: comparing 'before' with 'after' (first request for this pair; kept for later)\n",
            freed.err());
        Run again = run("query", "new-objects", "-p", "baseline=after", "-p", "target=before", "--db", db, "--format", "csv");
        assertEquals("", again.err());
        assertEquals(freed.out(), again.out());

        Run third = run("--db", db, "--no-progress", "--name", "again", "--keep", "1", after);
        assertEquals(0, third.code(), third.err());
        assertTrue(third.err().contains("heapload: pruned 2 older snapshot(s) (--keep 1)"), third.err());
        Run trendAfter = run("trend", "--db", db, "--format", "csv");
        assertEquals(0, trendAfter.code(), trendAfter.err());
        // the pruned snapshots' rows are the rows they had, and the new one follows
        assertEquals(TrendCommandTest.withoutLoadedAt(trend.out()),
            TrendCommandTest.withoutLoadedAt(trendAfter.out()).subList(0, 3));
        assertEquals(4, TrendCommandTest.withoutLoadedAt(trendAfter.out()).size());

        Run pruned = run("query", "new-objects", "-p", "baseline=before", "-p", "target=after", "--db", db);
        assertEquals(1, pruned.code());
        assertEquals("", pruned.out());
        assertEquals("heapload: snapshot 'after' in " + Path.of(db).toAbsolutePath().normalize() + " was pruned: its graph"
            + " and model are gone, only its figures are kept (heapload trend)\n", pruned.err());
        Run list = run("snapshots", "--db", db);
        assertEquals(2, list.out().lines().filter(l -> l.endsWith("(pruned: figures only)")).count(), list.out());

        Run zero = run("prune", "--db", db, "--keep-last", "0");
        assertEquals(2, zero.code());
        Run nothing = run("prune", "--db", db, "--keep-last", "1");
        assertEquals(0, nothing.code(), nothing.err());
        assertEquals("nothing to prune\n", nothing.out());
    }
}
