package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.luau.LuauDumpReader;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Issue 17 item 9: a stack slot's reference carries the frame that holds it (as {@code tree} groups the slots), so
 * retention paths say which frame holds a local. The generated Luau dump: the main thread's stack is
 * {@code [handleRequest closure, session table, pcall, cache table]} with stacknames
 * {@code ["frame:@main.luau:5:handleRequest", "session", "frame:pcall", null]}.
 */
class StackFrameTest {

    @TempDir
    Path dir;

    /** The generated dump (cli's StackFrameCommandTest loads the same). */
    static final String DUMP = "{\"objects\":{\n"
        + "\"0x1000\":{\"type\":\"thread\",\"cat\":0,\"size\":1232,\"env\":\"0x1100\",\"stack\":[\"0x1300\",\"0x1400\",\"0x1500\","
        + "\"0x1600\"],\"stacknames\":[\"frame:@main.luau:5:handleRequest\",\"session\",\"frame:pcall\",null]},\n"
        + "\"0x1100\":{\"type\":\"table\",\"cat\":0,\"size\":80},\n"
        + "\"0x1300\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x1100\",\"name\":\"handleRequest\"},\n"
        + "\"0x1400\":{\"type\":\"table\",\"cat\":0,\"size\":64},\n"
        + "\"0x1500\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x1100\",\"name\":\"pcall\"},\n"
        + "\"0x1600\":{\"type\":\"table\",\"cat\":0,\"size\":64},\n"
        + "\"0\":{\"type\":\"userdata\",\"cat\":0,\"size\":0}\n"
        + "},\"roots\":{\n"
        + "\"mainthread\":\"0x1000\",\"registry\":\"0x1100\"},\"stats\":{\n"
        + "\"size\":2000,\n"
        + "\"categories\":{\n"
        + "\"0\":{\"name\":\"main\", \"size\":2000},\n"
        + "\"none\":{}\n"
        + "}\n"
        + "}}\n";

    @Test
    void stackReferencesCarryTheirFrame() throws Exception {
        Path file = dir.resolve("frames.json");
        Files.writeString(file, DUMP, StandardCharsets.UTF_8);
        HeapSnapshot s = new LuauDumpReader().read(file, "frames", Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        HeapAnalysis a = s.analysis();
        int session = object(s, "0x1400");
        int cache = object(s, "0x1600");
        assertEquals(List.of("mainthread", "session in frame handleRequest (@main.luau:5)"), RetentionPath.names(s, a, session));
        assertEquals(List.of("mainthread", "[stack] in frame pcall [C]"), RetentionPath.names(s, a, cache));
        int handler = object(s, "0x1300");
        assertNull(s.referenceFrame(a.retainedBy()[handler]), "a frame's own function slot");
        int[] parent = new int[s.objectCount()];
        for (int o = 0; o < parent.length; o++) {
            parent[o] = a.retainedBy()[o] < 0 ? -1 : s.referenceSource(a.retainedBy()[o]);
        }
        assertEquals(List.of("root mainthread (thread)", "session in thread frame handleRequest (@main.luau:5)"),
            SnapshotComparison.path(s, a, parent, session).stream().map(PathHop::line).toList());
    }

    private static int object(HeapSnapshot s, String address) {
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.address(o).equals(address)) {
                return o;
            }
        }
        throw new AssertionError(address);
    }
}
