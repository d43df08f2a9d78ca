package dev.heapload.explore;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import dev.heapload.analysis.PathHop;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SnapshotComparison.LeakGroup;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryResult;

/**
 * The saved query {@code leak-groups} (cypher/leak-groups.cypher) answered from the comparison of two models
 * ({@link SnapshotComparison#compute}, as a load computes the {@code LeakGroup} nodes the Cypher reads): one row per
 * leak group in the comparison's order (the nodes' {@code rank}: new bytes, objects, head type, path), a total order.
 * Each column is one entry of {@link #COLUMNS}: a column added to the saved query is one entry added there.
 */
public final class LeakGroupsQuery {

    /** The query's name. */
    public static final String NAME = "leak-groups";

    /**
     * One column: its name as the saved query's header lists it, and its value for a group of the target.
     *
     * @param name  the column name
     * @param value the value for (target snapshot, group): null, a String, Long, Boolean or a List of those
     */
    public record Column(String name, BiFunction<HeapSnapshot, LeakGroup, Object> value) {
    }

    /** The result's columns, in the saved query's order. */
    public static final List<Column> COLUMN_VALUES = List.of(
        new Column("objects", (t, g) -> g.objects()),
        new Column("newBytes", (t, g) -> g.newBytes()),
        new Column("retainedBytes", (t, g) -> g.retainedBytes()),
        new Column("heads", (t, g) -> g.heads()),
        new Column("headType", (t, g) -> g.headType()),
        new Column("path", (t, g) -> g.path()),
        new Column("pathNames", (t, g) -> PathHop.pathNames(g.hops())),
        new Column("pathKinds", (t, g) -> PathHop.pathKinds(g.hops())),
        new Column("pathKeyTypes", (t, g) -> PathHop.pathKeyTypes(g.hops())),
        new Column("pathTypes", (t, g) -> PathHop.pathTypes(g.hops())),
        new Column("example", (t, g) -> t.address(g.example())),
        new Column("verdict", (t, g) -> g.verdict().label()),
        new Column("netObjects", (t, g) -> g.netObjects()),
        new Column("netBytes", (t, g) -> g.netBytes()),
        new Column("freedObjects", (t, g) -> g.freedObjects()),
        new Column("freedBytes", (t, g) -> g.freedBytes()),
        new Column("baselineHeads", (t, g) -> g.baselineHeads()),
        new Column("freedHeads", (t, g) -> g.freedHeads()));

    /** The column names. */
    public static final List<String> COLUMNS = COLUMN_VALUES.stream().map(Column::name).toList();

    private LeakGroupsQuery() {
    }

    /**
     * The rows of a comparison.
     *
     * @param target     the comparison's target snapshot (for the example's address)
     * @param comparison {@code SnapshotComparison.compute(baseline, target, target's analysis)}
     * @param limit      at most this many rows (0: all)
     */
    public static QueryResult run(HeapSnapshot target, SnapshotComparison comparison, long limit) {
        List<List<Object>> rows = new ArrayList<>();
        for (LeakGroup g : comparison.leakGroups()) {
            if (limit > 0 && rows.size() > limit) {
                break;
            }
            List<Object> row = new ArrayList<>(COLUMN_VALUES.size());
            for (Column c : COLUMN_VALUES) {
                row.add(c.value().apply(target, g));
            }
            rows.add(row);
        }
        return ModelRows.limited(COLUMNS, rows, limit);
    }

    /** No rows: the pair has no comparison (the same snapshot twice, or no baseline). */
    public static QueryResult none() {
        return new QueryResult(COLUMNS, List.of(), false);
    }
}
