package dev.heapload.micropython;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The per-block view of a MicroPython GC heap: for every block of every area the letter
 * {@code gc_dump_alloc_table()} (py/gc.c) prints for it: {@code .} free, {@code =} tail, {@code m} mark, and
 * for a head the kind of its object: {@code T} tuple, {@code L} list, {@code D} dict, {@code S} str or
 * bytes, {@code A} bytearray/array, {@code F} float, {@code B} bytecode function, {@code M} module,
 * {@code h} anything else (shared/docs/formats/micropython-gc-heap.md §6, §10). Built from a RAM dump or
 * parsed from the printed map, and the source of the fragmentation figures and the heap map text.
 */
public final class HeapMap {

    /** One area: the address of block 0 and one letter per block. */
    public record Area(long poolStart, byte[] letters) {
        /** Number of blocks. */
        public int blocks() {
            return letters.length;
        }
    }

    private final List<Area> areas;
    private final int bytesPerBlock;
    private final boolean eightDigitOffsets;

    /**
     * @param areas             the areas in {@code next} order
     * @param bytesPerBlock     block size in bytes
     * @param eightDigitOffsets true for v1.20.0+ ({@code %08x} line offsets), false for older builds
     *                          ({@code %05x} of the offset masked to 20 bits)
     */
    public HeapMap(List<Area> areas, int bytesPerBlock, boolean eightDigitOffsets) {
        this.areas = List.copyOf(areas);
        this.bytesPerBlock = bytesPerBlock;
        this.eightDigitOffsets = eightDigitOffsets;
    }

    /** The areas. */
    public List<Area> areas() {
        return areas;
    }

    /** Block size in bytes. */
    public int bytesPerBlock() {
        return bytesPerBlock;
    }

    /** True when line offsets have 8 hex digits (v1.20.0+). */
    public boolean eightDigitOffsets() {
        return eightDigitOffsets;
    }

    static boolean isHead(byte c) {
        return c != '.' && c != '=' && c != 'm';
    }

    /**
     * The figures {@code gc_info()} computes, walking each area block by block exactly as py/gc.c does (an
     * allocation ends at the next FREE or HEAD block; a free run is closed only at a HEAD or the area end;
     * MARK blocks are counted neither as used nor free, as in gc.c — they never occur outside a collection).
     */
    public GcFigures figures() {
        long total = 0;
        long used = 0;
        long free = 0;
        long heads = 0;
        long one = 0;
        long two = 0;
        long maxBlock = 0;
        long maxFree = 0;
        for (Area area : areas) {
            byte[] k = area.letters();
            int n = k.length;
            total += (long) n * bytesPerBlock;
            long len = 0;
            long lenFree = 0;
            for (int b = 0; b < n; b++) {
                byte c = k[b];
                if (c == '.') {
                    free++;
                    lenFree++;
                    len = 0;
                } else if (c == '=') {
                    used++;
                    len++;
                } else if (c != 'm') {
                    used++;
                    heads++;
                    len = 1;
                } else {
                    heads++;
                }
                boolean finish = b + 1 == n;
                byte next = finish ? 0 : k[b + 1];
                if (finish || next == '.' || isHead(next)) {
                    if (len == 1) {
                        one++;
                    } else if (len == 2) {
                        two++;
                    }
                    maxBlock = Math.max(maxBlock, len);
                    if (finish || isHead(next)) {
                        maxFree = Math.max(maxFree, lenFree);
                        lenFree = 0;
                    }
                }
            }
        }
        return new GcFigures(total, used * bytesPerBlock, free * bytesPerBlock, heads, one, two, maxBlock, maxFree,
            bytesPerBlock);
    }

    /**
     * The heap map exactly as {@code gc_dump_alloc_table()} prints it: per area a
     * {@code GC memory layout; from <pool start>:} header, then lines of 64 blocks headed by the byte offset,
     * runs of two or more all-free lines collapsed into {@code (N lines all free)}, and a final newline.
     */
    public String text() {
        StringBuilder out = new StringBuilder();
        final int perLine = 64;
        for (Area area : areas) {
            byte[] k = area.letters();
            int n = k.length;
            out.append("GC memory layout; from ").append(Long.toHexString(area.poolStart())).append(':');
            for (int bl = 0; bl < n; bl++) {
                if (bl % perLine == 0) {
                    int bl2 = bl;
                    while (bl2 < n && k[bl2] == '.') {
                        bl2++;
                    }
                    if (bl2 - bl >= 2 * perLine) {
                        out.append("\n       (").append((bl2 - bl) / perLine).append(" lines all free)");
                        bl = bl2 & ~(perLine - 1);
                        if (bl >= n) {
                            break;
                        }
                    }
                    long offset = (long) bl * bytesPerBlock;
                    out.append('\n');
                    if (eightDigitOffsets) {
                        out.append(String.format(Locale.ROOT, "%08x", offset & 0xffffffffL));
                    } else {
                        out.append(String.format(Locale.ROOT, "%05x", offset & 0xfffff));
                    }
                    out.append(": ");
                }
                out.append((char) k[bl]);
            }
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * Allocations and blocks per heap-map letter (for a printed map the only kinds known):
     * {@code letter -> [allocations, blocks]}, letters in ascending order; tails count for their head.
     */
    public Map<Character, long[]> kindCounts() {
        Map<Character, long[]> out = new TreeMap<>();
        for (Area area : areas) {
            long[] current = null;
            for (byte c : area.letters()) {
                if (c == '.') {
                    current = null;
                } else if (c == '=') {
                    if (current != null) {
                        current[1]++;
                    }
                } else {
                    current = out.computeIfAbsent((char) c, x -> new long[2]);
                    current[0]++;
                    current[1]++;
                }
            }
        }
        return out;
    }

    /** The name of a heap-map letter ({@code T} → {@code tuple} …). */
    public static String kindName(char letter) {
        return switch (letter) {
            case 'T' -> "tuple";
            case 'L' -> "list";
            case 'D' -> "dict";
            case 'S' -> "str/bytes";
            case 'A' -> "bytearray/array";
            case 'F' -> "float";
            case 'B' -> "bytecode function";
            case 'M' -> "module";
            case 'h' -> "other";
            case 'm' -> "marked";
            default -> String.valueOf(letter);
        };
    }
}
