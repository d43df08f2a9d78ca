package dev.heapload.micropython;

import java.util.List;

import dev.heapload.model.HeapSnapshot;

/**
 * Everything read from one MicroPython RAM dump: the heap areas, the per-block heap map, the allocations
 * with their types, and the object graph as a {@link HeapSnapshot}.
 *
 * @param snapshot           the heap model (one object per allocation; see {@link MicroPythonReader})
 * @param areas              the GC heap areas in {@code next} order
 * @param heapMap            per-block kinds, fragmentation figures and the {@code mem_info(1)} heap map text
 * @param allocations        the allocations in area and block order
 * @param qstrs              the qstr pools found in RAM
 * @param interiorPointers   words inside allocations that point into a pool but not at a head block (not GC
 *                           edges: pointers into an allocation's middle, to its tail blocks, or to free blocks)
 * @param staticNonRootRefs  words of {@code mp_state_ctx} outside the root range that point at head blocks
 *                           (the GC does not scan them), by name
 * @param weakTableBlocks    blocks whose weak-reference table bit is set (0 without a WTB)
 * @param finaliserBlocks    blocks whose finaliser table bit is set (0 without an FTB)
 * @param orphanTails        TAIL blocks not preceded by a HEAD or TAIL (corruption; ignored)
 * @param stackRange         {@code [start, end)} of the words scanned as the C stack, or {@code null}
 * @param notReferences      word-aligned, non-zero words in allocations that are not references, per kind (the GC
 *                           ignores them; counted so they are not dropped silently): [0] out of RAM (between the
 *                           lowest image start and the highest of the images' end and {@code _estack}, in no image),
 *                           [1] block-aligned into a FREE block, [2] equal to the lowest image start ({@code ram_start}), [3] equal to
 *                           the {@code _estack} symbol
 * @param outsidePointers    pointer fields of objects whose layout the reader knows (str/bytes data, array, list,
 *                           dict, set items or table, a uctypes struct's address) that point outside every memory
 *                           image and outside the firmware's symbols: peripheral registers, memory not dumped. Not
 *                           references (nothing there is a heap object); listed so that they are not dropped silently
 * @param collection         the garbage collection running at the dump (MARK blocks, or the phase the dumper saw), or
 *                           {@code null}
 */
public record MicroPythonDump(HeapSnapshot snapshot, List<GcHeapArea> areas, HeapMap heapMap,
                              List<Allocation> allocations, QstrPools qstrs, List<InteriorPointer> interiorPointers,
                              List<String> staticNonRootRefs, int weakTableBlocks, int finaliserBlocks,
                              int orphanTails, long[] stackRange, long[] notReferences,
                              List<OutsidePointer> outsidePointers, GcCollection collection) {

    /**
     * A pointer field outside the dumped memory and the firmware.
     *
     * @param from   head address of the object holding it
     * @param type   the object's type
     * @param field  the field ({@code items}, {@code data}, {@code table}, {@code addr})
     * @param value  the pointer
     * @param region the architectural region it lies in when the build tells ({@code Cortex-M peripheral region}),
     *               or {@code null}
     */
    public record OutsidePointer(long from, String type, String field, long value, String region) {
        /** {@code bytearray 0x20001230 items -> 0x40000000 (Cortex-M peripheral region)}. */
        public String text() {
            return type + " 0x" + Long.toHexString(from) + " " + field + " -> 0x" + Long.toHexString(value)
                + (region == null ? "" : " (" + region + ")");
        }
    }

    /**
     * The figures MicroPython prints for this heap: {@code gc_info} of the table as dumped, or, when a collection was
     * running, as it prints them once that collection completes ({@link GcCollection#figuresAfter}).
     */
    public GcFigures figures() {
        return collection != null ? collection.figuresAfter() : heapMap.figures();
    }

    /**
     * A word that points into a pool but not at a head block: kept apart from the references, as the GC ignores it.
     *
     * @param from   head address of the allocation holding the word
     * @param offset byte offset of the word in that allocation
     * @param value  the word
     * @param into   head address of the allocation the value points into, or {@code -1} for a free block
     */
    public record InteriorPointer(long from, long offset, long value, long into) {
    }

    /**
     * One allocation (HEAD block and its TAILs).
     *
     * @param address  address of the head block
     * @param blocks   number of blocks
     * @param bytes    blocks × block size
     * @param area     area index
     * @param block    index of the head block in its area
     * @param type     type name as in the heap model
     * @param letter   heap-map letter of the head block
     * @param label    short label, or {@code null}
     */
    public record Allocation(long address, int blocks, long bytes, int area, int block, String type, char letter,
                             String label) {
    }
}
