package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/**
 * The leak answer says what grows, on real dumps: an LRU cache that only churns is "no growth" with its groups listed
 * apart as replaced (testdata/lua/growth, Lua 5.4); a capped history is replaced once full and three files say which
 * groups grew at every step and which objects survived (testdata/luau/memory-categories-steps, the Luau VM); a leak
 * group says its verdict and net growth; a pair given the wrong way round gets one line saying so and how to ask the
 * other way round.
 */
class GrowthAnswerTest {

    @TempDir
    Path tmp;

    private static Path testdata(String... parts) {
        return Path.of(System.getProperty("heapload.testdata", "../testdata"), parts);
    }

    private Run load(String... files) {
        String[] args = new String[files.length + 3];
        args[0] = "--db";
        args[1] = tmp.resolve("db").toString();
        args[2] = "--no-progress";
        System.arraycopy(files, 0, args, 3, files.length);
        Run r = HeapLoadCommandTest.run(args);
        assertEquals(0, r.code(), r.err());
        return r;
    }

    @Test
    void anLruCacheThatOnlyChurnsIsNoGrowth() {
        Path dir = testdata("lua", "growth", "lru-cache-lua54");
        Run r = load(dir.resolve("before.json").toString(), dir.resolve("after.json").toString());
        assertTrue(r.out().contains("leaks: after relative to before: no growth: 0 leak groups; the 451 new reachable "
            + "objects (42,252 bytes) took the place of freed ones at the same paths (56 replaced group(s), below)\n"
            + "replaced, not leaks (churn: new objects took the place of freed ones at the same path), 56 group(s):\n"
            + "  74 table head(s): 287 new objects (33,400 bytes) in place of 287 freed (33,188 bytes), net +0 objects, "
            + "+212 bytes; path root globals (table) > users in table > map in table > [value] in table\n"
            + "  100 string head(s): 100 new objects (3,300 bytes) in place of 100 freed (3,192 bytes), net +0 objects, "
            + "+108 bytes; path root globals (table) > users in table > map in table > [key] in table\n"), r.out());
        assertTrue(r.out().contains("\n  … 46 more replaced group(s)\nnext:\n"), r.out());
        assertFalse(r.out().contains("  group 1:"), r.out());
        assertFalse(r.out().contains("may be swapped"), r.out());
    }

    @Test
    void aLeakGroupSaysItsVerdictAndNetGrowth() {
        Path dir = testdata("luau", "event-listeners");
        Run r = load(dir.resolve("before.json").toString(), dir.resolve("after.json").toString());
        assertTrue(r.out().contains("leaks: after relative to before: 186 new reachable objects, 22,099 bytes, in 3 leak group(s)\n"
            + "  group 1: 152 objects, 19,608 new bytes, 19,608 retained bytes, 16 table head(s), path:\n"), r.out());
        assertTrue(r.out().contains("      heapload query paths -p snapshot=after -p address=0x560138339de0 --db "
            + tmp.resolve("db") + "\n    growing: net +152 objects, +19,608 bytes; 'before' had 3 table(s) at this path, "
            + "0 of them freed\n  group 2:"), r.out());
        assertFalse(r.out().contains("replaced"), r.out());
    }

    @Test
    void swappedFilesGetOneLine() {
        Path dir = testdata("luau", "event-listeners");
        Run r = load(dir.resolve("after.json").toString(), dir.resolve("before.json").toString());
        // the answer comes first; the line before the groups
        assertTrue(r.out().startsWith("may be swapped: the baseline is named 'after' and the target 'before'; 'before' has "
            + "fewer objects (685 < 871) and bytes (55,147 < 79,118) than 'after'; the baseline (older dump) goes first, "
            + "the target last; the other way round: heapload query leak-groups -p baseline=before -p target=after --db "
            + tmp.resolve("db") + "\nleaks: before relative to after: 0 new reachable objects, 0 bytes, in 0 leak group(s)\n"),
            r.out());
        assertEquals(1, r.out().lines().filter(l -> l.startsWith("may be swapped")).count(), r.out());
    }

    @Test
    void threeFilesSayWhatGrewAtEveryStepAndWhatSurvived() {
        Path dir = testdata("luau", "memory-categories-steps");
        Run r = load(dir.resolve("s1.json").toString(), dir.resolve("s2.json").toString(), dir.resolve("s3.json").toString());
        String shared = "root mainthread (thread) > [env] in thread > shared in table > ";
        assertTrue(r.out().contains("grew at every step (s1 -> s2 -> s3; LeakCanary's rule: net objects above 0 in each "
            + "of the 2 step(s)): 3 group(s)\n"
            + "  table head(s) at " + shared + "Profiler in table > samples in table > [array] in table: s2 +90 objects, "
            + "+11,550 bytes; s3 +90 objects, +11,550 bytes\n"
            + "  table head(s) at " + shared + "ChatArchive in table > [array] in table: s2 +60 objects, +4,770 bytes; "
            + "s3 +60 objects, +4,770 bytes\n"
            + "  table head(s) at " + shared + "PlayerList in table > rowsByUserId in table > [value] in table: s2 +27 "
            + "objects, +2,898 bytes; s3 +27 objects, +2,898 bytes\n"
            + "survivors (three-snapshot method: new in s2 relative to s1, still alive in s3): 177 objects, 19,218 bytes, "
            + "in 3 group(s)\n"
            + "  90 objects, 11,550 bytes, 30 table head(s): " + shared + "Profiler in table > samples in table > [array] in table\n"
            + "  60 objects, 4,770 bytes, 30 table head(s): " + shared + "ChatArchive in table > [array] in table\n"
            + "  27 objects, 2,898 bytes, 9 table head(s): " + shared + "PlayerList in table > rowsByUserId in table > "
            + "[value] in table\n"), r.out());
        // the capped chat history does not grow at every step: it filled up from s1 to s2, and was replaced from s2 to s3
        Run q = HeapLoadCommandTest.run("query", "leak-groups", "--db", tmp.resolve("db").toString(),
            "-p", "baseline=s2", "-p", "target=s3", "--format", "csv");
        assertEquals(0, q.code(), q.err());
        assertEquals(1, q.out().lines().filter(l -> l.contains(",replaced,0,0,40,4120,20,20")).count(), q.out());
    }
}
