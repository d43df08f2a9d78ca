package dev.heapload.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * {@code heapload export --devtools}: the export read back by memlab's heap loader ({@code @memlab/core}, an
 * implementation of the format independent of heapload, run with Node from {@code tools/devtools-check}, where
 * {@code .ci/run} installs it with {@code npm ci}): its node and edge counts, and the retained size it computes for
 * every reachable object, equal heapload's. Skipped with one line without {@code node} or the installed package.
 */
@Tag("process")
class DevToolsExportTest {

    @TempDir
    static Path tmp;

    static Path checkDir;

    @BeforeAll
    static void findChecker() {
        Path repo = Path.of(System.getProperty("heapload.testdata", "../testdata")).toAbsolutePath().getParent();
        checkDir = repo.resolve("tools/devtools-check");
        Assumptions.assumeTrue(Files.isDirectory(checkDir.resolve("node_modules/@memlab/core")) && onPath("node"),
            "node or " + checkDir + "/node_modules/@memlab/core missing (run: cd tools/devtools-check && npm ci): "
                + "DevTools export checks skipped");
    }

    static boolean onPath(String exe) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, exe))) {
                return true;
            }
        }
        return false;
    }

    static Path shared(String... parts) {
        String shared = System.getProperty("heapload.shared");
        Path p = shared == null ? null : Path.of(shared, parts);
        Assumptions.assumeTrue(p != null && Files.exists(p), "shared test data not found (" + p + "): skipped");
        return p;
    }

    @Test
    void eventListeners() throws Exception {
        // event-listeners README: 871 objects in after.json
        Check c = check(Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau/event-listeners/after.json"));
        assertEquals(872, c.nodes);
    }

    @Test
    void undoHistory() throws Exception {
        check(shared("testdata", "luau", "undo-history", "after.json"));
    }

    @Test
    void microPython() throws Exception {
        check(shared("testdata", "micropython", "unix-x64-standard", "dump2", "regions.json"));
    }

    record Check(long nodes, long edges) {
    }

    /** Exports {@code dump}, reads it with memlab, compares counts and every reachable object's retained size. */
    static Check check(Path dump) throws Exception {
        HeapSnapshot s = DumpReaders.read(dump, null, Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        HeapAnalysis a = s.analysis();
        Path out = tmp.resolve(dump.getParent().getFileName() + ".heapsnapshot");
        try (OutputStream os = Files.newOutputStream(out)) {
            DevToolsHeapSnapshot.write(s, os);
        }
        Process p = new ProcessBuilder("node", checkDir.resolve("check.js").toString(), out.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<String> lines;
        try (var in = p.getInputStream()) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), "node check.js " + out);
        long nodes = Long.parseLong(lines.get(0).substring("nodes ".length()));
        long edges = Long.parseLong(lines.get(1).substring("edges ".length()));
        assertEquals(s.objectCount() + 1L, nodes, "nodes: the objects plus the synthetic root");
        assertEquals(s.referenceCount() + (long) s.roots().size(), edges, "edges: the references plus one per root");
        Map<Long, Long> retained = new HashMap<>();
        for (String line : lines.subList(2, lines.size())) {
            int sp = line.indexOf(' ');
            retained.put(Long.parseLong(line.substring(0, sp)), Long.parseLong(line.substring(sp + 1)));
        }
        long[] ids = DevToolsHeapSnapshot.ids(s);
        List<String> differ = new ArrayList<>();
        long reachableBytes = 0;
        int reachable = 0;
        for (int o = 0; o < s.objectCount(); o++) {
            if (!a.reachable()[o]) {
                continue;
            }
            reachable++;
            reachableBytes += s.shallowSize(o);
            Long r = retained.get(ids[o]);
            if (r == null || r != a.retainedSize()[o]) {
                differ.add(s.address(o) + " " + s.type(o) + ": heapload " + a.retainedSize()[o] + ", memlab " + r);
            }
        }
        assertEquals(List.of(), differ.subList(0, Math.min(20, differ.size())), differ.size() + " of " + reachable
            + " reachable objects differ");
        assertTrue(reachable > 0);
        // the synthetic root: memlab charges the objects no root reaches to it as well, so it retains every byte
        assertTrue(reachableBytes < s.totalShallowBytes());
        assertEquals(s.totalShallowBytes(), retained.get(1L), "the synthetic root's retained size");
        return new Check(nodes, edges);
    }
}
