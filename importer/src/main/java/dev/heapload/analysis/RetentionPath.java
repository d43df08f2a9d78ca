package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.List;

import dev.heapload.model.HeapSnapshot;

/**
 * An object's retention path as names, the form the saved queries {@code largest-retainers} and {@code growth}
 * return: the root's name, then per hop the reference's name, or its kind in brackets ({@code [array]}) when it
 * has none, followed by {@code in frame F} for a stack slot ({@link HeapSnapshot#referenceFrame}). Precomputed at load time for the few objects those queries list, because walking the path in Cypher
 * reads every incoming reference of every object on it (1.2M reads, 5 s cold, for the 20 largest retainers of the
 * 2.4M-object entity-system-large snapshot).
 */
public final class RetentionPath {

    private RetentionPath() {
    }

    /**
     * The path of object {@code o} from its root as hops ({@link PathHop}: hop 0 the root, then one per reference).
     *
     * @return the hops, root first; {@code null} when {@code o} is unreachable or its root has no name
     */
    public static List<PathHop> hops(HeapSnapshot s, HeapAnalysis a, int o) {
        int[] refs = references(s, a, o);
        if (refs == null) {
            return null;
        }
        int x = refs.length == 0 ? o : s.referenceSource(refs[0]);
        List<PathHop> hops = new ArrayList<>(refs.length + 1);
        hops.add(PathHop.root(s, rootName(s, a, x), x));
        for (int r : refs) {
            hops.add(PathHop.of(s, r, s.referenceSource(r)));
        }
        return List.copyOf(hops);
    }

    /**
     * The retention path of object {@code o} as reference ids, root first: {@code references[0]} leaves the root
     * object ({@code s.referenceSource(references[0])}, or {@code o} itself when the array is empty), each next one
     * leaves the previous one's target, the last one's target is {@code o}. Walks {@link HeapAnalysis#retainedBy} up
     * from {@code o}: O(path length) plus a binary search per hop, no recursion.
     *
     * @return the references ({@code int[0]} when {@code o} is a root object); {@code null} when {@code o} is
     *         unreachable or the root its path starts at has no name
     */
    public static int[] references(HeapSnapshot s, HeapAnalysis a, int o) {
        if (!a.reachable()[o]) {
            return null;
        }
        int[] refs = new int[Math.max(0, a.distance()[o])];
        int k = 0;
        int x = o;
        for (int r = a.retainedBy()[x]; r >= 0; r = a.retainedBy()[x]) {
            if (k == refs.length) {
                refs = java.util.Arrays.copyOf(refs, Math.max(4, k * 2));
            }
            refs[k++] = r;
            x = s.referenceSource(r);
        }
        if (rootName(s, a, x) == null) {
            return null;
        }
        int[] out = new int[k];
        for (int i = 0; i < k; i++) {
            out[i] = refs[k - 1 - i];
        }
        return out;
    }

    /** The name of the root a retention path starting at root object {@code x} starts from, or {@code null}. */
    private static String rootName(HeapSnapshot s, HeapAnalysis a, int x) {
        int root = a.rootOf()[x];
        return root >= 0 ? s.roots().get(root).name() : null;
    }

    /**
     * The dominators of the last object of a retention path that lie on that path, the object first: each next
     * element is the immediate dominator ({@link HeapAnalysis#immediateDominator}) of the one before, as long as that
     * dominator is an object of the path nearer the root. Every dominator of an object lies on every path from the
     * roots to it, so on a retention path this is the object's whole dominator chain up to an object the super-root
     * dominates.
     *
     * @param path the path's objects, root first, the object last (at least one)
     * @return object ids, the object first; O(path length)
     */
    public static int[] dominatorsAlong(HeapAnalysis a, int[] path) {
        int[] kept = new int[Math.min(path.length, 16)];
        int k = 0;
        kept[k++] = path[path.length - 1];
        for (int i = path.length - 2; i >= 0; i--) {
            if (path[i] == a.immediateDominator()[kept[k - 1]]) {
                if (k == kept.length) {
                    kept = java.util.Arrays.copyOf(kept, Math.min(path.length, k * 2));
                }
                kept[k++] = path[i];
            }
        }
        return java.util.Arrays.copyOf(kept, k);
    }

    /**
     * The path of object {@code o} from its root as display names ({@link PathHop#displayName}), e.g.
     * {@code [registry, _MODULES, EventBus, handlers, [array]]}.
     *
     * @return the names, root first; {@code null} when {@code o} is unreachable or its root has no name
     */
    public static List<String> names(HeapSnapshot s, HeapAnalysis a, int o) {
        List<PathHop> hops = hops(s, a, o);
        return hops == null ? null : names(hops);
    }

    /**
     * The display names of hops: the root's name, then {@link PathHop#displayName} per hop, followed by
     * {@code in frame F} for a stack slot.
     */
    public static List<String> names(List<PathHop> hops) {
        List<String> names = new ArrayList<>(hops.size());
        for (PathHop h : hops) {
            names.add(PathHop.ROOT_KIND.equals(h.kind()) ? h.name()
                : h.displayName() + (h.frame() != null ? " in frame " + h.frame() : ""));
        }
        return List.copyOf(names);
    }
}
