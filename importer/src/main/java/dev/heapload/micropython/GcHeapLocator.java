package dev.heapload.micropython;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the GC heap area(s) in a RAM image from the address and size of {@code mp_state_ctx} alone, without
 * struct offsets (which move with every MicroPython version and configuration), per
 * shared/docs/formats/micropython-gc-heap.md §3 "Robust locator":
 *
 * <p>scan the words {@code w[i]} of {@code mp_state_ctx} for {@code A=w[i], L=w[i+1]}, then {@code k = 0..2}
 * side-table pointers {@code t_1..t_k}, then {@code P=w[i+2+k], E=w[i+3+k]} with {@code E - P == 4*L*BPB},
 * {@code P % BPB == 0}, {@code P >= A + L}, {@code t_1 == A+L} or {@code A+L+1} (the v1.20+ gap byte) and
 * {@code t_2 == t_1 + ceil(4L/8)}. The first match is area 0. When {@code w[i-1]} is a pointer at which the
 * same pattern decodes (after a leading {@code next} word), the build has a split heap
 * ({@code MICROPY_GC_SPLIT_HEAP}, v1.20+): the {@code next} chain is followed. One side table is taken as the
 * finaliser table (finaliser-less weakref builds are unusual), two as finaliser + weak-reference tables.
 */
public final class GcHeapLocator {

    /** Where area 0 was found: word index in mp_state_ctx and number of side tables. */
    public record Match(int wordIndex, int sideTables) {
    }

    private GcHeapLocator() {
    }

    /**
     * Locates area 0 inside {@code ctx}.
     *
     * @param mem           the RAM
     * @param ctxAddress    address of {@code mp_state_ctx}
     * @param ctxSize       its size in bytes (symbol size)
     * @param bytesPerBlock GC block size in bytes
     * @return the match, or {@code null} when no word sequence fits
     */
    public static Match findArea0(MemoryImage mem, long ctxAddress, long ctxSize, int bytesPerBlock) {
        int w = mem.wordSize();
        int n = (int) (ctxSize / w);
        long[] words = new long[n];
        for (int i = 0; i < n; i++) {
            words[i] = mem.word(ctxAddress + (long) i * w);
        }
        for (int i = 0; i + 3 < n; i++) {
            for (int k = 0; k <= 2 && i + 3 + k < n; k++) {
                if (decode(words, i, k, bytesPerBlock)) {
                    return new Match(i, k);
                }
            }
        }
        return null;
    }

    private static boolean decode(long[] w, int i, int k, int bpb) {
        long a = w[i];
        long l = w[i + 1];
        if (a <= 0 || l <= 0 || l > (1L << 30)) {
            return false;
        }
        long p = w[i + 2 + k];
        long e = w[i + 3 + k];
        if (p <= 0 || e <= p || p % bpb != 0 || e - p != 4 * l * bpb || p < a + l) {
            return false;
        }
        long tableEnd = a + l;
        for (int j = 0; j < k; j++) {
            long t = w[i + 2 + j];
            if (j == 0) {
                if (t != tableEnd && t != tableEnd + 1) {
                    return false;
                }
            } else if (t != tableEnd) {
                return false;
            }
            tableEnd = t + (4 * l + 7) / 8;
        }
        return p >= tableEnd;
    }

    /**
     * Reads the area fields {@code A, L, [t...], P, E} at {@code fieldsAddress}.
     *
     * @return the area, or {@code null} when the words there do not fit the pattern
     */
    static GcHeapArea areaAt(MemoryImage mem, int index, long fieldsAddress, int sideTables, int bpb) {
        int w = mem.wordSize();
        long[] words = new long[4 + sideTables];
        for (int j = 0; j < words.length; j++) {
            words[j] = mem.word(fieldsAddress + (long) j * w);
            if (words[j] == -1) {
                return null;
            }
        }
        if (!decode(words, 0, sideTables, bpb)) {
            return null;
        }
        long a = words[0];
        int l = (int) words[1];
        long ftb = sideTables >= 1 ? words[2] : -1;
        long wtb = sideTables >= 2 ? words[3] : -1;
        boolean gap = sideTables >= 1 && ftb == a + l + 1;
        return new GcHeapArea(index, fieldsAddress, a, l, ftb, wtb, words[2 + sideTables], words[3 + sideTables], bpb, gap);
    }

    /**
     * All areas: area 0 at the match, then the split-heap {@code next} chain when {@code w[i-1]} points at a
     * struct whose fields (after {@code next}) decode with the same number of side tables.
     */
    public static List<GcHeapArea> areas(MemoryImage mem, long ctxAddress, Match match, int bpb) {
        int w = mem.wordSize();
        List<GcHeapArea> out = new ArrayList<>();
        long fields0 = ctxAddress + (long) match.wordIndex() * w;
        out.add(areaAt(mem, 0, fields0, match.sideTables(), bpb));
        if (match.wordIndex() == 0) {
            return out;
        }
        long next = mem.word(fields0 - w);
        while (next > 0 && out.size() < 256) {
            GcHeapArea area = areaAt(mem, out.size(), next + w, match.sideTables(), bpb);
            if (area == null) {
                break;
            }
            for (GcHeapArea seen : out) {
                if (seen.fieldsAddress() == area.fieldsAddress()) {
                    return out;
                }
            }
            out.add(area);
            next = mem.word(next);
        }
        return out;
    }
}
