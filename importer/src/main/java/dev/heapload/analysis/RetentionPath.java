package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.Collections;
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
        if (!a.reachable()[o]) {
            return null;
        }
        List<PathHop> hops = new ArrayList<>();
        int x = o;
        for (int r = a.retainedBy()[x]; r >= 0; r = a.retainedBy()[x]) {
            x = s.referenceSource(r);
            hops.add(PathHop.of(s, r, x));
        }
        int root = a.rootOf()[x];
        String rootName = root >= 0 ? s.roots().get(root).name() : null;
        if (rootName == null) {
            return null;
        }
        hops.add(PathHop.root(s, rootName, x));
        Collections.reverse(hops);
        return List.copyOf(hops);
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
