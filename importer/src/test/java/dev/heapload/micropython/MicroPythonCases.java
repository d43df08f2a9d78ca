package dev.heapload.micropython;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.heapload.testsupport.SharedTestData;

/**
 * The real MicroPython dumps of shared/testdata/micropython (4 builds × 2 dumps) and what the interpreter
 * printed at each dump moment ({@code micropython.mem_info(1)}: the {@code GC:} lines and the heap map), read
 * from each case's output log. Tests using them are skipped when ../shared is absent.
 */
final class MicroPythonCases {

    static final String[] CASES = {"unix-x64-standard", "unix-x64-splitheap-weakref", "qemu-arm-mps2-an385",
        "qemu-arm-mps2-an385-v1.18"};

    private static final Map<String, MicroPythonDump> DUMPS = new ConcurrentHashMap<>();

    private MicroPythonCases() {
    }

    static Path dir(String name) {
        return SharedTestData.require("micropython", "MicroPython dump tests").resolve(name);
    }

    /** The output log of a case (program output with both mem_info(1) outputs). */
    static Path log(String name) throws IOException {
        try (var files = Files.list(dir(name))) {
            return files.filter(f -> {
                String n = f.getFileName().toString();
                return n.equals("uart_output.txt") || n.equals("gdb_session_and_program_stdout.log");
            }).findFirst().orElseThrow();
        }
    }

    /** Reads dump {@code n} (1 or 2) of a case with its nm symbols; cached per test JVM. */
    static MicroPythonDump dump(String name, int n) {
        return DUMPS.computeIfAbsent(name + "/" + n, k -> {
            try {
                Path d = dir(name);
                FirmwareSymbols symbols = FirmwareSymbols.read(d.resolve("symbols.nm.txt"));
                MemoryImage image = MemoryImage.fromRegionsJson(d.resolve("dump" + n).resolve("regions.json"));
                // seed-style dumps hold the whole stack area: give the sp register (as gdb's `info registers`
                // printed it at the dump) so stale words below it are not taken as roots
                long sp = -1;
                if (name.startsWith("qemu")) {
                    for (String line : Files.readAllLines(d.resolve("dump" + n).resolve("info.txt"))) {
                        if (line.startsWith("sp=0x")) {
                            sp = Long.parseLong(line.substring(5), 16);
                        }
                    }
                }
                MicroPythonReader.Options options = new MicroPythonReader.Options(0, 0, sp, null, null);
                return MicroPythonReader.read(image, symbols, options, "dump" + n,
                    d.resolve("dump" + n).resolve("regions.json").toString());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * What MicroPython printed for dump {@code n}: the two {@code GC:} lines and the heap map (from the first
     * {@code GC memory layout} line to the last map line, with a final newline), exactly as in the log.
     *
     * @return {gcLines, heapMap}
     */
    static String[] printed(String name, int n) throws IOException {
        List<String> lines = Files.readAllLines(log(name), StandardCharsets.UTF_8);
        int seen = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("GC: total: ") && ++seen == n) {
                String gc = lines.get(i) + "\n" + lines.get(i + 1) + "\n";
                StringBuilder map = new StringBuilder();
                int j = i + 2;
                while (j < lines.size() && isMapLine(lines.get(j))) {
                    map.append(lines.get(j)).append('\n');
                    j++;
                }
                return new String[] {gc, map.toString()};
            }
        }
        throw new IllegalStateException("no GC: line " + n + " in " + log(name));
    }

    static boolean isMapLine(String l) {
        return l.startsWith("GC memory layout; from ") || l.matches("[0-9a-f]{5,8}: .*")
            || l.matches(" {7}\\(\\d+ lines all free\\)");
    }

    static List<int[]> all() {
        List<int[]> out = new ArrayList<>();
        for (int c = 0; c < CASES.length; c++) {
            out.add(new int[] {c, 1});
            out.add(new int[] {c, 2});
        }
        return out;
    }
}
