package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.PathHop;
import dev.heapload.analysis.RetentionPath;
import dev.heapload.micropython.MicroPythonDump;
import dev.heapload.micropython.MicroPythonFiles;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Names on MicroPython paths, on the real interpreter (shared/tools/micropython-unix) stopped by gdb inside an
 * {@code except} block ({@code micropython.mem_info()} called there) with asyncio tasks queued ({@code _asyncio}'s C
 * {@code Task} and {@code TaskQueue}), a suspended generator, a bound method, a closure and a bytearray over
 * peripheral space: the frame of the running function (its code_state, which the interpreter put on the heap) names
 * the root, its locals and its exception stack; the exception's {@code args}, the tasks' {@code coro} and
 * {@code pairheap} links, the queue's {@code heap}, the generator's frame, the bound method's {@code meth} and
 * {@code self} are named from the struct layouts of the ELF's debug info (layouts.json), and from heapload's built-in
 * layouts when that file is absent; compiled code is typed ({@code module_context}, {@code raw_code},
 * {@code bytecode} of the generator, {@code module_constants}); the peripheral pointer is named in a warning.
 */
@Tag("process")
class MicroPythonNamesGdbTest {

    static final String PROGRAM = String.join("\n",
        "import gc, micropython, _asyncio, uctypes",
        "class Payload:",
        "    def __init__(self):",
        "        self.blob = bytearray(500)",
        "class Worker:",
        "    def __init__(self, name):",
        "        self.name = name",
        "        self.items = [1, 2, 3]",
        "    def run(self):",
        "        return self.name",
        "async def job(n):",
        "    data = [n] * 10",
        "    return data",
        "def gen(k):",
        "    acc = []",
        "    for i in range(k):",
        "        acc.append(str(i))",
        "        yield i",
        "def counter():",
        "    seen = [0]",
        "    def bump():",
        "        seen[0] += 1",
        "    return bump",
        "queue = _asyncio.TaskQueue()",
        "tasks = []",
        "for i in range(3):",
        "    t = _asyncio.Task(job(i))",
        "    tasks.append(t)",
        "    queue.push(t)",
        "del t",
        "g = gen(5)",
        "next(g)",
        "bm = Worker('w1').run",
        "bump = counter()",
        "periph = uctypes.bytearray_at(0x40000000, 16)",
        "def handler(big):",
        "    local_list = [7] * 20",
        "    try:",
        "        raise ValueError(Payload())",
        "    except ValueError as e:",
        "        micropython.mem_info()",
        "handler(1)",
        "print('done')",
        "");

    @TempDir
    Path tmp;

    private MicroPythonDump dump() throws Exception {
        Path exe = MicroPythonGdbDumpTest.micropython();
        MicroPythonGdbDumpTest.requireGdb();
        Path script = MicroPythonGdbDumpTest.repoRoot().resolve("dumpers/micropython/heapload_gdb.py");
        Path program = tmp.resolve("names.py");
        Files.writeString(program, PROGRAM);
        Path dir = tmp.resolve("dump");
        Path commands = tmp.resolve("stop.gdb");
        Files.writeString(commands, String.join("\n", "set pagination off", "set confirm off", "source " + script,
            "break mp_micropython_mem_info", "run", "heapload-dump " + dir, "continue", ""));
        String session = MicroPythonGdbDumpTest.run(List.of("gdb", "-q", "-batch", "-x", commands.toString(), "--args",
            exe.toString(), program.toString()), tmp.resolve("gdb.log"));
        assertTrue(session.contains("done"), session);
        assertTrue(Files.isRegularFile(dir.resolve("layouts.json")), session);
        return MicroPythonFiles.read(dir.resolve("regions.json"), "names");
    }

    private static Map<String, Integer> types(HeapSnapshot s) {
        Map<String, Integer> out = new TreeMap<>();
        for (int o = 0; o < s.objectCount(); o++) {
            out.merge(s.type(o), 1, Integer::sum);
        }
        return out;
    }

    /** "kind name -> type" of every reference out of objects of type {@code type}, with the frame when there is one. */
    private static List<String> refs(HeapSnapshot s, String type) {
        List<String> out = new ArrayList<>();
        for (int o = 0; o < s.objectCount(); o++) {
            if (!s.type(o).equals(type)) {
                continue;
            }
            for (int r = s.firstReference(o); r < s.firstReference(o + 1); r++) {
                out.add(s.referenceKind(r) + " " + s.referenceName(r) + " -> " + s.type(s.referenceTarget(r))
                    + (s.referenceFrame(r) == null ? "" : " frame " + s.referenceFrame(r)));
            }
        }
        return out;
    }

    private static List<String> path(HeapSnapshot s, HeapAnalysis a, String type) {
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals(type)) {
                return RetentionPath.hops(s, a, o).stream().map(PathHop::line).toList();
            }
        }
        throw new AssertionError("no " + type);
    }

    @Test
    void framesExceptionsTasksAndCodeAreNamed() throws Exception {
        MicroPythonDump d = dump();
        String program = tmp.resolve("names.py").toString();
        String handler = "handler (" + program + ":41)";
        for (MicroPythonDump read : List.of(d, MicroPythonFiles.read(withoutLayouts(), "names"))) {
            boolean debugInfo = read == d;
            HeapSnapshot s = read.snapshot();
            Map<String, Integer> types = types(s);
            Map<String, Integer> expected = new TreeMap<>(Map.ofEntries(Map.entry("Task", 3), Map.entry("TaskQueue", 1),
                Map.entry("generator", 4), Map.entry("generator_function", 2), Map.entry("bound_method", 1),
                Map.entry("closure", 1), Map.entry("cell", 1), Map.entry("code_state", 1), Map.entry("module_context", 1),
                Map.entry("module_constants", 1), Map.entry("raw_code", 11), Map.entry("traceback", 1),
                Map.entry("ValueError", 1), Map.entry("Payload", 1)));
            Map<String, Integer> seen = new TreeMap<>(types);
            seen.keySet().retainAll(expected.keySet());
            assertEquals(expected, seen, types::toString);
            assertEquals(List.of("field heap -> Task"), refs(s, "TaskQueue"));
            List<String> task = refs(s, "Task");
            assertEquals(3, task.stream().filter("field coro -> generator"::equals).count(), task::toString);
            assertTrue(task.containsAll(List.of("field pairheap.child -> Task", "field pairheap.child_last -> Task",
                "field pairheap.next -> Task")), task::toString);
            assertEquals(List.of("field meth -> function", "field self -> Worker"), refs(s, "bound_method"));
            assertEquals(List.of("field fun -> function", "field closed[0] -> cell"), refs(s, "closure"));
            assertEquals(List.of("field traceback_data -> traceback", "field args -> tuple"), refs(s, "ValueError"));
            assertEquals(List.of("field fun_bc -> function frame " + handler,
                "local local #2 -> ValueError frame " + handler, "local local #1 -> list frame " + handler,
                "field exc_stack[0].prev_exc -> ValueError frame " + handler), refs(s, "code_state"));
            List<String> generator = refs(s, "generator");
            assertEquals(3, generator.stream().filter(("field code_state.fun_bc -> generator_function frame job ("
                + program + ":12)")::equals).count(), generator::toString);
            assertTrue(generator.contains("local local #1 -> list frame gen (" + program + ":18)"), generator::toString);
            assertEquals(List.of("field constants.qstr_table -> module_constants"), refs(s, "module_context"));
            // `items` is a ROM qstr: its text comes from the read-only data heapload-dump saved (rom.bin)
            assertTrue(refs(s, "map_table").contains("value items -> list"), () -> refs(s, "map_table").toString());

            HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
            String ctx = debugInfo ? "mp_state_ctx.vm.cur_exception" : "mp_state_ctx+880";
            assertEquals(List.of("root " + ctx + " (ValueError)", "args in ValueError", "[item] in tuple"),
                path(s, a, "Payload"));
            assertEquals(List.of("root mp_state_ctx.vm.dict_main.map.table (map_table)", "queue in map_table",
                "heap in TaskQueue", "coro in Task"), path(s, a, "generator"));
            assertEquals(1, s.roots().stream().filter(r -> r.name().matches("frame " + java.util.regex.Pattern.quote(
                handler) + " \\(code_state, stack\\+\\d+\\)") && s.type(r.object()).equals("code_state")).count(),
                () -> s.roots().toString());

            assertEquals(1, read.outsidePointers().size());
            assertTrue(read.outsidePointers().get(0).text().matches("bytearray 0x[0-9a-f]+ items -> 0x40000000"),
                read.outsidePointers().toString());
            assertTrue(s.info().warnings().stream().anyMatch(w -> w.startsWith("1 pointer field(s) point outside the "
                + "dumped RAM and the firmware")), s.info().warnings()::toString);
        }
    }

    @Test
    void romQstrsWithoutTheirBytesKeepTheirNumber() throws Exception {
        dump();
        Path copy = tmp.resolve("norom");
        Files.createDirectories(copy);
        try (var files = Files.list(tmp.resolve("dump"))) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().startsWith("rom")) {
                    Files.copy(f, copy.resolve(f.getFileName()));
                }
            }
        }
        String regions = Files.readString(copy.resolve("regions.json"));
        Files.writeString(copy.resolve("regions.json"), regions.replaceAll("\\{[^{}]*\"rom\\.bin\"[^{}]*\\},?", ""));
        HeapSnapshot s = MicroPythonFiles.read(copy.resolve("regions.json"), "norom").snapshot();
        List<String> tables = refs(s, "map_table");
        assertTrue(tables.stream().anyMatch(r -> r.matches("value qstr#\\d+ -> list")), tables::toString);
        // the static qstrs keep their text: every build numbers them alike
        assertTrue(tables.contains("value __init__ -> function"), tables::toString);
    }

    /** The dump directory with layouts.json removed: what a build without debug info gives. */
    private Path withoutLayouts() throws Exception {
        Path copy = tmp.resolve("nolayouts");
        Files.createDirectories(copy);
        try (var files = Files.list(tmp.resolve("dump"))) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals("layouts.json")) {
                    Files.copy(f, copy.resolve(f.getFileName()));
                }
            }
        }
        return copy.resolve("regions.json");
    }
}
