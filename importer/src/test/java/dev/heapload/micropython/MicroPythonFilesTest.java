package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recognising a regions.json (plain or gzip), and the stack pointer it takes from the info.txt beside it. */
class MicroPythonFilesTest {

    @TempDir
    Path tmp;

    @Test
    void stackPointerFromInfoTxtBesideRegionsJson() throws Exception {
        Path regions = Files.writeString(tmp.resolve("regions.json"), "{}");
        assertEquals(-1, MicroPythonFiles.stackPointerBeside(regions), "no info.txt");
        Files.writeString(tmp.resolve("info.txt"), "word_size=4\nsp=0x3ffeb8\nstack_top=0x3fffec\n");
        assertEquals(0x3ffeb8, MicroPythonFiles.stackPointerBeside(regions));
        Files.writeString(tmp.resolve("info.txt"), "sp=not-a-number\n");
        assertEquals(-1, MicroPythonFiles.stackPointerBeside(regions), "unreadable value: scan as before");
    }

    @Test
    void gzipRegionsJsonIsRecognisedAndReadLikeThePlainOne() throws Exception {
        Files.write(tmp.resolve("ram.bin"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        String json = "{\"little_endian\": true, \"word_size\": 4, \"regions\": [{\"file\": \"ram.bin\", "
            + "\"base\": \"0x20000000\", \"size\": 8, \"contents\": \"ram\"}]}";
        Path plain = Files.writeString(tmp.resolve("regions.json"), json);
        Path gz = tmp.resolve("regions.json.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        assertTrue(MicroPythonFiles.isRegionsJson(plain));
        assertTrue(MicroPythonFiles.isRegionsJson(gz));
        for (Path file : new Path[] {plain, gz}) {
            MemoryImage image = MemoryImage.fromRegionsJson(file);
            assertEquals(4, image.wordSize(), file.toString());
            assertEquals(1, image.regions().size());
            assertEquals(0x20000000L, image.regions().get(0).base());
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, image.regions().get(0).bytes());
        }
        Files.write(tmp.resolve("other.json.gz"), new byte[] {0x1f, (byte) 0x8b, 0, 0});
        assertFalse(MicroPythonFiles.isRegionsJson(tmp.resolve("other.json.gz")), "broken gzip: not a regions.json");
    }

    @Test
    void qemuDumpOfTheSharedCasesGivesItsStackPointer() {
        // shared/testdata/micropython/qemu-arm-mps2-an385/dump1/info.txt: sp=0x3ffeb8 (skipped without ../shared)
        Path regions = MicroPythonCases.dir("qemu-arm-mps2-an385").resolve("dump1/regions.json");
        assertEquals(0x3ffeb8, MicroPythonFiles.stackPointerBeside(regions));
    }
}
