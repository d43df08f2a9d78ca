package dev.heapload.luau;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Benchmark (not a test): reads a Luau dump with {@link LuauDumpReader} and prints wall time, the
 * snapshot's size and heap use.
 *
 * <pre>
 * mvn -q -B -o test-compile -pl importer
 * mvn -q -B -o dependency:build-classpath -pl importer -Dmdep.outputFile=/tmp/cp.txt
 * java -Xmx1500m -cp importer/target/classes:importer/target/test-classes:$(cat /tmp/cp.txt) \
 *     dev.heapload.luau.LuauReadBench ../shared/testdata/luau-large/entity-system-large/after.json.gz [runs]
 * </pre>
 * "heap after" is the heap in use after a full GC with the snapshot still referenced (what keeping the
 * snapshot costs); "peak heap" is the JVM's peak use of its heap pools during the run (includes garbage).
 */
public final class LuauReadBench {

    private LuauReadBench() {
    }

    /**
     * @param args the dump file, then optionally the number of runs (default 1)
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        for (int run = 1; run <= runs; run++) {
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                pool.resetPeakUsage();
            }
            java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long cpu0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            HeapSnapshot s = new LuauDumpReader().read(file, "bench", Progress.NONE);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            long cpuMs = (threads.getCurrentThreadCpuTime() - cpu0) / 1_000_000;
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.gc();
            Runtime rt = Runtime.getRuntime();
            long used = rt.totalMemory() - rt.freeMemory();
            System.out.printf("run %d: %s: %,d ms wall (%,d ms CPU on the calling thread), %,d objects, %,d references, %,d shallow bytes;"
                    + " heap after (GC, snapshot live) %,d MB, peak heap %,d MB, max heap %,d MB%n",
                run, file.getFileName(), ms, cpuMs, s.objectCount(), s.referenceCount(), s.totalShallowBytes(),
                used >> 20, peak >> 20, rt.maxMemory() >> 20);
            for (String w : s.info().warnings()) {
                System.out.println("  warning: " + w);
            }
        }
    }
}
