package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.micropython.HeapMap;
import dev.heapload.micropython.MicroPythonDump;
import dev.heapload.report.svg.HeapLayoutSvg;

/** {@code heapload micropython} and MicroPython dumps through the default load command. */
class MicroPythonCommandTest {

    @TempDir
    Path tmp;

    static Path fixture(String name) {
        return Path.of(System.getProperty("heapload.testdata", "../testdata"), "micropython", name);
    }

    /** shared/testdata/micropython/{@code name}; skips the test with a message when ../shared is absent. */
    static Path shared(String name) {
        String s = System.getProperty("heapload.shared");
        Path dir = s == null ? null : Path.of(s, "testdata", "micropython", name);
        Assumptions.assumeTrue(dir != null && Files.isDirectory(dir),
            "shared test data not found (heapload.shared = " + s + "): MicroPython RAM dump CLI test skipped");
        return dir;
    }

    static void assertValidXml(Path svg) throws Exception {
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
    }

    @Test
    void printedMapGivesFiguresKindsAndALayout() throws Exception {
        Path svg = tmp.resolve("heap.svg");
        var r = HeapLoadCommandTest.run("micropython", "--printed-map", fixture("v1.18-qemu-mem_info.txt").toString(),
            "--svg", svg.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("  GC: total: 516160, used: 216048, free: 300112\n"
            + "   No. of 1-blocks: 11015, 2-blocks: 49, max blk sz: 2048, max free sz: 18757\n"), r.out());
        assertTrue(r.out().contains("largest free run 18,757 blocks = 300,112 bytes"), r.out());
        assertTrue(r.out().contains("the printed GC: header agrees with the map"), r.out());
        assertTrue(r.out().matches("(?s).*\\n    T tuple +\\| +111 \\| +113 \\| +1,808\n.*"), r.out());
        assertValidXml(svg);
        assertTrue(Files.readString(svg).contains("<title>0x27c10 other, 2 blocks (32 bytes)</title>"));
    }

    @Test
    void twoPrintedMapsAreComparedBlockByBlock() {
        Path log = shared("unix-x64-standard").resolve("gdb_session_and_program_stdout.log");
        var r = HeapLoadCommandTest.run("micropython", "--printed-map", log.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains(log + " map 2 (line 231) against " + log + " map 1 (line 11): 7,003 blocks newly "
            + "used, 0 freed, 63 hold another kind\n  allocations per kind: bytearray/array +1,001 list +601 str/bytes "
            + "+1,000 tuple +1,000 other +2,602\n"), r.out());
    }

    @Test
    void ramDumpReportWithoutLoading() {
        Path d = shared("qemu-arm-mps2-an385-v1.18");
        var r = HeapLoadCommandTest.run("micropython", "--regions", d.resolve("dump2/regions.json").toString(),
            "--map", d.resolve("firmware.map").toString(), "--sp", "0x3fff10", "--no-load", "--heap-map");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("MicroPython heap: 1 area(s), 16-byte blocks, 32-bit, tables: ATB; qstr pools: 3 "
            + "(v1.18 format)\n"), r.out());
        assertTrue(r.out().contains("  GC: total: 516160, used: 330096, free: 186064\n"), r.out());
        assertTrue(r.out().contains("GC memory layout; from 27c10:\n00000: h=ShhBLShh=ShhSSh====h==h"), r.out());
        assertTrue(r.out().contains("  stack scanned: 0x3fff10..0x3fffec (220 bytes)\n"), r.out());
        assertTrue(r.out().contains("  objects     17,308 (330,096 bytes shallow)\n"), r.out());
    }

    @Test
    void twoRegionsFilesLoadWithTheDefaultCommandAndGiveTheLeakAnswer() {
        Path d = shared("unix-x64-standard");
        var r = HeapLoadCommandTest.run("--db", tmp.resolve("db").toString(), "--no-progress",
            d.resolve("dump1/regions.json").toString(), d.resolve("dump2/regions.json").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("snapshot dump2 (micropython) from " + d.resolve("dump2/regions.json").toAbsolutePath().normalize()), r.out());
        assertTrue(r.out().contains("leaks: dump2 relative to dump1: 5,605 new reachable objects, 206,944 bytes, in 3 "
            + "leak group(s)\n  group 1: 5,003 objects, 183,616 new bytes, 199,616 retained bytes, 1 map_table head(s), "
            + "path:\n      root mp_state_ctx.vm.dict_main.map.table (map_table)\n      _cache in map_table\n"), r.out());
        assertTrue(r.out().contains("  group 2: 600 objects, 23,264 new bytes, 23,264 retained bytes, 1 list head(s), "
            + "path:\n      root mp_state_ctx.vm.dict_main.map.table (map_table)\n      leaked_lists in map_table\n"), r.out());
    }

    @Test
    void reportOfTwoRegionsFilesHasTheFragmentationFiguresAndTheHeapLayout() throws Exception {
        Path d = shared("unix-x64-standard");
        Path out = tmp.resolve("report");
        var r = HeapLoadCommandTest.run("report", "--db", tmp.resolve("db").toString(), "--out", out.toString(),
            "--format", "html,json", d.resolve("dump1/regions.json").toString(), d.resolve("dump2/regions.json").toString());
        assertEquals(0, r.code(), r.err());
        String html = Files.readString(out.resolve("report.html"));
        String section = html.substring(html.indexOf("<section id=\"micropython-heap\">"));
        section = section.substring(0, section.indexOf("</section>"));
        // the same figures `heapload micropython --regions dump2/regions.json` prints
        var cli = HeapLoadCommandTest.run("micropython", "--no-load", "--regions", d.resolve("dump2/regions.json").toString());
        assertEquals(0, cli.code(), cli.err());
        String largest = cli.out().lines().filter(l -> l.contains("largest free run")).findFirst().orElseThrow().trim();
        assertTrue(section.contains(largest), largest + " in " + section);
        assertTrue(section.contains("<svg") && section.contains("MicroPython heap of dump2"), "heap layout picture");
        assertFalse(section.contains("<?xml"), "embedded without its XML prolog");
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve("report.json").toFile());
        boolean found = false;
        for (var sec : json.get("sections")) {
            if (sec.get("what").asText().equals("@micropython-heap")) {
                found = sec.get("rows").toString().contains("largest free run");
            }
        }
        assertTrue(found, "the figures are in the JSON too");
    }

    @Test
    void shortRamImageIsOneLineAndExitOne() throws IOException {
        Path d = shared("qemu-arm-mps2-an385");
        Path ram = tmp.resolve("ram.bin");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(d.resolve("dump1/ram.bin.gz")))) {
            Files.write(ram, in.readNBytes(200_000));
        }
        var r = HeapLoadCommandTest.run("micropython", "--ram", ram.toString(), "--ram-base", "_sdata", "--symbols",
            d.resolve("symbols.nm.txt").toString(), "--no-load");
        assertEquals(1, r.code());
        assertEquals("heapload: ram.bin: byte 200000: image ends at 0x5f5cc but the pool of heap area 0 extends to "
            + "0xaeb90 per the symbols (325060 bytes missing): image too short, or symbols of another build?\n", r.err());
    }

    @Test
    void usageErrorsExitTwo() {
        var r = HeapLoadCommandTest.run("micropython");
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("heapload: give either --regions FILE or --ram FILE --ram-base ADDR"), r.err());
    }

    @Test
    void outputIntoAMissingDirectoryIsAUsageErrorBeforeAnyWork() {
        Path missing = tmp.resolve("no-such-dir").resolve("heap.svg");
        var r = HeapLoadCommandTest.run("micropython", "--printed-map", fixture("v1.18-qemu-mem_info.txt").toString(),
            "--svg", missing.toString());
        assertEquals(2, r.code());
        assertEquals("", r.out(), "nothing reported before the error");
        assertTrue(r.err().startsWith("heapload: --svg " + missing + ": no directory " + missing.getParent() + "\n"), r.err());
        var tree = HeapLoadCommandTest.run("tree", "--json", missing.toString(),
            Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", "after.json").toString());
        assertEquals(2, tree.code());
        assertEquals("", tree.out());
        assertTrue(tree.err().startsWith("heapload: --json " + missing + ": no directory "), tree.err());
    }

    @Test
    void svgEscapesLabelsFromTheHeap() throws Exception {
        byte[] letters = "S.=h".getBytes();
        letters[2] = '.';
        HeapMap map = new HeapMap(List.of(new HeapMap.Area(0x1000, "Sh..".getBytes())), 16, true);
        List<MicroPythonDump.Allocation> allocations = List.of(
            new MicroPythonDump.Allocation(0x1000, 1, 16, 0, 0, "str", 'S', "<script>&\"'\u0001\ud800"),
            new MicroPythonDump.Allocation(0x1010, 1, 16, 0, 1, "Evil<Class>", 'h', null));
        StringWriter w = new StringWriter();
        HeapLayoutSvg.write(map, allocations, "t & <t>", w);
        Path svg = tmp.resolve("e.svg");
        Files.writeString(svg, w.toString());
        assertValidXml(svg);
        assertTrue(w.toString().contains("0x1000 str, 1 blocks (16 bytes): &lt;script&gt;&amp;&quot;&#39;\\x01\\ud800"),
            w.toString());
        assertTrue(w.toString().contains("Evil&lt;Class&gt;"));
    }
}
