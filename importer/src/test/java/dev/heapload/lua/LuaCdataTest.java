package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * LuaJIT cdata weigh what LuaJIT allocates for them ({@code lj_cdata.c}: the value's {@code ffi.sizeof} after a 16-byte
 * header, 8 more for VLA/VLS), so a dump holding 8 MiB of FFI data adds up to the VM's own count; and a dump of an older
 * dumper that counted every cdata as 16 bytes (the field report: 32 KB of objects against 7.7 MB) says so in one
 * warning naming the cause.
 */
@Tag("process")
class LuaCdataTest {

    @TempDir
    Path tmp;

    @Test
    void cdataWeighWhatLuajitAllocates() {
        LuaRuns.requireInterpreter("luajit");
        LuaRuns.run("luajit", Path.of("src/test/lua/cdata.lua"), tmp);
        HeapSnapshot s = LuaRuns.read(tmp.resolve("cdata.json"));
        Map<String, Long> sizes = new TreeMap<>();
        long total = 0;
        for (int o = 0; o < s.objectCount(); o++) {
            total += s.shallowSize(o);
            if (s.type(o).equals("cdata")) {
                sizes.merge(s.label(o).replaceAll(": 0x[0-9a-f]+$", "").replaceAll("^-?\\d+U?LL$", "boxed")
                    .replaceAll("struct \\d+", "struct N"), s.shallowSize(o), Long::sum);
            }
        }
        // typedefs of anonymous structs print as "struct <ctype id>"; the ctype object Handle (ffi.metatype's result) is a
        // cdata of its type too (a boxed ctype id: 4 bytes after the header)
        Map<String, Long> expected = new TreeMap<>();
        expected.put("cdata<unsigned int [?]>", 4L * 1048576 + 24);
        expected.put("cdata<struct N [?]>", 12L * 262144 + 24);
        expected.put("cdata<struct N>", (4L + 1048576 + 24) + 3 * 20);
        expected.put("boxed", 3L * 24);
        expected.put("cdata<unsigned int *>", 24L);
        assertEquals(expected, sizes, String.valueOf(sizes));
        long vm = s.info().vmTotalBytes();
        assertTrue(total <= vm && total > vm * 0.9, "objects " + total + " of the VM's " + vm);
        assertEquals(List.of(), s.info().warnings());
    }

    @Test
    void anOlderDumpersCdataAreNamedAsTheCause() throws Exception {
        String dump = "{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,\n"
            + "\"lua\":{\"version\":\"Lua 5.1\",\"jit\":\"LuaJIT 2.1.0-beta3\",\"addressesAreReal\":true,\"stringIds\":\"address\"},\n"
            + "\"stats\":{\"gcCountKB\":7700},\n\"objects\":{\n"
            + "\"0x10\":{\"type\":\"table\",\"pairs\":[[1,\"0x20\"],[2,\"0x30\"]],\"size\":32000},\n"
            + "\"0x20\":{\"type\":\"cdata\",\"repr\":\"cdata<uint32_t [?]>: 0x20\",\"size\":16},\n"
            + "\"0x30\":{\"type\":\"cdata\",\"repr\":\"cdata<float [?]>: 0x30\",\"size\":16}},\n"
            + "\"roots\":{\"registry\":\"0x10\"}}\n";
        Path file = tmp.resolve("old.json");
        Files.writeString(file, dump, StandardCharsets.UTF_8);
        HeapSnapshot s = new LuaHeapDumpReader().read(file, "old", Progress.NONE);
        assertEquals(List.of("the objects add up to 32,032 bytes, 0.4% of the VM's own total of 7,884,800 bytes"
            + " (collectgarbage(\"count\")); likely cause: 2 cdata counted as 16 bytes each by a heapdump.lua without cdata"
            + " sizes: dump again with the current dumpers/lua/heapdump.lua (it sizes each cdata as LuaJIT allocates it)"),
            s.info().warnings());
    }
}
