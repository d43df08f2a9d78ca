package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The README's Lua recipe, {@code testdata/lua/session-cache/program.lua}, on each interpreter: the dumps it writes
 * give the leak its README names. 100 sessions are added to a module's cache between the two dumps: one leak group of
 * the 100 session tables with their 100 buffer strings under {@code registry/_LOADED/sessions/cache}, one of the 100
 * user-name keys; on Lua 5.4, 23,022 new bytes (the case README's figure).
 */
@Tag("process")
class LuaSessionCacheExampleTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.2", "lua5.3", "lua5.4", "luajit"})
    void theCacheIsTheLeak(String exe) throws Exception {
        LuaRuns.requireInterpreter(exe);
        Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"));
        // the program writes into its working directory: run a copy, so nothing is written into testdata/
        Path program = Files.copy(testdata.resolve("lua/session-cache/program.lua"), tmp.resolve("program.lua"));
        LuaRuns.run(exe, program, tmp);
        HeapSnapshot before = LuaRuns.read(tmp.resolve("lua-before.json"));
        HeapSnapshot after = LuaRuns.read(tmp.resolve("lua-after.json"));
        HeapAnalyzer.analyze(before, Progress.NONE);
        HeapAnalysis analysis = HeapAnalyzer.analyze(after, Progress.NONE);
        SnapshotComparison c = SnapshotComparison.compute(before, after, analysis);

        List<SnapshotComparison.LeakGroup> groups = c.leakGroups();
        assertEquals(2, groups.size(), groups.toString());
        List<String> cache = List.of("root registry (table)", "_LOADED in table", "sessions in table", "cache in table");
        SnapshotComparison.LeakGroup sessions = groups.get(0);
        assertEquals(200, sessions.objects());
        assertEquals(100, sessions.heads());
        assertEquals("table", sessions.headType());
        assertEquals(concat(cache, "[value] in table"), sessions.path());
        SnapshotComparison.LeakGroup keys = groups.get(1);
        assertEquals(100, keys.objects());
        assertEquals("string", keys.headType());
        assertEquals(concat(cache, "[key] in table"), keys.path());
        if (exe.equals("lua5.4")) {
            assertEquals(23_022, sessions.newBytes() + keys.newBytes());
        }
    }

    private static List<String> concat(List<String> head, String last) {
        List<String> all = new java.util.ArrayList<>(head);
        all.add(last);
        return all;
    }
}
