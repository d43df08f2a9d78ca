package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The dumper runs no metamethod of the program's (src/test/lua/hostile.lua: every metamethod of a table raises, its
 * metatable is locked; 5.2+ used to call its __len) and writes what it cannot print as text (a __name that is not
 * UTF-8, binary strings) so that the reader reads it; on every version.
 */
@Tag("process")
class LuaHostileStateTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.2", "lua5.3", "lua5.4", "lua5.5", "luajit"})
    void noMetamethodRunsAndTheDumpReads(String vm) {
        LuaRuns.requireInterpreter(vm);
        LuaRuns.Result run = LuaRuns.start(vm, Path.of("src/test/lua/hostile.lua"), tmp, null);
        assertEquals(0, run.exit(), run.output());
        assertTrue(run.output().matches("(?s)true\ttrue\t\\d+\n"), run.output());
        HeapSnapshot s = LuaRuns.read(tmp.resolve("hostile.json"));
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        int bad = -1;
        int binary = -1;
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals("string") && s.label(o) != null && s.label(o).startsWith("\0\1\2\uFFFD")) {
                binary = o;
            }
        }
        for (int r = 0; r < s.referenceCount(); r++) {
            if ("bad".equals(s.referenceName(r)) && s.referenceKind(r).equals("value")) {
                bad = s.referenceTarget(r);
            }
        }
        assertTrue(bad >= 0 && s.type(bad).equals("table") && a.reachable()[bad], "Chaos.bad is in the dump");
        assertTrue(binary >= 0 && a.reachable()[binary], "the binary string is in the dump");
        assertEquals(24 + 20000 + 1 + (vm.equals("luajit") ? 3 : 0) + (vm.equals("lua5.5") ? 8 : 0), s.shallowSize(binary));
    }
}
