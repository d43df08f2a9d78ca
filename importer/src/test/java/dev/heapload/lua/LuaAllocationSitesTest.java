package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.model.AllocationSites;
import dev.heapload.model.HeapSnapshot;

/**
 * Allocation sites ({@code heapdump.track}, the C helper heapdump_native built against each VM's headers):
 * src/test/lua/sites.lua allocates in three known places, three times each (a table constructor on line 9, a closure
 * on line 5, a concatenation on line 11), plus the closure {@code handler} (line 6) and the table {@code Made} (line
 * 7), and on line 14, after a call returned and a C function ran on the same line, one more concatenation (the
 * closure {@code id}: line 13); the dump names exactly those sites, and the table made before tracking started has
 * none.
 */
@Tag("process")
class LuaAllocationSitesTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.2", "lua5.3", "lua5.4", "lua5.5", "luajit"})
    void sitesNameTheAllocatingLines(String vm) throws Exception {
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        Assumptions.assumeTrue(LuaRuns.buildNative(vm, modules), "no C compiler or no Lua headers for " + vm);
        Path program = Path.of("src/test/lua/sites.lua");
        LuaRuns.run(vm, program, tmp, modules);
        HeapSnapshot s = LuaRuns.read(tmp.resolve("sites.json"));
        AllocationSites sites = s.sites();
        assertTrue(sites.tracked());
        Map<String, Integer> bySite = new TreeMap<>();
        for (int o = 0; o < s.objectCount(); o++) {
            int site = sites.site(o);
            if (site != AllocationSites.NO_SITE) {
                bySite.merge(sites.text(site) + " " + s.type(o), 1, Integer::sum);
            }
        }
        assertEquals(Map.of(
            "sites.lua:5 in handler function", 3,
            "sites.lua:6 in main chunk function", 1,
            "sites.lua:7 in main chunk table", 1,
            "sites.lua:9 in main chunk table", 3,
            "sites.lua:11 in main chunk string", 3,
            "sites.lua:13 in main chunk function", 1,
            "sites.lua:14 in main chunk string", 1), bySite);
        // the stored model keeps them
        Path file = tmp.resolve("sites.hsnap");
        dev.heapload.model.HeapSnapshotFile.write(s, file);
        HeapSnapshot back = dev.heapload.model.HeapSnapshotFile.read(file);
        assertEquals(s.objectCount(), back.objectCount());
        for (int o = 0; o < s.objectCount(); o++) {
            int site = sites.site(o);
            assertEquals(site == AllocationSites.NO_SITE ? null : sites.text(site),
                back.sites().site(o) == AllocationSites.NO_SITE ? null : back.sites().text(back.sites().site(o)));
        }
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals("string") && s.label(o) != null && s.label(o).startsWith("item-")) {
                assertEquals("sites.lua:11 in main chunk", sites.text(sites.site(o)));
            }
        }
        // made before heapdump.track(true): no site
        int old = -1;
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals("string") && "before tracking".equals(s.label(o))) {
                old = o;
            }
        }
        assertTrue(old >= 0);
        assertEquals(AllocationSites.NO_SITE, sites.site(old));
        for (int r = s.firstReference(old); r < s.firstReference(old + 1); r++) {
            assertEquals(AllocationSites.NO_SITE, sites.site(s.referenceTarget(r)));
        }
    }

    /**
     * src/test/lua/listeners.lua (tracking on before both snapshots): the one leak group, 40 listener tables under
     * {@code Bus.listeners}, has its new objects at the lines that made them: the listener tables at line 8 (in
     * {@code Bus.on}), the widgets and their buffers at 20, the closures at 21, the names at 29.
     */
    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.4", "lua5.5", "luajit"})
    void theLeakGroupNamesTheLineThatMadeTheListenerTables(String vm) throws Exception {
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        Assumptions.assumeTrue(LuaRuns.buildNative(vm, modules), "no C compiler or no Lua headers for " + vm);
        LuaRuns.run(vm, Path.of("src/test/lua/listeners.lua"), tmp, modules);
        HeapSnapshot before = LuaRuns.read(tmp.resolve("before.json"));
        HeapSnapshot after = LuaRuns.read(tmp.resolve("after.json"));
        dev.heapload.analysis.HeapAnalyzer.analyze(before, dev.heapload.model.Progress.NONE);
        dev.heapload.analysis.HeapAnalysis a = dev.heapload.analysis.HeapAnalyzer.analyze(after, dev.heapload.model.Progress.NONE);
        dev.heapload.analysis.SnapshotComparison c = dev.heapload.analysis.SnapshotComparison.compute(before, after, a);
        var leaks = c.leakGroups().stream().filter(dev.heapload.analysis.SnapshotComparison.LeakGroup::leak).toList();
        assertEquals(1, leaks.size(), () -> String.valueOf(c.leakGroups()));
        assertEquals(40, leaks.get(0).heads());
        Map<String, Long> sites = new TreeMap<>();
        for (var row : leaks.get(0).sites()) {
            sites.put(row.site(), row.objects());
        }
        assertEquals(Map.of("listeners.lua:8 in on", 40L, "listeners.lua:20 in widget", 80L,
            "listeners.lua:21 in widget", 40L, "listeners.lua:29 in main chunk", 40L), sites);
    }

    /** track(true) inside a coroutine: the main thread, resumed afterwards, is followed too. */
    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.4", "luajit"})
    void trackingStartedInACoroutineFollowsTheMainThread(String vm) throws Exception {
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        Assumptions.assumeTrue(LuaRuns.buildNative(vm, modules), "no C compiler or no Lua headers for " + vm);
        Path program = tmp.resolve("co.lua");
        java.nio.file.Files.writeString(program, String.join("\n",
            "local heapdump = require \"heapdump\"",
            "Keep = {}",
            "local co = coroutine.create(function()",
            "  heapdump.track(true)",
            "  Keep.inco = { \"in coroutine\" }",
            "  coroutine.yield()",
            "end)",
            "coroutine.resume(co)",
            "Keep.inmain = { \"in main\" }",
            "heapdump.track(false)",
            "heapdump.write(os.getenv(\"HEAPDUMP_DIR\") .. \"/co.json\")",
            ""));
        LuaRuns.run(vm, program, tmp, modules);
        HeapSnapshot s = LuaRuns.read(tmp.resolve("co.json"));
        Map<String, String> bySite = new TreeMap<>();
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.sites().site(o) != AllocationSites.NO_SITE) {
                bySite.put(s.sites().text(s.sites().site(o)), s.type(o));
            }
        }
        assertEquals(Map.of("co.lua:5 in function <co.lua:3>", "table", "co.lua:9 in main chunk", "table"), bySite);
    }

    /** A site index the dump's site table lacks, or a site that is no index: one line naming the file (and place). */
    @org.junit.jupiter.api.Test
    void badSitesAreRefusedInOneLine() throws Exception {
        String head = "{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,\"lua\":{\"version\":\"Lua 5.4\",\"jit\":null,"
            + "\"addressesAreReal\":true,\"stringIds\":\"address\"},\"objects\":{\"0x10\":{\"type\":\"table\",\"site\":";
        String tail = ",\"pairs\":[],\"size\":56}},\"roots\":{\"registry\":\"0x10\",\"globals\":\"0x10\"},"
            + "\"tracking\":{\"sites\":[{\"source\":\"a.lua\",\"line\":1,\"function\":\"main chunk\"}]}}";
        Path outside = tmp.resolve("outside.json");
        java.nio.file.Files.writeString(outside, head + "3" + tail);
        Path text = tmp.resolve("text.json");
        java.nio.file.Files.writeString(text, head + "\"x\"" + tail);
        Path good = tmp.resolve("good.json");
        java.nio.file.Files.writeString(good, head + "0" + tail);
        String m1 = org.junit.jupiter.api.Assertions.assertThrows(dev.heapload.model.DumpFormatException.class,
            () -> new LuaHeapDumpReader().read(outside, "s", dev.heapload.model.Progress.NONE)).getMessage();
        assertTrue(m1.contains("outside.json") && m1.endsWith(": an object's \"site\" 3 is not in \"tracking.sites\" (1 site(s))")
            && !m1.contains("\n"), m1);
        String m2 = org.junit.jupiter.api.Assertions.assertThrows(dev.heapload.model.DumpFormatException.class,
            () -> new LuaHeapDumpReader().read(text, "s", dev.heapload.model.Progress.NONE)).getMessage();
        assertTrue(m2.contains("text.json") && m2.contains("byte ") && m2.endsWith(": record 0x10: \"site\" is not a site index")
            && !m2.contains("\n"), m2);
        HeapSnapshot s = LuaRuns.read(good);
        assertEquals("a.lua:1 in main chunk", s.sites().text(s.sites().site(0)));
    }

    /** A debug hook of the program's own is not replaced: track(true) refuses; LuaJIT's JIT stays on. */
    @ParameterizedTest
    @ValueSource(strings = {"lua5.4", "luajit"})
    void aHookOfTheProgramsOwnIsLeftAlone(String vm) throws Exception {
        LuaRuns.requireInterpreter(vm);
        Path modules = tmp.resolve("cmodules");
        Assumptions.assumeTrue(LuaRuns.buildNative(vm, modules), "no C compiler or no Lua headers for " + vm);
        Path program = tmp.resolve("hooked.lua");
        java.nio.file.Files.writeString(program, String.join("\n",
            "local heapdump = require \"heapdump\"",
            "debug.sethook(function() end, \"l\")",
            "print(pcall(heapdump.track, true))",
            "print(jit == nil or jit.status())",
            ""));
        LuaRuns.Result r = LuaRuns.start(vm, program, tmp, modules);
        assertEquals(0, r.exit(), r.output());
        assertEquals("false\theapdump.track: a debug hook is already set on this thread\ntrue",
            r.output().strip().replaceAll("(?s)(\ntrue).*", "$1"));
    }

    /** Without the C helper, track(true) fails with one line saying what to build. */
    @ParameterizedTest
    @ValueSource(strings = {"lua5.4"})
    void trackingWithoutTheHelperSaysWhatIsMissing(String vm) throws Exception {
        LuaRuns.requireInterpreter(vm);
        Path program = tmp.resolve("nohelper.lua");
        java.nio.file.Files.writeString(program, "require(\"heapdump\").track(true)\n");
        LuaRuns.Result r = LuaRuns.start(vm, program, tmp, null);
        assertEquals(1, r.exit());
        assertTrue(r.output().contains("nohelper.lua:1: heapdump.track: the C helper heapdump_native is not loaded (build it: "
            + "docs/reference/lua-dumper-format.md)"), r.output());
    }

    @ParameterizedTest
    @ValueSource(strings = {"lua5.4"})
    void dumpsWithoutTrackingHaveNoSites(String vm) throws Exception {
        LuaRuns.requireInterpreter(vm);
        Path program = tmp.resolve("plain.lua");
        java.nio.file.Files.writeString(program, "Keep = { 1, 2 }\nrequire(\"heapdump\").write(os.getenv(\"HEAPDUMP_DIR\") .. \"/plain.json\")\n");
        LuaRuns.run(vm, program, tmp, null);
        HeapSnapshot s = LuaRuns.read(tmp.resolve("plain.json"));
        assertFalse(s.sites().tracked());
        assertEquals(AllocationSites.NO_SITE, s.sites().site(0));
    }
}
