package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.heapload.luau.LuauDumpReader;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * A stack slot's reference carries the frame that holds it (as {@code tree} groups the slots), so
 * retention paths say which frame holds a local. The hand-written Luau dump {@code testdata/luau/hand-written/stack-frames.json}
 * (its README): the main thread's stack is {@code [handleRequest closure, session table, pcall, cache table]} with
 * stacknames {@code ["frame:@main.luau:5:handleRequest", "session", "frame:pcall", null]}.
 */
class StackFrameTest {

    /** The bundled dump (cli's StackFrameCommandTest loads the same). */
    static final Path FIXTURE = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "hand-written",
        "stack-frames.json");


    @Test
    void stackReferencesCarryTheirFrame() throws Exception {
        HeapSnapshot s = new LuauDumpReader().read(FIXTURE, "frames", Progress.NONE);
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
