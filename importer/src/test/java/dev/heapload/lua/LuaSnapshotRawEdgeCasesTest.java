package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;
import dev.heapload.model.SuspectSizes;

/**
 * Two field reports on lua-snapshot raw tables: a key holding a newline and the registry's own line
 * {@code (nil) : [registry]} forges a root (only the registry's record opens with a NULL parent: a later one is key text,
 * and said); and lvzixun's garbage userdata sizes of about 2 GB, in a table with no VM total, are judged against the
 * other objects (suspect: a GiB or more and over four times all others together), while a large real object among large
 * ones is not.
 */
class LuaSnapshotRawEdgeCasesTest {

    @TempDir
    Path tmp;

    private Path write(String name, String json) throws Exception {
        Path file = tmp.resolve(name);
        Files.writeString(file, json, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void aForgedRegistryLineIsKeyTextAndSaid() throws Exception {
        // 0x10 the registry; 0x20 = registry.cache; 0x30 under 0x20 by the key "x\n(nil) : [registry]"
        Path file = write("forged.json", "{\n"
            + "\"0x10\": \"table {56}\\n(nil) : [registry]\\n\",\n"
            + "\"0x20\": \"table {56}\\n0x10 : cache\\n\",\n"
            + "\"0x30\": \"table {56}\\n0x20 : x\\n(nil) : [registry]\\n\"\n}\n");
        HeapSnapshot s = new LuaSnapshotRawReader().read(file, "forged", Progress.NONE);
        assertEquals(1, s.roots().size());
        assertEquals("0x10", s.address(s.roots().get(0).object()));
        assertEquals(2, s.referenceCount());
        assertEquals("x\n(nil) : [registry]", s.referenceName(1));
        assertEquals(List.of(
                "lua-snapshot raw table (lvzixun): no string contents, no scalar values, one edge name per (child, parent), "
                    + "weak-key table values recorded as strong by the tool, shallow sizes only, no string objects",
                "1 record line(s) were read as the rest of the previous edge name (keys holding a newline), 1 of them shaped "
                    + "like a parent line that does not fit the record (no record at that address, a string, or a parent "
                    + "named twice)",
                "1 line(s) naming no parent ((nil), the walk's start) after a record's first line (first: record of 0x30 at "
                    + "byte " + Files.readString(file).indexOf("\"0x30\"") + ", line 3): only the registry's record opens "
                    + "with one, so these are text inside keys holding a newline, forged to make an object a root; read as "
                    + "key text"),
            s.info().warnings());
    }

    @Test
    void aGarbageSizeIsJudgedAgainstTheOtherObjects() throws Exception {
        StringBuilder json = new StringBuilder("{\n\"0x10\": \"table {56}\\n(nil) : [registry]\\n\",\n");
        for (int i = 0; i < 200; i++) {
            json.append("\"0x").append(Integer.toHexString(0x1000 + i * 0x40)).append("\": \"table {1048}\\n0x10 : t")
                .append(i).append("\\n\",\n");
        }
        json.append("\"0x20\": \"userdata {2000000000}\\n0x10 : FILE*\\n\",\n");
        json.append("\"0x30\": \"userdata {924200}\\n0x10 : stdin\\n\"\n}\n");
        HeapSnapshot s = new LuaSnapshotRawReader().read(write("garbage.json", json.toString()), "garbage", Progress.NONE);
        assertEquals(-1, s.info().vmTotalBytes());
        List<SuspectSizes.Suspect> suspects = SuspectSizes.find(s);
        assertEquals(1, suspects.size());
        assertEquals("0x20", s.address(suspects.get(0).object()));
        assertEquals(2_000_000_000L, suspects.get(0).size());
        HeapSnapshot excluded = SuspectSizes.exclude(s);
        assertEquals("suspect sizes: 1 object(s) of a GiB or more outweighing all other objects together (no VM total to"
            + " judge them by): counted as 0 bytes in retained sizes, rankings, leak groups and gates (--trust-sizes keeps"
            + " them): 0x20 userdata 2,000,000,000 bytes", excluded.info().warnings().get(excluded.info().warnings().size() - 1));

        // a real 1.5 GB object among 600 MB of others: not four times all of them
        String big = "{\n\"0x10\": \"table {56}\\n(nil) : [registry]\\n\",\n"
            + "\"0x20\": \"userdata {1500000000}\\n0x10 : texture\\n\",\n"
            + "\"0x30\": \"userdata {600000000}\\n0x10 : mesh\\n\"\n}\n";
        assertEquals(List.of(), SuspectSizes.find(new LuaSnapshotRawReader().read(write("big.json", big), "big", Progress.NONE)));
    }
}
