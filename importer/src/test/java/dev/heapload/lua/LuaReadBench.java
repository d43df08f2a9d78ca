package dev.heapload.lua;

import java.nio.file.Path;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Benchmark (not a test): reads a Lua dump (format detected) and analyses it, printing wall times.
 *
 * <pre>
 * mvn -q -B -o test-compile -pl importer
 * mvn -q -B -o dependency:build-classpath -pl importer -Dmdep.outputFile=/tmp/cp.txt
 * java -Xmx1500m -cp importer/target/classes:importer/target/test-classes:$(cat /tmp/cp.txt) \
 *     dev.heapload.lua.LuaReadBench /tmp/bench/lua5.4.json [runs]
 * </pre>
 * (dumpers/lua/bench/run.sh writes such files.)
 */
public final class LuaReadBench {

    private LuaReadBench() {
    }

    /**
     * @param args the dump file, then optionally the number of runs (default 1)
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        for (int run = 1; run <= runs; run++) {
            long t0 = System.nanoTime();
            HeapSnapshot s = DumpReaders.read(file, "bench", Progress.NONE);
            long t1 = System.nanoTime();
            HeapAnalyzer.analyze(s, Progress.NONE);
            long t2 = System.nanoTime();
            System.out.printf("run %d: read %.2f s, analyse %.2f s: %,d objects, %,d references (%s)%n", run,
                (t1 - t0) / 1e9, (t2 - t1) / 1e9, s.objectCount(), s.referenceCount(), s.info().vm());
        }
    }
}
