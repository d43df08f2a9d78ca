package dev.heapload.report.svg;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.queries.SafeText;

/**
 * Renders a {@link ReachabilityTree} as a self-contained SVG icicle graph (root on top, each child below
 * its parent, widths proportional to total bytes). {@value #MERGE_SIBLINGS} or more siblings whose names differ only
 * in digits (the entries of a dictionary keyed by numbers) are one box labelled with their count and type,
 * {@code "1,100 × Point"} (their name pattern, {@code "1,100 × #"}, when their types differ). Hovering a box
 * shows its path from the root (names joined by {@code /}, as a leak group's name spells it), total bytes, share of
 * the whole and its own bytes and objects (native SVG tooltip and a details line); clicking a box pins
 * the details. No external scripts, fonts or network. Every name is XML-escaped and its control and bidi
 * characters shown escaped ({@link SafeText#xml}), because names come from heap strings.
 */
public final class IcicleSvg {

    public static final double WIDTH = 1200;
    public static final double ROW = 18;
    public static final double MARGIN = 10;
    /** Boxes narrower than this many pixels are left out (heapgraph.py's svg.py uses 0.1 px). */
    public static final double MIN_WIDTH = 0.1;

    /**
     * The graph's only script (the text of its {@code <script>} element): shows a box's details on hover, pins them
     * on click. A page that embeds the graph allows exactly this text in its Content-Security-Policy by hash.
     */
    public static final String SCRIPT = "\n"
        + "var pinned=null;\n"
        + "function d(e){var g=e.target.closest('g.b');return g?g.getAttribute('data-d'):null}\n"
        + "function show(t){document.getElementById('details').textContent=t}\n"
        + "document.addEventListener('mouseover',function(e){var t=d(e);if(t)show(t)});\n"
        + "document.addEventListener('mouseout',function(e){show(pinned||' ')});\n"
        + "document.addEventListener('click',function(e){var t=d(e);pinned=t;show(t||' ')});\n";

    private IcicleSvg() {
    }

    /** At least this many siblings whose names differ only in digits are drawn as one box ("1,000 × Point"). */
    public static final int MERGE_SIBLINGS = 8;

    /** At most this many names of a box's path are shown in its details (the rest as "…/"). */
    static final int PATH_NAMES = 40;

    /**
     * Writes the SVG.
     *
     * @param root  tree root (its total is 100 %)
     * @param title heading text (escaped here)
     * @param out   destination (UTF-8 writer)
     */
    public static void write(ReachabilityTree.Node root, String title, Writer out) throws IOException {
        write(Box.of(root), title, out, true, MIN_WIDTH);
    }

    /**
     * Writes the SVG as an element to embed in an HTML page (no XML prolog), with at most {@code maxBoxes} boxes:
     * the narrowest are left out ({@link #minWidthFor}), so a page embedding the graph of a large heap stays small
     * (each box is about 300 bytes of SVG).
     */
    public static void writeElement(ReachabilityTree.Node root, String title, Writer out, long maxBoxes) throws IOException {
        Box box = Box.of(root);
        write(box, title, out, false, minWidthFor(box, maxBoxes));
    }

    /**
     * A box of the graph: one tree node, or the merge of {@link #MERGE_SIBLINGS} or more siblings whose names are
     * equal once digits are replaced by {@code #} (like the entries {@code 1}…{@code 1099} of a dictionary), with
     * their children merged the same way. Sizes are the members' sums (bytes, objects).
     */
    static final class Box {
        final String name;
        final Box parent;
        long size;
        long count;
        long total;
        long totalCount;
        final List<Box> children = new ArrayList<>();

        private Box(String name, Box parent) {
            this.name = name;
            this.parent = parent;
        }

        /** The boxes of a tree, built with an explicit stack (trees can be 100,000 levels deep). */
        static Box of(ReachabilityTree.Node root) {
            Box top = new Box("", null);
            record Work(List<ReachabilityTree.Node> nodes, Box box) {
            }
            Deque<Work> work = new ArrayDeque<>();
            work.push(new Work(List.of(root), top));
            while (!work.isEmpty()) {
                Work w = work.pop();
                for (ReachabilityTree.Node n : w.nodes) {
                    w.box.size += n.size();
                    w.box.count += n.count();
                    w.box.total += n.total();
                    w.box.totalCount += n.totalCount();
                }
                if (w.nodes.size() == 1 && w.nodes.get(0).children().size() < MERGE_SIBLINGS) {
                    for (ReachabilityTree.Node c : w.nodes.get(0).children()) {
                        Box b = new Box(c.name(), w.box);
                        w.box.children.add(b);
                        work.push(new Work(List.of(c), b));
                    }
                    continue;
                }
                // children of all members, grouped by their name with digits as '#', in first-seen order
                Map<String, List<ReachabilityTree.Node>> byPattern = new LinkedHashMap<>();
                for (ReachabilityTree.Node n : w.nodes) {
                    for (ReachabilityTree.Node c : n.children()) {
                        byPattern.computeIfAbsent(DIGITS.matcher(c.name()).replaceAll("#"), k -> new ArrayList<>()).add(c);
                    }
                }
                boolean merged = w.nodes.size() > 1;
                for (Map.Entry<String, List<ReachabilityTree.Node>> e : byPattern.entrySet()) {
                    List<ReachabilityTree.Node> group = e.getValue();
                    if (merged || group.size() >= MERGE_SIBLINGS) {
                        String first = group.get(0).name();
                        boolean same = group.stream().allMatch(c -> c.name().equals(first));
                        Box b = new Box(same ? first : mergedName(group, e.getKey()), w.box);
                        w.box.children.add(b);
                        work.push(new Work(group, b));
                    } else {
                        for (ReachabilityTree.Node c : group) {
                            Box b = new Box(c.name(), w.box);
                            w.box.children.add(b);
                            work.push(new Work(List.of(c), b));
                        }
                    }
                }
            }
            return top;
        }

        /**
         * The name of a box of siblings with different names: {@code "1,000 × Point"} when they all name objects of
         * one type ({@link ReachabilityTree.Node#type}), else the count and the name pattern ({@code "1,000 × p#"}).
         */
        static String mergedName(List<ReachabilityTree.Node> group, String pattern) {
            String type = group.get(0).type();
            for (ReachabilityTree.Node c : group) {
                if (type == null || !type.equals(c.type())) {
                    type = null;
                    break;
                }
            }
            return String.format(Locale.ROOT, "%,d \u00d7 %s", group.size(), type != null ? type : pattern);
        }

        /** The names from the root's child down to this box, joined by {@code /} (at most {@link #PATH_NAMES}). */
        String path() {
            List<String> names = new ArrayList<>();
            Box b = this;
            while (b.parent != null && names.size() < PATH_NAMES) {
                names.add(b.name);
                b = b.parent;
            }
            StringBuilder s = new StringBuilder(b.parent != null ? "\u2026/" : "");
            for (int i = names.size() - 1; i >= 0; i--) {
                s.append(names.get(i)).append(i > 0 ? "/" : "");
            }
            return s.toString();
        }
    }

    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    /**
     * Writes the SVG, as a file ({@code prolog}) or as an element to embed in an HTML page.
     *
     * @param prolog   write the XML declaration first (a standalone {@code .svg} file)
     * @param minWidth boxes narrower than this many pixels are left out (a larger value gives a smaller file)
     */
    static void write(Box root, String title, Writer out, boolean prolog, double minWidth) throws IOException {
        // first pass: depth of the drawn part
        int maxDepth = 0;
        record Item(Box node, double x, int depth) {
        }
        double scale = root.total > 0 ? (WIDTH - 2 * MARGIN) / root.total : 0;
        Deque<Item> stack = new ArrayDeque<>();
        stack.push(new Item(root, MARGIN, 0));
        while (!stack.isEmpty()) {
            Item it = stack.pop();
            maxDepth = Math.max(maxDepth, it.depth);
            double x = it.x + it.node.size * scale;
            for (Box c : it.node.children) {
                double w = c.total * scale;
                if (w >= minWidth) {
                    stack.push(new Item(c, x, it.depth + 1));
                }
                x += w;
            }
        }
        double height = (maxDepth + 1) * ROW + 3 * ROW + 2 * MARGIN;
        if (prolog) {
            out.write("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
        }
        out.write(String.format(Locale.ROOT,
            "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                + "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\" font-size=\"12\">\n",
            WIDTH, height, WIDTH, height));
        out.write("<style>rect.n{stroke:#fff;stroke-width:0.5}g.b:hover rect{stroke:#000;stroke-width:1}"
            + "text.l{pointer-events:none;fill:#000}</style>\n");
        out.write("<script type=\"text/ecmascript\"><![CDATA[" + SCRIPT + "]]></script>\n");
        out.write("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n");
        out.write(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"16\" text-anchor=\"middle\">%s</text>\n",
            WIDTH / 2, MARGIN + ROW * 0.8, escape(title)));
        out.write(String.format(Locale.ROOT, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\">%s</text>\n",
            MARGIN, height - MARGIN, " "));
        double top = MARGIN + 1.5 * ROW;
        stack.push(new Item(root, MARGIN, 0));
        while (!stack.isEmpty()) {
            Item it = stack.pop();
            Box n = it.node;
            double w = n.total * scale;
            double y = top + it.depth * ROW;
            String name = it.depth == 0 ? "all" : n.name;
            String details = String.format(Locale.ROOT, "%s (%,d bytes, %.1f%%); self: %,d bytes in %,d objects",
                it.depth == 0 ? "all" : n.path(), n.total, root.total > 0 ? 100.0 * n.total / root.total : 0.0, n.size,
                n.count);
            out.write("<g class=\"b\" data-d=\"" + escape(details) + "\"><title>" + escape(details) + "</title>");
            out.write(String.format(Locale.ROOT,
                "<rect class=\"n\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>",
                it.x, y, w, ROW - 1, color(name)));
            int chars = (int) ((w - 6) / 7);
            if (chars >= 3) {
                String label = name.length() <= chars ? name : name.substring(0, Math.max(1, chars - 2)) + "..";
                out.write(String.format(Locale.ROOT, "<text class=\"l\" x=\"%.2f\" y=\"%.1f\">%s</text>",
                    it.x + 3, y + ROW - 5, escape(label)));
            }
            out.write("</g>\n");
            double x = it.x + n.size * scale;
            for (Box c : n.children) {
                double cw = c.total * scale;
                if (cw >= minWidth) {
                    stack.push(new Item(c, x, it.depth + 1));
                }
                x += cw;
            }
        }
        out.write("</svg>\n");
    }

    /** The number of boxes {@link #write(Box, String, Writer, boolean, double)} draws with this {@code minWidth}. */
    static long boxes(Box root, double minWidth) {
        double scale = root.total > 0 ? (WIDTH - 2 * MARGIN) / root.total : 0;
        long n = 0;
        Deque<Box> stack = new ArrayDeque<>();
        stack.push(root);
        while (!stack.isEmpty()) {
            Box node = stack.pop();
            n++;
            for (Box c : node.children) {
                if (c.total * scale >= minWidth) {
                    stack.push(c);
                }
            }
        }
        return n;
    }

    /**
     * The smallest box width (pixels) among 0.1, 0.2, 0.4, ... at which the graph has at most {@code maxBoxes} boxes,
     * so that a page embedding the graph of a large heap stays small (each box is about 300 bytes of SVG).
     */
    static double minWidthFor(Box root, long maxBoxes) {
        double w = MIN_WIDTH;
        while (w < WIDTH && boxes(root, w) > maxBoxes) {
            w *= 2;
        }
        return w;
    }

    /** A warm colour derived from the name, so the same path has the same colour in two graphs. */
    private static String color(String name) {
        int h = name.hashCode();
        int r = 200 + Math.floorMod(h, 55);
        int g = 90 + Math.floorMod(h >> 8, 130);
        int b = 40 + Math.floorMod(h >> 16, 50);
        return String.format(Locale.ROOT, "rgb(%d,%d,%d)", r, g, b);
    }

    /**
     * XML text/attribute escaping ({@link SafeText#xml} keeping TAB and line breaks): {@code & < > " '} as entities,
     * control and bidi characters visible ({@code \x1b}, <code>&#92;u202e</code>). Used for every SVG, the HTML report and
     * (through SafeText) the JUnit XML.
     */
    public static String escape(String s) {
        return SafeText.xml(s, true);
    }
}
