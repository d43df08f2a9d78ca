package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.RetentionPath;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotFile;
import dev.heapload.model.Progress;

/**
 * Stack frames on Lua: a thread's locals and varargs carry the frame that holds them (function, source, current
 * line, in the words of Lua's traceback), so retention paths say which frame holds a local. The program runs on each
 * interpreter with the dumper: a coroutine suspended in {@code worker} (defined at line 2, yielding at line 4) holds
 * {@code job}; the main chunk (line 14) calls {@code handle}, whose local {@code session} is alive while the harness
 * dumps (line 11). On Lua 5.2+ the calling thread is an object and its locals are references too; on 5.1 and LuaJIT
 * they are roots named {@code stack <source>:<line> <local>}.
 */
@Tag("process")
class LuaStackFramesTest {

    @TempDir
    Path tmp;

    static final String PROGRAM = String.join("\n",
        "local H = require \"harness\"",
        "local function worker(n)",
        "  local job = { id = n }",
        "  coroutine.yield(job)",
        "  return job",
        "end",
        "local co = coroutine.create(worker)",
        "coroutine.resume(co, 7)",
        "local function handle(request)",
        "  local session = { user = \"ann\" }",
        "  H.snap(\"after\")",
        "  return session",
        "end",
        "handle(\"GET /\")",
        "");

    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.2", "lua5.3", "lua5.4", "luajit"})
    void localsCarryTheirFrame(String exe) throws Exception {
        LuaRuns.requireInterpreter(exe);
        Path program = tmp.resolve("program.lua");
        Files.writeString(program, PROGRAM, StandardCharsets.UTF_8);
        LuaRuns.run(exe, program, tmp);
        HeapSnapshot s = LuaRuns.read(tmp.resolve("after.json"));
        boolean old = exe.equals("lua5.1") || exe.equals("luajit");
        String temporary = exe.equals("lua5.4") ? "(C temporary)" : "(*temporary)";
        // per local name: the frames of the thread references that carry it
        Map<String, String> frames = new TreeMap<>();
        for (int r = 0; r < s.referenceCount(); r++) {
            String frame = s.referenceFrame(r);
            if (frame != null) {
                frames.merge(s.referenceKind(r) + " " + s.referenceName(r), frame, (a, b) -> a.equals(b) ? a : a + " | " + b);
            }
        }
        Map<String, String> expected = new TreeMap<>();
        expected.put("local job", "function <program.lua:2> (program.lua:4)");
        if (!old) {
            expected.put("local request", "handle (program.lua:11)");
            expected.put("local session", "handle (program.lua:11)");
            expected.put("local H", "main chunk (program.lua:14)");
            expected.put("local worker", "main chunk (program.lua:14)");
            expected.put("local co", "main chunk (program.lua:14)");
            expected.put("local handle", "main chunk (program.lua:14)");
            expected.put("local " + temporary, "[C]");
        }
        assertEquals(expected, frames, exe);

        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        int job = tableWith(s, "id");
        int session = tableWith(s, "user");
        if (old) {
            assertEquals(List.of("stack program.lua:14 co", "job in frame function <program.lua:2> (program.lua:4)"),
                RetentionPath.names(s, a, job), exe);
            assertEquals(List.of("stack program.lua:11 session"), RetentionPath.names(s, a, session), exe);
        } else {
            assertEquals(List.of("mainthread", "co in frame main chunk (program.lua:14)",
                "job in frame function <program.lua:2> (program.lua:4)"), RetentionPath.names(s, a, job), exe);
            assertEquals(List.of("mainthread", "session in frame handle (program.lua:11)"), RetentionPath.names(s, a, session), exe);
        }

        // the frames survive the store's snapshot file
        Path file = tmp.resolve("after.hsnap");
        HeapSnapshotFile.write(s, file);
        HeapSnapshot copy = HeapSnapshotFile.read(file);
        for (int r = 0; r < s.referenceCount(); r++) {
            assertEquals(s.referenceFrame(r), copy.referenceFrame(r), "reference " + r);
        }
    }

    /** A dump written before frames carried {@code linedefined}: an unnamed function's frame reads {@code (anonymous)}. */
    @Test
    void oldDumpsStayReadable() throws Exception {
        String dump = "{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,\n"
            + "\"lua\":{\"version\":\"Lua 5.4\",\"jit\":null,\"addressesAreReal\":true,\"stringIds\":\"address\"},\n"
            + "\"objects\":{\n"
            + "\"0x10\":{\"type\":\"table\",\"pairs\":[],\"size\":56},\n"
            + "\"0x20\":{\"type\":\"table\",\"pairs\":[],\"size\":56},\n"
            + "\"0x30\":{\"type\":\"thread\",\"status\":\"suspended\",\"frames\":["
            + "{\"level\":0,\"what\":\"C\",\"source\":\"[C]\",\"line\":-1,\"name\":\"yield\",\"locals\":[]},"
            + "{\"level\":1,\"what\":\"Lua\",\"source\":\"program.lua\",\"line\":4,\"locals\":[{\"name\":\"job\",\"value\":\"0x10\"}],"
            + "\"varargs\":[\"0x20\"]}],\"size\":200}},\n"
            + "\"roots\":{\"registry\":\"0x30\"}}\n";
        Path file = tmp.resolve("old.json");
        Files.writeString(file, dump, StandardCharsets.UTF_8);
        HeapSnapshot s = new LuaHeapDumpReader().read(file, "old", Progress.NONE);
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals(List.of("registry", "job in frame (anonymous) (program.lua:4)"), RetentionPath.names(s, a, tableAt(s, "0x10")));
        assertEquals(List.of("registry", "[vararg 1] in frame (anonymous) (program.lua:4)"),
            RetentionPath.names(s, a, tableAt(s, "0x20")));
    }

    @Test
    void frameTextInTheWordsOfTheTraceback() {
        assertEquals("handle (program.lua:11)", LuaHeapDumpReader.frameText("Lua", "handle", "program.lua", 11, 9));
        assertEquals("main chunk (program.lua:14)", LuaHeapDumpReader.frameText("main", null, "program.lua", 14, -1));
        assertEquals("function <program.lua:2> (program.lua:4)", LuaHeapDumpReader.frameText("Lua", null, "program.lua", 4, 2));
        assertEquals("(anonymous) (program.lua:4)", LuaHeapDumpReader.frameText("Lua", null, "program.lua", 4, -1));
        assertEquals("yield [C]", LuaHeapDumpReader.frameText("C", "yield", "[C]", -1, -1));
        assertEquals("[C]", LuaHeapDumpReader.frameText("C", null, "[C]", -1, -1));
    }

    private static int tableWith(HeapSnapshot s, String key) {
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals("table")) {
                for (int r = s.firstReference(o); r < s.firstReference(o + 1); r++) {
                    int t = s.referenceTarget(r);
                    if (s.referenceKind(r).equals("key") && s.type(t).equals("string") && key.equals(s.label(t))) {
                        return o;
                    }
                }
            }
        }
        throw new AssertionError("no table with key " + key);
    }

    private static int tableAt(HeapSnapshot s, String address) {
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.address(o).equals(address)) {
                return o;
            }
        }
        throw new AssertionError(address);
    }
}
