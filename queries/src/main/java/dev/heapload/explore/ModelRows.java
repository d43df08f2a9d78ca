package dev.heapload.explore;

import java.util.ArrayList;
import java.util.List;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryResult;

/** What the queries answered from the model share: the row of a path's object, the row limit as the Cypher route applies it. */
final class ModelRows {

    private ModelRows() {
    }

    /**
     * A row of a path's object: {@code first}, {@code step}, then the object's address, type, label, {@code via},
     * shallow size and retained size (the columns {@code paths} and {@code why-alive} share).
     */
    static List<Object> hop(Object first, long step, HeapSnapshot s, HeapAnalysis a, int object, String via) {
        List<Object> row = new ArrayList<>(8);
        row.add(first);
        row.add(step);
        row.add(s.address(object));
        row.add(s.type(object));
        row.add(s.label(object));
        row.add(via);
        row.add(s.shallowSize(object));
        row.add(a.retainedSize()[object]);
        return row;
    }

    /**
     * {@code rows} cut to {@code limit} as {@code QueryRunner} cuts a Cypher result: at most {@code limit} rows
     * ({@code 0}: all), {@code truncated} when more existed.
     */
    static QueryResult limited(List<String> columns, List<List<Object>> rows, long limit) {
        if (limit > 0 && rows.size() > limit) {
            return new QueryResult(columns, List.copyOf(rows.subList(0, (int) limit)), true);
        }
        return new QueryResult(columns, rows, false);
    }
}
