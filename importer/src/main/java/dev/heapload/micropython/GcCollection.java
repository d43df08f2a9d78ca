package dev.heapload.micropython;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;

/**
 * A garbage collection that was running when the dump was taken (a debugger stop or a crash inside
 * {@code gc_collect}), told by MARK entries in the allocation table or by the phase the dumper read from the
 * backtrace, and the heap as MicroPython leaves it once that collection completes.
 *
 * <p>Facts (MicroPython py/gc.c, v1.25+ and older): marking turns HEAD into MARK for every block reachable from the
 * roots ({@code mp_state_ctx} root range, the C stack and registers, port extras), depth first per root, with
 * {@code gc_deal_with_stack_overflow} rescanning marked blocks when the 64-entry mark stack overflowed; then (v1.25+)
 * {@code gc_sweep_run_finalisers} calls the finalisers of unmarked heads without changing the table, and
 * {@code gc_sweep_free_blocks} walks every area in {@code next} order, block by block, freeing unmarked heads and their
 * tails and turning MARK back into HEAD (before v1.25 one {@code gc_sweep} pass did both). {@code gc_info} (what
 * {@code mem_info()} prints) counts MARK as neither used nor free and lets the tails after a MARK lengthen the
 * allocation before it, so figures read from the table as it is are wrong mid-collection.
 *
 * <p>Which allocations survive, by phase:
 * <ul>
 *   <li>{@link #PHASE_MARK} or unknown: every allocation reachable by the GC's own rule (block-aligned words pointing at
 *       a head, weak words not followed) from the roots and from the blocks already marked (marks are only ever added
 *       while marking, so the marked ones survive and so does everything they reach);</li>
 *   <li>{@link #PHASE_FINALISE}: exactly the marked ones (marking is complete, nothing is freed yet; the finaliser's
 *       own frames on the stack were not scanned by this collection);</li>
 *   <li>{@link #PHASE_SWEEP}: the marked ones, and the unmarked heads before the first marked block (in area order) that
 *       the roots reach: the part already swept, whose survivors are heads again.</li>
 * </ul>
 *
 * @param phase              {@link #PHASE_MARK}, {@link #PHASE_FINALISE}, {@link #PHASE_SWEEP}, or {@code null} when
 *                           only the marks tell
 * @param phaseSource        where the phase comes from (e.g. {@code info.txt: gc_mark_subtree < gc_collect_root}),
 *                           or {@code null}
 * @param markedAllocations  allocations whose head is MARK
 * @param markedBytes        their blocks × block size
 * @param liveNotMarked      unmarked allocations that survive (reachable, not marked yet, or already swept)
 * @param freedAllocations   allocations this collection frees
 * @param freedBytes         their blocks × block size
 * @param after              the heap map once the collection completes (MARK turned into the object's letter, freed
 *                           allocations free)
 */
public record GcCollection(String phase, String phaseSource, long markedAllocations, long markedBytes,
                           long liveNotMarked, long freedAllocations, long freedBytes, HeapMap after) {

    /** Marking (roots, the mark stack, or its overflow rescan). */
    public static final String PHASE_MARK = "mark";
    /** Marking complete, finalisers of unmarked objects running (v1.25+ {@code gc_sweep_run_finalisers}). */
    public static final String PHASE_FINALISE = "finalise";
    /** Marking complete, freeing ({@code gc_sweep_free_blocks}, or {@code gc_sweep} before v1.25, or {@code gc_collect_end}). */
    public static final String PHASE_SWEEP = "sweep";

    /** The figures MicroPython prints once this collection completes. */
    public GcFigures figuresAfter() {
        return after.figures();
    }

    /** The phase as text: {@code marking} …, or {@code unknown (told by the marks)}. */
    public String phaseText() {
        if (phase == null) {
            return "not known (the marks tell a collection; assumed still marking)";
        }
        String p = switch (phase) {
            case PHASE_MARK -> "marking";
            case PHASE_FINALISE -> "marking done, running finalisers";
            case PHASE_SWEEP -> "marking done, freeing";
            default -> phase;
        };
        return phaseSource == null ? p : p + " (" + phaseSource + ")";
    }

    /**
     * The one warning a mid-collection dump gets: what was seen, which figures are shown, and what the collection
     * frees.
     */
    public String warning(long allocations) {
        GcFigures f = figuresAfter();
        return String.format(Locale.ROOT, "dump taken during a garbage collection: %,d of %,d allocations marked "
                + "(%,d bytes), phase %s; the GC figures shown are those MicroPython prints once this collection "
                + "completes (used %,d, free %,d, max blk sz %,d, max free sz %,d), not the table as dumped; it frees "
                + "%,d unreachable allocations (%,d bytes), %,d live ones were not marked; objects and references are "
                + "read as they are (marked blocks are heads)",
            markedAllocations, allocations, markedBytes, phaseText(), f.usedBytes(), f.freeBytes(), f.maxBlockBlocks(),
            f.maxFreeBlocks(), freedAllocations, freedBytes, liveNotMarked);
    }

    /**
     * Works out the collection's outcome.
     *
     * @param map         the heap map as dumped (letters with {@code m} for MARK)
     * @param letters     per allocation, the heap-map letter its head gets once unmarked
     * @param marked      per allocation, true when its head is MARK
     * @param blocks      per allocation, its block count
     * @param areaOf      per allocation, its area index
     * @param blockOf     per allocation, its head block in the area
     * @param firstRef    CSR offsets of the strong and weak references by allocation ({@code count + 1} entries)
     * @param targets     reference targets (allocation indices)
     * @param weak        per reference, true when the GC does not follow it
     * @param root        per allocation, true when a root (mp_state_ctx root range, C stack) points at it
     * @param phase       the phase, or {@code null}
     * @param phaseSource where the phase comes from, or {@code null}
     */
    static GcCollection compute(HeapMap map, char[] letters, boolean[] marked, int[] blocks, int[] areaOf,
                                int[] blockOf, int[] firstRef, int[] targets, boolean[] weak, boolean[] root,
                                String phase, String phaseSource) {
        int n = marked.length;
        boolean[] reached = new boolean[n];
        ArrayDeque<Integer> work = new ArrayDeque<>();
        for (int a = 0; a < n; a++) {
            if (root[a] || marked[a]) {
                reached[a] = true;
                work.add(a);
            }
        }
        while (!work.isEmpty()) {
            int a = work.poll();
            for (int r = firstRef[a]; r < firstRef[a + 1]; r++) {
                int t = targets[r];
                if (!weak[r] && !reached[t]) {
                    reached[t] = true;
                    work.add(t);
                }
            }
        }
        boolean[] survives = new boolean[n];
        if (PHASE_FINALISE.equals(phase)) {
            System.arraycopy(marked, 0, survives, 0, n);
        } else if (PHASE_SWEEP.equals(phase)) {
            int firstMarked = -1;
            for (int a = 0; a < n && firstMarked < 0; a++) {
                if (marked[a]) {
                    firstMarked = a;
                }
            }
            for (int a = 0; a < n; a++) {
                // allocations are in area order then block order, the order gc_sweep_free_blocks walks
                survives[a] = marked[a] || (reached[a] && (firstMarked < 0 || a < firstMarked));
            }
        } else {
            System.arraycopy(reached, 0, survives, 0, n);
        }
        List<HeapMap.Area> areas = map.areas();
        byte[][] after = new byte[areas.size()][];
        for (int i = 0; i < after.length; i++) {
            after[i] = areas.get(i).letters().clone();
        }
        int bpb = map.bytesPerBlock();
        long markedAllocations = 0;
        long markedBytes = 0;
        long liveNotMarked = 0;
        long freed = 0;
        long freedBytes = 0;
        for (int a = 0; a < n; a++) {
            byte[] l = after[areaOf[a]];
            if (marked[a]) {
                markedAllocations++;
                markedBytes += (long) blocks[a] * bpb;
            }
            if (survives[a]) {
                l[blockOf[a]] = (byte) letters[a];
                if (!marked[a]) {
                    liveNotMarked++;
                }
            } else {
                for (int b = 0; b < blocks[a]; b++) {
                    l[blockOf[a] + b] = '.';
                }
                freed++;
                freedBytes += (long) blocks[a] * bpb;
            }
        }
        if (PHASE_SWEEP.equals(phase)) {
            // tails left behind by a head the sweep just freed: it frees them as it goes on
            for (int i = 0; i < after.length; i++) {
                byte[] was = areas.get(i).letters();
                boolean inAllocation = false;
                for (int b = 0; b < was.length; b++) {
                    if (was[b] == '.') {
                        inAllocation = false;
                    } else if (was[b] != '=') {
                        inAllocation = true;
                    } else if (!inAllocation) {
                        after[i][b] = '.';
                    }
                }
            }
        }
        java.util.ArrayList<HeapMap.Area> out = new java.util.ArrayList<>();
        for (int i = 0; i < after.length; i++) {
            out.add(new HeapMap.Area(areas.get(i).poolStart(), after[i]));
        }
        return new GcCollection(phase, phaseSource, markedAllocations, markedBytes, liveNotMarked, freed, freedBytes,
            new HeapMap(out, bpb, map.eightDigitOffsets()));
    }
}
