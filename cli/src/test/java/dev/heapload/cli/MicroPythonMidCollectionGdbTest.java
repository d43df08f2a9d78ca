package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.micropython.GcCollection;
import dev.heapload.micropython.MicroPythonDump;
import dev.heapload.micropython.MicroPythonFiles;
import dev.heapload.model.Progress;

/**
 * The real interpreter (shared/tools/micropython-unix) stopped by gdb inside {@code gc.collect()} in each phase of
 * the collection, dumped there with heapload_gdb.py, then let go: the program prints {@code micropython.mem_info()}
 * right after the collection, and heapload's figures from the mid-collection dump must be exactly those. The program
 * leaves garbage (300 lists with a str and a bytearray each, a 4,000-byte bytearray, three unclosed files whose
 * finalisers close them) and keeps 200 dicts in a global list, enough to overflow the GC's 64-entry mark stack.
 * Stops: the 6th {@code gc_mark_subtree} call (marking the mp_state_ctx roots), the 151st (the overflow rescan of
 * {@code gc_collect_end}), a file's finaliser ({@code mp_call_function_1_protected} in
 * {@code gc_sweep_run_finalisers}), the start of {@code gc_sweep_free_blocks}, and {@code gc_collect}'s entry (no
 * mark yet: only the phase tells).
 */
@Tag("process")
class MicroPythonMidCollectionGdbTest {

    static final String PROGRAM = String.join("\n",
        "import gc, micropython",
        "keep = []",
        "def make():",
        "    junk = []",
        "    for i in range(300):",
        "        junk.append([i, str(i) * 3, bytearray(40)])",
        "    big = bytearray(4000)",
        "    for i in range(3):",
        "        open(FILE)",
        "    for i in range(200):",
        "        keep.append({'k': i, 'v': 'x' * (i % 50)})",
        "make()",
        "gc.collect()",
        "micropython.mem_info()",
        "print('done')",
        "");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "marking roots|break gc_mark_subtree;ignore 2 5|mark|gc_mark_subtree < gc_collect_root < gc_collect_start",
        "mark stack overflow rescan|break gc_mark_subtree;ignore 2 150|mark|gc_mark_subtree < gc_deal_with_stack_overflow",
        "finaliser|break mp_call_function_1_protected|finalise|gc_sweep_run_finalisers < gc_collect_end",
        "sweep|break gc_sweep_free_blocks|sweep|gc_sweep_free_blocks < gc_collect_end",
        "gc_collect entry|''|mark|gc_collect",
    })
    void figuresFromTheMidCollectionDumpAreThoseMicroPythonPrintsAfterIt(String stop, String commands, String phase,
                                                                          String frames) throws Exception {
        Path exe = MicroPythonGdbDumpTest.micropython();
        MicroPythonGdbDumpTest.requireGdb();
        Path script = MicroPythonGdbDumpTest.repoRoot().resolve("dumpers/micropython/heapload_gdb.py");
        Path program = tmp.resolve("gcmid.py");
        Files.writeString(program, PROGRAM.replace("FILE", "'" + program + "'"));
        Path dir = tmp.resolve("dump");
        Path gdbCommands = tmp.resolve("stop.gdb");
        Files.writeString(gdbCommands, String.join("\n",
            "set pagination off",
            "set confirm off",
            "source " + script,
            "break gc_collect",
            "run",
            commands == null || commands.isEmpty() ? "" : String.join("\n", commands.split(";")) + "\ncontinue",
            "heapload-dump " + dir,
            "delete",
            "continue",
            ""));
        String session = MicroPythonGdbDumpTest.run(List.of("gdb", "-q", "-batch", "-x", gdbCommands.toString(), "--args",
            exe.toString(), program.toString()), tmp.resolve("gdb.log"));
        assertTrue(session.contains("done"), session);
        List<String> printed = MicroPythonGdbDumpTest.gcFigures(session);
        assertEquals(1, printed.size(), session);
        String info = Files.readString(dir.resolve("info.txt"));
        assertTrue(info.contains("gc_phase=" + phase + " (collector frames: " + frames), info);

        MicroPythonDump dump = MicroPythonFiles.read(dir.resolve("regions.json"), "mid");
        GcCollection c = dump.collection();
        assertNotNull(c, stop);
        assertEquals(phase, c.phase());
        assertEquals(printed.get(0), dump.figures().gcLines().replaceAll("\\n\\s*", "\n ").strip(), stop);
        List<String> warnings = dump.snapshot().info().warnings();
        assertEquals(1, warnings.stream().filter(w -> w.startsWith("dump taken during a garbage collection")).count(),
            warnings::toString);
        // reachability is read from the graph, marks or not: every marked allocation is reachable from the roots
        HeapAnalysis a = HeapAnalyzer.analyze(dump.snapshot(), Progress.NONE);
        int markedUnreachable = 0;
        for (int i = 0; i < dump.allocations().size(); i++) {
            if (dump.allocations().get(i).letter() == 'm' && !a.reachable()[i]) {
                markedUnreachable++;
            }
        }
        assertEquals(0, markedUnreachable, stop);
        if (!stop.equals("gc_collect entry")) {
            assertTrue(c.markedAllocations() > 0, stop);
            assertNotEquals(dump.heapMap().figures(), dump.figures(), "the table as dumped is not what MicroPython prints");
        } else {
            assertEquals(0, c.markedAllocations());
        }

        // what the command prints: the figures after the collection, marked as such, the dumped table apart
        Path svg = tmp.resolve("heap.svg");
        var r = HeapLoadCommandTest.run("micropython", dir.resolve("regions.json").toString(), "--no-load", "--svg",
            svg.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(c.markedAllocations() > 0, Files.readString(svg).contains(String.format(java.util.Locale.ROOT,
            "; dumped during a garbage collection: %,d marked heads (m), figures of the table as dumped",
            c.markedAllocations())), stop);
        assertEquals(printed, MicroPythonGdbDumpTest.gcFigures(r.out().substring(0, r.out().indexOf("the table as dumped"))),
            r.out());
        assertTrue(r.out().contains("a garbage collection was running at the dump: "), r.out());
    }
}
