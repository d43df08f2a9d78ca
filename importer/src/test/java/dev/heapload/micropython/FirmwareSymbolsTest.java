package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Symbols from the ld map equal those from nm for what the reader needs; the map alone reads the dumps. */
class FirmwareSymbolsTest {

    @ParameterizedTest
    @CsvSource({"unix-x64-standard,micropython.map.gz,8", "unix-x64-splitheap-weakref,micropython.map.gz,8",
        "qemu-arm-mps2-an385,firmware.map,4", "qemu-arm-mps2-an385-v1.18,firmware.map,4"})
    void mapAndNmAgree(String name, String map, int wordSize) throws IOException {
        Path d = MicroPythonCases.dir(name);
        FirmwareSymbols nm = FirmwareSymbols.read(d.resolve("symbols.nm.txt"));
        FirmwareSymbols ld = FirmwareSymbols.read(d.resolve(map));
        assertEquals(wordSize, nm.wordSize());
        assertEquals(wordSize, ld.wordSize());
        for (String s : new String[] {"mp_state_ctx", "mp_type_type", "mp_type_dict", "mp_type_list", "mp_type_tuple",
            "mp_type_fun_bc", "mp_qstr_const_pool"}) {
            assertEquals(nm.get(s), ld.get(s), s);
        }
        if (name.startsWith("qemu")) {
            // linker-script symbols, e.g. the start of a seed-style RAM dump
            assertEquals(nm.address("_sdata"), ld.address("_sdata"));
            assertEquals(0x400000, ld.address("_estack"));
        }
        MicroPythonDump viaMap = MicroPythonReader.read(MemoryImage.fromRegionsJson(d.resolve("dump1/regions.json")),
            ld, MicroPythonReader.Options.DEFAULT, "dump1", "dump1");
        MicroPythonDump viaNm = MicroPythonCases.dump(name, 1);
        assertEquals(viaNm.heapMap().text(), viaMap.heapMap().text());
        assertEquals(MicroPythonGraphTest.types(viaNm.snapshot()), MicroPythonGraphTest.types(viaMap.snapshot()));
    }

    @org.junit.jupiter.api.Test
    void elfSymbolTableWithLocalsSizesAndWordSize() throws IOException {
        // testdata/micropython/fake_firmware.elf: gcc -O1 -fno-pie -no-pie -nostdlib -static of fake_firmware.c
        Path elf = Path.of(System.getProperty("heapload.testdata", "../testdata"), "micropython", "fake_firmware.elf");
        FirmwareSymbols s = FirmwareSymbols.read(elf);
        assertEquals(8, s.wordSize());
        assertEquals(Boolean.TRUE, s.littleEndian());
        assertEquals(new FirmwareSymbols.Symbol("mp_state_ctx", 0x403000, 684), s.get("mp_state_ctx"));
        assertEquals(new FirmwareSymbols.Symbol("gc_heap", 0x4032c0, 4096), s.get("gc_heap"));
        assertEquals(new FirmwareSymbols.Symbol("mp_type_type", 0x402040, 16), s.get("mp_type_type"));
        assertEquals("mp_type_dict", s.typeSymbolAt(0x402030));
    }
}
