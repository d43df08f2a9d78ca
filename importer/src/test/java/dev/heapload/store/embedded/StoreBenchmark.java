package dev.heapload.store.embedded;

import dev.heapload.store.embedded.GraphStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.HeapSnapshotFile;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;

/**
 * Benchmark (not a test): builds a synthetic analysed snapshot (default 2.4M objects, 7M references, Luau-like
 * type mix) and loads it into a fresh store, printing wall time per phase. Peak RSS comes from the caller:
 *
 * <pre>
 * mvn -q -o dependency:build-classpath -pl importer -Dmdep.outputFile=/tmp/cp.txt
 * mvn -q -o test-compile -pl importer
 * /usr/bin/time -v java -Xmx1500m &lt;neo4j.jvm.flags from the parent pom&gt; \
 *     -cp importer/target/classes:importer/target/test-classes:$(cat /tmp/cp.txt) \
 *     dev.heapload.store.StoreBenchmark /tmp/bench-store [objects] [references] [--second] [--no-analysis]
 * </pre>
 * {@code --no-analysis} loads the snapshot without analysis results (no retention flags, fewer
 * properties). With {@code --second} a second snapshot (same shape, id "second") is loaded after the first, to show the
 * cost of a rebuild that reads another snapshot back from its file.
 */
public final class StoreBenchmark {

    private StoreBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/heapload-bench-store");
        int objects = args.length > 1 ? Integer.parseInt(args[1]) : 2_400_000;
        int references = args.length > 2 ? Integer.parseInt(args[2]) : 7_000_000;
        boolean second = List.of(args).contains("--second");
        boolean analysed = !List.of(args).contains("--no-analysis");
        if (Files.exists(dir)) {
            GraphStore.deleteRecursively(dir);
        }
        long t0 = System.nanoTime();
        HeapSnapshot snapshot = synthetic("bench", objects, references, 42, analysed);
        long t1 = System.nanoTime();
        System.out.printf("synthetic snapshot: %,d objects, %,d references, %,d roots: %.2f s (not part of the store)%n",
            snapshot.objectCount(), snapshot.referenceCount(), snapshot.roots().size(), (t1 - t0) / 1e9);
        memory("after build");

        long total0 = System.nanoTime();
        try (GraphStore store = GraphStore.open(dir)) {
            Timing timing = new Timing();
            long l0 = System.nanoTime();
            store.load(snapshot, false, timing);
            long l1 = System.nanoTime();
            timing.print();
            System.out.printf("load total: %.2f s%n", (l1 - l0) / 1e9);
            System.out.printf("peak RSS so far (VmHWM): %s%n", peakRss());
            memory("after load");
            sizes(dir);

            long r0 = System.nanoTime();
            HeapSnapshot back = HeapSnapshotFile.read(dir.resolve("snapshots/bench.hsnap"));
            System.out.printf("read back snapshot file: %.2f s (%,d objects)%n", (System.nanoTime() - r0) / 1e9,
                back.objectCount());
            back = null;

            if (second) {
                Timing t2 = new Timing();
                long s0 = System.nanoTime();
                store.load(synthetic("second", objects, references, 43, analysed), false, t2);
                t2.print();
                System.out.printf("second load total (rebuild of both): %.2f s%n", (System.nanoTime() - s0) / 1e9);
                sizes(dir);
            }

            long d0 = System.nanoTime();
            GraphDatabaseService db = store.database();
            long d1 = System.nanoTime();
            System.out.printf("database() start: %.2f s%n", (d1 - d0) / 1e9);
            try (Transaction tx = db.beginTx()) {
                long q0 = System.nanoTime();
                try (Result r = tx.execute("MATCH (o:Object) RETURN count(o) AS n")) {
                    System.out.printf("MATCH (o:Object) RETURN count(o): %,d in %.2f s%n", r.next().get("n"),
                        (System.nanoTime() - q0) / 1e9);
                }
                q0 = System.nanoTime();
                try (Result r = tx.execute("MATCH (o:Object {snapshot:'bench', address:$a})-[:REF]->(t) RETURN count(t) AS n",
                    Map.of("a", snapshot.address(objects / 2)))) {
                    System.out.printf("index seek + expand: %d in %.3f s%n", r.next().get("n"), (System.nanoTime() - q0) / 1e9);
                }
                q0 = System.nanoTime();
                try (Result r = tx.execute("MATCH ()-[r:REF|WEAK_REF]->() RETURN count(r) AS n")) {
                    System.out.printf("references in graph: %,d in %.2f s%n", r.next().get("n"), (System.nanoTime() - q0) / 1e9);
                }
            }
        }
        System.out.printf("store phase wall time (open, load, database(), queries, close): %.2f s%n",
            (System.nanoTime() - total0) / 1e9);
        System.out.printf("peak RSS (VmHWM): %s%n", peakRss());
    }

    /** Peak resident set size of this process so far, from /proc/self/status (Linux). */
    private static String peakRss() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return "n/a";
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmHWM:")) {
                return line.substring(6).trim();
            }
        }
        return "n/a";
    }

    private static void memory(String when) {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        System.out.printf("heap used %s: %,d MiB (max %,d MiB)%n", when, (rt.totalMemory() - rt.freeMemory()) >> 20,
            rt.maxMemory() >> 20);
    }

    private static void sizes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            Map<String, Long> bySection = new LinkedHashMap<>();
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                String top = dir.relativize(p).getName(0).toString();
                bySection.merge(top, Files.size(p), Long::sum);
            }
            bySection.forEach((k, v) -> System.out.printf("  on disk %-20s %,d MiB%n", k, v >> 20));
        }
    }

    /** Wall time per progress phase. */
    private static final class Timing implements Progress {
        private final Map<String, Long> nanos = new LinkedHashMap<>();
        private String phase;
        private long start;

        @Override
        public void start(String phase, long total, String unit) {
            this.phase = phase;
            this.start = System.nanoTime();
        }

        @Override
        public void step(long done) {
        }

        @Override
        public void end() {
            nanos.merge(phase, System.nanoTime() - start, Long::sum);
        }

        void print() {
            nanos.forEach((p, n) -> System.out.printf("  phase %-8s %.2f s%n", p, n / 1e9));
        }
    }

    /**
     * A Luau-like heap: a spanning tree from object 0 (so most objects are reachable) plus random extra edges,
     * 3% of extra edges weak, some ephemeron values, strings with short labels, named table slots; and an
     * analysis (BFS distances and retention edges; the BFS tree stands in for the dominator tree).
     */
    static HeapSnapshot synthetic(String id, int n, int m, long seed, boolean analysed) {
        Random rnd = new Random(seed);
        String[] types = {"table", "string", "function", "userdata", "upvalue", "proto", "thread"};
        int[] typeWeights = {35, 40, 10, 5, 5, 3, 2};
        byte[] type = new byte[n];
        for (int i = 0; i < n; i++) {
            int x = rnd.nextInt(100);
            int t = 0;
            while (x >= typeWeights[t]) {
                x -= typeWeights[t];
                t++;
            }
            type[i] = (byte) t;
        }
        // edges grouped by source: tree edge parent(o) -> o, plus (m - (n - 1)) random edges
        int extra = Math.max(0, m - (n - 1));
        int[] count = new int[n + 1];
        int[] parent = new int[n];
        for (int o = 1; o < n; o++) {
            parent[o] = rnd.nextInt(o);
            count[parent[o] + 1]++;
        }
        int[] extraSource = new int[extra];
        for (int e = 0; e < extra; e++) {
            extraSource[e] = rnd.nextInt(n);
            count[extraSource[e] + 1]++;
        }
        for (int i = 0; i < n; i++) {
            count[i + 1] += count[i];
        }
        int[] fill = count.clone();
        int[] edgeTarget = new int[n - 1 + extra];
        boolean[] isTree = new boolean[edgeTarget.length];
        for (int o = 1; o < n; o++) {
            int at = fill[parent[o]]++;
            edgeTarget[at] = o;
            isTree[at] = true;
        }
        for (int e = 0; e < extra; e++) {
            edgeTarget[fill[extraSource[e]]++] = rnd.nextInt(n);
        }
        extraSource = null;
        parent = null;

        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        StringBuilder addr = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.objectId(address(addr, i));
        }
        int[] kinds = {b.kind("value"), b.kind("key"), b.kind("upvalue"), b.kind("proto"), b.kind("metatable"), b.kind("env")};
        int[] names = new int[5000];
        for (int i = 0; i < names.length; i++) {
            names[i] = b.name("field" + i);
        }
        for (int o = 0; o < n; o++) {
            String t = types[type[o]];
            String label = switch (type[o]) {
                case 1 -> "s" + Integer.toString(o, 36);
                case 2, 5 -> "fn" + (o % 5000);
                default -> null;
            };
            b.defineObject(address(addr, o), t, 16 + rnd.nextInt(497), rnd.nextInt(16), label);
            for (int at = count[o]; at < count[o + 1]; at++) {
                int target = edgeTarget[at];
                int x = rnd.nextInt(100);
                int kind = type[o] == 0 ? kinds[x < 70 ? 0 : x < 90 ? 1 : 4] : type[o] == 2 ? kinds[x < 50 ? 2 : x < 80 ? 3 : 5]
                    : kinds[0];
                int name = type[o] != 0 || x >= 90 ? HeapSnapshot.NO_NAME
                    : type[target] == 1 && x < 30 ? HeapSnapshotBuilder.nameFromObject(target) : names[rnd.nextInt(names.length)];
                int flags = 0;
                if (!isTree[at]) {
                    int y = rnd.nextInt(100);
                    flags = y < 3 ? HeapSnapshot.WEAK : y < 4 ? HeapSnapshot.EPHEMERON_VALUE : 0;
                }
                b.addReference(target, kind, name, flags);
            }
        }
        b.addRoot("registry", 0);
        for (int r = 0; r < 99; r++) {
            b.addRoot("stack#" + r, rnd.nextInt(n));
        }
        Map<Integer, MemoryCategory> cats = new LinkedHashMap<>();
        for (int c = 0; c < 16; c++) {
            cats.put(c, new MemoryCategory(c, c == 0 ? "default" : "cat" + c, 1_000_000L * (c + 1)));
        }
        HeapSnapshot s = b.build(new SnapshotInfo(id, "luau", id + ".json", "00".repeat(32), -1, cats, List.of()));
        if (analysed) {
            s.attachAnalysis(bfsAnalysis(s));
        }
        return s;
    }

    private static String address(StringBuilder sb, int i) {
        sb.setLength(0);
        return sb.append("0x").append(Long.toHexString(0x7f3a00000000L + 48L * i)).toString();
    }

    private static HeapAnalysis bfsAnalysis(HeapSnapshot s) {
        int n = s.objectCount();
        int[] first = s.firstReferenceColumn();
        int[] targets = s.referenceTargetColumn();
        byte[] flags = s.referenceFlagsColumn();
        boolean[] reachable = new boolean[n];
        int[] distance = new int[n];
        int[] retainedBy = new int[n];
        int[] rootOf = new int[n];
        int[] idom = new int[n];
        long[] retained = new long[n];
        java.util.Arrays.fill(distance, -1);
        java.util.Arrays.fill(retainedBy, -1);
        java.util.Arrays.fill(rootOf, -1);
        java.util.Arrays.fill(idom, -1);
        int[] order = new int[n];
        int head = 0;
        int tail = 0;
        List<HeapSnapshot.GcRoot> roots = s.roots();
        for (int r = 0; r < roots.size(); r++) {
            int o = roots.get(r).object();
            if (!reachable[o]) {
                reachable[o] = true;
                distance[o] = 0;
                rootOf[o] = r;
                order[tail++] = o;
            }
        }
        while (head < tail) {
            int o = order[head++];
            for (int ref = first[o]; ref < first[o + 1]; ref++) {
                int t = targets[ref];
                if ((flags[ref] & (HeapSnapshot.WEAK | HeapSnapshot.EPHEMERON_VALUE)) != 0 || reachable[t]) {
                    continue;
                }
                reachable[t] = true;
                distance[t] = distance[o] + 1;
                retainedBy[t] = ref;
                rootOf[t] = rootOf[o];
                idom[t] = o;
                order[tail++] = t;
            }
        }
        long[] sizes = s.shallowSizeColumn();
        for (int i = tail - 1; i >= 0; i--) {
            int o = order[i];
            retained[o] += sizes[o];
            if (idom[o] >= 0) {
                retained[idom[o]] += retained[o];
            }
        }
        return new HeapAnalysis(reachable, distance, retainedBy, rootOf, idom, retained);
    }
}
