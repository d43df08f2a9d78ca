package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.SnapshotInfo;
import dev.heapload.model.Progress;

/** Reachability, retention paths, dominators and retained sizes on hand-built graphs with known answers. */
class HeapAnalyzerTest {

    static String addr(String name) {
        return "0x" + Integer.toHexString(name.charAt(0) - 'a' + 1) + Integer.toHexString(name.length() > 1 ? name.charAt(1) : 0);
    }

    /**
     * Builds a snapshot: each entry "x:size>y,z" defines x with references to y and z in that order;
     * a target prefixed with '~' is weak, with '!' an ephemeron value (the previous target is its key).
     */
    static HeapSnapshot heap(String roots, String... objects) {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int kind = b.kind("value");
        for (String spec : objects) {
            String[] head = spec.split(">", 2);
            String[] p = head[0].split(":");
            b.defineObject(addr(p[0]), "table", Long.parseLong(p[1]), 0, p[0]);
            if (head.length > 1) {
                for (String t : head[1].split(",")) {
                    int flag = 0;
                    if (t.startsWith("~")) {
                        flag = HeapSnapshot.WEAK;
                        t = t.substring(1);
                    } else if (t.startsWith("!")) {
                        flag = HeapSnapshot.EPHEMERON_VALUE;
                        t = t.substring(1);
                    }
                    b.addReference(b.objectId(addr(t)), kind, b.name(t), flag);
                }
            }
        }
        for (String r : roots.split(",")) {
            b.addRoot("root-" + r, b.objectId(addr(r)));
        }
        return b.build(new SnapshotInfo("t", "test", "t", "", -1, Map.of(), List.of()));
    }

    static int id(HeapSnapshot s, String name) {
        for (int i = 0; i < s.objectCount(); i++) {
            if (name.equals(s.label(i))) {
                return i;
            }
        }
        throw new AssertionError("no object " + name);
    }

    static String idomName(HeapSnapshot s, HeapAnalysis a, String name) {
        int d = a.immediateDominator()[id(s, name)];
        return d < 0 ? "*" : s.label(d);
    }

    static long retained(HeapSnapshot s, HeapAnalysis a, String name) {
        return a.retainedSize()[id(s, name)];
    }

    @Test
    void chain() {
        HeapSnapshot s = heap("a", "a:1>b", "b:2>c", "c:4>d", "d:8");
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals(15, retained(s, a, "a"));
        assertEquals(14, retained(s, a, "b"));
        assertEquals(12, retained(s, a, "c"));
        assertEquals(8, retained(s, a, "d"));
        assertEquals("c", idomName(s, a, "d"));
        assertEquals("*", idomName(s, a, "a"));
        assertEquals(3, a.distance()[id(s, "d")]);
    }

    @Test
    void diamondSharedNodeBelongsToTheFork() {
        // a -> b, a -> c, b -> d, c -> d, d -> e
        HeapSnapshot s = heap("a", "a:1>b,c", "b:2>d", "c:4>d", "d:8>e", "e:16");
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals("a", idomName(s, a, "d"));
        assertEquals("d", idomName(s, a, "e"));
        assertEquals(2, retained(s, a, "b"));
        assertEquals(4, retained(s, a, "c"));
        assertEquals(24, retained(s, a, "d"));
        assertEquals(31, retained(s, a, "a"));
        // retention path of d: first shortest path in dump order goes through b
        int via = a.retainedBy()[id(s, "d")];
        assertEquals("d", s.referenceName(via));
        assertEquals(2, a.distance()[id(s, "d")]);
    }

    @Test
    void cycleIsRetainedByItsEntry() {
        // a -> b -> c -> d -> b (cycle b,c,d)
        HeapSnapshot s = heap("a", "a:1>b", "b:2>c", "c:4>d", "d:8>b");
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals(14, retained(s, a, "b"));
        assertEquals(12, retained(s, a, "c"));
        assertEquals("b", idomName(s, a, "c"));
        assertEquals("c", idomName(s, a, "d"));
    }

    @Test
    void objectSharedByTwoRootsIsDominatedByTheSuperRoot() {
        HeapSnapshot s = heap("a,b", "a:1>c", "b:2>c", "c:4>d", "d:8", "e:100>c");
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals("*", idomName(s, a, "c"));
        assertEquals(1, retained(s, a, "a"));
        assertEquals(12, retained(s, a, "c"));
        // e is unreachable: referencing c does not make it live, and it retains nothing
        assertEquals(false, a.reachable()[id(s, "e")]);
        assertEquals(0, retained(s, a, "e"));
        assertEquals(-1, a.distance()[id(s, "e")]);
        // sum over the super-root's children = reachable bytes (1+2+4+8)
        long sum = 0;
        for (int i = 0; i < s.objectCount(); i++) {
            if (a.reachable()[i] && a.immediateDominator()[i] < 0) {
                sum += a.retainedSize()[i];
            }
        }
        assertEquals(15, sum);
    }

    @Test
    void weakReferencesDoNotRetain() {
        // a -> b strong, a -> c weak, b -> c weak: c is unreachable; d reachable via weak only is not reachable
        HeapSnapshot s = heap("a", "a:1>b,~c", "b:2>~c", "c:4");
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertArrayEquals(new boolean[] {true, true, false},
            new boolean[] {a.reachable()[id(s, "a")], a.reachable()[id(s, "b")], a.reachable()[id(s, "c")]});
        assertEquals(3, retained(s, a, "a"));
    }

    @Test
    void ephemeronValueLivesOnlyWhileItsKeyIsReachable() {
        // t is an ephemeron table with entries (k1 -> v1) and (k2 -> v2); only k1 is reachable elsewhere
        // (via r -> k1, and r's edge comes after t so the key is found later: parking is exercised).
        HeapSnapshot s = heap("r", "r:1>t,x", "t:2>~k1,!v1,~k2,!v2", "x:4>k1", "k1:8", "v1:16>k2", "k2:32", "v2:64");
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals(true, a.reachable()[id(s, "v1")]);
        // v1 keeps k2 alive, so v2 becomes reachable too (the fixpoint)
        assertEquals(true, a.reachable()[id(s, "k2")]);
        assertEquals(true, a.reachable()[id(s, "v2")]);
        HeapSnapshot s2 = heap("r", "r:1>t", "t:2>~k1,!v1", "k1:8", "v1:16");
        HeapAnalysis a2 = HeapAnalyzer.analyze(s2, Progress.NONE);
        assertEquals(false, a2.reachable()[id(s2, "k1")]);
        assertEquals(false, a2.reachable()[id(s2, "v1")]);
        assertEquals(3, retained(s2, a2, "r"));
    }

    @Test
    void deepChainNeedsNoRecursion() {
        int n = 200_000;
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int kind = b.kind("next");
        for (int i = 0; i < n; i++) {
            b.defineObject("0x" + Integer.toHexString(i + 1), "table", 10, 0, null);
            if (i + 1 < n) {
                b.addReference(b.objectId("0x" + Integer.toHexString(i + 2)), kind, HeapSnapshot.NO_NAME, 0);
            }
        }
        b.addRoot("head", b.objectId("0x1"));
        HeapSnapshot s = b.build(new SnapshotInfo("t", "test", "t", "", -1, Map.of(), List.of()));
        HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
        assertEquals(10L * n, a.retainedSize()[0]);
        assertEquals(10L, a.retainedSize()[n - 1]);
        assertEquals(n - 1, a.distance()[n - 1]);
        assertEquals(n - 2, a.immediateDominator()[n - 1]);
    }

    /**
     * Random graphs: the immediate dominator must equal the definition (the closest object whose removal
     * makes the target unreachable), checked by brute force, and retained sizes must equal the bytes that
     * become unreachable when the object is removed.
     */
    @Test
    void matchesBruteForceOnRandomGraphs() {
        java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 200; round++) {
            int n = 2 + random.nextInt(12);
            HeapSnapshotBuilder b = new HeapSnapshotBuilder();
            int kind = b.kind("value");
            long[] size = new long[n];
            boolean[][] edge = new boolean[n][n];
            for (int i = 0; i < n; i++) {
                size[i] = 1L << i;
                b.defineObject("0x" + Integer.toHexString(i + 1), "table", size[i], 0, null);
                int m = random.nextInt(4);
                for (int k = 0; k < m; k++) {
                    int t = random.nextInt(n);
                    edge[i][t] = true;
                    b.addReference(b.objectId("0x" + Integer.toHexString(t + 1)), kind, HeapSnapshot.NO_NAME, 0);
                }
            }
            int roots = 1 + random.nextInt(2);
            boolean[] isRoot = new boolean[n];
            for (int r = 0; r < roots; r++) {
                int o = random.nextInt(n);
                isRoot[o] = true;
                b.addRoot("r" + r, b.objectId("0x" + Integer.toHexString(o + 1)));
            }
            HeapSnapshot s = b.build(new SnapshotInfo("t", "test", "t", "", -1, Map.of(), List.of()));
            HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
            // ids equal creation order here because objects are defined before being referenced or in order
            boolean[] live = reach(edge, isRoot, -1);
            for (int v = 0; v < n; v++) {
                int id = s.objectCount() == n ? idOf(s, v) : -1;
                assertEquals(live[v], a.reachable()[id], "reachable " + v + " round " + round);
                if (!live[v]) {
                    continue;
                }
                long freed = 0;
                boolean[] without = reach(edge, isRoot, v);
                for (int x = 0; x < n; x++) {
                    if (live[x] && !without[x]) {
                        freed += size[x];
                    }
                }
                assertEquals(freed, a.retainedSize()[id], "retained " + v + " round " + round);
            }
        }
    }

    private static int idOf(HeapSnapshot s, int index) {
        String want = "0x" + Integer.toHexString(index + 1);
        for (int i = 0; i < s.objectCount(); i++) {
            if (s.address(i).equals(want)) {
                return i;
            }
        }
        throw new AssertionError(want);
    }

    /** Objects reachable from the roots when {@code removed} (or none, -1) is deleted. */
    private static boolean[] reach(boolean[][] edge, boolean[] isRoot, int removed) {
        int n = edge.length;
        boolean[] seen = new boolean[n];
        java.util.ArrayDeque<Integer> q = new java.util.ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (isRoot[i] && i != removed) {
                seen[i] = true;
                q.add(i);
            }
        }
        while (!q.isEmpty()) {
            int u = q.poll();
            for (int v = 0; v < n; v++) {
                if (edge[u][v] && !seen[v] && v != removed) {
                    seen[v] = true;
                    q.add(v);
                }
            }
        }
        return seen;
    }
}
