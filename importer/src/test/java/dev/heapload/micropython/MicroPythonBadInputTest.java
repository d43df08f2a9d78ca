package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.DumpFormatException;

/** Bad input gives one line saying what did not match. */
class MicroPythonBadInputTest {

    @TempDir
    Path tmp;

    private static String message(ThrowingRead r) {
        DumpFormatException e = assertThrows(DumpFormatException.class, r::run);
        assertEquals(-1, e.getMessage().indexOf('\n'));
        return e.getMessage();
    }

    interface ThrowingRead {
        void run() throws IOException;
    }

    @Test
    void ramImageShorterThanTheSymbolsImply() throws IOException {
        Path d = MicroPythonCases.dir("qemu-arm-mps2-an385");
        Path ram = tmp.resolve("ram.bin");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(d.resolve("dump1/ram.bin.gz")))) {
            Files.write(ram, in.readNBytes(200_000));
        }
        FirmwareSymbols symbols = FirmwareSymbols.read(d.resolve("symbols.nm.txt"));
        MemoryImage image = MemoryImage.single(ram, symbols.address("_sdata"), 0, true);
        assertEquals("ram.bin: byte 200000: image ends at 0x5f5cc but the pool of heap area 0 extends to 0xaeb90 per the "
            + "symbols (325060 bytes missing): image too short, or symbols of another build?",
            message(() -> MicroPythonReader.read(image, symbols, MicroPythonReader.Options.DEFAULT, "x", "ram.bin")));
    }

    @Test
    void regionsJsonDeclaringMoreThanTheImageHolds() throws IOException {
        Path d = MicroPythonCases.dir("unix-x64-standard");
        Files.copy(d.resolve("dump1/stack.bin"), tmp.resolve("stack.bin"));
        Files.writeString(tmp.resolve("regions.json"), "{\"word_size\": 8, \"regions\": [{\"file\": \"stack.bin\", "
            + "\"base\": \"0x7fffffffe2d8\", \"size\": 1000}]}");
        assertEquals(tmp.resolve("stack.bin") + ": byte 900: image ends after 900 bytes but regions.json declares 1000 "
            + "(truncated dump?)", message(() -> MemoryImage.fromRegionsJson(tmp.resolve("regions.json"))));
    }

    @Test
    void symbolsOfAnotherBuildFindNoHeap() throws IOException {
        // the v1.18 RAM with the current build's symbols: mp_state_ctx is elsewhere, no heap fields there
        Path d = MicroPythonCases.dir("qemu-arm-mps2-an385-v1.18");
        FirmwareSymbols other = FirmwareSymbols.read(MicroPythonCases.dir("qemu-arm-mps2-an385").resolve("symbols.nm.txt"));
        MemoryImage image = MemoryImage.fromRegionsJson(d.resolve("dump1/regions.json"));
        assertEquals("dump1/regions.json: no GC heap area found in mp_state_ctx (0x2e89c, 684 bytes per "
                + MicroPythonCases.dir("qemu-arm-mps2-an385").resolve("symbols.nm.txt")
                + ") reading 4-byte words with 16-byte blocks: RAM and symbols from different builds, or wrong word size?",
            message(() -> MicroPythonReader.read(image, other, MicroPythonReader.Options.DEFAULT, "x", "dump1/regions.json")));
    }

    @Test
    void symbolsOfAnother64BitBuildDoNotMatchTheWordSize() throws IOException {
        Path d = MicroPythonCases.dir("qemu-arm-mps2-an385");
        Path nm = MicroPythonCases.dir("unix-x64-standard").resolve("symbols.nm.txt");
        FirmwareSymbols other = FirmwareSymbols.read(nm);
        MemoryImage image = MemoryImage.fromRegionsJson(d.resolve("dump1/regions.json"));
        assertEquals(nm + ": has 64-bit addresses but the memory images are described as 32-bit (word_size 4): "
            + "symbols from another build?",
            message(() -> MicroPythonReader.read(image, other, MicroPythonReader.Options.DEFAULT, "x", "r")));
    }

    @Test
    void wrongWordSizeOverride() throws IOException {
        Path d = MicroPythonCases.dir("unix-x64-standard");
        FirmwareSymbols symbols = FirmwareSymbols.read(d.resolve("symbols.nm.txt"));
        MemoryImage image = MemoryImage.fromRegionsJson(d.resolve("dump1/regions.json"));
        MicroPythonReader.Options four = new MicroPythonReader.Options(4, 0, -1, null, null);
        assertEquals("r.json: no GC heap area found in mp_state_ctx (0x48b540, 1944 bytes per " + d.resolve("symbols.nm.txt")
                + ") reading 4-byte words with 16-byte blocks: RAM and symbols from different builds, or wrong word size?",
            message(() -> MicroPythonReader.read(image, symbols, four, "x", "r.json")));
    }

    @Test
    void notSymbols() throws IOException {
        Path f = tmp.resolve("firmware.elf");
        Files.write(f, new byte[] {0x7f, 'E', 'L', 'F', 1, 1, 1, 0});
        String m = message(() -> FirmwareSymbols.read(f));
        org.junit.jupiter.api.Assertions.assertTrue(m.startsWith(f + ": broken ELF file: "), m);
        Path t = tmp.resolve("notes.txt");
        Files.writeString(t, "hello\n");
        assertEquals(t + ": byte 0: has no symbols (expected `nm -S` output or a GNU ld map)",
            message(() -> FirmwareSymbols.read(t)));
        Path nm = tmp.resolve("nm.txt");
        Files.writeString(nm, "00001000 00000010 T main\n");
        MemoryImage image = new MemoryImage(java.util.List.of(), 4, true);
        assertEquals(nm + ": has no symbol mp_state_ctx: not the symbols of a MicroPython build (or stripped)",
            message(() -> MicroPythonReader.read(image, FirmwareSymbols.read(nm), MicroPythonReader.Options.DEFAULT, "x", "r")));
    }
}
