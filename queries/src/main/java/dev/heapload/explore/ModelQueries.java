package dev.heapload.explore;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.SavedQuery;
import dev.heapload.queries.SnapshotParameters;
import dev.heapload.store.Catalog;
import dev.heapload.store.StoredSnapshots;
import dev.heapload.store.StoredSummary;

/**
 * The saved queries that an embedded store answers from its stored files ({@link StoredSnapshots}: the models with
 * their analyses, the summaries, the catalog) instead of Cypher: the same columns, rows and order as the saved
 * query's Cypher on the snapshot's graph, without starting Neo4j. From the model: {@code why-alive}
 * ({@link WhyAliveQuery}), {@code referrers} ({@link ReferrersQuery}), {@code largest-retainers}
 * ({@link ComparisonQueries}), {@code allocation-sites} ({@link AllocationSitesQuery}); from the comparison of two models: {@code leak-groups} ({@link LeakGroupsQuery}),
 * {@code new-objects}; from the catalog and the summary: {@code snapshot}, {@code summary}, {@code type-histogram}
 * ({@link SummaryQueries}). {@code paths} ({@link PathsQuery}) is computed from the model on every route.
 *
 * <p>The parameters are checked as the Cypher route checks them ({@link SnapshotParameters}: the same one-line
 * refusals). Where the files cannot give the rows, {@link #run} answers nothing and the caller runs the Cypher: a
 * snapshot that was pruned (its graph may still hold a comparison made before) or stored without its analysis, a
 * summary file missing, and a saved query whose header lists other columns than the implementation here returns (a
 * query changed on one route only).
 */
public final class ModelQueries {

    /** Answers one saved query from the store's files, or nothing (run the Cypher). */
    private interface Answer {
        Optional<QueryResult> run(StoredSnapshots store, Map<String, Object> params, long limit)
            throws QueryFailedException, IOException;
    }

    /** An object query's rows from a snapshot's model, its analysis and the object. */
    private interface ObjectRows {
        QueryResult run(HeapSnapshot s, HeapAnalysis a, int object, long limit);
    }

    /** An implementation: the columns it returns and how. */
    private record Implementation(List<String> columns, Answer answer) {
    }

    private static final Map<String, Implementation> IMPLEMENTATIONS = Map.of(
        WhyAliveQuery.NAME, new Implementation(WhyAliveQuery.COLUMNS, (store, p, limit) -> object(store, p, limit,
            WhyAliveQuery::run)),
        ReferrersQuery.NAME, new Implementation(ReferrersQuery.COLUMNS, (store, p, limit) -> object(store, p, limit,
            ReferrersQuery::run)),
        LeakGroupsQuery.NAME, new Implementation(LeakGroupsQuery.COLUMNS, (store, p, limit) -> compared(store, p, limit,
            (t, c) -> LeakGroupsQuery.run(t, c, limit), LeakGroupsQuery.none())),
        ComparisonQueries.NEW_OBJECTS, new Implementation(ComparisonQueries.NEW_OBJECTS_COLUMNS,
            (store, p, limit) -> compared(store, p, limit, (t, c) -> ComparisonQueries.newObjects(c, limit),
                new QueryResult(ComparisonQueries.NEW_OBJECTS_COLUMNS, List.of(), false))),
        ComparisonQueries.LARGEST_RETAINERS, new Implementation(ComparisonQueries.LARGEST_RETAINERS_COLUMNS,
            (store, p, limit) -> analysed(store, (String) p.get("snapshot")).map(s ->
                ComparisonQueries.largestRetainers(s, s.analysis(), (Long) p.get("top"), limit))),
        AllocationSitesQuery.NAME, new Implementation(AllocationSitesQuery.COLUMNS, ModelQueries::allocationSites),
        SummaryQueries.SNAPSHOT, new Implementation(SummaryQueries.SNAPSHOT_COLUMNS, (store, p, limit) ->
            Optional.of(SummaryQueries.snapshot(store.entry((String) p.get("snapshot")).summary(), limit))),
        SummaryQueries.SUMMARY, new Implementation(SummaryQueries.SUMMARY_COLUMNS, (store, p, limit) ->
            summary(store, p).map(s -> SummaryQueries.summary(s, limit))),
        SummaryQueries.TYPE_HISTOGRAM, new Implementation(SummaryQueries.TYPE_HISTOGRAM_COLUMNS, (store, p, limit) ->
            summary(store, p).map(s -> SummaryQueries.typeHistogram(s, limit))));

    /** The names of the saved queries answered from the store's files. */
    public static final Set<String> NAMES = IMPLEMENTATIONS.keySet();

    private ModelQueries() {
    }

    /** True when the saved query {@code name} (a name, not a file) has an implementation here. */
    public static boolean answers(String name) {
        return IMPLEMENTATIONS.containsKey(name);
    }

    /**
     * Runs {@code query} on the store's files.
     *
     * @param query  a saved query of {@link #NAMES}
     * @param store  the store's files
     * @param params the query's parameters, bound per its header ({@code QueryRunner.bind})
     * @param limit  at most this many rows (0: all)
     * @return the rows, or empty when the files cannot give them (see the class comment): run the Cypher then
     * @throws QueryFailedException one line: an empty or unknown snapshot id, an address no object has
     * @throws IOException          a model, summary or catalog file that cannot be read
     */
    public static Optional<QueryResult> run(SavedQuery query, StoredSnapshots store, Map<String, Object> params,
                                            long limit) throws QueryFailedException, IOException {
        Implementation implementation = IMPLEMENTATIONS.get(query.name());
        if (implementation == null) {
            throw new IllegalArgumentException("no model implementation of query '" + query.name() + "'");
        }
        if (!implementation.columns().equals(query.columns())) {
            return Optional.empty();
        }
        SnapshotParameters.checkSnapshots(params, id -> store.entry(id) != null);
        return implementation.answer().run(store, params, limit);
    }

    /** {@code snapshot} and {@code address} name an object: its rows, or nothing without an analysed model. */
    private static Optional<QueryResult> object(StoredSnapshots store, Map<String, Object> params, long limit,
                                                ObjectRows rows) throws QueryFailedException, IOException {
        String id = (String) params.get("snapshot");
        Optional<HeapSnapshot> s = analysed(store, id);
        if (s.isEmpty()) {
            return Optional.empty();
        }
        int object = object(s.get(), id, (String) params.get("address"));
        return Optional.of(rows.run(s.get(), s.get().analysis(), object, limit));
    }

    /**
     * {@code baseline} and {@code target} name a pair: the rows of its comparison ({@link SnapshotComparison#compute},
     * as a load computes it), {@code none} when the pair has no comparison (an empty baseline, the same snapshot
     * twice), nothing when either model is missing or not analysed.
     */
    private static Optional<QueryResult> compared(StoredSnapshots store, Map<String, Object> params, long limit,
                                                  java.util.function.BiFunction<HeapSnapshot, SnapshotComparison,
                                                      QueryResult> rows, QueryResult none) throws IOException {
        String baseline = (String) params.get("baseline");
        String target = (String) params.get("target");
        if (baseline.isEmpty() || baseline.equals(target)) {
            // no Diff node: a pair is never compared with itself, an empty baseline names none
            return Optional.of(none);
        }
        Optional<HeapSnapshot> b = analysed(store, baseline);
        Optional<HeapSnapshot> t = b.isEmpty() ? Optional.empty() : analysed(store, target);
        if (t.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(rows.apply(t.get(), SnapshotComparison.compute(b.get(), t.get(), t.get().analysis())));
    }

    /**
     * {@code allocation-sites} ({@link AllocationSitesQuery}): the snapshot's model, and the baseline's when one is named;
     * nothing when either is missing or not analysed.
     */
    private static Optional<QueryResult> allocationSites(StoredSnapshots store, Map<String, Object> params, long limit)
        throws IOException {
        Optional<HeapSnapshot> s = analysed(store, (String) params.get("snapshot"));
        String baseline = (String) params.getOrDefault("baseline", "");
        Optional<HeapSnapshot> b = baseline.isEmpty() || s.isEmpty() ? Optional.empty() : analysed(store, baseline);
        if (s.isEmpty() || (!baseline.isEmpty() && b.isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(AllocationSitesQuery.run(s.get(), s.get().analysis(), b.orElse(null), limit));
    }

    /** The model of snapshot {@code id} with its analysis; empty when it was pruned or stored without one. */
    private static Optional<HeapSnapshot> analysed(StoredSnapshots store, String id) throws IOException {
        Catalog.Entry e = store.entry(id);
        if (e == null || e.pruned() || !e.summary().analysed()) {
            return Optional.empty();
        }
        HeapSnapshot s = store.model(id);
        return s.analysis() instanceof HeapAnalysis ? Optional.of(s) : Optional.empty();
    }

    /** The summary of snapshot {@code snapshot}; empty when its file is missing (a store of an older heapload). */
    private static Optional<StoredSummary> summary(StoredSnapshots store, Map<String, Object> params) throws IOException {
        String id = (String) params.get("snapshot");
        return store.hasSummary(id) ? Optional.of(store.summary(id)) : Optional.empty();
    }

    /**
     * The object at {@code address} in {@code s}: the first of {@link SnapshotParameters#addressSpellings} that an
     * object has, as the Cypher route resolves it ({@link SnapshotParameters#checkAddress}).
     *
     * @param id the snapshot's id as the user gave it (for the message)
     * @return the object id
     * @throws QueryFailedException the Cypher route's line when no object has any of the spellings
     */
    public static int object(HeapSnapshot s, String id, String address) throws QueryFailedException {
        Map<String, Object> resolved = SnapshotParameters.checkAddress(Map.of("snapshot", id, "address", address),
            (snapshot, spelling) -> s.objectAt(spelling) >= 0);
        return s.objectAt((String) resolved.get("address"));
    }
}
