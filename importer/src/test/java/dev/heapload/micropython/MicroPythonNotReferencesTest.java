package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;

/**
 * Pointer-like words that are not references are counted per kind, and a seed-style RAM file holding
 * several snapshots back to back is cut into them. On the qemu mps2 dump1 ({@code ram.bin} = [_sdata 0x2e88c, _estack
 * 0x400000)): as dumped, no such word; after writing {@code _estack}, {@code ram_start} and the address of a FREE
 * block (the last block of the pool) into the first three words of an {@code array_data} allocation (raw bytes the GC
 * still scans), one of each; and the same file twice plus 1,000 bytes is 2 complete snapshots and a trailing partial
 * one, the second of which reads as the first. Pointer fields out of RAM and firmware (peripheral registers) are named.
 */
class MicroPythonNotReferencesTest {

    private static final long BASE = 0x2e88c;
    private static final long ESTACK = 0x400000;

    private static byte[] ram() throws Exception {
        Path d = MicroPythonCases.dir("qemu-arm-mps2-an385");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(d.resolve("dump1/ram.bin.gz")))) {
            return in.readAllBytes();
        }
    }

    private static MicroPythonDump read(MemoryImage image) throws Exception {
        FirmwareSymbols symbols = FirmwareSymbols.read(MicroPythonCases.dir("qemu-arm-mps2-an385").resolve("symbols.nm.txt"));
        return MicroPythonReader.read(image, symbols, new MicroPythonReader.Options(0, 0, 0x3fd7ec, null, null), "d",
            "ram.bin");
    }

    private static void putWord(byte[] ram, long address, long value) {
        int at = (int) (address - BASE);
        for (int i = 0; i < 4; i++) {
            ram[at + i] = (byte) (value >>> (8 * i));
        }
    }

    @Test
    void pointerLikeWordsAreCountedPerKind() throws Exception {
        byte[] ram = ram();
        MicroPythonDump as = read(new MemoryImage(List.of(new MemoryImage.Region("ram.bin", BASE, ram, "ram")), 0, true));
        assertArrayEquals(new long[] {0, 0, 0, 0}, as.notReferences());
        MicroPythonDump.Allocation data = as.allocations().stream().filter(a -> a.type().equals("array_data"))
            .findFirst().orElseThrow();
        long lastBlock = as.areas().get(0).poolEnd() - as.heapMap().bytesPerBlock();
        putWord(ram, data.address(), ESTACK);
        putWord(ram, data.address() + 4, BASE);
        putWord(ram, data.address() + 8, lastBlock);
        MicroPythonDump patched = read(new MemoryImage(List.of(new MemoryImage.Region("ram.bin", BASE, ram, "ram")), 0, true));
        assertArrayEquals(new long[] {0, 1, 1, 1}, patched.notReferences());
        assertTrue(patched.snapshot().info().warnings().contains("word-aligned words in allocations that look like heap "
            + "pointers but are not references (the GC ignores them): 0 out of RAM, 1 into free blocks, 1 at ram_start "
            + "(0x2e88c), 1 at _estack (0x400000)"), () -> patched.snapshot().info().warnings().toString());
        assertEquals(as.snapshot().referenceCount(), patched.snapshot().referenceCount(), "none of them is a reference");
    }

    /**
     * A bytearray over peripheral registers ({@code uctypes.bytearray_at(0x40000000, 16)}): its items pointer is in no
     * image and outside the firmware, counted and named with its Cortex-M region; the same for a str whose data pointer
     * was overwritten with an address past the symbols. ROM data (str data in flash, below {@code _sdata}) is not
     * reported: the dump as it is has none.
     */
    @Test
    void pointerFieldsOutsideRamAndFirmwareAreNamed() throws Exception {
        byte[] ram = ram();
        MicroPythonDump as = read(new MemoryImage(List.of(new MemoryImage.Region("ram.bin", BASE, ram, "ram")), 0, true));
        assertEquals(List.of(), as.outsidePointers());
        MicroPythonDump.Allocation bytearray = as.allocations().stream().filter(a -> a.type().equals("bytearray"))
            .findFirst().orElseThrow();
        MicroPythonDump.Allocation str = as.allocations().stream().filter(a -> a.type().equals("str"))
            .findFirst().orElseThrow();
        putWord(ram, bytearray.address() + 12, 0x40000000L);
        putWord(ram, str.address() + 12, 0xe000ed00L);
        MicroPythonDump patched = read(new MemoryImage(List.of(new MemoryImage.Region("ram.bin", BASE, ram, "ram")), 0, true));
        assertEquals(2, patched.outsidePointers().size());
        String first = bytearray.address() < str.address()
            ? "bytearray 0x" + Long.toHexString(bytearray.address()) + " items -> 0x40000000 (Cortex-M peripheral region)"
            : "str 0x" + Long.toHexString(str.address()) + " data -> 0xe000ed00 (Cortex-M private peripheral bus)";
        String second = bytearray.address() < str.address()
            ? "str 0x" + Long.toHexString(str.address()) + " data -> 0xe000ed00 (Cortex-M private peripheral bus)"
            : "bytearray 0x" + Long.toHexString(bytearray.address()) + " items -> 0x40000000 (Cortex-M peripheral region)";
        assertTrue(patched.snapshot().info().warnings().contains("2 pointer field(s) point outside the dumped RAM and "
            + "the firmware (peripheral registers or memory not dumped; not references, nothing there is read): " + first
            + ", " + second), () -> patched.snapshot().info().warnings().toString());
        assertEquals(as.snapshot().referenceCount() - 2, patched.snapshot().referenceCount(),
            "the bytearray's items and the str's data blocks are no longer referenced; nothing else changes");
    }

    @Test
    void backToBackSnapshotsAreCut() throws Exception {
        byte[] one = ram();
        Path file = Files.createTempFile("ram", ".bin");
        try {
            byte[] all = new byte[one.length * 2 + 1000];
            System.arraycopy(one, 0, all, 0, one.length);
            System.arraycopy(one, 0, all, one.length, one.length);
            System.arraycopy(one, 0, all, 2 * one.length, 1000);
            Files.write(file, all);
            MemoryImage.RamFile f = MemoryImage.RamFile.read(file, ESTACK - BASE);
            assertEquals(List.of(4_003_700L, 2L, 1000L), List.of(f.snapshotLength(), f.complete(), f.trailing()));
            MicroPythonDump second = read(f.snapshot(2, BASE));
            MicroPythonDump alone = read(new MemoryImage(List.of(new MemoryImage.Region("ram.bin", BASE, one, "ram")), 0, true));
            assertEquals(alone.snapshot().objectCount(), second.snapshot().objectCount());
            assertEquals(alone.snapshot().referenceCount(), second.snapshot().referenceCount());
            assertEquals(11_096, second.snapshot().objectCount());
        } finally {
            Files.delete(file);
        }
    }
}
