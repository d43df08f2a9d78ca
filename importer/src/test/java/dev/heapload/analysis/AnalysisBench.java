package dev.heapload.analysis;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;

import dev.heapload.luau.LuauDumpReader;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Benchmark (not a test): reads a dump, then times the analysis pass alone ({@link HeapAnalyzer}: reachability,
 * retention paths, dominators, retained sizes) and reports the heap the model plus the analysis keep.
 *
 * <pre>
 * mvn -q -B -o test-compile -pl importer
 * mvn -q -B -o dependency:build-classpath -pl importer -Dmdep.outputFile=/tmp/heapload-cp.txt
 * java -Xmx1g -cp importer/target/classes:importer/target/test-classes:$(cat /tmp/heapload-cp.txt) \
 *     dev.heapload.analysis.AnalysisBench ../shared/testdata/luau-large/entity-system-large/after.json.gz [runs]
 * </pre>
 */
public final class AnalysisBench {

    private AnalysisBench() {
    }

    /**
     * @param args the dump file, then optionally the number of analysis runs (default 3)
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        HeapSnapshot s = new LuauDumpReader().read(file, "bench", Progress.NONE);
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long model = rt.totalMemory() - rt.freeMemory();
        HeapAnalysis a = null;
        for (int run = 1; run <= runs; run++) {
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                pool.resetPeakUsage();
            }
            long t0 = System.nanoTime();
            a = HeapAnalyzer.analyze(s, Progress.NONE);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.gc();
            long kept = rt.totalMemory() - rt.freeMemory();
            System.out.printf("run %d: analysis of %,d objects / %,d references: %,d ms; heap: model %,d MB, "
                    + "model + analysis %,d MB (after GC), peak during the run %,d MB, max heap %,d MB%n",
                run, s.objectCount(), s.referenceCount(), ms, model >> 20, kept >> 20, peak >> 20, rt.maxMemory() >> 20);
        }
        long reachable = 0;
        for (boolean r : a.reachable()) {
            reachable += r ? 1 : 0;
        }
        System.out.printf("reachable objects: %,d of %,d%n", reachable, s.objectCount());
    }
}
