package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Dumps from awkward places work on every Lua ({@code src/test/lua/awkward.lua}): inside a finalizer, inside an error
 * handler (the failing function's locals are in the dump), inside a stack overflow's handler (the frames beyond
 * {@code maxframes} are said), with the collector stopped (it stays stopped) and in generational mode (it stays so);
 * and a dump that fails (a missing directory, a full disk, inside a finalizer where errors become warnings) leaves no
 * file, no {@code .tmp}, and says why on stderr.
 */
@Tag("process")
class LuaAwkwardPlacesTest {

    @TempDir
    Path tmp;

    static Stream<Arguments> runs() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (String vm : LuaRuns.VMS) {
            for (String mode : new String[] {"finalizer", "handler", "overflow", "stopped", "generational", "nodir", "full",
                "gcfail"}) {
                b.add(Arguments.of(vm, mode));
            }
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("runs")
    void dumpsFromAwkwardPlaces(String vm, String mode) throws IOException {
        LuaRuns.requireInterpreter(vm);
        boolean generational = vm.equals("lua5.2") || vm.equals("lua5.4") || vm.equals("lua5.5");
        Assumptions.assumeTrue(!mode.equals("generational") || generational, vm + " has no generational mode");
        Path out = tmp.resolve("out");
        Files.createDirectories(out);
        if (mode.equals("full")) {
            Assumptions.assumeTrue(Files.exists(Path.of("/dev/full")), "no /dev/full");
            Files.createSymbolicLink(out.resolve("full.json.tmp"), Path.of("/dev/full"));
        }
        LuaRuns.Result run = LuaRuns.start(vm, Path.of("src/test/lua/awkward.lua"), out, null, mode);
        assertEquals(0, run.exit(), run.output());
        String o = run.output();
        try (Stream<Path> files = Files.list(out)) {
            List<String> left = files.map(p -> p.getFileName().toString()).sorted().toList();
            switch (mode) {
                case "nodir", "gcfail" -> {
                    assertEquals(List.of(), left, o);
                    assertTrue(o.contains("heapdump: no snapshot written to " + out + "/no/such/dir/" + mode + ".json: "
                        + out + "/no/such/dir/" + mode + ".json.tmp: No such file or directory\n"), o);
                    assertTrue(o.contains("result: false heapdump: no snapshot written to "), o);
                }
                case "full" -> {
                    assertEquals(List.of(), left, o);
                    assertTrue(o.contains("heapdump: no snapshot written to " + out + "/full.json: No space left on device"), o);
                }
                default -> assertEquals(List.of(mode + ".json"), left, o);
            }
        }
        switch (mode) {
            case "finalizer" -> {
                assertReaches(vm, out.resolve("finalizer.json"), "finalized");
                // the finalizer ran once: the dump did not arm it again (5.2/5.3 set a metatable with __gc again when
                // the dumper took it off an object to read its address)
                assertEquals(1, o.split("result: ", -1).length - 1, o);
            }
            case "handler" -> assertReaches(vm, out.resolve("handler.json"), "request");
            case "overflow" -> {
                HeapSnapshot s = LuaRuns.read(out.resolve("overflow.json"));
                // 5.1 and LuaJIT read the main thread's frames on that thread itself, which may have no room left in
                // the overflow's handler: how much room there is depends on the VM's build (LuaJIT 2.1.0-beta3 has
                // none for the reading function, later 2.1 builds fail inside it with "stack overflow")
                // and the main thread (its deep stack) is no object there without the C helper: far below the VM's total
                boolean old = vm.equals("lua5.1") || vm.equals("luajit");
                assertEquals(old ? 2 : 1, s.info().warnings().size(), String.valueOf(s.info().warnings()));
                if (old) {
                    assertTrue(s.info().warnings().get(1).contains("the main thread's stack (no object on " + vm
                        + " without heapdump_native)"), s.info().warnings().get(1));
                }
                String w = s.info().warnings().get(0);
                boolean unread = w.matches("(?s)the calling thread's frames could not be read \\((no room on the stack to read "
                    + "them: .*|stack overflow)\\): its locals are not in this snapshot");
                assertTrue(old && unread || w.matches("\\d+ frame\\(s\\) in the middle of the calling thread's stack are not in this snapshot "
                        + "\\(maxframes = 5000: the top ones and the 20 oldest are\\), nor what only they hold"), w);
                if (vm.equals("luajit")) {
                    assertTrue(unread, w);     // no LuaJIT build reads them there
                }
            }
            case "stopped" -> {
                if (!vm.equals("lua5.1")) {
                    assertTrue(o.contains("state: running false\n"), o);
                }
                assertEquals(List.of(), LuaRuns.read(out.resolve("stopped.json")).info().warnings());
            }
            case "generational" -> {
                // collectgarbage("generational") returns the mode it replaces: the dump left it generational
                assertTrue(o.contains(vm.equals("lua5.2") ? "state: mode 0\n" : "state: mode generational\n"), o);
                assertTrue(o.contains("state: running true\n"), o);
            }
            default -> {
            }
        }
    }

    /** The dump reads, and a table with the key {@code key} is reachable in it. */
    private static void assertReaches(String vm, Path file, String key) {
        HeapSnapshot s = LuaRuns.read(file);
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        int found = 0;
        for (int o = 0; o < s.objectCount(); o++) {
            if (a.reachable()[o] && s.type(o).equals("table") && LuaRuns.hasKey(s, o, key)) {
                found++;
            }
        }
        assertEquals(1, found, vm + ": reachable tables with the key " + key);
        assertFalse(s.info().warnings().stream().anyMatch(w -> w.contains("could not be read")), String.valueOf(s.info().warnings()));
    }
}
