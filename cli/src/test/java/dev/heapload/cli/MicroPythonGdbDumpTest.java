package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dumpers/micropython/heapload_gdb.py on a real interpreter: gdb runs the unix-port binary of
 * shared/tools/micropython-unix on testdata/micropython/leaky-cache-scenario.py in batch mode, {@code heapload-dump}
 * at each stop on {@code mp_micropython_mem_info} (before and after the cache grows); heapload then reads each dump
 * with the ELF as symbols and must print the {@code GC:} figures MicroPython printed right after the same stop, and
 * the default load of the pair (symbols found beside the dumps: the symbols.nm.txt heapload-dump wrote) must name
 * {@code _cache} as the leak. Skipped with one line when ../shared, gdb or a runnable binary is absent.
 */
@Tag("process")
class MicroPythonGdbDumpTest {

    @TempDir
    Path tmp;

    static Path repoRoot() {
        return Path.of(System.getProperty("heapload.testdata", "../testdata")).toAbsolutePath().getParent();
    }

    /** The unix-port binary, when ../shared has it and it runs here (it needs libffi8); skips the test otherwise. */
    static Path micropython() throws InterruptedException {
        String s = System.getProperty("heapload.shared");
        Path exe = s == null ? null : Path.of(s, "tools", "micropython-unix", "micropython");
        Assumptions.assumeTrue(exe != null && Files.isExecutable(exe),
            "shared/tools/micropython-unix/micropython not found (heapload.shared = " + s + "): MicroPython dumper test skipped");
        Assumptions.assumeTrue(runs(List.of(exe.toString(), "-c", "print(1)")),
            exe + " does not run here (libffi8 missing?): MicroPython dumper test skipped");
        return exe;
    }

    static void requireGdb() throws InterruptedException {
        Assumptions.assumeTrue(runs(List.of("gdb", "--version")),
            "gdb not found (apt-get install gdb): MicroPython gdb dumper test skipped");
    }

    static boolean runs(List<String> command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0; // a hang bound, not a skip on a slow machine
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs a command, returns stdout + stderr; fails the test on a timeout or a non-zero exit. */
    static String run(List<String> command, Path output) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "timed out: " + command); // a hang bound
        String out = Files.readString(output, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** The two-line {@code GC:} figure blocks in {@code text}, in order. */
    static List<String> gcFigures(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("GC: total: \\d+, used: \\d+, free: \\d+\\n\\s*No\\. of 1-blocks: \\d+, 2-blocks: \\d+, "
            + "max blk sz: \\d+, max free sz: \\d+").matcher(text);
        while (m.find()) {
            out.add(m.group().replaceAll("\\n\\s*", "\n "));
        }
        return out;
    }

    @Test
    void gdbDumpsAtTwoStopsGiveThePrintedFiguresAndTheGrowingCache() throws Exception {
        Path exe = micropython();
        requireGdb();
        Path script = repoRoot().resolve("dumpers/micropython/heapload_gdb.py");
        Path scenario = repoRoot().resolve("testdata/micropython/leaky-cache-scenario.py");
        Path before = tmp.resolve("before");
        Path after = tmp.resolve("after");
        Path commands = tmp.resolve("dump.gdb");
        Files.writeString(commands, String.join("\n",
            "set pagination off",
            "set confirm off",
            "source " + script,
            "break mp_micropython_mem_info",
            "run",
            "heapload-dump " + before + " --label before",
            "continue",
            "heapload-dump " + after + " --label after",
            "continue",
            ""));
        String session = run(List.of("gdb", "-q", "-batch", "-x", commands.toString(), "--args", exe.toString(),
            scenario.toString()), tmp.resolve("gdb.log"));
        assertTrue(session.contains("done 1100 200"), session);
        assertTrue(session.contains("next: heapload micropython " + before.resolve("regions.json")), session);
        List<String> printed = gcFigures(session);
        assertEquals(2, printed.size(), session);
        for (String f : List.of("regions.json", "heap_area0.bin", "static.bin", "stack.bin", "info.txt", "symbols.nm.txt")) {
            assertTrue(Files.isRegularFile(before.resolve(f)), f + " written");
        }
        String info = Files.readString(before.resolve("info.txt"));
        assertTrue(info.contains("micropython_version=3.4.0; MicroPython v1.29.0-preview"), info);
        assertTrue(info.contains("areas_found_by=debug info"), info);

        // each dump alone, with the ELF as symbols: the figures MicroPython printed at the same stop
        int i = 0;
        for (Path dir : List.of(before, after)) {
            var r = HeapLoadCommandTest.run("micropython", dir.resolve("regions.json").toString(), "--symbols",
                exe.toString(), "--no-load");
            assertEquals(0, r.code(), r.err());
            List<String> read = gcFigures(r.out());
            assertEquals(List.of(printed.get(i++)), read, r.out());
            assertTrue(r.out().contains("stack scanned: 0x"), r.out());
        }
        // the pair through the default load, nothing but the dump directories: the leak answer names the cache
        var r = HeapLoadCommandTest.run("--db", tmp.resolve("db").toString(), "--no-progress",
            before.resolve("regions.json").toString(), after.resolve("regions.json").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("leaks: after relative to before: 5,001 new reachable objects, 179,584 bytes, in 1 "
            + "leak group(s)\n  group 1: 5,001 objects, 179,584 new bytes, 195,584 retained bytes, 1 map_table head(s), "
            + "path:\n      root mp_state_ctx.vm.dict_main.map.table (map_table)\n      _cache in map_table\n"), r.out());
    }
}
