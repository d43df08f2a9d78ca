package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.heapload.lua.LuaHeapDumpReader;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The class histogram on the bundled fixture testdata/lua/classes (its README: what program.lua made, on Lua 5.1, 5.4
 * and LuaJIT with heapload's dumper): tables by their metatable's {@code __name}, by the global or local that holds the
 * metatable, by the {@code __index} table of an anonymous metatable; {@code FILE*} userdata ({@code __name} on 5.4, the
 * registry key on 5.1 and LuaJIT); LuaJIT cdata by ctype.
 */
class ClassHistogramLuaTest {

    static HeapSnapshot read(String vm, String which) throws Exception {
        String testdata = System.getProperty("heapload.testdata", "../testdata");
        return new LuaHeapDumpReader().read(Path.of(testdata, "lua", "classes", vm, which + ".json"), which, Progress.NONE);
    }

    static ClassHistogram histogram(String vm, String which) throws Exception {
        HeapSnapshot s = read(vm, which);
        return ClassHistogramLuauTest.histogram(s, HeapAnalyzer.analyze(s, Progress.NONE));
    }

    @Test
    void lua54() throws Exception {
        // Animal: 2 instances and the Dog class table (its metatable is {__index = Animal})
        assertEquals(LuauCases.lines(
            "table | metatable {__mode} | 1 6200 1 6200 6337",
            "table | Animal | 3 264 3 264 438",
            "table | Dog | 1 104 1 104 218",
            "table | Point | 1 104 1 104 156",
            "table | metatable 0x558a54b6f6d0 | 1 56 1 56 136",
            "userdata | FILE* | 3 96 3 96 96"), ClassHistogramLuauTest.render(histogram("lua5.4", "before")));
        assertEquals(LuauCases.lines(
            "table | metatable {__mode} | 1 6200 1 6200 6337",
            "table | Dog | 4 416 4 416 748",
            "table | Point | 5 520 5 520 520",
            "table | Animal | 3 264 3 264 438",
            "table | Cat | 2 160 2 160 374",
            "table | Queue | 2 160 2 160 272",
            "userdata | FILE* | 5 160 5 160 160",
            "table | metatable 0x558a54b6f6d0 | 1 56 1 56 136"), ClassHistogramLuauTest.render(histogram("lua5.4", "after")));
    }

    @Test
    void lua51() throws Exception {
        assertEquals(LuauCases.lines(
            "table | metatable {__mode} | 1 5184 1 5184 5345",
            "table | Dog | 4 576 4 576 940",
            "table | Point | 5 720 5 720 720",
            "table | Animal | 3 352 3 352 550",
            "table | Cat | 2 208 2 208 470",
            "table | Queue | 2 208 2 208 336",
            "userdata | FILE* | 5 200 5 200 200"), ClassHistogramLuauTest.render(histogram("lua5.1", "after")));
    }

    @Test
    void luajitCdata() throws Exception {
        // the dumper's weak tables and LuaJIT's own: anonymous metatables {__mode = ...}, one class by their keys;
        // hl_point2 is an anonymous struct: LuaJIT names its ctype "struct 97"; 1LL..3LL are int64_t
        assertEquals(LuauCases.lines(
            "table | metatable {__mode} | 3 6432 3 6432 6572",
            "table | Dog | 4 448 4 448 816",
            "table | Point | 5 560 5 560 560",
            "table | Animal | 3 336 3 336 544",
            "table | Cat | 2 224 2 224 504",
            "table | Queue | 2 224 2 224 352",
            "userdata | FILE* | 5 240 5 240 240",
            "cdata | struct 97 | 4 128 4 128 128",
            "userdata | metatable {__gc, __index, __newindex} | 1 48 1 48 112",
            "cdata | int64_t | 3 72 3 72 72"), ClassHistogramLuauTest.render(histogram("luajit", "after")));
    }

    @Test
    void ctypeFromRepr() {
        assertEquals("struct point", ObjectClasses.ctype("cdata<struct point>: 0x7f00bd21fe90"));
        assertEquals("int (*)(int)", ObjectClasses.ctype("cdata<int (*)(int)>: 0x1"));
        assertEquals("int64_t", ObjectClasses.ctype("-5LL"));
        assertEquals("uint64_t", ObjectClasses.ctype("5ULL"));
        assertEquals(null, ObjectClasses.ctype("cdata: 0x1"));
    }
}
