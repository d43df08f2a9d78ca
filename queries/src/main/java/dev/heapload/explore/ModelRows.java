package dev.heapload.explore;

import java.util.List;

import dev.heapload.queries.QueryResult;

/** What the queries answered from the model share: the row limit as the Cypher route applies it. */
final class ModelRows {

    private ModelRows() {
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
