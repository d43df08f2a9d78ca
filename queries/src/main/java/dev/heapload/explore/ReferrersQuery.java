package dev.heapload.explore;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.Referrers;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryResult;

/**
 * The saved query {@code referrers} (cypher/referrers.cypher) answered from a snapshot's model and analysis: one row
 * per reference into the object ({@link Referrers#of}), the same columns, rows and order as the Cypher. Order: strong
 * before weak, then the referrer's distance from the roots (unreachable, {@code -1}, last), its address, the
 * reference's kind and name (no name last), and a retention reference before another one of the same referrer, kind
 * and name: rows equal in all these are equal in every column, so the order is total. Strings compare as Java
 * {@link String#compareTo} does (UTF-16 code units), which is what Neo4j's string values do.
 */
public final class ReferrersQuery {

    /** The query's name. */
    public static final String NAME = "referrers";

    /** The result's columns, as the saved query's header lists them. */
    public static final List<String> COLUMNS = List.of("address", "type", "label", "kind", "name", "weak", "retention",
        "distance", "size", "retainedSize");

    private static final Comparator<List<Object>> ORDER = Comparator
        .comparing((List<Object> r) -> (Boolean) r.get(5))
        .thenComparingLong(r -> (Long) r.get(7) < 0 ? Long.MAX_VALUE : (Long) r.get(7))
        .thenComparing(r -> (String) r.get(0))
        .thenComparing(r -> (String) r.get(3))
        .thenComparing(r -> (String) r.get(4), Comparator.nullsLast(Comparator.naturalOrder()))
        .thenComparing((List<Object> r) -> (Boolean) r.get(6), Comparator.reverseOrder());

    private ReferrersQuery() {
    }

    /**
     * The rows for object {@code object} of {@code s}.
     *
     * @param a     the snapshot's analysis
     * @param limit at most this many rows (0: all)
     */
    public static QueryResult run(HeapSnapshot s, HeapAnalysis a, int object, long limit) {
        List<List<Object>> rows = new ArrayList<>();
        for (int r : Referrers.of(s, object)) {
            int source = s.referenceSource(r);
            List<Object> row = new ArrayList<>(COLUMNS.size());
            row.add(s.address(source));
            row.add(s.type(source));
            row.add(s.label(source));
            row.add(s.referenceKind(r));
            row.add(s.referenceName(r));
            row.add(s.isWeak(r));
            row.add(a.retainedBy()[object] == r);
            row.add((long) a.distance()[source]);
            row.add(s.shallowSize(source));
            row.add(a.retainedSize()[source]);
            rows.add(row);
        }
        rows.sort(ORDER);
        return ModelRows.limited(COLUMNS, rows, limit);
    }
}
