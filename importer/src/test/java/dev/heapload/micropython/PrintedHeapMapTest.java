package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.model.DumpFormatException;

/** The heap map text as input: the bundled fixtures and every map printed in the real dumps' logs. */
class PrintedHeapMapTest {

    static Path fixture(String name) {
        return Path.of(System.getProperty("heapload.testdata", "../testdata"), "micropython", name);
    }

    @Test
    void v118MapWithFiveDigitOffsetsAndACollapsedRun() throws IOException {
        List<PrintedHeapMap> maps = PrintedHeapMap.read(fixture("v1.18-qemu-mem_info.txt"));
        assertEquals(1, maps.size());
        PrintedHeapMap m = maps.get(0);
        assertEquals(List.of(), m.warnings());
        assertEquals(new GcFigures(516160, 216048, 300112, 11104, 11015, 49, 2048, 18757, 16), m.heapMap().figures());
        assertEquals(32260, m.heapMap().areas().get(0).blocks());
        assertEquals(0x27c10, m.heapMap().areas().get(0).poolStart());
        assertEquals(false, m.heapMap().eightDigitOffsets());
        assertEquals(Map.of("total", 516160L, "used", 216048L, "free", 300112L, "No. of 1-blocks", 11015L,
            "2-blocks", 49L, "max blk sz", 2048L, "max free sz", 18757L), m.header());
        // per kind: allocations and blocks
        Map<Character, long[]> kinds = m.heapMap().kindCounts();
        assertEquals(111, kinds.get('T')[0]);
        assertEquals(10520, kinds.get('h')[0]);
    }

    @Test
    void serialLogWithTimestampsAndThreeAreas() throws IOException {
        List<PrintedHeapMap> maps = PrintedHeapMap.read(fixture("splitheap-serial-log-with-timestamps.txt"));
        assertEquals(1, maps.size());
        PrintedHeapMap m = maps.get(0);
        assertEquals(List.of(), m.warnings());
        assertEquals(3, m.heapMap().areas().size());
        assertEquals(List.of(10752, 10752, 10752), m.heapMap().areas().stream().map(HeapMap.Area::blocks).toList());
        assertEquals(new GcFigures(1032192, 655776, 376416, 17355, 17274, 50, 2048, 10752, 32), m.heapMap().figures());
    }

    @ParameterizedTest
    @ValueSource(strings = {"unix-x64-standard", "unix-x64-splitheap-weakref", "qemu-arm-mps2-an385",
        "qemu-arm-mps2-an385-v1.18"})
    void everyPrintedMapGivesTheFiguresAndBlocksOfTheRamDump(String name) throws IOException {
        List<PrintedHeapMap> maps = PrintedHeapMap.read(MicroPythonCases.log(name));
        assertEquals(2, maps.size());
        for (int n = 1; n <= 2; n++) {
            HeapMap fromDump = MicroPythonCases.dump(name, n).heapMap();
            PrintedHeapMap printed = maps.get(n - 1);
            assertEquals(List.of(), printed.warnings());
            assertEquals(fromDump.figures(), printed.heapMap().figures());
            assertEquals(fromDump.text(), printed.heapMap().text());
            for (int a = 0; a < fromDump.areas().size(); a++) {
                assertEquals(new String(fromDump.areas().get(a).letters()),
                    new String(printed.heapMap().areas().get(a).letters()));
            }
        }
    }

    @Test
    void twoMapsDiffBlockByBlock() throws IOException {
        List<PrintedHeapMap> maps = PrintedHeapMap.read(MicroPythonCases.log("unix-x64-standard"));
        HeapMapDiff d = HeapMapDiff.compare(maps.get(0).heapMap(), maps.get(1).heapMap());
        // dump1 -> dump2: 17303 - 11099 allocations; used blocks 13412 -> 20415
        assertEquals(7003, d.newlyUsedBlocks() - d.freedBlocks());
    }

    @Test
    void textWithoutAMapIsOneLineError() {
        DumpFormatException e = assertThrows(DumpFormatException.class,
            () -> PrintedHeapMap.parse("hello\nGC: total: 1, used: 2, free: 3\n", "log.txt"));
        assertEquals("log.txt: no heap map found (expected the 'GC memory layout; from ...:' lines "
            + "micropython.mem_info(1) prints)", e.getMessage());
    }

    @Test
    void aMissingLineIsReported() {
        String text = "GC memory layout; from 1000:\n00000000: " + "h".repeat(64) + "\n00000800: " + "h".repeat(64)
            + "\n00001800: hh\n";
        DumpFormatException e = assertThrows(DumpFormatException.class, () -> PrintedHeapMap.parse(text, "m.txt"));
        assertEquals("m.txt: byte 0: heap map line '00001800: ...' of the area from 1000 does not continue the lines "
            + "before it (expected offset 1000; missing or partial lines?)", e.getMessage());
    }

    @Test
    void fiveDigitOffsetsWrapAboveOneMebibyte() throws IOException {
        // a pre-v1.20 map of a 2 MiB pool: %05x of (offset & 0xfffff) restarts at 00000 after 1 MiB
        byte[] letters = new byte[65536];
        java.util.Arrays.fill(letters, (byte) '.');
        for (int b = 0; b < letters.length; b += 97) {
            letters[b] = (byte) "hTLDSAFBM".charAt(b % 9);
            if (b + 1 < letters.length) {
                letters[b + 1] = '=';
            }
        }
        HeapMap map = new HeapMap(List.of(new HeapMap.Area(0x20000000L, letters)), 32, false);
        String text = "GC: total: 2097152, used: 1, free: 1\n" + map.text();
        org.junit.jupiter.api.Assertions.assertTrue(text.contains("\nff800: "));
        org.junit.jupiter.api.Assertions.assertTrue(text.contains("\n00000: ") && text.indexOf("\n00000: ") != text.lastIndexOf("\n00000: "));
        PrintedHeapMap back = PrintedHeapMap.parse(text, "t").get(0);
        assertEquals(new String(letters, java.nio.charset.StandardCharsets.ISO_8859_1),
            new String(back.heapMap().areas().get(0).letters(), java.nio.charset.StandardCharsets.ISO_8859_1));
        assertEquals(map.figures(), back.heapMap().figures());
    }

    /** CircuitPython prints the area's start with {@code 0x}: {@code GC memory layout; from 0x20028760:}. */
    @Test
    void layoutHeaderWithHexPrefix() throws IOException {
        String text = java.nio.file.Files.readString(fixture("v1.18-qemu-mem_info.txt"))
            .replace("GC memory layout; from 27c10:", "GC memory layout; from 0x27c10:");
        PrintedHeapMap m = PrintedHeapMap.parse(text, "cp.txt").get(0);
        assertEquals(List.of(), m.warnings());
        assertEquals(0x27c10, m.heapMap().areas().get(0).poolStart());
        assertEquals(new GcFigures(516160, 216048, 300112, 11104, 11015, 49, 2048, 18757, 16), m.heapMap().figures());
    }

    /**
     * A log line of another task between two map lines is skipped with a warning naming its line; the map goes on
     * (before, the map ended there and the rest of it was dropped silently, so the figures came out too small).
     */
    @Test
    void anUnrelatedLineInsideTheMapIsSkippedAndSaid() throws IOException {
        String clean = java.nio.file.Files.readString(fixture("v1.18-qemu-mem_info.txt"));
        String row = "\n00800: ";
        org.junit.jupiter.api.Assertions.assertTrue(clean.contains(row));
        String text = clean.replace(row, "\nI (51234) wifi: sta connected" + row);
        long line = clean.substring(0, clean.indexOf(row)).chars().filter(c -> c == '\n').count() + 2;
        PrintedHeapMap m = PrintedHeapMap.parse(text, "serial.log").get(0);
        assertEquals(List.of("1 line(s) inside the heap map are not map lines and were skipped (line " + line
            + " of serial.log); if the map is wrong, print it again with nothing else writing to the port"), m.warnings());
        assertEquals(new GcFigures(516160, 216048, 300112, 11104, 11015, 49, 2048, 18757, 16), m.heapMap().figures());
        assertEquals(32260, m.heapMap().areas().get(0).blocks());
    }
}
