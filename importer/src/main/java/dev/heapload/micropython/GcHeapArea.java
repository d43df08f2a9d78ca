package dev.heapload.micropython;

/**
 * One GC heap area ({@code mp_state_mem_area_t}, per MicroPython py/gc.c): the allocation table (ATB,
 * 2 bits per block), the optional finaliser (FTB) and weak-reference (WTB) tables (1 bit per block) and
 * the pool of blocks. All addresses are runtime addresses; sizes are in bytes.
 *
 * @param index          0 for the area embedded in {@code mp_state_ctx.mem.area}, then in {@code next} order
 * @param fieldsAddress  address of the area's {@code gc_alloc_table_start} field (inside {@code mp_state_ctx}
 *                       for area 0, inside the region for split-heap areas 1..)
 * @param atbStart       {@code gc_alloc_table_start}
 * @param atbLength      {@code gc_alloc_table_byte_len} (bytes; 4 blocks per byte)
 * @param ftbStart       {@code gc_finaliser_table_start}, or {@code -1} when the build has no finaliser table
 * @param wtbStart       {@code gc_weakref_table_start} (v1.28+), or {@code -1}
 * @param poolStart      {@code gc_pool_start}: address of block 0
 * @param poolEnd        {@code gc_pool_end}
 * @param bytesPerBlock  {@code MICROPY_BYTES_PER_GC_BLOCK} (4 words: 16 on 32-bit, 32 on 64-bit)
 * @param gapByte        true when the first side table starts one byte after the ATB (v1.20.0+), false when it
 *                       starts right after it; false as well when there is no side table (cannot be told)
 */
public record GcHeapArea(int index, long fieldsAddress, long atbStart, int atbLength, long ftbStart, long wtbStart,
                         long poolStart, long poolEnd, int bytesPerBlock, boolean gapByte) {

    /** Number of blocks: 4 per ATB byte (== pool bytes / block size). */
    public int blocks() {
        return atbLength * 4;
    }

    /** True when {@code address} lies in the pool. */
    public boolean inPool(long address) {
        return address >= poolStart && address < poolEnd;
    }
}
