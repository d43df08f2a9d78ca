package dev.heapload.explore;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.RetentionPaths;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.SafeText;

/**
 * The built-in query {@code paths} ({@code heapload query paths -p snapshot=S -p address=A [-p max=10]}): every
 * distinct shortest strong path from the GC roots to one object ({@link RetentionPaths#find}), one hop per row, like
 * Eclipse MAT's "merge shortest paths to GC roots". Computed in Java from the snapshot's stored model rather than in
 * Cypher: a search over all incoming references is one pass over arrays here (about a second on the 2.4M-object
 * entity-system-large snapshot), where Cypher would need variable-length matches whose path lists Neo4j builds and
 * reads recursively (a StackOverflowError on paths of some 10,000 hops).
 *
 * <p>Columns: {@code path} (1-based, shortest first), {@code step} (0 is the root), {@code address}, {@code type},
 * {@code label}, {@code via} (step 0: {@code root NAME}; later steps: the name of the reference from the previous
 * step's object, or its kind in brackets), {@code size} and {@code retainedSize} (bytes).
 */
public final class PathsQuery {

    /** The query's name. */
    public static final String NAME = "paths";

    /** Default of {@code max}. */
    public static final long DEFAULT_MAX = 10;

    /** The result's columns. */
    public static final List<String> COLUMNS = List.of("path", "step", "address", "type", "label", "via", "size",
        "retainedSize");

    private PathsQuery() {
    }

    /**
     * Checks the command-line parameters: {@code snapshot} and {@code address} required, {@code max} an integer from
     * 1 to 10,000 (default 10), nothing else.
     *
     * @return typed parameters: snapshot and address strings, max a {@link Long}
     * @throws QueryFailedException one line naming the problem
     */
    public static Map<String, Object> bind(Map<String, String> values) throws QueryFailedException {
        for (String key : values.keySet()) {
            if (!Set.of("snapshot", "address", "max").contains(key)) {
                throw new QueryFailedException("query 'paths' has no parameter '" + SafeText.visible(key)
                    + "' (it takes: snapshot string, address string, max integer = 10)");
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : List.of("snapshot", "address")) {
            String v = values.get(key);
            if (v == null || v.isEmpty()) {
                throw new QueryFailedException("query 'paths' needs -p " + key + "=" + key.toUpperCase(java.util.Locale.ROOT)
                    + " (it takes: snapshot string, address string, max integer = 10)");
            }
            out.put(key, v);
        }
        long max = DEFAULT_MAX;
        if (values.containsKey("max")) {
            try {
                max = Long.parseLong(values.get("max").strip());
            } catch (NumberFormatException e) {
                max = -1;
            }
            if (max < 1 || max > 10_000) {
                throw new QueryFailedException("parameter 'max' must be an integer from 1 to 10000, not '"
                    + SafeText.visible(values.get("max")) + "'");
            }
        }
        out.put("max", max);
        return out;
    }

    /**
     * Finds the object at {@code address} in {@code snapshot}, trying the spellings of
     * {@link QueryRunner#addressSpellings} (any case, with or without {@code 0x}) in order, as every saved query
     * resolves an address ({@link ModelQueries#object}).
     *
     * @return the object id
     * @throws QueryFailedException one line when no object has that address
     */
    public static int object(HeapSnapshot snapshot, String address) throws QueryFailedException {
        return ModelQueries.object(snapshot, snapshot.info().id(), address);
    }

    /**
     * Runs the query on a snapshot's model (analysis attached).
     *
     * @param params {@link #bind}'s result
     * @param limit  at most this many rows (0: all)
     * @throws QueryFailedException when no object has the address, or the snapshot was not analysed
     */
    public static QueryResult run(HeapSnapshot snapshot, Map<String, Object> params, long limit)
        throws QueryFailedException {
        HeapAnalysis a = snapshot.analysis();
        if (a == null) {
            throw new QueryFailedException("snapshot '" + SafeText.visible(snapshot.info().id()) + "' was stored without "
                + "its analysis; load it again");
        }
        int object = object(snapshot, (String) params.get("address"));
        long max = (Long) params.get("max");
        List<List<Object>> rows = new ArrayList<>();
        boolean truncated = false;
        int number = 0;
        paths:
        for (RetentionPaths.Path p : RetentionPaths.find(snapshot, object, (int) max)) {
            number++;
            int[] refs = p.references();
            int x = snapshot.roots().get(p.root()).object();
            for (int step = 0; step <= refs.length; step++) {
                if (limit > 0 && rows.size() >= limit) {
                    truncated = true;
                    break paths;
                }
                String via;
                if (step == 0) {
                    via = "root " + snapshot.roots().get(p.root()).name();
                } else {
                    int r = refs[step - 1];
                    x = snapshot.referenceTarget(r);
                    String name = snapshot.referenceName(r);
                    via = name != null ? name : "[" + snapshot.referenceKind(r) + "]";
                }
                rows.add(ModelRows.hop((long) number, step, snapshot, a, x, via));
            }
        }
        return new QueryResult(COLUMNS, rows, truncated);
    }
}
