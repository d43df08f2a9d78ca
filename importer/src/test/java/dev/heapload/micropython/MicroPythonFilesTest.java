package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stack pointer a regions.json dump takes from the info.txt beside it. */
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
    void qemuDumpOfTheSharedCasesGivesItsStackPointer() {
        // shared/testdata/micropython/qemu-arm-mps2-an385/dump1/info.txt: sp=0x3ffeb8 (skipped without ../shared)
        Path regions = MicroPythonCases.dir("qemu-arm-mps2-an385").resolve("dump1/regions.json");
        assertEquals(0x3ffeb8, MicroPythonFiles.stackPointerBeside(regions));
    }
}
