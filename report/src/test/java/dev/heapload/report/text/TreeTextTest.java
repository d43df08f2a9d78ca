package dev.heapload.report.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.SnapshotInfo;

/** {@link TreeText#heaviest}: a table of the heaviest nodes, largest first, names made visible. */
class TreeTextTest {

    @Test
    void heaviestNodesAsATable() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        b.defineObject("0x10", "table", 40, -1, null);
        b.addReference(b.objectId("0x20"), value, b.name("cache"), 0);
        b.addReference(b.objectId("0x30"), value, b.name("名\u001b"), 0);
        b.defineObject("0x20", "table", 1_200, -1, null);
        b.defineObject("0x30", "table", 64, -1, null);
        b.addRoot("registry", b.objectId("0x10"));
        ReachabilityTree.Node root = ReachabilityTree.build(
            b.build(new SnapshotInfo("t", "luau", null, null, -1, Map.of(), List.of())), o -> true,
            ReachabilityTree.Split.NONE);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TreeText.heaviest(root, 2, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals("""
            heaviest nodes:
              self bytes | objects | path
             ------------+---------+------------------
                   1,200 |       1 | /registry/cache
                      64 |       1 | /registry/名\\x1b
            """, bytes.toString(StandardCharsets.UTF_8));
    }
}
