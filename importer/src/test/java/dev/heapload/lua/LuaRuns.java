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
 * and summarises the new reachable objects. Interpreters are found on the PATH, Lua 5.5 in
 * {@code ../shared/tools/lua-5.5/bin/lua5.5}; a missing one skips the calling test with one line (CI installs Debian's
 * lua5.1 … lua5.4 and luajit; no Debian package of 5.5 exists).
 */
final class LuaRuns {

    /** The interpreters the tests run, by VM name as the reader reports it: a command on the PATH, or a path. */
    static final Map<String, String> INTERPRETERS = new java.util.LinkedHashMap<>(Map.of());

    /** The VM names of {@link #INTERPRETERS}, in order (for parameterized tests). */
    static final String[] VMS = {"lua5.1", "lua5.2", "lua5.3", "lua5.4", "lua5.5", "luajit"};

    /** Lua 5.5.0 of ../shared/tools/lua-5.5 (system property {@code heapload.shared}): interpreter and headers. */
    static Path lua55() {
        String shared = System.getProperty("heapload.shared");
        return Path.of(shared == null ? "../../shared" : shared, "tools", "lua-5.5");
    }

    static {
        INTERPRETERS.put("lua5.1", "lua5.1");
        INTERPRETERS.put("lua5.2", "lua5.2");
        INTERPRETERS.put("lua5.3", "lua5.3");
        INTERPRETERS.put("lua5.4", "lua5.4");
        INTERPRETERS.put("lua5.5", lua55().resolve("bin/lua5.5").toAbsolutePath().toString());
        INTERPRETERS.put("luajit", "luajit");
    }

    /** The interpreter command of a VM name ({@link #INTERPRETERS}); the name itself when it is not one of them. */
    static String exe(String vm) {
        return INTERPRETERS.getOrDefault(vm, vm);
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

    /** Skips the calling test when {@code exe} (a VM name or command; see {@link #exe}) is not on the PATH / not there. */
    static void requireInterpreter(String exe) {
        String command = exe(exe);
        boolean[] first = {false};
        boolean present = PRESENT.computeIfAbsent(command, e -> {
            first[0] = true;
            if (e.contains("/")) {
                return Files.isExecutable(Path.of(e));
            }
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                if (Files.isExecutable(Path.of(dir, e))) {
                    return true;
                }
            }
            return false;
        });
        if (!present && first[0]) {
            System.err.println("heapload tests: " + (command.contains("/")
                ? "Lua 5.5 is not at " + command + " (../shared/tools/lua-5.5): the Lua dumper tests on Lua 5.5 are skipped"
                : command + " is not installed (apt-get install " + command + "): the Lua dumper tests on it are skipped"));
        }
        Assumptions.assumeTrue(present, command + " is not installed: skipped");
    }

    /**
     * Runs {@code program} with {@code exe} in the program's directory (HEAPDUMP_DIR = workDir), with
     * dumpers/lua on LUA_PATH; fails with the interpreter's output when it exits non-zero.
     */
    static void run(String exe, Path program, Path workDir) {
        run(exe, program, workDir, null);
    }

    /** Header directory of each interpreter's C API (Debian's liblua5.x-dev, libluajit-5.1-dev; 5.5: ../shared). */
    private static Path headers(String vm) {
        return switch (vm) {
            case "lua5.5" -> lua55().resolve("include");
            case "luajit" -> Path.of("/usr/include/luajit-2.1");
            default -> Path.of("/usr/include/" + vm);
        };
    }

    private static final java.util.Set<String> WARNED = ConcurrentHashMap.newKeySet();

    /**
     * Builds the test C module {@code udhelper} (src/test/c/udhelper.c) for {@code exe} into {@code dir}
     * with {@code cc}; returns false, with one line on stderr, when the compiler or the interpreter's
     * headers are missing (then the program runs without it).
     */
    static boolean buildUdhelper(String exe, Path dir) {
        return buildModule(exe, Path.of("src/test/c/udhelper.c").toAbsolutePath(), "udhelper", dir);
    }

    /**
     * Builds the dumper's optional C helper {@code heapdump_native} (dumpers/lua/heapdump_native.c) for {@code exe} into
     * {@code dir}, as docs/reference/lua-dumper-format.md tells a user to; false, with one line on stderr, without cc or headers.
     */
    static boolean buildNative(String exe, Path dir) {
        return buildModule(exe, dumpers().resolve("heapdump_native.c").toAbsolutePath(), "heapdump_native", dir);
    }

    /** Builds {@code source} as the C module {@code name}.so in {@code dir} against the headers of VM {@code vm}. */
    static boolean buildModule(String vm, Path source, String name, Path dir) {
        Path headers = headers(vm);
        boolean cc = false;
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            cc |= Files.isExecutable(Path.of(d, "cc"));
        }
        if (!cc || !Files.isRegularFile(headers.resolve("lua.h")) || !Files.isRegularFile(source)) {
            if (WARNED.add(vm + " " + name)) {
                System.err.println("heapload tests: no C compiler (cc) or no " + headers + "/lua.h (apt-get install "
                    + (vm.equals("luajit") ? "libluajit-5.1-dev" : vm.equals("lua5.5") ? "gcc; ../shared/tools/lua-5.5"
                    : "lib" + vm + (vm.equals("lua5.1") ? "-0" : "") + "-dev")
                    + "): the C module " + name + " is not built for " + vm + " and the runs that need it go without it");
            }
            return false;
        }
        try {
            Files.createDirectories(dir);
            Process p = new ProcessBuilder("cc", "-shared", "-fPIC", "-O2", "-I" + headers, source.toString(), "-o",
                dir.resolve(name + ".so").toString()).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(10, TimeUnit.MINUTES), "cc did not finish"); // a hang bound
            assertEquals(0, p.exitValue(), () -> "cc " + source.getFileName() + " failed:\n" + new String(out, StandardCharsets.UTF_8));
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
        Result r = start(exe, program, workDir, cpath);
        assertEquals(0, r.exit(), () -> exe + " " + program + " failed:\n" + r.output());
    }

    /** What a run printed (stdout and stderr together) and its exit status. */
    record Result(int exit, String output) {
    }

    /**
     * Runs {@code program} as {@link #run(String, Path, Path, Path)} does and returns its exit status and output, whatever
     * they are; {@code args} follow the program's file name.
     */
    static Result start(String exe, Path program, Path workDir, Path cpath, String... args) {
        try {
            Files.createDirectories(workDir);
            // run in the program's directory by its file name, so that short_src is "program.lua" as in the
            // tools' outputs of testdata; the dumps go to HEAPDUMP_DIR
            Path abs = program.toAbsolutePath();
            List<String> command = new ArrayList<>(List.of(exe(exe), abs.getFileName().toString()));
            command.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(command).directory(abs.getParent().toFile()).redirectErrorStream(true);
            pb.environment().put("HEAPDUMP_DIR", workDir.toAbsolutePath().toString());
            pb.environment().put("LUA_PATH", dumpers().toAbsolutePath() + "/?.lua;;");
            // no C module of the user's installation: only the ones a test built
            pb.environment().put("LUA_CPATH", cpath != null ? cpath.toAbsolutePath() + "/?.so" : "./?.so");
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(600, TimeUnit.SECONDS), exe + " " + program + " did not finish");
            return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether {@code table} has a reference of kind key to the string {@code key}. */
    static boolean hasKey(HeapSnapshot s, int table, String key) {
        for (int r = s.firstReference(table); r < s.firstReference(table + 1); r++) {
            int t = s.referenceTarget(r);
            if (s.referenceKind(r).equals("key") && s.type(t).equals("string") && key.equals(s.label(t))) {
                return true;
            }
        }
        return false;
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
