package dev.heapload.report.svg;

import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.heapload.micropython.GcFigures;
import dev.heapload.micropython.HeapMap;
import dev.heapload.micropython.MicroPythonDump;

/**
 * The MicroPython heap layout picture (the view CircuitPython's analyze_heap_dump.py drew as a PNG): every GC
 * block in memory order, 128 blocks per row, one section per heap area; allocations coloured by type (by
 * heap-map letter for a printed map), free blocks light grey, each allocation and free run one box whose
 * hover text (native SVG tooltip) gives address, type, size in blocks and bytes, and label. Self-contained,
 * no scripts; every string is XML-escaped ({@link IcicleSvg#escape}) because labels come from heap strings.
 */
public final class HeapLayoutSvg {

    public static final int PER_ROW = 128;
    public static final int CELL = 6;
    public static final int MARGIN = 10;
    public static final int HEADER = 20;

    private HeapLayoutSvg() {
    }

    /** Fixed colours for the common kinds; others get one derived from the name. */
    private static final Map<String, String> COLORS = Map.ofEntries(
        Map.entry("T", "#e6a23c"), Map.entry("tuple", "#e6a23c"),
        Map.entry("L", "#409eff"), Map.entry("list", "#409eff"), Map.entry("list_items", "#8cc5ff"),
        Map.entry("D", "#67c23a"), Map.entry("dict", "#67c23a"), Map.entry("map_table", "#b3e19d"),
        Map.entry("S", "#f56c6c"), Map.entry("str", "#f56c6c"), Map.entry("bytes", "#f56c6c"),
        Map.entry("str_data", "#fab6b6"), Map.entry("bytes_data", "#fab6b6"),
        Map.entry("A", "#9b59b6"), Map.entry("bytearray", "#9b59b6"), Map.entry("array", "#9b59b6"),
        Map.entry("array_data", "#d2a8e6"),
        Map.entry("F", "#16a085"), Map.entry("float", "#16a085"),
        Map.entry("B", "#34495e"), Map.entry("function", "#34495e"), Map.entry("bytecode", "#7f8c8d"),
        Map.entry("M", "#8e44ad"), Map.entry("module", "#8e44ad"),
        Map.entry("qstr_pool", "#d35400"), Map.entry("qstr_chunk", "#f0a070"),
        Map.entry("h", "#c0a080"), Map.entry("raw", "#a0a0a0"), Map.entry("m", "#000000"));

    public static String color(String kind) {
        String c = COLORS.get(kind);
        if (c != null) {
            return c;
        }
        int h = kind.hashCode();
        return String.format(Locale.ROOT, "rgb(%d,%d,%d)", 60 + Math.floorMod(h, 150), 60 + Math.floorMod(h >> 8, 150),
            60 + Math.floorMod(h >> 16, 150));
    }

    /**
     * Writes several printed maps into one picture, one under the other (each as {@link #write} draws it, as a nested
     * {@code <svg>}), e.g. the two maps of a before/after serial log.
     *
     * @param titles one heading per map
     */
    public static void writeAll(List<HeapMap> maps, List<String> titles, Writer out) throws IOException {
        if (maps.size() == 1) {
            write(maps.get(0), null, titles.get(0), out);
            return;
        }
        int width = 2 * MARGIN + PER_ROW * CELL + 220;
        int total = 0;
        for (HeapMap m : maps) {
            total += height(m);
        }
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
        out.write(String.format(Locale.ROOT, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            + "height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, total, width, total));
        int y = 0;
        for (int i = 0; i < maps.size(); i++) {
            java.io.StringWriter one = new java.io.StringWriter();
            write(maps.get(i), null, titles.get(i), one);
            String text = one.toString();
            text = text.substring(text.indexOf("<svg"));
            // the nested picture at its place: <svg x="0" y="Y" …>
            out.write("<svg x=\"0\" y=\"" + y + "\"" + text.substring("<svg".length()));
            y += height(maps.get(i));
        }
        out.write("</svg>\n");
    }

    /** The height in pixels of the picture of one map. */
    private static int height(HeapMap map) {
        int height = MARGIN + HEADER * 2;
        for (HeapMap.Area a : map.areas()) {
            height += HEADER + (a.blocks() + PER_ROW - 1) / PER_ROW * CELL + MARGIN;
        }
        return height;
    }

    /**
     * For a map with MARK blocks (a dump taken during a garbage collection): a note that the figures are those of the
     * table as dumped, not what MicroPython prints once the collection completes; else "".
     */
    private static String marked(HeapMap map) {
        long marks = 0;
        for (HeapMap.Area a : map.areas()) {
            for (byte c : a.letters()) {
                marks += c == 'm' ? 1 : 0;
            }
        }
        return marks == 0 ? "" : String.format(Locale.ROOT, "; dumped during a garbage collection: %,d marked heads (m), "
            + "figures of the table as dumped, not those MicroPython prints after the collection", marks);
    }

    /**
     * Writes the picture.
     *
     * @param map         the heap map
     * @param allocations the allocations of a RAM dump (types, labels), or {@code null} for a printed map
     * @param title       heading (escaped here)
     */
    public static void write(HeapMap map, List<MicroPythonDump.Allocation> allocations, String title, Writer out)
        throws IOException {
        Map<Long, MicroPythonDump.Allocation> byKey = new HashMap<>();
        if (allocations != null) {
            for (MicroPythonDump.Allocation a : allocations) {
                byKey.put(((long) a.area() << 32) | a.block(), a);
            }
        }
        int height = height(map);
        int width = 2 * MARGIN + PER_ROW * CELL + 220;
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
        out.write(String.format(Locale.ROOT, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            + "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"Verdana, sans-serif\" font-size=\"11\">\n",
            width, height, width, height));
        out.write("<style>rect.f{fill:#eeeeee} rect:hover{stroke:black;stroke-width:1}</style>\n");
        GcFigures f = map.figures();
        out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"13\">%s</text>\n", MARGIN, MARGIN + 12,
            IcicleSvg.escape(title)));
        out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>\n", MARGIN, MARGIN + 12 + HEADER,
            IcicleSvg.escape(String.format(Locale.ROOT, "used %,d of %,d bytes, %,d allocations, largest free run %,d "
                + "blocks (%,d bytes), %d bytes per block, %d blocks per row", f.usedBytes(), f.totalBytes(),
                f.allocations(), f.maxFreeBlocks(), f.maxFreeBytes(), map.bytesPerBlock(), PER_ROW)
                + marked(map))));
        Map<String, Long> legend = new LinkedHashMap<>();
        int y = MARGIN + HEADER * 2;
        int bpb = map.bytesPerBlock();
        for (int ai = 0; ai < map.areas().size(); ai++) {
            HeapMap.Area area = map.areas().get(ai);
            out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>\n", MARGIN, y + 14,
                IcicleSvg.escape(String.format(Locale.ROOT, "area %d: pool 0x%x, %,d blocks", ai, area.poolStart(),
                    area.blocks()))));
            y += HEADER;
            byte[] k = area.letters();
            int b = 0;
            while (b < k.length) {
                int start = b;
                String kind;
                String tip;
                if (k[b] == '.' || k[b] == '=') {
                    // free run (an orphan tail is drawn as free too: the GC treats it as nothing)
                    while (b < k.length && (k[b] == '.' || k[b] == '=' && b == start)) {
                        b++;
                    }
                    kind = null;
                    tip = String.format(Locale.ROOT, "0x%x free, %d blocks (%,d bytes)", area.poolStart() + (long) start * bpb,
                        b - start, (long) (b - start) * bpb);
                } else {
                    b++;
                    while (b < k.length && k[b] == '=') {
                        b++;
                    }
                    MicroPythonDump.Allocation a = byKey.get(((long) ai << 32) | start);
                    kind = a != null ? a.type() : String.valueOf((char) k[start]);
                    String name = a != null ? a.type() : HeapMap.kindName((char) k[start]);
                    tip = String.format(Locale.ROOT, "0x%x %s, %d blocks (%,d bytes)%s", area.poolStart() + (long) start * bpb,
                        name, b - start, (long) (b - start) * bpb,
                        a != null && a.label() != null ? ": " + a.label() : "");
                    legend.merge(name + "\u0000" + kind, (long) (b - start), Long::sum);
                }
                // one box per row segment of the run
                out.write("<g><title>" + IcicleSvg.escape(tip) + "</title>");
                int s = start;
                while (s < b) {
                    int row = s / PER_ROW;
                    int end = Math.min(b, (row + 1) * PER_ROW);
                    out.write(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"%s/>",
                        MARGIN + (s % PER_ROW) * CELL, y + row * CELL, (end - s) * CELL, CELL - 1,
                        kind == null ? " class=\"f\"" : " fill=\"" + color(kind) + "\""));
                    s = end;
                }
                out.write("</g>\n");
            }
            y += (k.length + PER_ROW - 1) / PER_ROW * CELL + MARGIN;
        }
        // legend: kinds by blocks, largest first
        int ly = MARGIN + HEADER * 2 + HEADER;
        int lx = MARGIN + PER_ROW * CELL + 15;
        List<Map.Entry<String, Long>> entries = new java.util.ArrayList<>(legend.entrySet());
        entries.sort((p, q) -> Long.compare(q.getValue(), p.getValue()));
        for (Map.Entry<String, Long> e : entries.subList(0, Math.min(40, entries.size()))) {
            String[] parts = e.getKey().split("\u0000", 2);
            out.write(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                + "<text x=\"%d\" y=\"%d\">%s</text>\n", lx, ly, color(parts[1]), lx + 14, ly + 9,
                IcicleSvg.escape(String.format(Locale.ROOT, "%s (%,d blocks)", parts[0], e.getValue()))));
            ly += 14;
        }
        out.write("<rect x=\"" + lx + "\" y=\"" + ly + "\" width=\"10\" height=\"10\" class=\"f\"/><text x=\"" + (lx + 14)
            + "\" y=\"" + (ly + 9) + "\">free</text>\n");
        out.write("</svg>\n");
    }
}
