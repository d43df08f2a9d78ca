package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.HeapSnapshot;

/**
 * Types and names the reader gives on the real dumps of shared/testdata/micropython without debug info (built-in
 * layouts): compiled code typed on v1.18 ({@code raw_code}, {@code bytecode}, {@code const_table}) and v1.29
 * ({@code raw_code}, {@code child_table}, {@code module_context}, {@code module_constants}), the running frame of
 * each dump named, and the v1.28 t-string types on a synthetic fixture: the binary at hand
 * (shared/tools/micropython-unix, v1.29.0-preview standard variant) is built without {@code MICROPY_PY_TSTRINGS}, so a
 * {@code Template} and an {@code Interpolation} object are written into free blocks of the qemu dump, with symbols
 * {@code mp_type_template} and {@code mp_type_interpolation} added to its symbols (layouts per py/objtemplate.c).
 */
class MicroPythonNamesTest {

    @TempDir
    Path tmp;

    private static Map<String, Integer> types(HeapSnapshot s) {
        Map<String, Integer> out = new TreeMap<>();
        for (int o = 0; o < s.objectCount(); o++) {
            out.merge(s.type(o), 1, Integer::sum);
        }
        return out;
    }

    private static List<String> refs(HeapSnapshot s, String type) {
        List<String> out = new ArrayList<>();
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals(type)) {
                for (int r = s.firstReference(o); r < s.firstReference(o + 1); r++) {
                    out.add(s.referenceKind(r) + " " + s.referenceName(r) + " -> " + s.type(s.referenceTarget(r)));
                }
            }
        }
        return out;
    }

    private static int count(Map<String, Integer> types, String t) {
        return types.getOrDefault(t, 0);
    }

    @Test
    void compiledCodeIsTypedOnV118AndV129() {
        Map<String, Integer> v118 = types(MicroPythonCases.dump("qemu-arm-mps2-an385-v1.18", 2).snapshot());
        assertEquals(List.of(20, 21, 17, 2, 1), List.of(count(v118, "raw_code"), count(v118, "bytecode"),
            count(v118, "const_table"), count(v118, "raw"), count(v118, "code_state")), v118::toString);
        Map<String, Integer> v129 = types(MicroPythonCases.dump("qemu-arm-mps2-an385", 2).snapshot());
        assertEquals(List.of(21, 21, 7, 1, 1, 2, 1), List.of(count(v129, "raw_code"), count(v129, "bytecode"),
            count(v129, "child_table"), count(v129, "module_context"), count(v129, "module_constants"),
            count(v129, "raw"), count(v129, "code_state")), v129::toString);
        // the generator function's bytecode and children are typed like a function's
        assertEquals(List.of("field context -> module_context", "field bytecode -> bytecode"),
            refs(MicroPythonCases.dump("qemu-arm-mps2-an385", 2).snapshot(), "generator_function"));
    }

    @Test
    void theRunningModuleFrameNamesItsRoot() {
        HeapSnapshot s = MicroPythonCases.dump("unix-x64-standard", 2).snapshot();
        assertTrue(s.roots().stream().anyMatch(r -> r.name().equals(
            "frame <module> (/tmp/work/heapdemo.py:133) (code_state, stack+96)")), s.roots()::toString);
        assertEquals(1, refs(s, "code_state").stream().filter(r -> r.startsWith("field fun_bc -> function")).count());
    }

    private static void putWord(byte[] ram, long base, long address, long value) {
        int at = (int) (address - base);
        for (int i = 0; i < 4; i++) {
            ram[at + i] = (byte) (value >>> (8 * i));
        }
    }

    @Test
    void templateAndInterpolationAreTypedAndTheirFieldsNamed() throws Exception {
        Path d = MicroPythonCases.dir("qemu-arm-mps2-an385");
        long base = 0x2e88c;
        byte[] ram;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(d.resolve("dump2/ram.bin.gz")))) {
            ram = in.readAllBytes();
        }
        FirmwareSymbols plain = FirmwareSymbols.read(d.resolve("symbols.nm.txt"));
        // two type objects of 0x2c bytes in ROM where no other symbol starts (below _sdata, not in the RAM image)
        long template = 0x2e800;
        long interpolation = 0x2e840;
        assertTrue(plain.at(template).isEmpty() && plain.at(interpolation).isEmpty());
        Path nm = tmp.resolve("symbols.nm.txt");
        Files.writeString(nm, Files.readString(d.resolve("symbols.nm.txt"), StandardCharsets.ISO_8859_1)
            + String.format("%08x 0000002c R mp_type_template%n%08x 0000002c R mp_type_interpolation%n", template,
            interpolation), StandardCharsets.ISO_8859_1);
        MemoryImage image = new MemoryImage(List.of(new MemoryImage.Region("ram.bin", base, ram, "ram")), 0, true);
        MicroPythonReader.Options options = new MicroPythonReader.Options(0, 0, 0x3fd7ec, null, null);
        MicroPythonDump before = MicroPythonReader.read(image, plain, options, "d", "ram.bin");
        GcHeapArea area = before.areas().get(0);
        MicroPythonDump.Allocation str = before.allocations().stream().filter(a -> a.type().equals("str"))
            .findFirst().orElseThrow();
        MicroPythonDump.Allocation tuple = before.allocations().stream().filter(a -> a.type().equals("tuple"))
            .findFirst().orElseThrow();
        // the last 4 blocks are free: a Template (1 block), an Interpolation (2 blocks), a tuple of it (1 block)
        int n = area.blocks();
        long t = area.poolStart() + (long) (n - 4) * 16;
        long i = t + 16;
        long items = t + 48;
        for (int b = n - 4; b < n; b++) {
            assertEquals('.', (char) before.heapMap().areas().get(0).letters()[b]);
        }
        int atb = (int) (area.atbStart() - base);
        ram[atb + (n - 4) / 4] |= (byte) (1 << 2 * ((n - 4) % 4));
        ram[atb + (n - 3) / 4] |= (byte) (1 << 2 * ((n - 3) % 4));
        ram[atb + (n - 2) / 4] |= (byte) (2 << 2 * ((n - 2) % 4));
        ram[atb + (n - 1) / 4] |= (byte) (1 << 2 * ((n - 1) % 4));
        putWord(ram, base, t, template);
        putWord(ram, base, t + 4, tuple.address());   // strings
        putWord(ram, base, t + 8, items);             // interpolations
        putWord(ram, base, i, interpolation);
        putWord(ram, base, i + 4, str.address());     // value
        putWord(ram, base, i + 8, str.address());     // expression
        putWord(ram, base, i + 12, 0x6);              // conversion: None
        putWord(ram, base, i + 16, (1 << 3) | 2);     // format_spec: the empty qstr
        putWord(ram, base, items, plain.address("mp_type_tuple"));
        putWord(ram, base, items + 4, 1);
        putWord(ram, base, items + 8, i);
        MicroPythonDump after = MicroPythonReader.read(image, FirmwareSymbols.read(nm), options, "d", "ram.bin");
        HeapSnapshot s = after.snapshot();
        assertEquals(1, types(s).get("template"));
        assertEquals(1, types(s).get("interpolation"));
        assertEquals(List.of("field strings -> tuple", "field interpolations -> tuple"), refs(s, "template"));
        assertEquals(List.of("field value -> str", "field expression -> str"), refs(s, "interpolation"));
        assertEquals(before.snapshot().objectCount() + 3, s.objectCount());
    }
}
