package dev.heapload.report.text;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.TextTable;

/** The text {@code heapload tree} prints about a reachability tree: its heaviest paths. */
public final class TreeText {

    private TreeText() {
    }

    /**
     * Prints the {@code top} heaviest nodes by self size (bytes), each with its object count and its path from the
     * root (names joined by {@code /}, in their {@link SafeText#visible} form; paths longer than 400 characters stop
     * growing). Walks the tree with an explicit stack.
     */
    public static void heaviest(ReachabilityTree.Node root, int top, PrintStream out) {
        record Entry(ReachabilityTree.Node node, String path) {
        }
        List<Entry> all = new ArrayList<>();
        Deque<Entry> stack = new ArrayDeque<>();
        stack.push(new Entry(root, ""));
        while (!stack.isEmpty()) {
            Entry e = stack.pop();
            if (e.node.size() > 0) {
                all.add(e);
            }
            for (ReachabilityTree.Node c : e.node.children()) {
                String p = e.path.length() > 400 ? e.path : e.path + "/" + c.name();
                stack.push(new Entry(c, p));
            }
        }
        all.sort((a, b) -> Long.compare(b.node.size(), a.node.size()));
        if (all.isEmpty()) {
            return;
        }
        out.println("heaviest nodes:");
        TextTable table = new TextTable().column("self bytes", TextTable.Align.RIGHT)
            .column("objects", TextTable.Align.RIGHT).column("path", TextTable.Align.LEFT);
        for (int i = 0; i < Math.min(top, all.size()); i++) {
            Entry e = all.get(i);
            table.row(String.format(Locale.ROOT, "%,d", e.node.size()), String.format(Locale.ROOT, "%,d", e.node.count()),
                SafeText.visible(e.path));
        }
        for (String line : table.render().split("\n")) {
            out.println(" " + line);
        }
    }
}
