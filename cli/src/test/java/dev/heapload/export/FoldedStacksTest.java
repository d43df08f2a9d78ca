package dev.heapload.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.analysis.SnapshotDiff;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;

/** {@code heapload tree --folded}: lines per tree node, names that cannot forge frames or lines. */
class FoldedStacksTest {

    @Test
    void eventListenersNewObjectsSumToTheTreeTotal() throws Exception {
        Path dir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        HeapSnapshot before = DumpReaders.read(dir.resolve("before.json"), null, Progress.NONE);
        HeapSnapshot after = DumpReaders.read(dir.resolve("after.json"), null, Progress.NONE);
        boolean[] isNew = SnapshotDiff.compare(before, after).isNew();
        ReachabilityTree.Node root = ReachabilityTree.build(after, o -> isNew[o], ReachabilityTree.Split.NONE);
        StringWriter w = new StringWriter();
        FoldedStacks.write(root, w);
        List<String> lines = w.toString().lines().toList();
        long sum = 0;
        for (String line : lines) {
            sum += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
        }
        // event-listeners README and `heapload tree`: 22,099 bytes in 186 new objects
        assertEquals(22_099L, sum);
        assertTrue(lines.stream().allMatch(l -> l.startsWith("registry;_MODULES;")), lines.toString());
    }

    @Test
    void semicolonsAndNewlinesInNamesCannotForgeFrames() throws Exception {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int kind = b.kind("value");
        int registry = b.defineObject("0x10", "table", 100, 0, null);
        b.addReference(b.objectId("0x20"), kind, b.name("a;b"), 0);
        b.addReference(b.objectId("0x30"), kind, b.name("x\ny 1"), 0);
        b.defineObject("0x20", "table", 20, 0, null);
        b.addReference(b.objectId("0x40"), kind, b.name("back\\slash"), 0);
        b.defineObject("0x30", "table", 30, 0, null);
        b.defineObject("0x40", "table", 40, 0, null);
        b.addRoot("registry", registry);
        HeapSnapshot s = b.build(new SnapshotInfo("t", "luau", "t.json", null, 190,
            Map.of(0, new MemoryCategory(0, "main", 190)), List.of()));
        ReachabilityTree.Node root = ReachabilityTree.build(s, o -> true, ReachabilityTree.Split.NONE);
        StringWriter w = new StringWriter();
        FoldedStacks.write(root, w);
        assertEquals("registry 100\nregistry;a\\x3bb 20\nregistry;a\\x3bb;back\\\\slash 40\nregistry;x\\ny 1 30\n",
            w.toString());
    }
}
