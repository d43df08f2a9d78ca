package dev.heapload.explore;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.RetentionPath;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SnapshotComparison.NewBucket;
import dev.heapload.analysis.SnapshotStatistics;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryResult;

/**
 * The saved queries {@code new-objects} (cypher/new-objects.cypher) and {@code largest-retainers}
 * (cypher/largest-retainers.cypher) answered from the models, from the analyses a load computes the nodes they read
 * with: the pair's {@link SnapshotComparison} ({@code Diff} and {@code NewObjects} nodes) and the snapshot's
 * {@link SnapshotStatistics} ({@code TOP_RETAINER} relationships). The same columns, rows and order as the Cypher,
 * each order total.
 */
public final class ComparisonQueries {

    /** Name of the saved query {@code new-objects}. */
    public static final String NEW_OBJECTS = "new-objects";
    /** Name of the saved query {@code largest-retainers}. */
    public static final String LARGEST_RETAINERS = "largest-retainers";

    /** Columns of {@code new-objects}. */
    public static final List<String> NEW_OBJECTS_COLUMNS = List.of("type", "category", "objects", "bytes",
        "reachableObjects", "reachableBytes", "reusedAddresses");
    /** Columns of {@code largest-retainers}. */
    public static final List<String> LARGEST_RETAINERS_COLUMNS = List.of("address", "type", "label", "size",
        "retainedSize", "path");

    private ComparisonQueries() {
    }

    /**
     * {@code new-objects}: the total (type {@code all}, no category), then one row per (type, category) with new
     * objects, ordered by bytes (largest first), type, category (none last).
     */
    public static QueryResult newObjects(SnapshotComparison c, long limit) {
        long reachableObjects = 0;
        long reachableBytes = 0;
        List<List<Object>> buckets = new ArrayList<>();
        for (NewBucket b : c.newBuckets()) {
            reachableObjects += b.reachableObjects();
            reachableBytes += b.reachableBytes();
            buckets.add(new ArrayList<>(java.util.Arrays.asList(b.type(), b.category() < 0 ? null : (long) b.category(),
                b.objects(), b.bytes(), b.reachableObjects(), b.reachableBytes(), b.reusedAddresses())));
        }
        buckets.sort(Comparator.comparing((List<Object> r) -> (Long) r.get(3), Comparator.reverseOrder())
            .thenComparing(r -> (String) r.get(0))
            .thenComparing(r -> (Long) r.get(1), Comparator.nullsLast(Comparator.naturalOrder())));
        List<List<Object>> rows = new ArrayList<>();
        rows.add(new ArrayList<>(java.util.Arrays.asList("all", null, c.newObjects(), c.newBytes(), reachableObjects,
            reachableBytes, c.reusedAddresses())));
        rows.addAll(buckets);
        return ModelRows.limited(NEW_OBJECTS_COLUMNS, rows, limit);
    }

    /**
     * {@code largest-retainers}: the {@code top} objects with the largest retained size
     * ({@link SnapshotStatistics#topRetainers}: at most {@link SnapshotStatistics#TOP_RETAINERS}), largest first, then
     * by address, each with its retention path as names ({@link RetentionPath#names}, null without one).
     */
    public static QueryResult largestRetainers(HeapSnapshot s, HeapAnalysis a, long top, long limit) {
        int[] objects = top < 1 ? new int[0]
            : SnapshotStatistics.largestRetainers(s, a, (int) Math.min(top, SnapshotStatistics.TOP_RETAINERS));
        List<List<Object>> rows = new ArrayList<>();
        for (int o : objects) {
            List<String> path = RetentionPath.names(s, a, o);
            rows.add(new ArrayList<>(java.util.Arrays.asList(s.address(o), s.type(o), s.label(o), s.shallowSize(o),
                a.retainedSize()[o], path)));
        }
        return ModelRows.limited(LARGEST_RETAINERS_COLUMNS, rows, limit);
    }
}
