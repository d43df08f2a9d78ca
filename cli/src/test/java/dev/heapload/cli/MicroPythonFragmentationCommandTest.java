package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fragmentation in {@code heapload micropython}: the fragmentation ratio, the free-run histogram and the 1-block
 * allocations between free runs of a generated printed map; {@code --svg} with two maps draws both; a {@code --ram} file
 * holding two snapshots and a partial one is said in one line and {@code --index} picks one.
 *
 * <p>The generated map, 16-byte blocks (the second line's offset 0x400 = 64 blocks): a 64-block allocation, then
 * {@code h.h..h=..h...S==....h.......h=.T.hL.....}. Free runs: 1, 2, 2,
 * 3, 4, 7, 1, 1, 5 blocks (9 runs, 26 blocks = 416 bytes, the longest 7): fragmentation 1 - 7/26 = 0.73; by length
 * 1: 3, 2-3: 3, 4-7: 3; 1-block allocations with a free block on both sides: at blocks 66, 73, 84 and 95 (4).
 */
class MicroPythonFragmentationCommandTest {

    @TempDir
    Path tmp;

    static final String MAP = "h.h..h=..h...S==....h.......h=.T.hL.....";

    static String printed(String map) {
        return "GC: total: 1664, used: 1248, free: 416\n"
            + " No. of 1-blocks: 7, 2-blocks: 2, max blk sz: 64, max free sz: 7\n"
            + "GC memory layout; from 27c10:\n"
            + "00000: h" + "=".repeat(63) + "\n"
            + "00400: " + map + "\n";
    }

    @Test
    void fragmentationRatioHistogramAndIsolatedBlocks() throws Exception {
        Path file = tmp.resolve("map.txt");
        Files.writeString(file, printed(MAP), StandardCharsets.UTF_8);
        var r = HeapLoadCommandTest.run("micropython", "--printed-map", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\n  fragmentation 0.73 (1 - largest free run 7 / 26 free blocks, 416 bytes); 1-block "
            + "allocations between free runs: 4\n  free runs by length in blocks: 1: 3, 2-3: 3, 4-7: 3 (9 runs)\n"), r.out());
        assertTrue(r.out().contains("the printed GC: header agrees with the map"), r.out());
    }

    @Test
    void svgOfTwoMapsDrawsBoth() throws Exception {
        Path a = tmp.resolve("a.txt");
        Path b = tmp.resolve("b.txt");
        Files.writeString(a, printed(MAP), StandardCharsets.UTF_8);
        Files.writeString(b, printed(MAP.replace("h.......h", "hhhh....h")).replace("used: 1248, free: 416", "used: 1296, free: 368")
            .replace("1-blocks: 7,", "1-blocks: 10,").replace("max free sz: 7", "max free sz: 5"), StandardCharsets.UTF_8);
        Path svg = tmp.resolve("two.svg");
        var r = HeapLoadCommandTest.run("micropython", "--printed-map", a.toString(), "--printed-map", b.toString(),
            "--svg", svg.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("layout: " + svg + " (2 maps, one under the other)\n"), r.out());
        String text = Files.readString(svg);
        assertEquals(3, text.split("<svg ", -1).length - 1, "one outer picture holding two");
        assertTrue(text.contains("<svg x=\"0\" y=\"0\" version=") && text.contains("<svg x=\"0\" y=\"86\" version="), text);
        assertTrue(text.contains("MicroPython heap map " + a) && text.contains("MicroPython heap map " + b), text);
        assertEquals(1, text.split("<\\?xml", -1).length - 1, "one XML prolog");
    }

    @Test
    void ramFileWithSeveralSnapshots() throws Exception {
        Path d = MicroPythonCommandTest.shared("qemu-arm-mps2-an385");
        byte[] one;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(d.resolve("dump1/ram.bin.gz")))) {
            one = in.readAllBytes();
        }
        Path ram = tmp.resolve("ram.bin");
        try (var out = Files.newOutputStream(ram)) {
            out.write(one);
            out.write(one);
            out.write(one, 0, 1000);
        }
        String symbols = d.resolve("symbols.nm.txt").toString();
        var r = HeapLoadCommandTest.run("micropython", "--ram", ram.toString(), "--ram-base", "_sdata", "--symbols", symbols,
            "--no-load", "--index", "1");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("ram.bin: 2 snapshot(s) of 4,003,700 bytes (_estack 0x400000 - base 0x2e88c) back to "
            + "back, and a trailing partial one of 1,000 bytes (not read); reading snapshot 1\n"), r.out());
        assertTrue(r.out().contains("\n  objects     11,096 (219,456 bytes shallow)\n"), r.out());
        var bad = HeapLoadCommandTest.run("micropython", "--ram", ram.toString(), "--ram-base", "_sdata", "--symbols",
            symbols, "--no-load", "--index", "3");
        assertEquals(2, bad.code());
        assertTrue(bad.err().startsWith("heapload: --index 3: ram.bin holds 2 complete snapshot(s)\n"), bad.err());
    }
}
