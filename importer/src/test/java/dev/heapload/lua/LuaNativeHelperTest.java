package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.testsupport.SharedTestData;

/**
 * The dumper's C helper heapdump_native closes the blind spots of 5.1 and LuaJIT: on the coroutines case of
 * shared/testdata/lua, the coroutine.wrap generators' threads (held as C upvalues, which the 5.1 debug library cannot
 * read) are in the dump with what they hold, so the new objects are those of Lua 5.2+, no warning says anything is
 * hidden, and the main thread is a root object ({@code mainthread}) as on 5.2+.
 */
@Tag("process")
class LuaNativeHelperTest {

    @TempDir
    Path tmp;

    /**
     * heapdump.lua (and with it the helper) loaded inside a coroutine, the dump written on the main thread: the helper
     * learns the main thread there, and the main chunk's locals hang off it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "luajit"})
    void theMainThreadIsLearntWhenTheDumpIsWrittenOnIt(String vm) throws Exception {
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        Assumptions.assumeTrue(LuaRuns.buildNative(vm, modules), "no C compiler or no Lua headers for " + vm);
        Path program = tmp.resolve("late.lua");
        java.nio.file.Files.writeString(program, String.join("\n",
            "local heapdump",
            "coroutine.wrap(function() heapdump = require \"heapdump\" end)()",
            "local keep = { marker = \"main chunk\" }",
            "heapdump.write(os.getenv(\"HEAPDUMP_DIR\") .. \"/late.json\")",
            ""));
        LuaRuns.run(vm, program, tmp, modules);
        dev.heapload.model.HeapSnapshot s = LuaRuns.read(tmp.resolve("late.json"));
        assertEquals(List.of(), s.info().warnings());
        dev.heapload.analysis.HeapAnalysis a = dev.heapload.analysis.HeapAnalyzer.analyze(s, dev.heapload.model.Progress.NONE);
        int marker = -1;
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals("table") && LuaRuns.hasKey(s, o, "marker")) {
                marker = o;
            }
        }
        assertEquals(List.of("mainthread", "keep in frame main chunk (late.lua:4)"),
            dev.heapload.analysis.RetentionPath.names(s, a, marker));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "luajit"})
    void generatorsAndTheMainThreadAreSeen(String vm) {
        Path dir = SharedTestData.require("lua", "Lua dumper helper tests");
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        Assumptions.assumeTrue(LuaRuns.buildNative(vm, modules), "no C compiler or no Lua headers for " + vm);
        LuaRuns.run(vm, dir.resolve("coroutines").resolve("program.lua"), tmp, modules);
        LuaRuns.Pair pair = new LuaRuns.Pair(LuaRuns.read(tmp.resolve("before.json")), LuaRuns.read(tmp.resolve("after.json")));
        assertEquals(List.of(), pair.before.info().warnings());
        assertEquals(List.of(), pair.after.info().warnings());
        assertEquals(LuaDumperCasesTest.expected("coroutines", "lua5.4"), pair.newReachableByType(true));
        assertEquals(1, pair.after.roots().stream().filter(r -> r.name().equals("mainthread")).count());
        List<String> paths = pair.newReachable().stream().filter(o -> "gen1".equals(pair.after.label(o)))
            .map(o -> pair.path(o).replaceAll("0x[0-9a-f]+", "0x…")).toList();
        assertEquals(List.of("globals/Scheduler/generators/[1]/[upvalue]/label"), paths);
    }
}
