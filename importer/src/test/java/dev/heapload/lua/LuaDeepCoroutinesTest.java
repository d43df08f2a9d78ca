package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * A dump taken N coroutines deep sees every level's locals: {@code src/test/lua/deep.lua} nests N levels (the first on
 * the main thread, then coroutine.create and coroutine.wrap in turn), each holding a local {@code {depth = k}}, and
 * dumps from the innermost. On Lua 5.2-5.5 the main thread is the registry's, so every level is reached; on 5.1 and
 * LuaJIT the main thread is no object, so the dumper needs its C helper heapdump_native (loaded on the main thread, it
 * keeps the main thread; on 5.1 it also reads the generators' C upvalues): with it every level is reached, without it
 * only the innermost, and the snapshot says why.
 */
@Tag("process")
class LuaDeepCoroutinesTest {

    @TempDir
    Path tmp;

    static Stream<Arguments> runs() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (String vm : LuaRuns.VMS) {
            for (int depth : new int[] {1, 2, 150}) {
                b.add(Arguments.of(vm, depth, true));
                b.add(Arguments.of(vm, depth, false));
            }
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0}, {1} deep, helper {2}")
    @MethodSource("runs")
    void everyLevelsLocalsAreSeen(String vm, int depth, boolean helper) {
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        if (helper) {
            Assumptions.assumeTrue(LuaRuns.buildNative(vm, modules), "no C compiler or no Lua headers for " + vm);
        }
        LuaRuns.Result run = LuaRuns.start(vm, Path.of("src/test/lua/deep.lua"), tmp, helper ? modules : null,
            String.valueOf(depth));
        assertEquals(0, run.exit(), run.output());
        HeapSnapshot s = LuaRuns.read(tmp.resolve("deep.json"));
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        boolean blind = (vm.equals("lua5.1") || vm.equals("luajit")) && !helper && depth > 1;
        int seen = 0;
        for (int o = 0; o < s.objectCount(); o++) {
            if (a.reachable()[o] && s.type(o).equals("table") && LuaRuns.hasKey(s, o, "depth")) {
                seen++;
            }
        }
        assertEquals(blind ? 1 : depth, seen, "levels whose local table the dump reaches");
        if (blind) {
            assertEquals(1, s.info().warnings().size(), String.valueOf(s.info().warnings()));
            String w = s.info().warnings().get(0);
            assertEquals(true, w.startsWith("dumped inside a coroutine on " + (vm.equals("luajit") ? "LuaJIT " : "Lua 5.1 ")), w);
            assertEquals(true, w.endsWith(" without heapdump_native: the main thread is no object there, so its stack and"
                + " the coroutines between it and this one (each held by its resumer's frame) are not in this snapshot, nor"
                + " what only they hold; build heapdump_native (docs/reference/lua-dumper-format.md) and load it on the main thread")
                || w.contains("without heapdump_native: the main thread is no object there"), w);
        } else {
            assertEquals(List.of(), s.info().warnings());
        }
    }
}
