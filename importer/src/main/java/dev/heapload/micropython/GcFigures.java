package dev.heapload.micropython;

/**
 * The fragmentation figures of a MicroPython GC heap, summed over all areas, with the semantics of
 * {@code gc_info()} in py/gc.c (what {@code micropython.mem_info()} prints on its {@code GC:} lines),
 * per shared/docs/formats/micropython-gc-heap.md §1.
 *
 * @param totalBytes          pool bytes ({@code GC: total})
 * @param usedBytes           HEAD + TAIL blocks × block size ({@code used})
 * @param freeBytes           FREE blocks × block size ({@code free})
 * @param allocations         number of allocations (HEAD blocks; MARK counts as HEAD)
 * @param oneBlockAllocations allocations of exactly 1 block ({@code No. of 1-blocks})
 * @param twoBlockAllocations allocations of exactly 2 blocks ({@code 2-blocks})
 * @param maxBlockBlocks      longest allocation in <b>blocks</b> ({@code max blk sz})
 * @param maxFreeBlocks       longest FREE run in <b>blocks</b> ({@code max free sz}; as in gc.c a run is only
 *                            closed at a HEAD block or at the area end)
 * @param bytesPerBlock       block size in bytes
 */
public record GcFigures(long totalBytes, long usedBytes, long freeBytes, long allocations, long oneBlockAllocations,
                        long twoBlockAllocations, long maxBlockBlocks, long maxFreeBlocks, int bytesPerBlock) {

    /** Largest allocation in bytes. */
    public long maxBlockBytes() {
        return maxBlockBlocks * bytesPerBlock;
    }

    /** Largest free run in bytes: the biggest allocation that can succeed without a collection. */
    public long maxFreeBytes() {
        return maxFreeBlocks * bytesPerBlock;
    }

    /** The two {@code GC:} lines as MicroPython prints them (without {@code max new split}). */
    public String gcLines() {
        return "GC: total: " + totalBytes + ", used: " + usedBytes + ", free: " + freeBytes + "\n"
            + " No. of 1-blocks: " + oneBlockAllocations + ", 2-blocks: " + twoBlockAllocations
            + ", max blk sz: " + maxBlockBlocks + ", max free sz: " + maxFreeBlocks + "\n";
    }
}
