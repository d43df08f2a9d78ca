package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dumpers/micropython/heapload_gdb.py, heapdump.py's area walk and heapload's MicroPython reader on targets other
 * than the 64-bit little-endian unix port: 32-bit little-endian ARM, 32-bit big-endian PowerPC, split heaps of two
 * and three areas, with and without debug info. The target is dumpers/micropython/testtarget/mpsim.c, a
 * structure-faithful simulator of MicroPython's heap (not MicroPython: see docs/guide/micropython-dumps.md), compiled with
 * the Debian cross compiler and run under qemu-user's gdbstub; gdb-multiarch stops it twice in
 * {@code mp_micropython_mem_info} (before and after its cache grows) and takes a dump each time. Each dump must read
 * back with exactly what the program made: the {@code GC:} figures it printed, its objects, bytes, strong and weak
 * references and the objects per type; heapdump.py's area walk must find the same areas, and its whole stream,
 * made by CPython from the images as if on that board, must read back through {@code capture --stream} with the same
 * figures. Skipped with one line when gdb-multiarch, the qemu binary or the cross
 * compiler is absent (.ci/run installs them).
 */
@Tag("process")
class MicroPythonCrossTargetTest {

    @TempDir
    Path tmp;

    /** A build of the simulator: cross compiler, qemu-user binary, -D options, with or without DWARF. */
    record Target(String name, String gcc, String qemu, List<String> defines, boolean debugInfo, int areas,
                  boolean littleEndian) {
    }

    static final String ARM_GCC = "arm-linux-gnueabi-gcc";
    static final String PPC_GCC = "powerpc-linux-gnu-gcc";

    @Test
    void arm32LittleEndianOneAreaFoundWithoutDebugInfo() throws Exception {
        check(new Target("arm32-le", ARM_GCC, "qemu-arm", List.of("-DSPLIT_HEAP=1"), false, 1, true));
    }

    @Test
    void arm32LittleEndianSplitHeapOfThreeAreasByDebugInfo() throws Exception {
        check(new Target("arm32-le-split3", ARM_GCC, "qemu-arm", List.of("-DSPLIT_HEAP=3"), true, 3, true));
    }

    @Test
    void powerpc32BigEndianSplitHeapWithWeakReferencesFoundWithoutDebugInfo() throws Exception {
        check(new Target("ppc32-be-split2-weak", PPC_GCC, "qemu-ppc", List.of("-DSPLIT_HEAP=2", "-DWEAKREF=1"), false, 2,
            false));
    }

    @Test
    void powerpc32BigEndianSplitHeapByDebugInfo() throws Exception {
        check(new Target("ppc32-be-split2-weak-dwarf", PPC_GCC, "qemu-ppc", List.of("-DSPLIT_HEAP=2", "-DWEAKREF=1"), true,
            2, false));
    }

    /** What the program printed at one stop. */
    record Expected(String gcFigures, long objects, long bytes, long strong, long weak, long garbage,
                    Map<String, long[]> types) {
    }

    private void check(Target t) throws Exception {
        requireTools(t);
        Path repo = MicroPythonGdbDumpTest.repoRoot();
        Path exe = tmp.resolve("mpsim-" + t.name());
        List<String> cc = new ArrayList<>(List.of(t.gcc(), "-O1", "-static", "-o", exe.toString(),
            repo.resolve("dumpers/micropython/testtarget/mpsim.c").toString()));
        if (t.debugInfo()) {
            cc.add(1, "-g");
        }
        cc.addAll(t.defines());
        MicroPythonGdbDumpTest.run(cc, tmp.resolve("cc.log"));

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path programOut = tmp.resolve("program.txt");
        Process target = new ProcessBuilder(t.qemu(), "-g", String.valueOf(port), exe.toString()).redirectErrorStream(true)
            .redirectOutput(programOut.toFile()).start();
        Path before = tmp.resolve("before");
        Path after = tmp.resolve("after");
        Path commands = tmp.resolve("dump.gdb");
        Files.writeString(commands, String.join("\n",
            "set pagination off",
            "set confirm off",
            "source " + repo.resolve("dumpers/micropython/heapload_gdb.py"),
            "file " + exe,
            // qemu opens its gdbstub port a moment after it starts: try again (up to 5 minutes, a bound for a hang)
            "python",
            "import time",
            "for attempt in range(3000):",
            "    try:",
            "        gdb.execute('target remote 127.0.0.1:" + port + "')",
            "        break",
            "    except gdb.error:",
            "        time.sleep(0.1)",
            "end",
            "break mp_micropython_mem_info",
            "continue",
            "heapload-dump " + before + " --label before",
            "continue",
            // small reads, not a multiple of the word size, as a stub with a small packet size needs them
            "heapload-dump " + after + " --label after" + (t.debugInfo() ? "" : " --chunk 100"),
            "continue",
            ""));
        String session;
        try {
            session = MicroPythonGdbDumpTest.run(List.of("gdb-multiarch", "-q", "-batch", "-x", commands.toString()),
                tmp.resolve("gdb.log"));
            assertTrue(target.waitFor(5, TimeUnit.MINUTES), "the target did not end");
        } finally {
            target.destroy();
        }
        String program = Files.readString(programOut, StandardCharsets.UTF_8);
        assertTrue(program.contains("done 120"), program + session);
        List<Expected> expected = expected(program);
        assertEquals(2, expected.size(), program);
        Matcher timing = Pattern.compile("heapload-dump: .* read in ([0-9.]+) s").matcher(session);
        while (timing.find()) {
            System.out.println("heapload-dump on " + t.name() + ": " + timing.group());
        }

        int i = 0;
        for (Path dir : List.of(before, after)) {
            Expected e = expected.get(i++);
            String info = Files.readString(dir.resolve("info.txt"));
            assertTrue(info.contains("areas_found_by=" + (t.debugInfo() ? "debug info" : "invariants")), info);
            assertTrue(info.contains("word_size=4\nlittle_endian=" + t.littleEndian() + "\n"), info);
            assertTrue(info.contains("micropython_version=3.4.0; mpsim (MicroPython layout v1.29)"), info);
            var r = HeapLoadCommandTest.run("micropython", dir.toString(), "--no-load");
            assertEquals(0, r.code(), r.err());
            String out = r.out();
            assertTrue(out.startsWith(String.format(Locale.ROOT, "MicroPython heap: %d area(s), 16-byte blocks, 32-bit, "
                + "tables: ATB + gap + FTB%s; qstr pools: 1 (v1.19+ format)\n", t.areas(),
                t.defines().contains("-DWEAKREF=1") ? " + WTB" : "")), out);
            assertEquals(List.of(e.gcFigures()), MicroPythonGdbDumpTest.gcFigures(out), out);
            assertTrue(out.contains(String.format(Locale.ROOT, "\n  objects     %,d (%,d bytes shallow)\n", e.objects(),
                e.bytes())), out);
            assertTrue(out.contains(String.format(Locale.ROOT, "\n  references  %,d (%,d strong, %,d weak)\n",
                e.strong() + e.weak(), e.strong(), e.weak())), out);
            assertEquals(show(e.types()), show(byType(out)), out);
            long unreachable = MicroPythonCaptureTest.number(out, "unreachable from exported roots ([0-9,]+) objects");
            assertTrue(unreachable <= e.garbage(), "only garbage is unreachable: " + out);
            areaWalkOfHeapdump(dir, info, t);
            // labels read from bit fields and qstrs (at the other end of the word on big-endian targets)
            var dump = dev.heapload.micropython.MicroPythonFiles.read(dir.resolve("regions.json"), "s" + i);
            List<String> labels = new ArrayList<>();
            for (var a : dump.allocations()) {
                if (a.type().equals("dict") || a.type().equals("type")) {
                    labels.add(a.type() + " " + a.label());
                }
            }
            assertEquals(List.of("dict " + (i == 1 ? 20 : 120) + " items", "type Node"), labels.stream().sorted().toList());
        }
        onBoardDumperOnTheImages(after, expected.get(1), t);
    }

    /**
     * heapdump.py's {@code find_areas} (what the on-board dumper walks) run by CPython on the dumped images through a
     * stand-in {@code uctypes.bytearray_at}: the same areas as heapload-dump found, in the same order.
     */
    private void areaWalkOfHeapdump(Path dir, String info, Target t) throws Exception {
        if (!MicroPythonGdbDumpTest.runs(List.of("python3", "-c", "pass"))) {
            System.out.println("python3 not found: heapdump.py's area walk not checked on " + t.name());
            return;
        }
        Path script = tmp.resolve("walk.py");
        Files.writeString(script, String.join("\n",
            "import json, os, sys, types",
            "d, dumpers, name = sys.argv[1], sys.argv[2], 'mp_state_ctx'",
            "doc = json.load(open(os.path.join(d, 'regions.json')))",
            "images = [(int(r['base'], 16), open(os.path.join(d, r['file']), 'rb').read()) for r in doc['regions']]",
            "def bytearray_at(addr, n):",
            "    for base, data in images:",
            "        if base <= addr and addr + n <= base + len(data):",
            "            return bytearray(data[addr - base:addr - base + n])",
            "    raise OSError('unmapped 0x%x' % addr)",
            "sys.modules['uctypes'] = types.SimpleNamespace(bytearray_at=bytearray_at)",
            "sys.modules['micropython'] = types.SimpleNamespace(viper=lambda f: f, native=lambda f: f)",
            "sys.path.insert(0, dumpers)",
            "import heapdump",
            "for line in open(os.path.join(d, 'symbols.nm.txt')):",
            "    f = line.split()",
            "    if f[-1] == name:",
            "        ctx, size = int(f[0], 16), int(f[1], 16)",
            "areas, top = heapdump.find_areas(ctx, size, doc['word_size'], doc['little_endian'], True)",
            "for a in areas:",
            "    print('image 0x%x atb 0x%x end 0x%x' % a)",
            "print('stack_top 0x%x' % top)",
            ""));
        String walk = MicroPythonGdbDumpTest.run(List.of("python3", script.toString(), dir.toString(),
            MicroPythonGdbDumpTest.repoRoot().resolve("dumpers/micropython").toString()), tmp.resolve("walk.log"));
        StringBuilder want = new StringBuilder();
        Matcher m = Pattern.compile("area(\\d+): struct=(\\S+) gc_alloc_table_start=(0x[0-9a-f]+) .*gc_pool_end=(0x[0-9a-f]+)")
            .matcher(info);
        while (m.find()) {
            want.append(String.format(Locale.ROOT, "image %s atb %s end %s\n", m.group(2).equals("mp_state_ctx") ? m.group(3)
                : m.group(2), m.group(3), m.group(4)));
        }
        Matcher top = Pattern.compile("stack_top=(0x[0-9a-f]+)").matcher(info);
        assertTrue(top.find(), info);
        want.append("stack_top ").append(top.group(1)).append('\n');
        assertEquals(want.toString(), walk);
    }

    /**
     * heapdump.py's whole dump (area walk, header, plain Python encoder, CRC lines) run by CPython on the images of a
     * dump as if on that board (word size and byte order of the target; the stack left out), then read by
     * {@code heapload micropython capture --stream}: the same heap as the gdb dump, figure for figure.
     */
    private void onBoardDumperOnTheImages(Path dir, Expected e, Target t) throws Exception {
        if (!MicroPythonGdbDumpTest.runs(List.of("python3", "-c", "pass"))) {
            System.out.println("python3 not found: heapdump.py's stream not checked on " + t.name());
            return;
        }
        Path helper = tmp.resolve("heapdump_on_images.py");
        try (var in = getClass().getResourceAsStream("heapdump_on_images.py")) {
            Files.write(helper, in.readAllBytes());
        }
        Path stream = tmp.resolve("stream.txt");
        String run = MicroPythonGdbDumpTest.run(List.of("python3", helper.toString(), dir.toString(),
            MicroPythonGdbDumpTest.repoRoot().resolve("dumpers/micropython").toString(), stream.toString()),
            tmp.resolve("heapdump.log"));
        assertEquals("True\n", run);
        Path captured = tmp.resolve("captured");
        var c = HeapLoadCommandTest.run("micropython", "capture", "--stream", stream.toString(), "--symbols",
            dir.resolve("symbols.nm.txt").toString(), captured.toString());
        assertEquals(0, c.code(), c.err());
        String regions = Files.readString(captured.resolve("regions.json"));
        assertTrue(Pattern.compile("\"little_endian\" ?: ?" + t.littleEndian()).matcher(regions).find()
            && Pattern.compile("\"word_size\" ?: ?4").matcher(regions).find(), regions);
        var r = HeapLoadCommandTest.run("micropython", captured.toString(), "--symbols",
            dir.resolve("symbols.nm.txt").toString(), "--no-load");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(e.gcFigures()), MicroPythonGdbDumpTest.gcFigures(r.out()), r.out());
        assertTrue(r.out().contains(String.format(Locale.ROOT, "\n  objects     %,d (%,d bytes shallow)\n", e.objects(),
            e.bytes())), r.out());
        assertTrue(r.out().contains(String.format(Locale.ROOT, "\n  references  %,d (%,d strong, %,d weak)\n",
            e.strong() + e.weak(), e.strong(), e.weak())), r.out());
        assertEquals(show(e.types()), show(byType(r.out())), r.out());
    }

    static void requireTools(Target t) throws InterruptedException {
        for (String tool : List.of("gdb-multiarch", t.qemu(), t.gcc())) {
            Assumptions.assumeTrue(MicroPythonGdbDumpTest.runs(List.of(tool, "--version")), tool + " not found (apt-get "
                + "install gdb-multiarch qemu-user gcc-arm-linux-gnueabi gcc-powerpc-linux-gnu): MicroPython " + t.name()
                + " target test skipped");
        }
    }

    /** The "expect" lines the simulator printed at each stop, after its GC: figures. */
    static List<Expected> expected(String program) {
        List<String> figures = MicroPythonGdbDumpTest.gcFigures(program);
        List<Expected> out = new ArrayList<>();
        Pattern stop = Pattern.compile("expect stop (\\d+) objects (\\d+) bytes (\\d+) strong (\\d+) weak (\\d+)\n"
            + "expect garbage (\\d+)\n((?:expect type \\S+ \\d+ \\d+\n)+)");
        Matcher m = stop.matcher(program);
        while (m.find()) {
            Map<String, long[]> types = new LinkedHashMap<>();
            for (String line : m.group(7).split("\n")) {
                String[] f = line.split(" ");
                types.put(f[2], new long[] {Long.parseLong(f[3]), Long.parseLong(f[4])});
            }
            out.add(new Expected(figures.get(out.size()), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                Long.parseLong(m.group(4)), Long.parseLong(m.group(5)), Long.parseLong(m.group(6)), types));
        }
        return out;
    }

    /** The "by type:" table of heapload's load report. */
    static Map<String, long[]> byType(String out) {
        Map<String, long[]> types = new LinkedHashMap<>();
        String table = out.substring(out.indexOf("\n  by type:") + 1);
        Matcher end = Pattern.compile("\n(?! {3})").matcher(table);   // the table's lines are indented by 3 or more
        table = end.find() ? table.substring(0, end.start()) : table;
        Matcher m = Pattern.compile("\n    (\\S+) +\\| +([0-9,]+) \\| +([0-9,]+)").matcher(table);
        while (m.find()) {
            types.put(m.group(1), new long[] {Long.parseLong(m.group(2).replace(",", "")),
                Long.parseLong(m.group(3).replace(",", ""))});
        }
        return types;
    }

    static String show(Map<String, long[]> types) {
        StringBuilder s = new StringBuilder();
        types.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
            s.append(e.getKey()).append(' ').append(e.getValue()[0]).append(' ').append(e.getValue()[1]).append('\n'));
        return s.toString();
    }
}
