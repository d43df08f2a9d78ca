package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.heapload.io.DumpReaders;
import dev.heapload.model.DanglingReferences;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * A lua-snapshot raw table written by a tool built with MSVC ({@code %p}: bare upper-case hex padded to
 * 16 digits on 64-bit, 8 on 32-bit, NULL all zeros) loads exactly as the same table written with glibc ({@code 0x} +
 * lower-case hex, NULL {@code (nil)}); and parent lines forged inside keys that hold a newline do not become references.
 *
 * <p>The generated table (addresses relative to a base {@code A}): the registry {@code A}; {@code B} = A.cache; the
 * string {@code C}, B's {@code [key]}; {@code D} under B by the key {@code "a\nb\nA : injected"} (its last line names
 * the real table A: ambiguous, read as key text and counted); {@code E} held by A and B; {@code G} under B by the key
 * {@code "x\nB : y"} (B named twice: not a parent line); {@code F} whose only parent {@code A+0x20} has no record (a
 * reference to nothing inside the heap). Expected for every spelling: 7 objects, 6 references, 1 reference to
 * nothing, the same names and warnings.
 */
class LuaSnapshotSpellingTest {

    @TempDir
    Path dir;

    private static String table(long base, String style) {
        String[] a = new String[8];
        for (int i = 0; i < 8; i++) {
            long v = base + 0x40L * i;
            a[i] = switch (style) {
                case "glibc" -> "0x" + Long.toHexString(v);
                case "msvc64" -> String.format(Locale.ROOT, "%016X", v);
                default -> String.format(Locale.ROOT, "%08X", v);
            };
        }
        String nul = switch (style) {
            case "glibc" -> "(nil)";
            case "msvc64" -> "0000000000000000";
            default -> "00000000";
        };
        long missing = base + 0x20;
        String lost = style.equals("glibc") ? "0x" + Long.toHexString(missing)
            : style.equals("msvc64") ? String.format(Locale.ROOT, "%016X", missing) : String.format(Locale.ROOT, "%08X", missing);
        String[][] records = {
            {a[0], "table {56}\n" + nul + " : [registry]\n"},
            {a[1], "table {64}\n" + a[0] + " : cache\n"},
            {a[2], "string {27}\n" + a[1] + " : [key]\n"},
            {a[3], "table {64}\n" + a[1] + " : a\nb\n" + a[0] + " : injected\n"},
            {a[4], "table {64}\n" + a[0] + " : e\n" + a[1] + " : e2\n"},
            {a[5], "table {64}\n" + lost + " : lost\n"},
            {a[6], "table {64}\n" + a[1] + " : x\n" + a[1] + " : y\n"},
        };
        StringBuilder json = new StringBuilder("{\n");
        for (int i = 0; i < records.length; i++) {
            json.append('"').append(records[i][0]).append("\": \"").append(records[i][1].replace("\n", "\\n")).append('"')
                .append(i + 1 < records.length ? ",\n" : "\n");
        }
        return json.append("}\n").toString();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"glibc, 0x55d0c3a4b5c0", "msvc64, 0x1D2C3A4B5C0", "msvc32, 0x03A4B5C0"})
    void everySpellingLoadsTheSameGraph(String style, String baseText) throws Exception {
        long base = Long.decode(baseText);
        Path file = dir.resolve(style + ".json");
        Files.writeString(file, table(base, style), StandardCharsets.UTF_8);
        assertEquals("lua-snapshot", DumpReaders.detect(file));
        HeapSnapshot s = new LuaSnapshotRawReader().read(file, style, Progress.NONE);
        assertEquals(7, s.objectCount());
        assertEquals(6, s.referenceCount());
        assertEquals(1, s.roots().size());
        assertEquals(base, Long.parseUnsignedLong(s.address(s.roots().get(0).object()).replace("0x", ""), 16));
        String a = style.equals("glibc") ? "0x" + Long.toHexString(base)
            : String.format(Locale.ROOT, style.equals("msvc64") ? "%016X" : "%08X", base);
        String b = style.equals("glibc") ? "0x" + Long.toHexString(base + 0x40)
            : String.format(Locale.ROOT, style.equals("msvc64") ? "%016X" : "%08X", base + 0x40);
        assertEquals(List.of("+0x0 -[value cache]-> +0x40", "+0x0 -[value e]-> +0x100", "+0x40 -[key [key]]-> +0x80",
                "+0x40 -[value a\nb\n" + a + " : injected]-> +0xc0", "+0x40 -[value e2]-> +0x100",
                "+0x40 -[value x\n" + b + " : y]-> +0x180"),
            edges(s, base));
        DanglingReferences d = s.danglingReferences();
        assertEquals(1, d.total());
        assertEquals(1, d.count(DanglingReferences.Reason.NO_OBJECT));
        assertEquals(List.of(
                "lua-snapshot raw table (lvzixun): no string contents, no scalar values, one edge name per (child, parent), "
                    + "weak-key table values recorded as strong by the tool, shallow sizes only",
                "3 record line(s) were read as the rest of the previous edge name (keys holding a newline), 1 of them shaped "
                    + "like a parent line that does not fit the record (no record at that address, a string, or a parent "
                    + "named twice)",
                "1 line(s) inside keys holding a newline are shaped like parent lines of real objects (first: record of "
                    + (style.equals("glibc") ? "0x" + Long.toHexString(base + 0xc0)
                    : String.format(Locale.ROOT, style.equals("msvc64") ? "%016X" : "%08X", base + 0xc0))
                    + " at byte " + byteOf(file, base + 0xc0, style) + ", line 4): read as key text, not as references; "
                    + "the tool does not escape keys, so check those objects' referrers by hand"),
            s.info().warnings());
    }

    /** The byte offset of a record's key in the file. */
    private static long byteOf(Path file, long address, String style) throws Exception {
        String key = style.equals("glibc") ? "0x" + Long.toHexString(address)
            : String.format(Locale.ROOT, style.equals("msvc64") ? "%016X" : "%08X", address);
        return Files.readString(file).indexOf("\"" + key + "\"");
    }

    /** Every reference as {@code +SOURCE -[kind name]-> +TARGET}, offsets from the base, sorted. */
    private static List<String> edges(HeapSnapshot s, long base) {
        List<String> out = new ArrayList<>();
        for (int o = 0; o < s.objectCount(); o++) {
            for (int r = s.firstReference(o); r < s.firstReference(o + 1); r++) {
                out.add("+0x" + Long.toHexString(value(s.address(o)) - base) + " -[" + s.referenceKind(r) + " "
                    + s.referenceName(r) + "]-> +0x" + Long.toHexString(value(s.address(s.referenceTarget(r))) - base));
            }
        }
        out.sort(null);
        return out;
    }

    private static long value(String address) {
        return LuaSnapshotRawReader.addressValue(address);
    }
}
