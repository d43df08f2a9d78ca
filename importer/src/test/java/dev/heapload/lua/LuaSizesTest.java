package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.model.HeapSnapshot;

/**
 * The Lua dumper's sizes are what each VM counts ({@code collectgarbage("count")}), object by object, on Lua 5.1-5.5 and
 * LuaJIT: {@code src/test/lua/sizes.lua} creates objects of every kind the VM has (tables filled by insertion, short and
 * long strings, 5.5 external strings, Lua and C closures, userdata with payloads and user values, coroutines, 5.5
 * vararg tables, LuaJIT cdata of every ctype kind: scalars, arrays, a 4 MiB VLA, VLS, aligned structs, references,
 * boxed integers) and prints for each how many bytes the VM's count grew by; the dump (with the C helper
 * heapdump_native, built here as docs/reference/lua-dumper-format.md tells a user to) must give each object exactly that size.
 */
@Tag("process")
class LuaSizesTest {

    @TempDir
    Path tmp;

    /** How many objects sizes.lua measures on each VM (with the C modules). */
    private static final Map<String, Integer> MEASURED = Map.of("lua5.1", 49, "lua5.2", 51, "lua5.3", 51, "lua5.4", 53,
        "lua5.5", 55, "luajit", 74);

    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.2", "lua5.3", "lua5.4", "lua5.5", "luajit"})
    void everyObjectWeighsWhatTheVmCounted(String vm) {
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        boolean built = LuaRuns.buildUdhelper(vm, modules) & LuaRuns.buildNative(vm, modules);
        Assumptions.assumeTrue(built, "no C compiler or no Lua headers for " + vm);
        LuaRuns.Result run = LuaRuns.start(vm, Path.of("src/test/lua/sizes.lua"), tmp, modules);
        assertEquals(0, run.exit(), run.output());
        HeapSnapshot s = LuaRuns.read(tmp.resolve("sizes.json"));
        assertEquals(vm, s.info().vm());

        Map<String, Integer> byAddress = new HashMap<>();
        Map<String, Integer> stringByHead = new HashMap<>();
        for (int o = 0; o < s.objectCount(); o++) {
            byAddress.put(s.address(o), o);
            String label = s.label(o);
            if (s.type(o).equals("string") && label != null && label.length() >= 2) {
                stringByHead.put(label.substring(0, 2) + "#" + label.length(), o);
            }
        }
        List<String> wrong = new ArrayList<>();
        int measured = 0;
        for (String line : run.output().split("\n")) {
            if (!line.startsWith("SIZE\t")) {
                continue;
            }
            String[] f = line.split("\t", 4);
            measured++;
            String key = f[1];
            long bytes = Long.parseLong(f[2]);
            Integer o = key.startsWith("str:") ? stringByHead.get(key.substring(4)) : byAddress.get(key);
            if (o == null) {
                wrong.add(f[3] + ": not in the dump");
            } else if (s.shallowSize(o) != bytes) {
                wrong.add(f[3] + ": the VM counted " + bytes + " bytes, the dump says " + s.shallowSize(o));
            }
        }
        assertEquals(MEASURED.get(vm), measured, run.output());
        assertEquals(List.of(), wrong, vm);
        assertTrue(s.info().warnings().isEmpty(), () -> String.valueOf(s.info().warnings()));
    }
}
