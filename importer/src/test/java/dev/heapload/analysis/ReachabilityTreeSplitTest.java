package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.ReachabilityTree.Node;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.SnapshotInfo;

/** {@link ReachabilityTree}'s split by memory category, on a hand-built heap. */
class ReachabilityTreeSplitTest {

    /** A root table with one value per category: 10 bytes in 0, 20 in 130, 40 in 131, 80 in 140. */
    private static HeapSnapshot heap(Map<Integer, MemoryCategory> categories) {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        int root = b.defineObject("0x1", "table", 10, 0, null);
        int[] cats = {130, 131, 140};
        // a record's references follow its definition
        for (int i = 0; i < cats.length; i++) {
            b.addReference(b.objectId("0x" + (i + 2)), value, b.name("f" + cats[i]), 0);
        }
        for (int i = 0; i < cats.length; i++) {
            b.defineObject("0x" + (i + 2), "table", 20L << i, cats[i], null);
        }
        b.addRoot("registry", root);
        return b.build(new SnapshotInfo("t", "luau", "t", "", -1, categories, List.of()));
    }

    private static String render(Node root) {
        StringBuilder sb = new StringBuilder();
        for (Node c : root.children()) {
            sb.append(c.name()).append('=').append(c.total()).append(' ');
        }
        return sb.toString().trim();
    }

    @Test
    void oneSubtreePerCategoryNamedByTheDump() {
        HeapSnapshot s = heap(Map.of(0, new MemoryCategory(0, "main", 1), 130, new MemoryCategory(130, "A", 1),
            131, new MemoryCategory(131, "B", 1), 140, new MemoryCategory(140, "C", 1)));
        assertEquals("main=10 A=20 B=40 C=80", render(ReachabilityTree.build(s, o -> true, ReachabilityTree.Split.ALL)));
    }

    @Test
    void categoriesWithTheSameNameKeepTheLaterOneAtTheEarlierPosition() {
        // heapgraph.py: result.children[name] = filtered, for i in 0..255: 140 replaces 130 under "dup"
        HeapSnapshot s = heap(Map.of(0, new MemoryCategory(0, "main", 1), 130, new MemoryCategory(130, "dup", 1),
            131, new MemoryCategory(131, "B", 1), 140, new MemoryCategory(140, "dup", 1)));
        Node split = ReachabilityTree.build(s, o -> true, ReachabilityTree.Split.ALL);
        assertEquals("main=10 dup=80 B=40", render(split));
        assertEquals(130, split.total());
    }
}
