package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.SnapshotDiff;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Test support: runs a Lua program of shared/testdata/lua on an installed interpreter with heapload's
 * dumper and harness ({@code dumpers/lua}), reads the {@code before.json} / {@code after.json} it writes,
 * and summarises the new reachable objects. Interpreters are found on the PATH; a missing one skips the
 * calling test with a message (CI installs Debian's lua5.1 … lua5.4 and luajit).
 */
final class LuaRuns {

    /** The interpreters the tests run, by VM name as the reader reports it. */
    static final Map<String, String> INTERPRETERS = new java.util.LinkedHashMap<>(Map.of());

    static {
        INTERPRETERS.put("lua5.1", "lua5.1");
        INTERPRETERS.put("lua5.2", "lua5.2");
        INTERPRETERS.put("lua5.3", "lua5.3");
        INTERPRETERS.put("lua5.4", "lua5.4");
        INTERPRETERS.put("luajit", "luajit");
    }

    private static final Map<String, Boolean> PRESENT = new ConcurrentHashMap<>();

    private LuaRuns() {
    }

    /** The dumpers directory of the checkout (system property {@code heapload.dumpers}). */
    static Path dumpers() {
        String d = System.getProperty("heapload.dumpers");
        Path p = d == null ? Path.of("../dumpers") : Path.of(d);
        assertTrue(Files.isRegularFile(p.resolve("lua/heapdump.lua")), "no dumpers/lua/heapdump.lua under " + p);
        return p.resolve("lua");
    }

    /** Skips the calling test when {@code exe} is not on the PATH. */
    static void requireInterpreter(String exe) {
        boolean present = PRESENT.computeIfAbsent(exe, e -> {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                if (Files.isExecutable(Path.of(dir, e))) {
                    return true;
                }
            }
            return false;
        });
        if (!present) {
            System.err.println("heapload tests: " + exe + " is not installed (apt-get install " + exe
                + "): the Lua dumper tests on it are skipped");
        }
        Assumptions.assumeTrue(present, exe + " is not installed: skipped");
    }

    /**
     * Runs {@code program} with {@code exe} in the program's directory (HEAPDUMP_DIR = workDir), with
     * dumpers/lua on LUA_PATH; fails with the interpreter's output when it exits non-zero.
     */
    static void run(String exe, Path program, Path workDir) {
        run(exe, program, workDir, null);
    }

    /** Header directory of each interpreter's C API (Debian's liblua5.x-dev, libluajit-5.1-dev). */
    private static final Map<String, String> HEADERS = Map.of("lua5.1", "/usr/include/lua5.1", "lua5.2", "/usr/include/lua5.2",
        "lua5.3", "/usr/include/lua5.3", "lua5.4", "/usr/include/lua5.4", "luajit", "/usr/include/luajit-2.1");

    private static final java.util.Set<String> WARNED = ConcurrentHashMap.newKeySet();

    /**
     * Builds the test C module {@code udhelper} (src/test/c/udhelper.c) for {@code exe} into {@code dir}
     * with {@code cc}; returns false, with one line on stderr, when the compiler or the interpreter's
     * headers are missing (then the program runs without it).
     */
    static boolean buildUdhelper(String exe, Path dir) {
        Path headers = Path.of(HEADERS.get(exe));
        Path source = Path.of("src/test/c/udhelper.c").toAbsolutePath();
        boolean cc = false;
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            cc |= Files.isExecutable(Path.of(d, "cc"));
        }
        if (!cc || !Files.isRegularFile(headers.resolve("lua.h")) || !Files.isRegularFile(source)) {
            if (WARNED.add(exe)) {
                System.err.println("heapload tests: no C compiler (cc) or no " + headers + "/lua.h (apt-get install "
                    + (exe.equals("luajit") ? "libluajit-5.1-dev" : "lib" + exe + (exe.equals("lua5.1") ? "-0" : "") + "-dev")
                    + "): the " + exe + " run of classes_userdata creates no userdata");
            }
            return false;
        }
        try {
            Files.createDirectories(dir);
            Process p = new ProcessBuilder("cc", "-shared", "-fPIC", "-O2", "-I" + headers, source.toString(), "-o",
                dir.resolve("udhelper.so").toString()).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "cc did not finish");
            assertEquals(0, p.exitValue(), () -> "cc udhelper.c failed:\n" + new String(out, StandardCharsets.UTF_8));
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** As {@link #run(String, Path, Path)}, with {@code cpath} (a directory of C modules) on LUA_CPATH when not null. */
    static void run(String exe, Path program, Path workDir, Path cpath) {
        try {
            Files.createDirectories(workDir);
            // run in the program's directory by its file name, so that short_src is "program.lua" as in the
            // tools' outputs of testdata; the dumps go to HEAPDUMP_DIR
            Path abs = program.toAbsolutePath();
            ProcessBuilder pb = new ProcessBuilder(exe, abs.getFileName().toString())
                .directory(abs.getParent().toFile()).redirectErrorStream(true);
            pb.environment().put("HEAPDUMP_DIR", workDir.toAbsolutePath().toString());
            pb.environment().put("LUA_PATH", dumpers().toAbsolutePath() + "/?.lua;;");
            if (cpath != null) {
                pb.environment().put("LUA_CPATH", cpath.toAbsolutePath() + "/?.so;;");
            }
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), exe + " " + program + " did not finish");
            assertEquals(0, p.exitValue(), () -> exe + " " + program + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static HeapSnapshot read(Path file) {
        try {
            return new LuaHeapDumpReader().read(file, file.getFileName().toString().replace(".json", ""), Progress.NONE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A before/after pair, analysed, with the diff. */
    static final class Pair {
        final HeapSnapshot before;
        final HeapSnapshot after;
        final HeapAnalysis analysis;
        final SnapshotDiff diff;

        Pair(HeapSnapshot before, HeapSnapshot after) {
            this.before = before;
            this.after = after;
            HeapAnalyzer.analyze(before, Progress.NONE);
            this.analysis = HeapAnalyzer.analyze(after, Progress.NONE);
            this.diff = SnapshotDiff.compare(before, after);
        }

        /** New objects of after that a root reaches. */
        List<Integer> newReachable() {
            List<Integer> out = new ArrayList<>();
            for (int o = 0; o < after.objectCount(); o++) {
                if (diff.isNew()[o] && analysis.reachable()[o]) {
                    out.add(o);
                }
            }
            return out;
        }

        /** Per type, how many new reachable objects; {@code withStrings} false leaves strings out. */
        Map<String, Integer> newReachableByType(boolean withStrings) {
            Map<String, Integer> m = new TreeMap<>();
            for (int o : newReachable()) {
                if (withStrings || !"string".equals(after.type(o))) {
                    m.merge(after.type(o), 1, Integer::sum);
                }
            }
            return m;
        }

        /** The retention path of a reachable object: root name, then each reference's name (or [kind]). */
        String path(int object) {
            java.util.Deque<String> steps = new java.util.ArrayDeque<>();
            int at = object;
            int[] first = after.firstReferenceColumn();
            while (analysis.retainedBy()[at] >= 0) {
                int r = analysis.retainedBy()[at];
                String name = after.referenceName(r);
                steps.addFirst(name != null ? name : "[" + after.referenceKind(r) + "]");
                int lo = 0;
                int hi = after.objectCount() - 1;
                while (lo < hi) {
                    int mid = (lo + hi + 1) >>> 1;
                    if (first[mid] <= r) {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                at = lo;
            }
            steps.addFirst(after.roots().get(analysis.rootOf()[object]).name());
            return String.join("/", steps);
        }

        /** New reachable objects of a type whose label is {@code label}. */
        long newReachableLabelled(String type, String label) {
            return newReachable().stream().filter(o -> after.type(o).equals(type) && label.equals(after.label(o))).count();
        }
    }
}
