package dev.heapload.export;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.queries.SafeText;

/**
 * A reachability tree ({@link ReachabilityTree}) as folded stacks, the text format of Brendan Gregg's FlameGraph
 * {@code stackcollapse} tools that speedscope, FlameGraph's {@code flamegraph.pl}, inferno and others read: one line
 * per tree node with bytes of its own, {@code frame;frame;…;frame BYTES}, the frames being the node's path from the
 * tree's root (the root itself, which has no name, left out), BYTES the node's self size (shallow bytes of the
 * objects charged to it).
 *
 * <p>Names are data: each frame is {@link SafeText#visible} (newlines and other control characters shown as
 * {@code \n}, {@code \x1b}; a backslash doubled) and a {@code ;} in a name is written {@code \x3b}, so no name can
 * end a line or add a frame. An empty name is written {@code ""}. Viewers take the number after the last space,
 * so spaces in names are kept.
 *
 * <p>Iterative (no recursion on tree depth); each line holds its whole path, so the output is the sum of the path
 * lengths of the nodes written.
 */
public final class FoldedStacks {

    private FoldedStacks() {
    }

    /**
     * Writes the lines of every node of {@code root}'s tree whose self size is above 0, depth first, children in the
     * tree's order.
     *
     * @param root the tree's root
     * @param out  where the lines go (UTF-8 when it is a file); not closed
     * @throws IOException when writing fails
     */
    public static void write(ReachabilityTree.Node root, Writer out) throws IOException {
        record Item(ReachabilityTree.Node node, int depth) {
        }
        StringBuilder prefix = new StringBuilder();
        int[] offsets = new int[16];
        Deque<Item> stack = new ArrayDeque<>();
        List<ReachabilityTree.Node> top = root.children();
        for (int i = top.size() - 1; i >= 0; i--) {
            stack.push(new Item(top.get(i), 1));
        }
        if (root.size() > 0) {
            out.write("\"\" " + root.size() + "\n");
        }
        while (!stack.isEmpty()) {
            Item item = stack.pop();
            int d = item.depth();
            if (d >= offsets.length) {
                offsets = java.util.Arrays.copyOf(offsets, offsets.length * 2);
            }
            // offsets[k]: where the path of depth k ends in prefix (the parent's, for k = d - 1: depth first)
            prefix.setLength(offsets[d - 1]);
            if (d > 1) {
                prefix.append(';');
            }
            prefix.append(frame(item.node().name()));
            offsets[d] = prefix.length();
            if (item.node().size() > 0) {
                out.append(prefix).append(' ').append(Long.toString(item.node().size())).append('\n');
            }
            List<ReachabilityTree.Node> children = item.node().children();
            for (int i = children.size() - 1; i >= 0; i--) {
                stack.push(new Item(children.get(i), d + 1));
            }
        }
    }

    /** One frame: the name made visible, {@code ;} as {@code \x3b}; {@code ""} for an empty name. */
    public static String frame(String name) {
        if (name == null || name.isEmpty()) {
            return "\"\"";
        }
        return SafeText.visible(name).replace(";", "\\x3b");
    }
}
