package dev.heapload.report.text;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import dev.heapload.micropython.FreeRuns;
import dev.heapload.micropython.GcFigures;
import dev.heapload.micropython.GcHeapArea;
import dev.heapload.micropython.HeapMap;
import dev.heapload.micropython.MicroPythonDump;
import dev.heapload.queries.SafeText;

/**
 * The text {@code heapload micropython} prints about a MicroPython dump: the heap summary and the fragmentation
 * figures (also the rows of the report's {@code @micropython-heap} section).
 */
public final class MicroPythonText {

    private MicroPythonText() {
    }

    /** The fragmentation figures as {@link #figures} prints them, one per line (LF). */
    public static String figuresText(GcFigures f) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream p = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        figures(f, p);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /**
     * What {@code heapload micropython} prints about a dump: its heap areas (pool and ATB addresses), block size,
     * tables and qstr pools, the fragmentation figures ({@link #figures}), finaliser and weak-table blocks, pointers
     * that are not GC edges and the scanned stack range. Strings from the dump in their {@link SafeText#visible} form.
     */
    public static void summary(MicroPythonDump d, PrintStream out) {
        HeapMap map = d.heapMap();
        GcHeapArea first = d.areas().get(0);
        out.printf(Locale.ROOT, "MicroPython heap: %d area(s), %d-byte blocks, %d-bit, tables: ATB%s%s%s; qstr pools: %d "
                + "(%s format)%n", d.areas().size(), map.bytesPerBlock(), first.bytesPerBlock() * 2,
            first.gapByte() ? " + gap" : "", first.ftbStart() >= 0 ? " + FTB" : "", first.wtbStart() >= 0 ? " + WTB" : "",
            d.qstrs().pools().size(), d.qstrs().legacyFormat() ? "v1.18" : "v1.19+");
        for (GcHeapArea a : d.areas()) {
            out.printf(Locale.ROOT, "  area %d: pool 0x%x..0x%x, %,d blocks; ATB 0x%x (%,d bytes)%n", a.index(),
                a.poolStart(), a.poolEnd(), a.blocks(), a.atbStart(), a.atbLength());
        }
        if (d.collection() != null) {
            out.println("  a garbage collection was running at the dump: " + d.collection().phaseText() + "; "
                + String.format(Locale.ROOT, "%,d allocations marked; figures below as MicroPython prints them once it "
                    + "completes (it frees %,d allocations, %,d bytes)", d.collection().markedAllocations(),
                d.collection().freedAllocations(), d.collection().freedBytes()));
            figures(d.figures(), out);
            freeRuns(d.collection().after(), out);
            out.println("  the table as dumped, where gc_info counts MARK blocks as neither used nor free (not what "
                + "MicroPython prints after the collection):");
            for (String line : map.figures().gcLines().split("\n")) {
                out.println("    " + SafeText.visible(line));
            }
        } else {
            figures(map.figures(), out);
            freeRuns(map, out);
        }
        if (d.finaliserBlocks() > 0 || d.weakTableBlocks() > 0) {
            out.printf(Locale.ROOT, "  blocks with a finaliser: %,d; with a weak reference: %,d%n", d.finaliserBlocks(),
                d.weakTableBlocks());
        }
        out.printf(Locale.ROOT, "  not GC edges: %,d interior pointers; not roots (the GC does not scan them): %s%n",
            d.interiorPointers().size(), d.staticNonRootRefs().isEmpty() ? "none" : SafeText.visible(String.join(", ", d.staticNonRootRefs())));
        long[] nr = d.notReferences();
        out.printf(Locale.ROOT, "  pointer-like words that are not references: %,d out of RAM, %,d into free blocks, "
            + "%,d at ram_start, %,d at _estack%n", nr[0], nr[1], nr[2], nr[3]);
        if (!d.outsidePointers().isEmpty()) {
            out.printf(Locale.ROOT, "  pointer fields outside the dumped RAM and the firmware: %,d%n", d.outsidePointers().size());
            for (MicroPythonDump.OutsidePointer p : d.outsidePointers().subList(0, Math.min(20, d.outsidePointers().size()))) {
                out.println("    " + SafeText.visible(p.text()));
            }
        }
        if (d.stackRange() != null) {
            out.printf(Locale.ROOT, "  stack scanned: 0x%x..0x%x (%,d bytes)%n", d.stackRange()[0], d.stackRange()[1],
                d.stackRange()[1] - d.stackRange()[0]);
        }
    }

    /**
     * The fragmentation ratio (1 - largest free run / free bytes), the isolated 1-block allocations and the free-run
     * length histogram ({@link FreeRuns}), each line indented by two spaces.
     */
    public static void freeRuns(HeapMap map, PrintStream out) {
        for (String line : FreeRuns.of(map).text(map.bytesPerBlock()).split("\n")) {
            out.println("  " + line);
        }
    }

    /**
     * The fragmentation figures as MicroPython's {@code gc_info} computes them (per py/gc.c), its own printed lines
     * first, then used/total bytes, allocations, the largest allocation and the largest free run (bytes).
     */
    public static void figures(GcFigures f, PrintStream out) {
        out.println("fragmentation (as gc_info computes it; MicroPython prints):");
        for (String line : f.gcLines().split("\n")) {
            out.println("  " + SafeText.visible(line));
        }
        out.printf(Locale.ROOT, "  used %,d of %,d bytes (%.1f %%), %,d allocations (%,d of 1 block, %,d of 2 blocks)%n",
            f.usedBytes(), f.totalBytes(), f.totalBytes() == 0 ? 0.0 : 100.0 * f.usedBytes() / f.totalBytes(),
            f.allocations(), f.oneBlockAllocations(), f.twoBlockAllocations());
        out.printf(Locale.ROOT, "  largest allocation %,d blocks = %,d bytes; largest free run %,d blocks = %,d bytes "
                + "(the biggest allocation that can succeed, of %,d bytes free)%n", f.maxBlockBlocks(), f.maxBlockBytes(),
            f.maxFreeBlocks(), f.maxFreeBytes(), f.freeBytes());
    }
}
