package dev.heapload.report.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.SnapshotInfo;

/** {@link LoadReport}: the by-type table sorted (bytes, then objects, then name), long and wide names in their columns. */
class LoadReportTest {

    @Test
    void byTypeIsSortedAndNamesKeepTheirColumns() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        String longName = "ComponentSystemWithAVeryLongGeneratedTypeName_0123456789";
        Object[][] objects = {
            // address, type, size, category
            {"0x10", "table", 60, 0}, {"0x11", "table", 40, 0},
            {"0x20", "string", 30, 0}, {"0x21", "string", 30, 0}, {"0x22", "string", 40, 0},
            {"0x30", "Point", 100, 1},
            {"0x40", longName, 1_000, 1},
            {"0x50", "表格", 7, 1},
            {"0x60", "bad\u001b[2Jtype", 100, 1},
        };
        for (Object[] o : objects) {
            b.defineObject((String) o[0], (String) o[1], (Integer) o[2], (Integer) o[3], null);
            if (!o[0].equals("0x10")) {
                b.addReference(b.objectId((String) o[0]), value, b.name("k" + o[0]), 0);
            }
        }
        b.addRoot("registry", b.objectId("0x10"));
        HeapSnapshot s = b.build(new SnapshotInfo("s", "luau", null, null, -1,
            Map.of(0, new MemoryCategory(0, "main", 2_000), 1, new MemoryCategory(1, "\u6f22\u5b57 ui", 1_500)),
            List.of()));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LoadReport.print(s, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        String table = out.substring(out.indexOf("  by type:\n"), out.indexOf("  roots:"));
        assertEquals("""
              by type:
                type                                     | objects | bytes
               ------------------------------------------+---------+-------
                ComponentSystemWithAVeryLong… (56 chars) |       1 | 1,000
                string                                   |       3 |   100
                table                                    |       2 |   100
                Point                                    |       1 |   100
                bad\\x1b[2Jtype                           |       1 |   100
                表格                                     |       1 |     7
              by memory category:
                id | category | objects | object bytes | VM bytes
               ----+----------+---------+--------------+----------
                 0 | main     |       5 |          200 |    2,000
                 1 | 漢字 ui  |       4 |        1,207 |    1,500
            """, table);
    }

    /** 25 types: the 20 largest shown, the other 5 counted in one line with their objects and bytes. */
    @Test
    void manyTypesAreCutToTheLargest() {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int value = b.kind("value");
        b.defineObject("0x10", "table", 8, 0, null);
        for (int t = 1; t <= 25; t++) {
            // type tNN: one object of 100 + NN bytes
            String address = "0x" + Integer.toHexString(0x100 + t);
            b.defineObject(address, String.format("t%02d", t), 100 + t, 0, null);
            b.addReference(b.objectId(address), value, b.name("k" + t), 0);
        }
        b.addRoot("registry", b.objectId("0x10"));
        HeapSnapshot s = b.build(new SnapshotInfo("many", "luau", null, null, -1, Map.of(), List.of()));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        LoadReport.print(s, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        String table = out.substring(out.indexOf("  by type:\n"), out.indexOf("  roots:"));
        // shown: t25 .. t06 (20 rows); left out: t05 .. t01 (105 .. 101 bytes) and table (8 bytes)
        assertEquals("    t06  |       1 |   106", table.lines().toList().get(22), table);
        assertEquals("    \u2026 6 more type(s): 6 objects, 523 bytes (heapload query summary -p snapshot=many lists them all)",
            table.lines().toList().get(23));
    }
}
