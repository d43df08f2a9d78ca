package dev.heapload.explore;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.heapload.analysis.ClassHistogram;
import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.ObjectClasses;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.SafeText;

/**
 * The built-in query {@code class-histogram} ({@code heapload query class-histogram -p snapshot=S [-p baseline=B]}):
 * objects, shallow and retained bytes per class ({@link ObjectClasses}: Lua and Luau tables and userdata by metatable,
 * Luau userdata by tag, LuaJIT cdata by ctype, MicroPython instances by class), as a histogram by class next to
 * {@code type-histogram}'s by VM type; with a baseline, the change of each class between the two snapshots. Answered
 * without Neo4j on every route: on the embedded store from the histogram each snapshot's summary keeps (computed at
 * load time from the model; kept also when the snapshot is pruned), else from its stored model and analysis; over Bolt
 * from the snapshot read back from the server, like {@code paths}.
 *
 * <p>Columns, one snapshot ({@link #COLUMNS}): {@code type} (VM type), {@code class}, {@code objects}, {@code bytes}
 * (shallow), {@code reachableObjects}, {@code reachableBytes}, {@code retainedBytes} (the class's objects together:
 * {@link ClassHistogram}); ordered by retained bytes, largest first. With {@code baseline} ({@link #DIFF_COLUMNS}):
 * {@code type}, {@code class}, {@code objects}, {@code bytes}, {@code retainedBytes} (in the snapshot),
 * {@code objectsChange}, {@code bytesChange}, {@code retainedChange} (snapshot minus baseline) and
 * {@code baselineObjects}; every class of either snapshot, the largest growth of retained bytes first.
 */
public final class ClassHistogramQuery {

    /** The query's name. */
    public static final String NAME = "class-histogram";

    /** Columns of one snapshot's histogram. */
    public static final List<String> COLUMNS = List.of("type", "class", "objects", "bytes", "reachableObjects",
        "reachableBytes", "retainedBytes");

    /** Columns with a baseline. */
    public static final List<String> DIFF_COLUMNS = List.of("type", "class", "objects", "bytes", "retainedBytes",
        "objectsChange", "bytesChange", "retainedChange", "baselineObjects");

    private static final String TAKES = " (it takes: snapshot string, baseline string = '')";

    private ClassHistogramQuery() {
    }

    /**
     * Checks the command-line parameters: {@code snapshot} required, {@code baseline} optional (empty: none), nothing
     * else.
     *
     * @return the snapshot and baseline ids ({@code ""} for none)
     * @throws QueryFailedException one line naming the problem
     */
    public static Map<String, Object> bind(Map<String, String> values) throws QueryFailedException {
        for (String key : values.keySet()) {
            if (!Set.of("snapshot", "baseline").contains(key)) {
                throw new QueryFailedException("query '" + NAME + "' has no parameter '" + SafeText.visible(key) + "'"
                    + TAKES);
            }
        }
        String snapshot = values.get("snapshot");
        if (snapshot == null || snapshot.isEmpty()) {
            throw new QueryFailedException("query '" + NAME + "' needs -p snapshot=SNAPSHOT" + TAKES);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("snapshot", snapshot);
        out.put("baseline", values.getOrDefault("baseline", ""));
        return out;
    }

    /** The class histogram of an analysed snapshot. */
    public static ClassHistogram histogram(HeapSnapshot snapshot) throws QueryFailedException {
        HeapAnalysis a = snapshot.analysis() instanceof HeapAnalysis h ? h : null;
        if (a == null) {
            throw new QueryFailedException("snapshot '" + SafeText.visible(snapshot.info().id()) + "' was stored without "
                + "its analysis; load it again");
        }
        return ClassHistogram.compute(snapshot, a, ObjectClasses.compute(snapshot, a));
    }

    /**
     * Runs the query.
     *
     * @param snapshot the snapshot's model, analysis attached
     * @param baseline the baseline's model, analysis attached, or {@code null}
     * @param limit    at most this many rows (0: all)
     * @throws QueryFailedException a snapshot stored without its analysis
     */
    public static QueryResult run(HeapSnapshot snapshot, HeapSnapshot baseline, long limit) throws QueryFailedException {
        return run(histogram(snapshot), baseline == null ? null : histogram(baseline), limit);
    }

    /**
     * Runs the query on histograms at hand (a store's summaries keep them: {@code StoredSummary#classes}).
     *
     * @param baseline the baseline's histogram, or {@code null}
     * @param limit    at most this many rows (0: all)
     */
    public static QueryResult run(ClassHistogram target, ClassHistogram baseline, long limit) {
        List<List<Object>> rows = new ArrayList<>();
        if (baseline == null) {
            for (ClassHistogram.Row r : target.rows()) {
                rows.add(new ArrayList<>(List.of(r.type(), r.className(), r.objects(), r.bytes(), r.reachableObjects(),
                    r.reachableBytes(), r.retainedBytes())));
            }
            return ModelRows.limited(COLUMNS, rows, limit);
        }
        for (ClassHistogram.Change c : ClassHistogram.compare(baseline, target)) {
            rows.add(new ArrayList<>(List.of(c.type(), c.className(), c.objects(), c.bytes(), c.retainedBytes(),
                c.objectsChange(), c.bytesChange(), c.retainedChange(), c.baselineObjects())));
        }
        return ModelRows.limited(DIFF_COLUMNS, rows, limit);
    }
}
