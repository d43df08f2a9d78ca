package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * A pair from two processes: the bundled event-listeners before.json against its after.json with every address
 * moved by {@code 0x10000000000} (a second run, its heap elsewhere: ASLR), so no address matches.
 *
 * <p>Expected, per the case README (testdata/luau/event-listeners/README.md): the same-process pair finds 186 new
 * objects, its largest leak group the 16 widgets kept in {@code EventBus.ThemeChanged.handlers}. Compared by
 * address the moved pair would call all 871 objects of after.json new, the roots included; compared by retention
 * path it must name the same top group with the same objects and bytes.
 */
class CrossProcessComparisonTest {

    @TempDir
    Path tmp;

    static Path bundled(String name) {
        return Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", name);
    }

    static HeapSnapshot read(Path file, String id) throws IOException {
        HeapSnapshot s = DumpReaders.read(file, id, Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        return s;
    }

    /** {@code file} with every {@code "0x…"} address moved by {@code shift}. */
    static Path moved(Path file, long shift, Path out) throws IOException {
        Matcher m = Pattern.compile("\"0x([0-9a-f]+)\"").matcher(Files.readString(file, StandardCharsets.UTF_8));
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, "\"0x" + Long.toHexString(Long.parseLong(m.group(1), 16) + shift) + "\"");
        }
        m.appendTail(b);
        return Files.writeString(out, b.toString(), StandardCharsets.UTF_8);
    }

    @Test
    void aMovedHeapIsComparedByRetentionPath() throws IOException {
        HeapSnapshot before = read(bundled("before.json"), "before");
        HeapSnapshot after = read(bundled("after.json"), "after");
        HeapSnapshot other = read(moved(bundled("after.json"), 0x10000000000L, tmp.resolve("after.json")), "other");

        SnapshotComparison sameProcess = SnapshotComparison.compute(before, after, after.analysis());
        assertFalse(sameProcess.crossProcess());
        assertEquals(186, sameProcess.newObjects());
        SnapshotComparison crossProcess = SnapshotComparison.compute(before, other, other.analysis());
        assertTrue(crossProcess.crossProcess());
        assertEquals(0, crossProcess.sameObjects());
        assertEquals(List.of(), crossProcess.growth());

        // the same-process pair's three groups, in the same order, with the same objects and bytes: the 16 widgets
        // under ThemeChanged.handlers (152 objects, 19,608 bytes) first
        for (int g = 0; g < 3; g++) {
            SnapshotComparison.LeakGroup expected = sameProcess.leakGroups().get(g);
            SnapshotComparison.LeakGroup found = crossProcess.leakGroups().get(g);
            assertEquals(expected.path(), found.path());
            assertEquals(expected.headType(), found.headType());
            assertEquals(expected.objects(), found.objects());
            assertEquals(expected.newBytes(), found.newBytes());
            assertEquals(expected.heads(), found.heads());
        }
        assertEquals(3, sameProcess.leakGroups().size());
        assertEquals(List.of("root registry (table)", "_MODULES in table", "EventBus in table", "ThemeChanged in table",
            "handlers in table", "[array] in table"), crossProcess.leakGroups().get(0).path());
        assertEquals(19_608, crossProcess.leakGroups().get(0).newBytes());
        // plus two strings that are not new objects but reached by a new path: the theme switch pointed
        // shared.uiRoot.style.colors.bg and .fg at strings the baseline held elsewhere (same addresses in the same
        // process; by path they are one new 32-byte string each)
        assertEquals(5, crossProcess.leakGroups().size());
        for (int g = 3; g < 5; g++) {
            SnapshotComparison.LeakGroup extra = crossProcess.leakGroups().get(g);
            assertEquals(1, extra.objects());
            assertEquals(32, extra.newBytes());
            assertEquals("string", extra.headType());
            assertEquals("colors in table", extra.path().get(extra.path().size() - 2));
        }
        assertEquals(sameProcess.newObjects() + 2, crossProcess.newObjects());
        assertEquals(sameProcess.newBytes() + 64, crossProcess.newBytes());
    }

    @Test
    void aPairOfOneProcessIsNotCrossProcessEvenWhenItGrewTenfold() throws IOException {
        // undo-history grows from 589 to 10,589 objects (its README): most of the target is new, but the baseline
        // survives in it and its roots do not move
        Path shared = Path.of(System.getProperty("heapload.shared", "../../shared"), "testdata", "luau", "undo-history");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(shared),
            "shared test data not found at " + shared + ": the undo-history cross-process check is skipped");
        HeapSnapshot before = read(shared.resolve("before.json"), "before");
        HeapSnapshot after = read(shared.resolve("after.json"), "after");
        assertFalse(SnapshotComparison.isCrossProcess(before, after));
        assertEquals(10_000, SnapshotComparison.compute(before, after, after.analysis()).newObjects());
    }
}
