package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The Lua readers on the bundled fixtures of testdata/lua (no interpreter and no ../shared needed): the
 * per-version weak policy on the weak-tables-nogc dumps, format detection, and bad input (a dump cut short,
 * a record of unknown type, an address referenced but never defined, another format).
 */
class LuaBundledFixturesTest {

    @TempDir
    Path tmp;

    static Path fixture(String version, String which) {
        String testdata = System.getProperty("heapload.testdata", "../testdata");
        return Path.of(testdata, "lua", "weak-tables-nogc", version, which + ".json");
    }

    private static Map<String, Integer> counts(Object... kv) {
        Map<String, Integer> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Integer) kv[i + 1]);
        }
        return m;
    }

    private static LuaRuns.Pair pair(String version) throws IOException {
        LuaHeapDumpReader r = new LuaHeapDumpReader();
        return new LuaRuns.Pair(r.read(fixture(version, "before"), "before", Progress.NONE),
            r.read(fixture(version, "after"), "after", Progress.NONE));
    }

    private static int newUnreachable(LuaRuns.Pair p, String type) {
        int n = 0;
        for (int o = 0; o < p.after.objectCount(); o++) {
            if (p.diff.isNew()[o] && !p.analysis.reachable()[o] && p.after.type(o).equals(type)) {
                n++;
            }
        }
        return n;
    }

    private static int flagged(HeapSnapshot s, int flag) {
        int n = 0;
        for (int r = 0; r < s.referenceCount(); r++) {
            if ((s.referenceFlags(r) & flag) != 0) {
                n++;
            }
        }
        return n;
    }

    @Test
    void lua54EphemeronsLeaveSixTables() throws IOException {
        LuaRuns.Pair p = pair("lua54");
        assertEquals("lua5.4", p.after.info().vm());
        assertEquals(463, p.after.objectCount());
        assertEquals(counts("string", 10, "table", 6), p.newReachableByType(true));
        // 27 dead objects + 27 meta tables + 5 {eph} keys + 5 {back} values
        assertEquals(64, newUnreachable(p, "table"));
        // Registry.meta: 30 objects + 5 eph keys, each value an ephemeron
        assertEquals(35, flagged(p.after, HeapSnapshot.EPHEMERON_VALUE));
        assertEquals(0, flagged(p.after, HeapSnapshot.WEAK_KEY_VALUE));
        assertEquals(List.of("registry", "globals", "mainthread", "metatable(string)", "callstack"),
            p.after.roots().stream().map(HeapSnapshot.GcRoot::name).toList());
    }

    @Test
    void lua51WeakKeyValuesKeepTheirCyclesAlive() throws IOException {
        LuaRuns.Pair p = pair("lua51");
        assertEquals("lua5.1", p.after.info().vm());
        assertEquals(575, p.after.objectCount());
        assertEquals(counts("string", 12, "table", 16), p.newReachableByType(true));
        assertEquals(54, newUnreachable(p, "table"));
        assertEquals(35, flagged(p.after, HeapSnapshot.WEAK_KEY_VALUE));
        assertEquals(0, flagged(p.after, HeapSnapshot.EPHEMERON_VALUE));
        // 5.1: no main-thread object; the calling frames are roots
        assertTrue(p.after.roots().stream().anyMatch(r -> r.name().equals("stack program.lua:27 Registry")),
            () -> p.after.roots().toString());
    }

    @Test
    void reachabilityTreeFollowsLiveEntriesOnly() throws IOException {
        // the tree command's breadth-first charge: the same new objects as the analysis finds retained
        for (String v : List.of("lua54", "lua51")) {
            LuaRuns.Pair p = pair(v);
            ReachabilityTree.Node root = ReachabilityTree.build(p.after, o -> p.diff.isNew()[o], ReachabilityTree.Split.NONE);
            assertEquals(v.equals("lua54") ? 16 : 28, root.totalCount(), v);
        }
    }

    @Test
    void stringsOf51AreIdentifiedByContent() throws IOException {
        LuaRuns.Pair p = pair("lua51");
        int registryKey = -1;
        for (int o = 0; o < p.after.objectCount(); o++) {
            if ("_LOADED".equals(p.after.label(o))) {
                registryKey = o;
            }
        }
        assertTrue(registryKey >= 0);
        assertEquals(LuaHeapDumpReader.contentAddress("_LOADED", null), p.after.address(registryKey));
        assertTrue(p.after.address(registryKey).matches("0x[4-7][0-9a-f]{15}"), p.after.address(registryKey));
    }

    @Test
    void detection() throws IOException {
        assertEquals("lua", DumpReaders.detect(fixture("lua54", "after")));
        Path raw = tmp.resolve("raw.lua");
        Files.writeString(raw, "return {\n[\"0x10\"] = \"table\\\n(nil) : [registry]\\\n\",\n}\n");
        assertEquals("lua-snapshot", DumpReaders.detect(raw));
        Path rawJson = tmp.resolve("raw.json");
        Files.writeString(rawJson, "{\n\"0x10\": \"table {56}\\n(nil) : [registry]\\n\"\n}\n");
        assertEquals("lua-snapshot", DumpReaders.detect(rawJson));
        HeapSnapshot s = DumpReaders.read(rawJson, null, Progress.NONE);
        assertEquals(56, s.shallowSize(0));
        assertEquals("registry", s.roots().get(0).name());
        assertEquals(1, DumpReaders.read(raw, null, Progress.NONE).objectCount());
        Path odd = tmp.resolve("odd.json");
        Files.writeString(odd, "{\"0x10\": \"table {56}\\n(nil) : [registry]\\n\", \"0x20\": \"gizmo {8}\\n0x10 : g\\n\","
            + " \"0x30\": \"x.lua:7 {40}\\n0x10 : f\\n\"}");
        HeapSnapshot o = DumpReaders.read(odd, null, Progress.NONE);
        assertEquals(List.of("table", "unknown", "function"), List.of(o.type(0), o.type(1), o.type(2)));
        assertTrue(o.info().warnings().contains(
            "1 record(s) with an unknown header kept as type \"unknown\" (first: \"gizmo\" (record of 0x20, byte 45))"),
            () -> o.info().warnings().toString());
    }

    private Path write(String name, String text) throws IOException {
        Path f = tmp.resolve(name);
        Files.writeString(f, text, StandardCharsets.UTF_8);
        return f;
    }

    @Test
    void gzipIsRecognisedByItsMagicBytes() throws IOException {
        Path gz = tmp.resolve("after.dump");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(Files.readAllBytes(fixture("lua54", "after")));
        }
        assertEquals("lua", DumpReaders.detect(gz));
        HeapSnapshot s = DumpReaders.read(gz, null, Progress.NONE);
        assertEquals(463, s.objectCount());
        assertEquals("after", s.info().id());
    }

    @Test
    void aDumpCutShortIsOneLineWithTheByteOffset() throws IOException {
        Path cut = tmp.resolve("cut.json");
        Files.write(cut, java.util.Arrays.copyOf(Files.readAllBytes(fixture("lua54", "after")), 30000));
        DumpFormatException e = assertThrows(DumpFormatException.class,
            () -> new LuaHeapDumpReader().read(cut, "cut", Progress.NONE));
        assertTrue(e.getMessage().matches(".*cut\\.json: byte \\d+: unexpected end of input \\(truncated dump\\?\\)"), e.getMessage());
        assertEquals(30000, e.byteOffset(), e.getMessage());
    }

    @Test
    void unknownRecordTypeAndUndefinedAddressAreWarnings() throws IOException {
        String text = Files.readString(fixture("lua54", "before"), StandardCharsets.UTF_8);
        String weird = text.replaceFirst("\"type\":\"userdata\"", "\"type\":\"gizmo\"")
            .replaceFirst("\"metatable\":\"0x[0-9a-f]+\"", "\"metatable\":\"0xdeadbeef\"");
        HeapSnapshot s = new LuaHeapDumpReader().read(write("weird.json", weird), "w", Progress.NONE);
        List<String> w = s.info().warnings();
        assertEquals(1, w.size(), w::toString);
        assertTrue(w.get(0).startsWith("1 record(s) of unknown type (first: \"gizmo\" at byte "), w::toString);
        // the metatable 0xdeadbeef: a reference to nothing, below every object of the dump
        var d = s.danglingReferences();
        assertEquals(1, d.total());
        assertEquals(1, d.count(dev.heapload.model.DanglingReferences.Reason.OUTSIDE_HEAP));
        assertEquals(s.referenceCount() + 1, d.producerReferences());
    }

    @Test
    void otherInputIsOneLine() throws IOException {
        LuaHeapDumpReader r = new LuaHeapDumpReader();
        assertEquals("x.json: byte 11: not a Lua heap snapshot: \"format\" is not \"lua-heap-snapshot\"",
            assertThrows(DumpFormatException.class, () -> r.read(write("x.json", "{\"format\": \"luau\"}"), "x", Progress.NONE))
                .getMessage().replace(tmp + "/", ""));
        assertTrue(assertThrows(DumpFormatException.class, () -> r.read(write("e.json", ""), "e", Progress.NONE))
            .getMessage().contains("does not start with a JSON object"));
        LuaSnapshotRawReader raw = new LuaSnapshotRawReader();
        String cut = assertThrows(DumpFormatException.class, () -> raw.read(write("r.lua",
            "return {\n[\"0x10\"] = \"table\\\n(nil) : [regis"), "r", Progress.NONE)).getMessage().replace(tmp + "/", "");
        assertEquals("r.lua: byte 42: unexpected end of input inside a string (truncated file?)", cut); // 42 = the file's length
        assertThrows(DumpFormatException.class, () -> DumpReaders.read(fixture("lua54", "after"), "x", Progress.NONE, "nope"));
    }
}
