package dev.heapload.explore;

import java.util.ArrayList;
import java.util.List;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.PathHop;
import dev.heapload.analysis.RetentionPath;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryResult;

/**
 * The saved query {@code why-alive} (cypher/why-alive.cypher) answered from a snapshot's model and analysis: the same
 * columns, rows and order as the Cypher. Chain {@code retention}: the object's retention path from its root
 * ({@link RetentionPath#references}), step 0 the root object with via {@code root NAME}, each later step the target
 * of one reference with via its display name ({@link PathHop#displayName}) and {@code in frame F} for a stack slot;
 * no such rows when the object is unreachable or its root has no name. Chain {@code dominator}: the object, then its
 * dominators along that path ({@link RetentionPath#dominatorsAlong}; the object alone when it has no path). Ordered
 * by chain (retention first) and step: a total order. O(path length) after the object is found.
 */
public final class WhyAliveQuery {

    /** The query's name. */
    public static final String NAME = "why-alive";

    /** The result's columns, as the saved query's header lists them. */
    public static final List<String> COLUMNS = List.of("chain", "step", "address", "type", "label", "via", "size",
        "retainedSize");

    private WhyAliveQuery() {
    }

    /**
     * The rows for object {@code object} of {@code s}.
     *
     * @param a     the snapshot's analysis
     * @param limit at most this many rows (0: all)
     */
    public static QueryResult run(HeapSnapshot s, HeapAnalysis a, int object, long limit) {
        List<List<Object>> rows = new ArrayList<>();
        int[] refs = RetentionPath.references(s, a, object);
        int[] path;
        if (refs == null) {
            path = new int[] {object};
        } else {
            path = new int[refs.length + 1];
            path[0] = refs.length == 0 ? object : s.referenceSource(refs[0]);
            rows.add(ModelRows.hop("retention", 0, s, a, path[0], "root " + s.roots().get(a.rootOf()[path[0]]).name()));
            for (int i = 0; i < refs.length; i++) {
                int r = refs[i];
                path[i + 1] = s.referenceTarget(r);
                String frame = s.referenceFrame(r);
                String via = PathHop.displayName(s.referenceName(r), s.referenceKind(r), s.keyType(r))
                    + (frame == null ? "" : " in frame " + frame);
                rows.add(ModelRows.hop("retention", i + 1, s, a, path[i + 1], via));
            }
        }
        int[] dominators = RetentionPath.dominatorsAlong(a, path);
        for (int i = 0; i < dominators.length; i++) {
            rows.add(ModelRows.hop("dominator", i, s, a, dominators[i], null));
        }
        return ModelRows.limited(COLUMNS, rows, limit);
    }
}
