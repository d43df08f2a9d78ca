package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Known blind spots are said: a Lua 5.1 dump whose C functions have upvalues the debug library
 * could not read (coroutine.wrap generators) says how many in its warnings, which the load summary prints. One C
 * function tells its upvalue count by {@code nups} (dumpers since this change), one only by its size (40 + 16n, older
 * dumps), one has none; the number-keyed registry entries also get key type number.
 */
class LuaHiddenUpvaluesTest {

    @TempDir
    Path tmp;

    @Test
    void cFunctionsWithUnreadUpvaluesAreCounted() throws Exception {
        String dump = "{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,\n"
            + "\"lua\":{\"version\":\"Lua 5.1\",\"jit\":null,\"addressesAreReal\":true,\"stringIds\":\"content\"},\n"
            + "\"dumper\":{\"name\":\"heapload heapdump.lua\",\"kind\":\"pure-lua\",\"sizes\":\"estimated\"},\n"
            + "\"stats\":{\"gcCountKB\":20},\n\"objects\":{\n"
            + "\"0x1\":{\"type\":\"table\",\"narr\":3,\"nhash\":0,\"pairs\":[[1,\"0x2\"],[2,\"0x3\"],[3,\"0x4\"]],\"size\":112},\n"
            + "\"0x2\":{\"type\":\"function\",\"what\":\"C\",\"source\":\"[C]\",\"linedefined\":-1,\"lastlinedefined\":-1,"
            + "\"upvalues\":[],\"size\":56},\n"
            + "\"0x3\":{\"type\":\"function\",\"what\":\"C\",\"source\":\"[C]\",\"linedefined\":-1,\"lastlinedefined\":-1,"
            + "\"nups\":1,\"upvalues\":[],\"size\":56},\n"
            + "\"0x4\":{\"type\":\"function\",\"what\":\"C\",\"source\":\"[C]\",\"linedefined\":-1,\"lastlinedefined\":-1,"
            + "\"nups\":0,\"upvalues\":[],\"size\":40}},\n"
            + "\"roots\":{\"registry\":\"0x1\"}}\n";
        Path file = tmp.resolve("gen.json");
        Files.writeString(file, dump, StandardCharsets.UTF_8);
        HeapSnapshot s = new LuaHeapDumpReader().read(file, "gen", Progress.NONE);
        assertEquals("lua5.1", s.info().vm());
        // the dump says its producer and VM version
        assertEquals("heapload heapdump.lua", s.info().producer());
        assertEquals("Lua 5.1", s.info().vmVersion());
        assertEquals(List.of("2 C function(s) with upvalues this dump cannot show (lua5.1's debug library does not read"
            + " C upvalues; e.g. coroutine.wrap generators): what they hold (a generator's thread, its locals) is missing"
            + " from this snapshot and from its leaks"), s.info().warnings());
        for (int r = 0; r < s.referenceCount(); r++) {
            assertEquals("number", s.keyType(r), s.referenceName(r));
        }
        assertEquals(3, s.referenceCount());
    }
}
