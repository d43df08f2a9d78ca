package dev.heapload.explore;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.heapload.analysis.SnapshotStatistics.Bucket;
import dev.heapload.model.MemoryCategory;
import dev.heapload.queries.QueryResult;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.StoredSummary;

/**
 * The saved queries that read one snapshot's {@code Snapshot} node or its {@code Stats} and {@code Category} nodes
 * (cypher/snapshot.cypher, summary.cypher, type-histogram.cypher), answered from what the graph's nodes are written
 * from: the store catalog's {@link SnapshotSummary} and the snapshot's {@link StoredSummary} (its statistics buckets
 * per type and memory category, and its categories). Kept also for pruned snapshots, as the nodes are. The same
 * columns, rows and order as the Cypher; each order is total (the keys it ends with are unique per row).
 */
public final class SummaryQueries {

    /** Name of the saved query {@code snapshot}. */
    public static final String SNAPSHOT = "snapshot";
    /** Name of the saved query {@code summary}. */
    public static final String SUMMARY = "summary";
    /** Name of the saved query {@code type-histogram}. */
    public static final String TYPE_HISTOGRAM = "type-histogram";

    /** Columns of {@code snapshot}. */
    public static final List<String> SNAPSHOT_COLUMNS = List.of("id", "vm", "source", "sha256", "objectCount",
        "referenceCount", "totalBytes", "objectBytes");
    /** Columns of {@code summary}. */
    public static final List<String> SUMMARY_COLUMNS = List.of("by", "key", "objects", "bytes", "reachableBytes",
        "unreachableBytes");
    /** Columns of {@code type-histogram}. */
    public static final List<String> TYPE_HISTOGRAM_COLUMNS = List.of("type", "objects", "bytes", "reachableObjects",
        "reachableBytes", "maxRetainedSize");

    private SummaryQueries() {
    }

    /** {@code snapshot}: the snapshot's facts, one row. */
    public static QueryResult snapshot(SnapshotSummary s, long limit) {
        List<Object> row = new ArrayList<>(SNAPSHOT_COLUMNS.size());
        row.add(s.id());
        row.add(s.vm());
        row.add(s.source());
        row.add(s.sha256());
        row.add(s.objectCount());
        row.add(s.referenceCount());
        row.add(s.totalBytes());
        row.add(s.objectBytes());
        List<List<Object>> rows = new ArrayList<>();
        rows.add(row);
        return ModelRows.limited(SNAPSHOT_COLUMNS, rows, limit);
    }

    /**
     * {@code summary}: one row {@code all}, then one per type, then one per memory category (key {@code "ID name"},
     * {@code "-"} for objects without one), each part ordered by bytes (largest first), then key. No rows when the
     * snapshot has no statistics (stored without its analysis), as the Cypher has no Stats node to start from.
     */
    public static QueryResult summary(StoredSummary summary, long limit) {
        List<Bucket> buckets = summary.buckets();
        List<List<Object>> rows = new ArrayList<>();
        if (buckets.isEmpty()) {
            return ModelRows.limited(SUMMARY_COLUMNS, rows, limit);
        }
        long[] all = new long[3];
        Map<String, long[]> byType = new LinkedHashMap<>();
        Map<Integer, long[]> byCategory = new LinkedHashMap<>();
        for (Bucket b : buckets) {
            for (long[] sums : List.of(all, byType.computeIfAbsent(b.type(), k -> new long[3]),
                byCategory.computeIfAbsent(b.category(), k -> new long[3]))) {
                sums[0] += b.objects();
                sums[1] += b.bytes();
                sums[2] += b.reachableBytes();
            }
        }
        rows.add(summaryRow("all", "", all));
        List<List<Object>> part = new ArrayList<>();
        byType.forEach((type, sums) -> part.add(summaryRow("type", type, sums)));
        rows.addAll(byBytesThenKey(part, 3, 1));
        part.clear();
        byCategory.forEach((category, sums) -> {
            String name = null;
            for (MemoryCategory c : summary.categories()) {
                if (c.id() == category) {
                    name = c.name();
                }
            }
            String key = ((category < 0 ? "-" : Integer.toString(category)) + " " + (name == null ? "" : name)).strip();
            part.add(summaryRow("category", key, sums));
        });
        rows.addAll(byBytesThenKey(part, 3, 1));
        return ModelRows.limited(SUMMARY_COLUMNS, rows, limit);
    }

    private static List<Object> summaryRow(String by, String key, long[] sums) {
        return new ArrayList<>(List.of(by, key, sums[0], sums[1], sums[2], sums[1] - sums[2]));
    }

    /**
     * {@code type-histogram}: one row per type (the buckets of all categories summed; the largest retained size their
     * largest), ordered by bytes (largest first), then type. No rows without statistics.
     */
    public static QueryResult typeHistogram(StoredSummary summary, long limit) {
        Map<String, long[]> byType = new LinkedHashMap<>();
        for (Bucket b : summary.buckets()) {
            long[] sums = byType.computeIfAbsent(b.type(), k -> new long[5]);
            sums[0] += b.objects();
            sums[1] += b.bytes();
            sums[2] += b.reachableObjects();
            sums[3] += b.reachableBytes();
            sums[4] = Math.max(sums[4], b.maxRetainedSize());
        }
        List<List<Object>> rows = new ArrayList<>();
        byType.forEach((type, s) -> rows.add(new ArrayList<>(List.of(type, s[0], s[1], s[2], s[3], s[4]))));
        return ModelRows.limited(TYPE_HISTOGRAM_COLUMNS, byBytesThenKey(rows, 2, 0), limit);
    }

    /** {@code rows} ordered by the long in column {@code bytes} (largest first), then the string in column {@code key}. */
    static List<List<Object>> byBytesThenKey(List<List<Object>> rows, int bytes, int key) {
        List<List<Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparing((List<Object> r) -> (Long) r.get(bytes), Comparator.reverseOrder())
            .thenComparing(r -> (String) r.get(key)));
        return sorted;
    }
}
