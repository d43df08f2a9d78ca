package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntPredicate;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.model.Progress;

/**
 * A dump taken while a collection marks, on every layout the reader supports (64-bit single and split heap with a
 * weak-reference table, 32-bit with FTB, v1.18 with the ATB alone): the real dumps of shared/testdata/micropython with
 * MARK written into the allocation table for a subset of the live allocations, as {@code gc_mark_subtree} leaves it
 * part way. Whatever the subset, the figures are those MicroPython prints after the collection: the dump's allocations
 * the roots reach, the others freed (what {@code gc.collect()} then {@code mem_info()} prints; checked against the real
 * interpreter stopped inside {@code gc_collect} by the cli's MicroPythonMidCollectionGdbTest). One warning; objects,
 * references and reachability are those of the unmarked dump. The real interpreter mid-collection, stopped by gdb at
 * each phase, is tested in the cli module.
 */
class MicroPythonMidCollectionTest {

    private static MicroPythonDump read(String name, IntPredicate markAllocation, MicroPythonDump plain) throws Exception {
        Path d = MicroPythonCases.dir(name);
        MemoryImage image = MemoryImage.fromRegionsJson(d.resolve("dump2/regions.json"));
        if (plain != null) {
            for (int i = 0; i < plain.allocations().size(); i++) {
                if (markAllocation.test(i)) {
                    MicroPythonDump.Allocation a = plain.allocations().get(i);
                    GcHeapArea area = plain.areas().get(a.area());
                    MemoryImage.Region r = image.regionOf(area.atbStart(), area.atbLength());
                    int at = (int) (area.atbStart() - r.base()) + a.block() / 4;
                    r.bytes()[at] |= (byte) (3 << (2 * (a.block() % 4)));
                }
            }
        }
        long sp = -1;
        if (name.startsWith("qemu")) {
            for (String line : Files.readAllLines(d.resolve("dump2/info.txt"))) {
                if (line.startsWith("sp=0x")) {
                    sp = Long.parseLong(line.substring(5), 16);
                }
            }
        }
        return MicroPythonReader.read(image, FirmwareSymbols.read(d.resolve("symbols.nm.txt")),
            new MicroPythonReader.Options(0, 0, sp, null, null), "dump2", "dump2/regions.json");
    }

    private static HeapAnalysis analysis(MicroPythonDump d) {
        return HeapAnalyzer.analyze(d.snapshot(), Progress.NONE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"unix-x64-standard", "unix-x64-splitheap-weakref", "qemu-arm-mps2-an385",
        "qemu-arm-mps2-an385-v1.18"})
    void anyMarkedSubsetGivesTheFiguresAfterTheCollection(String name) throws Exception {
        MicroPythonDump plain = read(name, i -> false, null);
        assertNull(plain.collection());
        HeapAnalysis a = analysis(plain);
        boolean[] live = a.reachable();
        long liveBytes = 0;
        int liveCount = 0;
        for (int i = 0; i < plain.allocations().size(); i++) {
            if (live[i]) {
                liveBytes += plain.allocations().get(i).bytes();
                liveCount++;
            }
        }
        assertTrue(liveCount < plain.allocations().size(), "the dump holds garbage");

        MicroPythonDump third = read(name, i -> live[i] && i % 3 == 0, plain);
        MicroPythonDump fifth = read(name, i -> live[i] && i % 5 == 1, plain);
        for (MicroPythonDump m : List.of(third, fifth)) {
            GcCollection c = m.collection();
            assertNotNull(c);
            assertNull(c.phase());
            assertEquals(liveBytes, m.figures().usedBytes(), name);
            assertEquals(plain.heapMap().figures().totalBytes(), m.figures().usedBytes() + m.figures().freeBytes());
            assertEquals(plain.allocations().size() - liveCount, c.freedAllocations());
            assertEquals(plain.snapshot().objectCount(), m.snapshot().objectCount());
            assertEquals(plain.snapshot().referenceCount(), m.snapshot().referenceCount());
            assertEquals(liveCount, countTrue(analysis(m).reachable()), "reachability unchanged");
            List<String> warnings = m.snapshot().info().warnings();
            assertEquals(1, warnings.stream().filter(w -> w.startsWith("dump taken during a garbage collection")).count(),
                warnings::toString);
            assertEquals(warnings.size(), plain.snapshot().info().warnings().size() + 1);
            assertNotEquals(m.heapMap().figures(), m.figures(), "the table as dumped counts marks as neither");
        }
        assertEquals(third.figures(), fifth.figures());
        assertEquals(third.collection().after().text(), fifth.collection().after().text());
        // the after map is the dump's map with the garbage freed: no 'm' left, every live head as printed before
        String after = third.collection().after().text();
        assertTrue(after.lines().filter(l -> l.matches("[0-9a-f]{5,8}: .*")).noneMatch(l -> l.indexOf('m', 6) >= 0),
            "no marks after the collection");
        assertTrue(plain.heapMap().text().length() > 0 && third.heapMap().text().contains("m"));

        // a marked allocation survives even when nothing reaches it (the GC marked it, so a root held it)
        int garbage = -1;
        for (int i = 0; i < live.length && garbage < 0; i++) {
            if (!live[i]) {
                garbage = i;
            }
        }
        int g = garbage;
        MicroPythonDump withGarbage = read(name, i -> (live[i] && i % 3 == 0) || i == g, plain);
        long bytes = plain.allocations().get(g).bytes();
        assertTrue(withGarbage.figures().usedBytes() >= liveBytes + bytes, name);

        // the phase the dumper saw: marking done, finalisers running: exactly the marked ones survive
        MicroPythonDump marks = read(name, i -> live[i], plain);
        MicroPythonDump finalise = MicroPythonReader.read(MemoryImage.fromRegionsJson(
                MicroPythonCases.dir(name).resolve("dump2/regions.json")), FirmwareSymbols.read(
                MicroPythonCases.dir(name).resolve("symbols.nm.txt")),
            MicroPythonReader.Options.DEFAULT.withGcPhase(GcCollection.PHASE_FINALISE, "test"), "d", "d");
        assertEquals(liveBytes, marks.figures().usedBytes());
        assertEquals(0, finalise.collection().markedAllocations());
        assertEquals(0, finalise.figures().usedBytes(), "no mark: nothing survives the finaliser phase's rule");
    }

    private static int countTrue(boolean[] b) {
        int n = 0;
        for (boolean x : b) {
            n += x ? 1 : 0;
        }
        return n;
    }
}
