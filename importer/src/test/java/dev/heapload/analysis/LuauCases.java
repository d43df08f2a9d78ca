package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;


import dev.heapload.luau.LuauDumpReader;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Test fixture for the analysis acceptance tests: the cases of shared/testdata/luau, each read and
 * analysed once per JVM (a static cache shared by all test classes), plus the helpers the tests assert
 * with (retention-path rendering, navigation by reference names, per-type and per-path summaries of
 * the new objects).
 *
 * <p>The shared data is found through the system property {@code heapload.shared} (set by the parent
 * pom's surefire configuration); {@link #requireData()} skips the calling test (a JUnit assumption, with the reason) when it is absent.
 */
final class LuauCases {

    private static final Map<String, Case> CACHE = new ConcurrentHashMap<>();

    private LuauCases() {
    }

    /** A sorted map from alternating name/count arguments: {@code counts("table", 3, "string", 2)}. */
    static Map<String, Integer> counts(Object... kv) {
        Map<String, Integer> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Integer) kv[i + 1]);
        }
        return m;
    }

    /** The given lines joined, each ending in a newline. */
    static String lines(String... lines) {
        return String.join("\n", lines) + "\n";
    }

    /** The luau test-data directory; skips the calling tests (JUnit assumption) when it is absent. */
    static Path requireData() {
        return dev.heapload.testsupport.SharedTestData.require("luau", "analysis acceptance tests on the real Luau dumps");
    }

    /** The case {@code name} (a directory of shared/testdata/luau), read and analysed on first use. */
    static Case get(String name) {
        Path dir = requireData().resolve(name);
        return CACHE.computeIfAbsent(name, n -> new Case(n, read(dir, "before"), read(dir, "after")));
    }

    private static HeapSnapshot read(Path dir, String which) {
        Path file = dir.resolve(which + ".json");
        if (!Files.exists(file)) {
            file = dir.resolve(which + ".json.gz");
        }
        try {
            return new LuauDumpReader().read(file, which, Progress.NONE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The object a reference comes from (its source). */
    static int sourceOf(HeapSnapshot s, int reference) {
        int[] first = s.firstReferenceColumn();
        int lo = 0;
        int hi = s.objectCount() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (first[mid] <= reference) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** How a path step is rendered: the reference's name when it has one, else its kind in brackets. */
    static String hop(HeapSnapshot s, int reference) {
        String name = s.referenceName(reference);
        return name != null ? name : "[" + s.referenceKind(reference) + "]";
    }

    /**
     * The retention path of a reachable object, rendered from its root: the root's name, then one step
     * per reference of {@code retainedBy} (see {@link #hop}), separated by {@code /}, e.g.
     * {@code registry/_MODULES/EventBus/ThemeChanged/handlers/[array]/fn/@Widget.luau}. Lua closures'
     * upvalue references are named by the proto's source (the reader names them as heapgraph.py groups
     * them; the dump has no upvalue names). Checks on the way that each step is a strong reference to the
     * object one hop nearer the root and that the walk ends at the root {@code rootOf} names.
     */
    static String path(HeapSnapshot s, HeapAnalysis a, int object) {
        assertTrue(a.reachable()[object], () -> s.type(object) + " " + s.address(object) + " is unreachable");
        Deque<String> steps = new ArrayDeque<>();
        int at = object;
        int hops = 0;
        while (a.retainedBy()[at] >= 0) {
            int r = a.retainedBy()[at];
            assertEquals(at, s.referenceTarget(r), "retainedBy must be a reference to the object");
            assertFalse(s.isWeak(r), "a retention path never uses a weak reference");
            steps.addFirst(hop(s, r));
            at = sourceOf(s, r);
            hops++;
            assertEquals(a.distance()[object] - hops, a.distance()[at], "one hop per distance step");
        }
        assertEquals(0, a.distance()[at], "a retention path starts at a root");
        HeapSnapshot.GcRoot root = s.roots().get(a.rootOf()[object]);
        assertEquals(at, root.object(), "rootOf names the path's root");
        steps.addFirst(root.name());
        return String.join("/", steps);
    }

    /** One case: both snapshots, the analysis of each, and which objects of after.json are new. */
    static final class Case {
        final String name;
        final HeapSnapshot before;
        final HeapSnapshot after;
        final HeapAnalysis beforeAnalysis;
        final HeapAnalysis analysis;
        final SnapshotDiff diff;

        Case(String name, HeapSnapshot before, HeapSnapshot after) {
            this.name = name;
            this.before = before;
            this.after = after;
            this.beforeAnalysis = HeapAnalyzer.analyze(before, Progress.NONE);
            this.analysis = HeapAnalyzer.analyze(after, Progress.NONE);
            this.diff = SnapshotDiff.compare(before, after);
        }

        boolean isNew(int o) {
            return diff.isNew()[o];
        }

        boolean reachable(int o) {
            return analysis.reachable()[o];
        }

        /** New objects of after.json that a root reaches, ascending ids. */
        List<Integer> newReachable() {
            return select(o -> isNew(o) && reachable(o));
        }

        /** New objects of after.json that no root reaches. */
        List<Integer> newUnreachable() {
            return select(o -> isNew(o) && !reachable(o));
        }

        List<Integer> select(IntPredicate p) {
            List<Integer> out = new ArrayList<>();
            for (int o = 0; o < after.objectCount(); o++) {
                if (p.test(o)) {
                    out.add(o);
                }
            }
            return out;
        }

        /** Per type: how many of {@code objects}. */
        Map<String, Integer> countByType(List<Integer> objects) {
            Map<String, Integer> m = new TreeMap<>();
            for (int o : objects) {
                m.merge(after.type(o), 1, Integer::sum);
            }
            return m;
        }

        /** Per type: shallow bytes of {@code objects}. */
        Map<String, Long> bytesByType(List<Integer> objects) {
            Map<String, Long> m = new TreeMap<>();
            for (int o : objects) {
                m.merge(after.type(o), after.shallowSize(o), Long::sum);
            }
            return m;
        }

        /**
         * The new reachable objects grouped by type and retention path, one line per group, sorted:
         * {@code "<count> <bytes> <type> <path>"}, the path passed through {@code normalize} first (to
         * fold e.g. per-item table keys into one group).
         */
        String newReachableByPath(UnaryOperator<String> normalize) {
            Map<String, long[]> groups = new TreeMap<>();
            for (int o : newReachable()) {
                long[] g = groups.computeIfAbsent(after.type(o) + " " + normalize.apply(path(o)), k -> new long[2]);
                g[0]++;
                g[1] += after.shallowSize(o);
            }
            StringBuilder sb = new StringBuilder();
            groups.forEach((k, g) -> sb.append(g[0]).append(' ').append(g[1]).append(' ').append(k).append('\n'));
            return sb.toString();
        }

        /** The object a reference of after.json comes from (its source). */
        int sourceOf(int reference) {
            return LuauCases.sourceOf(after, reference);
        }

        /** How a path step of after.json is rendered (see {@link LuauCases#hop}). */
        String hop(int reference) {
            return LuauCases.hop(after, reference);
        }

        /** The retention path of a reachable object of after.json (see {@link LuauCases#path}). */
        String path(int object) {
            return LuauCases.path(after, analysis, object);
        }

        /** The root object named {@code root}, then the single reference rendered as each hop (see {@link #hop}). */
        int at(String root, String... hops) {
            int o = -1;
            for (HeapSnapshot.GcRoot r : after.roots()) {
                if (r.name().equals(root)) {
                    o = r.object();
                }
            }
            assertTrue(o >= 0, "no root " + root);
            for (String h : hops) {
                int found = -1;
                for (int r = after.firstReference(o); r < after.firstReference(o + 1); r++) {
                    if (hop(r).equals(h)) {
                        assertEquals(-1, found, () -> "more than one reference " + h);
                        found = r;
                    }
                }
                if (found < 0) {
                    fail("no reference " + h + " from " + after.type(o) + " " + after.address(o));
                }
                o = after.referenceTarget(found);
            }
            return o;
        }

        /** References from {@code source}, in dump order. */
        List<Integer> referencesFrom(int source) {
            List<Integer> out = new ArrayList<>();
            for (int r = after.firstReference(source); r < after.firstReference(source + 1); r++) {
                out.add(r);
            }
            return out;
        }

        /** The target of the single reference of {@code source} rendered as {@code hop}. */
        int follow(int source, String hop) {
            int found = -1;
            for (int r : referencesFrom(source)) {
                if (hop(r).equals(hop)) {
                    assertEquals(-1, found, () -> "more than one reference " + hop);
                    found = r;
                }
            }
            assertTrue(found >= 0, () -> "no reference " + hop + " from " + after.address(source));
            return after.referenceTarget(found);
        }

        /** References of after.json that point at {@code target}. */
        List<Integer> referencesTo(int target) {
            List<Integer> out = new ArrayList<>();
            for (int r = 0; r < after.referenceCount(); r++) {
                if (after.referenceTarget(r) == target) {
                    out.add(r);
                }
            }
            return out;
        }

        /** The single object of after.json of this type whose label is {@code label}. */
        int labelled(String type, String label) {
            List<Integer> found = select(o -> after.type(o).equals(type) && label.equals(after.label(o)));
            assertEquals(1, found.size(), () -> type + " labelled " + label);
            return found.get(0);
        }

        /** Shallow bytes of all objects reachable in {@code s} per {@code a}. */
        static long reachableBytes(HeapSnapshot s, HeapAnalysis a) {
            long sum = 0;
            for (int o = 0; o < s.objectCount(); o++) {
                if (a.reachable()[o]) {
                    sum += s.shallowSize(o);
                }
            }
            return sum;
        }

        static int unreachableCount(HeapAnalysis a) {
            int n = 0;
            for (boolean r : a.reachable()) {
                if (!r) {
                    n++;
                }
            }
            return n;
        }
    }
}
