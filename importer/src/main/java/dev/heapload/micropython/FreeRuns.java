package dev.heapload.micropython;

import java.util.Locale;

/**
 * How the free blocks of a MicroPython GC heap lie, summed over all areas: the runs of consecutive FREE blocks
 * by length, the fragmentation ratio, and the 1-block allocations that stand alone between two free runs (each
 * one splits what would be a longer run). Computed from the allocation table's letters ({@link HeapMap}); facts per
 * shared/docs/formats/micropython-gc-heap.md §1 (2 bits per block: free, head, tail, mark).
 *
 * @param runsByLength   number of free runs per length bucket: index 0 = 1 block, 1 = 2–3 blocks, 2 = 4–7, …,
 *                       i = [2^i, 2^(i+1)) blocks
 * @param runs           number of free runs (maximal sequences of FREE blocks within one area)
 * @param freeBlocks     FREE blocks
 * @param longestRun     the longest free run in blocks
 * @param isolatedHeads  1-block allocations with a FREE block right before and right after them
 */
public record FreeRuns(long[] runsByLength, long runs, long freeBlocks, long longestRun, long isolatedHeads) {

    /**
     * The fragmentation ratio: 1 − longest free run / free blocks (0 when all free blocks are one run or none is free;
     * near 1 when the free space is in many small pieces), as the issue and PR micropython#5195 define it.
     */
    public double fragmentation() {
        return freeBlocks == 0 ? 0 : 1 - (double) longestRun / freeBlocks;
    }

    /** Computes the runs of a heap map. */
    public static FreeRuns of(HeapMap map) {
        long[] buckets = new long[64];
        long runs = 0;
        long free = 0;
        long longest = 0;
        long isolated = 0;
        for (HeapMap.Area area : map.areas()) {
            byte[] k = area.letters();
            int n = k.length;
            long run = 0;
            for (int b = 0; b <= n; b++) {
                boolean isFree = b < n && k[b] == '.';
                if (isFree) {
                    run++;
                    free++;
                    continue;
                }
                if (run > 0) {
                    runs++;
                    buckets[63 - Long.numberOfLeadingZeros(run)]++;
                    longest = Math.max(longest, run);
                    run = 0;
                }
                if (b < n && HeapMap.isHead(k[b]) && b > 0 && k[b - 1] == '.' && b + 1 < n && k[b + 1] == '.') {
                    isolated++;
                }
            }
        }
        int used = 64;
        while (used > 1 && buckets[used - 1] == 0) {
            used--;
        }
        return new FreeRuns(java.util.Arrays.copyOf(buckets, used), runs, free, longest, isolated);
    }

    /**
     * Two lines for reports: {@code fragmentation 0.42 (1 - largest free run 120 / 207 free blocks); 1-block heads
     * between free runs: 5} and {@code free runs by length in blocks: 1: 3, 2-3: 1, 8-15: 2 (6 runs)} (empty buckets left out).
     */
    public String text(int bytesPerBlock) {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
            "fragmentation %.2f (1 - largest free run %,d / %,d free blocks, %,d bytes); 1-block allocations between free "
                + "runs: %,d%n", fragmentation(), longestRun, freeBlocks, freeBlocks * bytesPerBlock, isolatedHeads));
        s.append("free runs by length in blocks:");
        String sep = " ";
        for (int i = 0; i < runsByLength.length; i++) {
            if (runsByLength[i] == 0) {
                continue;
            }
            long lo = 1L << i;
            long hi = (1L << (i + 1)) - 1;
            s.append(sep).append(lo == hi ? Long.toString(lo) : lo + "-" + hi).append(": ")
                .append(String.format(Locale.ROOT, "%,d", runsByLength[i]));
            sep = ", ";
        }
        if (runs == 0) {
            s.append(" none");
        }
        s.append(String.format(Locale.ROOT, " (%,d run%s)%n", runs, runs == 1 ? "" : "s"));
        return s.toString();
    }
}
