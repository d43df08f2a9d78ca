package dev.heapload.micropython;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.heapload.model.DumpFormatException;

/**
 * A heap map as {@code micropython.mem_info(1)} prints it (py/gc.c {@code gc_info} + {@code gc_dump_alloc_table},
 * shared/docs/formats/micropython-gc-heap.md §10), read back from a REPL transcript or serial log: for users
 * without a debugger this is the only view of the heap. No graph, but every block's kind.
 *
 * <p>Accepted: the {@code GC:} header fields by name, all optional (older builds lack some, newer add
 * {@code max new split}); one {@code GC memory layout; from <hex>:} section per heap area; 5-digit line
 * offsets (before v1.20: the byte offset masked to 20 bits, so they wrap above 1 MiB) and 8-digit ones;
 * {@code (N lines all free)} runs; a partial last line; and any prefix before each line (timestamps of a
 * serial log), found by matching the map syntax at the end of each line. The block size is the offset step
 * of two consecutive lines / 64 (or total / blocks). A file may hold several maps (one per
 * {@code mem_info(1)} call); each is returned.
 *
 * @param heapMap   the per-block kinds
 * @param header    the {@code GC:} header fields printed before the map, by name ({@code total}, {@code used},
 *                  {@code free}, {@code max new split}, {@code No. of 1-blocks}, {@code 2-blocks},
 *                  {@code max blk sz}, {@code max free sz}); empty when there was none
 * @param line      1-based line number of the map's first {@code GC memory layout} line
 * @param warnings  differences between the header and the figures computed from the map
 */
public record PrintedHeapMap(HeapMap heapMap, Map<String, Long> header, int line, List<String> warnings) {

    private static final Pattern LAYOUT = Pattern.compile("GC memory layout; from (?:0x)?([0-9a-fA-F]+):\\s*$");
    private static final Pattern ROW = Pattern.compile("^(.*?)([0-9a-f]{8}|[0-9a-f]{5}): ([.=mhTLDSAFBMQq]{1,64})\\s*$");
    private static final Pattern FREE_RUN = Pattern.compile("\\((\\d+) lines all free\\)\\s*$");
    private static final Pattern GC_LINE = Pattern.compile("GC: (total: .*)$");
    private static final Pattern BLOCKS_LINE = Pattern.compile("(No\\. of 1-blocks: .*)$");
    /** Non-map lines skipped between two lines of one map at most (more end the map). */
    private static final int MAX_SKIPPED_LINES = 3;
    private static final Pattern FIELD = Pattern.compile("([A-Za-z0-9. -]+?): (\\d+)");

    /** The maps in {@code file}, in order. */
    public static List<PrintedHeapMap> read(Path file) throws IOException {
        String text = new String(MemoryImage.readImage(file), StandardCharsets.UTF_8);
        return parse(text, file.toString());
    }

    private record Row(long offset, String letters) {
    }

    private static final class AreaText {
        final long poolStart;
        final List<Object> items = new ArrayList<>(); // Row or Integer (collapsed free lines)
        boolean eight;

        AreaText(long poolStart) {
            this.poolStart = poolStart;
        }
    }

    /**
     * Parses every map in {@code text}.
     *
     * @param source file name for messages
     * @throws DumpFormatException when there is no map, or a map line cannot be placed
     */
    public static List<PrintedHeapMap> parse(String text, String source) throws DumpFormatException {
        String[] lines = text.split("\n", -1);
        List<PrintedHeapMap> out = new ArrayList<>();
        Map<String, Long> header = new LinkedHashMap<>();
        List<AreaText> areas = null;
        List<Integer> skipped = new ArrayList<>();
        int firstLine = -1;
        long byteOffset = 0;
        long mapByteOffset = 0;
        for (int i = 0; i <= lines.length; i++) {
            String l = i < lines.length ? lines[i] : "";
            if (l.endsWith("\r")) {
                l = l.substring(0, l.length() - 1);
            }
            Matcher m;
            boolean mapLine = false;
            if (i < lines.length && (m = LAYOUT.matcher(l)).find()) {
                if (areas == null) {
                    areas = new ArrayList<>();
                    firstLine = i + 1;
                    mapByteOffset = byteOffset;
                }
                areas.add(new AreaText(Long.parseUnsignedLong(m.group(1), 16)));
                mapLine = true;
            } else if (areas != null && i < lines.length && (m = ROW.matcher(l)).matches()) {
                AreaText a = areas.get(areas.size() - 1);
                a.eight = m.group(2).length() == 8;
                a.items.add(new Row(Long.parseLong(m.group(2), 16), m.group(3)));
                mapLine = true;
            } else if (areas != null && i < lines.length && (m = FREE_RUN.matcher(l)).find()) {
                areas.get(areas.size() - 1).items.add(Integer.parseInt(m.group(1)));
                mapLine = true;
            }
            if (!mapLine && areas != null && i < lines.length && continuesMap(lines, i + 1)) {
                // a log line printed between two map lines (another task's output on the same serial port)
                skipped.add(i + 1);
                byteOffset += lines[i].getBytes(StandardCharsets.UTF_8).length + 1;
                continue;
            }
            if (!mapLine && areas != null) {
                out.add(build(areas, header, firstLine, source, mapByteOffset, skipped));
                skipped = new ArrayList<>();
                areas = null;
                header = new LinkedHashMap<>();
            }
            if (!mapLine && i < lines.length) {
                if ((m = GC_LINE.matcher(l)).find() || (m = BLOCKS_LINE.matcher(l)).find()) {
                    if (l.contains("GC: total")) {
                        header = new LinkedHashMap<>();
                    }
                    Matcher f = FIELD.matcher(m.group(1));
                    while (f.find()) {
                        header.put(f.group(1).trim(), Long.parseLong(f.group(2)));
                    }
                }
            }
            if (i < lines.length) {
                byteOffset += lines[i].getBytes(StandardCharsets.UTF_8).length + 1;
            }
        }
        if (out.isEmpty()) {
            throw new DumpFormatException(source, -1,
                "no heap map found (expected the 'GC memory layout; from ...:' lines micropython.mem_info(1) prints)");
        }
        return out;
    }

    /**
     * Whether the map goes on after non-map lines: within {@link #MAX_SKIPPED_LINES} lines from {@code from}, a
     * map row or collapsed free run comes before any line that starts a new map or a new {@code mem_info} print.
     */
    private static boolean continuesMap(String[] lines, int from) {
        for (int j = from; j < lines.length && j <= from + MAX_SKIPPED_LINES; j++) {
            String l = lines[j].endsWith("\r") ? lines[j].substring(0, lines[j].length() - 1) : lines[j];
            if (LAYOUT.matcher(l).find() || GC_LINE.matcher(l).find() || BLOCKS_LINE.matcher(l).find()) {
                return false;
            }
            if (ROW.matcher(l).matches() || FREE_RUN.matcher(l).find()) {
                return true;
            }
        }
        return false;
    }

    private static PrintedHeapMap build(List<AreaText> areas, Map<String, Long> header, int line, String source,
                                        long byteOffset, List<Integer> skipped) throws DumpFormatException {
        // block size: offset step of two consecutive rows / 64, else header total / blocks
        int bpb = 0;
        for (AreaText a : areas) {
            for (int j = 1; j < a.items.size() && bpb == 0; j++) {
                if (a.items.get(j - 1) instanceof Row r0 && a.items.get(j) instanceof Row r1 && r1.offset() > r0.offset()) {
                    long step = r1.offset() - r0.offset();
                    if (step % 64 == 0) {
                        bpb = (int) (step / 64);
                    }
                }
            }
        }
        boolean eight = areas.stream().anyMatch(a -> a.eight);
        if (bpb == 0) {
            Long total = header.get("total");
            long lines = 0;
            for (AreaText a : areas) {
                for (Object o : a.items) {
                    lines += o instanceof Integer n ? n : 1;
                }
            }
            if (total != null && lines > 0) {
                // each area is a whole number of ATB bytes; a map of one or two lines per area
                bpb = Integer.highestOneBit((int) Math.max(1, total / (lines * 64)));
            }
        }
        if (bpb == 0) {
            throw new DumpFormatException(source, byteOffset,
                "cannot tell the block size: the map has no two consecutive lines and no 'GC: total' header");
        }
        List<HeapMap.Area> out = new ArrayList<>();
        List<Integer> endsWithRun = new ArrayList<>();
        for (AreaText a : areas) {
            StringBuilder blocks = new StringBuilder();
            boolean lastWasRun = false;
            for (Object o : a.items) {
                if (o instanceof Integer n) {
                    // the run starts at the current (line-aligned) block; the next row says where it ends
                    lastWasRun = true;
                    pendingRun(blocks, n);
                    continue;
                }
                Row r = (Row) o;
                long expected = (long) blocks.length() * bpb;
                long offset = r.offset();
                if (!eight) {
                    while (offset + 0x100000 <= expected) {
                        offset += 0x100000; // %05x of (offset & 0xfffff) wraps every MiB
                    }
                }
                if (offset != expected || blocks.length() % 64 != 0) {
                    throw new DumpFormatException(source, byteOffset, "heap map line '" + (eight
                        ? String.format(Locale.ROOT, "%08x", r.offset()) : String.format(Locale.ROOT, "%05x", r.offset()))
                        + ": ...' of the area from " + Long.toHexString(a.poolStart) + " does not continue the lines "
                        + "before it (expected offset " + Long.toHexString(expected) + "; missing or partial lines?)");
                }
                blocks.append(r.letters());
                lastWasRun = false;
            }
            if (lastWasRun) {
                endsWithRun.add(out.size());
            }
            out.add(new HeapMap.Area(a.poolStart, blocks.toString().getBytes(StandardCharsets.ISO_8859_1)));
        }
        // an area that ends in a collapsed run has 64*N .. 64*N+63 free blocks there: the header total settles it
        Long total = header.get("total");
        List<String> warnings = new ArrayList<>();
        if (!skipped.isEmpty()) {
            warnings.add(skipped.size() + " line(s) inside the heap map are not map lines and were skipped (line "
                + skipped.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
                + " of " + source + "); if the map is wrong, print it again with nothing else writing to the port");
        }
        if (total != null && !endsWithRun.isEmpty()) {
            long blocks = 0;
            for (HeapMap.Area a : out) {
                blocks += a.blocks();
            }
            long missing = total / bpb - blocks;
            int last = endsWithRun.get(endsWithRun.size() - 1);
            if (missing > 0 && missing < 64) {
                HeapMap.Area a = out.get(last);
                byte[] grown = java.util.Arrays.copyOf(a.letters(), a.blocks() + (int) missing);
                java.util.Arrays.fill(grown, a.blocks(), grown.length, (byte) '.');
                out.set(last, new HeapMap.Area(a.poolStart(), grown));
            }
        }
        HeapMap map = new HeapMap(out, bpb, eight);
        GcFigures f = map.figures();
        check(warnings, header, "total", f.totalBytes());
        check(warnings, header, "used", f.usedBytes());
        check(warnings, header, "free", f.freeBytes());
        check(warnings, header, "No. of 1-blocks", f.oneBlockAllocations());
        check(warnings, header, "2-blocks", f.twoBlockAllocations());
        check(warnings, header, "max blk sz", f.maxBlockBlocks());
        check(warnings, header, "max free sz", f.maxFreeBlocks());
        return new PrintedHeapMap(map, header, line, warnings);
    }

    /** Appends a collapsed run: {@code n} full free lines from the current line start. */
    private static void pendingRun(StringBuilder blocks, int n) {
        int start = blocks.length() / 64 * 64;
        blocks.setLength(start);
        for (int i = 0; i < n * 64; i++) {
            blocks.append('.');
        }
    }

    private static void check(List<String> warnings, Map<String, Long> header, String field, long computed) {
        Long printed = header.get(field);
        if (printed != null && printed != computed) {
            warnings.add(String.format(Locale.ROOT, "header says %s: %d, the map gives %d", field, printed, computed));
        }
    }
}
