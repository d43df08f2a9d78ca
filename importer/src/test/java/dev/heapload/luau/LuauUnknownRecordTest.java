package dev.heapload.luau;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Unknown records, on a generated dump: a record of a type the reader does not know keeps every
 * field holding an address (or an array of them) as {@code unknown-field} references named by the field; a
 * category printed {@code (null)} is "unnamed category N"; a name with three stray quotes is one repaired field.
 */
class LuauUnknownRecordTest {

    @TempDir
    Path tmp;

    static final String DUMP = "{\"objects\":{\n"
        + "\"0x1\":{\"type\":\"table\",\"cat\":0,\"size\":56,\"array\":[\"0x10\"]},\n"
        + "\"0x10\":{\"type\":\"futurething\",\"cat\":1,\"size\":64,\"owner\":\"0x20\",\"children\":[\"0x21\",null,"
        + "\"0x22\",5,{\"x\":\"0x23\"}],\"title\":\"hello\",\"count\":3,\"note\":\"0xZZ\"},\n"
        + "\"0x20\":{\"type\":\"table\",\"cat\":0,\"size\":32},\n"
        + "\"0x21\":{\"type\":\"table\",\"cat\":0,\"size\":32},\n"
        + "\"0x22\":{\"type\":\"table\",\"cat\":0,\"size\":32},\n"
        + "\"0x23\":{\"type\":\"table\",\"cat\":0,\"size\":32},\n"
        + "\"0\":{\"type\":\"userdata\",\"cat\":0,\"size\":0}},\n"
        + "\"roots\":{\"registry\":\"0x1\"},\n"
        + "\"stats\":{\"size\":4096,\"categories\":{\"0\":{\"name\":\"main\", \"size\":100},"
        + "\"1\":{\"name\":\"(null)\", \"size\":50},\"2\":{\"name\":\"Plugin \"A\" \"B\", \"size\":10}}}}\n";

    @Test
    void unknownFieldsNullCategoryAndRepairCount() throws Exception {
        Path file = tmp.resolve("future.json");
        Files.writeString(file, DUMP, StandardCharsets.UTF_8);
        HeapSnapshot s = new LuauDumpReader().read(file, "t", Progress.NONE);
        int thing = -1;
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.address(o).equals("0x10")) {
                thing = o;
            }
        }
        assertEquals("futurething", s.type(thing));
        List<String> refs = new ArrayList<>();
        for (int r = s.firstReference(thing); r < s.firstReference(thing + 1); r++) {
            refs.add(s.referenceKind(r) + " " + s.referenceName(r) + " " + s.keyType(r) + " "
                + s.address(s.referenceTarget(r)));
        }
        assertEquals(List.of("unknown-field owner name 0x20", "unknown-field children name 0x21",
            "unknown-field children name 0x22"), refs);
        assertEquals("unnamed category 1", s.info().categories().get(1).name());
        assertEquals("Plugin \"A\" \"B", s.info().categories().get(2).name());
        assertEquals(List.of(
            "invalid JSON repaired (Luau spec §7): 1 field(s) with unescaped quotes inside names (3 quote(s)), kept as"
                + " literal quotes, first at byte " + DUMP.indexOf("\"A\" \"B\","),
            "1 memory category name(s) printed \"(null)\" by the VM (its category callback returned NULL, spec §7.2),"
                + " named \"unnamed category N\"",
            "record type(s) unknown to this reader: futurething; 3 address(es) in their unknown fields kept as"
                + " references of kind unknown-field, named by the field (futurething.owner, futurething.children)",
            "ignored unknown field(s): futurething.title, futurething.count, futurething.note"),
            s.info().warnings());
    }
}
