package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.heapload.model.HeapSnapshot;

/**
 * Every way an object is kept alive, as Eclipse MAT's "merge shortest paths to GC roots" and Chrome DevTools'
 * Retainers view show it: distinct shortest strong paths from the GC roots to one object.
 *
 * <p>Which paths ({@link #find}): for each GC root that reaches the object over strong references, the shortest
 * path from that root; and for each strong referrer of the object (one path per referrer), the shortest path from
 * any root to that referrer that does not pass through the object itself, plus the reference into the object.
 * Identical paths are listed once; the paths are ordered by length, then by their first differing reference in
 * dump order, and at most {@code max} are kept. Ties between equally short paths are broken by the dump's order
 * of roots and references (breadth-first search), so the result is the same on every run.
 *
 * <p>Strong, as {@link Reachability} decides liveness: a reference flagged {@link HeapSnapshot#WEAK} is never
 * followed; an ephemeron value ({@link HeapSnapshot#EPHEMERON_VALUE}) or a Lua 5.1 weak-key table's value
 * ({@link HeapSnapshot#WEAK_KEY_VALUE}) only when its key is reachable; only references whose source is reachable.
 *
 * <p>Time O(objects + references) (one backward and one forward breadth-first search over arrays); extra memory
 * about 20 bytes per object and 4 per reference. Nothing recurses: paths of 100,000+ hops are walked iteratively.
 */
public final class RetentionPaths {

    /**
     * One path from a GC root to the object.
     *
     * @param root       index into {@code snapshot.roots()} of the root the path starts at
     * @param references the reference ids of the hops, from the root's object to the object (empty when the object
     *                   is a root itself)
     */
    public record Path(int root, int[] references) {
    }

    private RetentionPaths() {
    }

    /**
     * The distinct shortest strong paths to {@code object} (see the class comment).
     *
     * @param snapshot the heap, with its {@link HeapAnalysis} attached
     * @param object   the object id
     * @param max      at most this many paths ({@code >= 1})
     * @return the paths, shortest first; empty when the object is unreachable
     * @throws IllegalArgumentException when the snapshot was not analysed or {@code max < 1}
     */
    public static List<Path> find(HeapSnapshot snapshot, int object, int max) {
        HeapAnalysis a = snapshot.analysis();
        if (a == null || max < 1) {
            throw new IllegalArgumentException(a == null ? "snapshot not analysed" : "max must be at least 1");
        }
        boolean[] reachable = a.reachable();
        if (!reachable[object]) {
            return List.of();
        }
        int n = snapshot.objectCount();
        int[] first = snapshot.firstReferenceColumn();
        int[] targets = snapshot.referenceTargetColumn();
        byte[] flags = snapshot.referenceFlagsColumn();
        List<HeapSnapshot.GcRoot> roots = snapshot.roots();

        List<int[]> found = new ArrayList<>();
        // 1. per referrer: one forward breadth-first search from all roots that never leaves the object, so each
        // referrer's path avoids it; the parent reference of each object discovered
        int[] parent = new int[n];
        int[] rootOf = new int[n];
        Arrays.fill(parent, -2);
        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        for (int r = 0; r < roots.size(); r++) {
            int o = roots.get(r).object();
            if (parent[o] == -2) {
                parent[o] = -1;
                rootOf[o] = r;
                queue[tail++] = o;
            }
        }
        while (head < tail) {
            int u = queue[head++];
            if (u == object) {
                continue;
            }
            for (int e = first[u], end = first[u + 1]; e < end; e++) {
                int v = targets[e];
                if (parent[v] == -2 && strong(e, first[u], flags, targets, reachable)) {
                    parent[v] = e;
                    rootOf[v] = rootOf[u];
                    queue[tail++] = v;
                }
            }
        }
        if (parent[object] == -1) {
            found.add(new int[] {rootOf[object]});
        }
        // strong references into the object, from objects the search reached (in search order: nearest first)
        for (int i = 0; i < tail; i++) {
            int u = queue[i];
            if (u == object) {
                continue;
            }
            for (int e = first[u], end = first[u + 1]; e < end; e++) {
                if (targets[e] == object && strong(e, first[u], flags, targets, reachable)) {
                    found.add(walk(snapshot, parent, rootOf, u, e));
                    break;
                }
            }
        }
        // 2. per root: one backward breadth-first search from the object gives each object's distance to it and
        // the first reference that leads one hop closer
        int[] count = new int[n + 1];
        for (int u = 0; u < n; u++) {
            if (!reachable[u]) {
                continue;
            }
            for (int e = first[u], end = first[u + 1]; e < end; e++) {
                if (strong(e, first[u], flags, targets, reachable)) {
                    count[targets[e] + 1]++;
                }
            }
        }
        for (int i = 0; i < n; i++) {
            count[i + 1] += count[i];
        }
        int[] incoming = new int[count[n]];
        int[] fill = Arrays.copyOf(count, n);
        for (int u = 0; u < n; u++) {
            if (!reachable[u]) {
                continue;
            }
            for (int e = first[u], end = first[u + 1]; e < end; e++) {
                if (strong(e, first[u], flags, targets, reachable)) {
                    incoming[fill[targets[e]]++] = e;
                }
            }
        }
        fill = null;
        int[] toObject = new int[n];
        int[] next = new int[n];
        Arrays.fill(toObject, -1);
        head = 0;
        tail = 0;
        toObject[object] = 0;
        next[object] = -1;
        queue[tail++] = object;
        while (head < tail) {
            int v = queue[head++];
            for (int i = count[v]; i < count[v + 1]; i++) {
                int e = incoming[i];
                int u = snapshot.referenceSource(e);
                if (toObject[u] < 0) {
                    toObject[u] = toObject[v] + 1;
                    next[u] = e;
                    queue[tail++] = u;
                }
            }
        }
        boolean[] rootSeen = new boolean[n];
        for (int r = 0; r < roots.size(); r++) {
            int o = roots.get(r).object();
            if (toObject[o] < 0 || rootSeen[o]) {
                continue;
            }
            rootSeen[o] = true;
            int[] path = new int[toObject[o] + 1];
            path[0] = r;
            int x = o;
            for (int i = 1; i < path.length; i++) {
                path[i] = next[x];
                x = targets[next[x]];
            }
            found.add(path);
        }
        // distinct, shortest first, then by references in dump order (root index first)
        Set<List<Integer>> seen = new LinkedHashSet<>();
        List<int[]> distinct = new ArrayList<>();
        for (int[] p : found) {
            if (seen.add(Arrays.stream(p).boxed().toList())) {
                distinct.add(p);
            }
        }
        distinct.sort(Comparator.<int[]>comparingInt(p -> p.length).thenComparing(Arrays::compare));
        List<Path> out = new ArrayList<>();
        for (int[] p : distinct.subList(0, Math.min(max, distinct.size()))) {
            out.add(new Path(p[0], Arrays.copyOfRange(p, 1, p.length)));
        }
        return out;
    }

    /**
     * The objects that reference {@code object} over a strong reference that {@link #find} follows; for tests and
     * callers that want the referrers without paths.
     *
     * @return reference ids into {@code object}, in dump order of their sources
     */
    public static int[] strongReferencesInto(HeapSnapshot snapshot, int object) {
        HeapAnalysis a = snapshot.analysis();
        int[] first = snapshot.firstReferenceColumn();
        int[] targets = snapshot.referenceTargetColumn();
        byte[] flags = snapshot.referenceFlagsColumn();
        return java.util.stream.IntStream.range(0, snapshot.objectCount()).filter(u -> a.reachable()[u])
            .flatMap(u -> java.util.stream.IntStream.range(first[u], first[u + 1])
                .filter(e -> targets[e] == object && strong(e, first[u], flags, targets, a.reachable())))
            .toArray();
    }

    /** Root index, then the references from the root to {@code referrer}, then {@code last}. */
    private static int[] walk(HeapSnapshot snapshot, int[] parent, int[] rootOf, int referrer, int last) {
        int hops = 1;
        for (int x = referrer; parent[x] >= 0; x = snapshot.referenceSource(parent[x])) {
            hops++;
        }
        int[] path = new int[hops + 1];
        path[0] = rootOf[referrer];
        path[hops] = last;
        int i = hops - 1;
        for (int x = referrer; parent[x] >= 0; x = snapshot.referenceSource(parent[x])) {
            path[i--] = parent[x];
        }
        return path;
    }

    /**
     * Whether reference {@code e} (of an object whose references start at {@code firstOfSource}) keeps its target
     * alive, as the analysis decided: never a weak reference; the value of an ephemeron or weak-key table entry only
     * while its key (the reference before it) is reachable; every other reference.
     *
     * @param flags     the snapshot's reference flags ({@link HeapSnapshot#WEAK} …)
     * @param targets   the snapshot's reference targets
     * @param reachable the analysis' reachability per object
     */
    public static boolean strong(int e, int firstOfSource, byte[] flags, int[] targets, boolean[] reachable) {
        int f = flags[e];
        if ((f & HeapSnapshot.WEAK) != 0) {
            return false;
        }
        if ((f & (HeapSnapshot.EPHEMERON_VALUE | HeapSnapshot.WEAK_KEY_VALUE)) != 0) {
            return e > firstOfSource && reachable[targets[e - 1]];
        }
        return true;
    }
}
