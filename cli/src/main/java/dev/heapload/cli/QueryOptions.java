package dev.heapload.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.heapload.explore.ModelQueries;
import dev.heapload.analysis.ClassHistogram;
import dev.heapload.explore.ClassHistogramQuery;
import dev.heapload.explore.PathsQuery;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.SafeText;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.StoredSnapshots;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryParameter;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.RemoteQueryRunner;
import dev.heapload.queries.ResultWriter;
import dev.heapload.queries.SavedQuery;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.bolt.RemoteGraphStore;
import dev.heapload.store.StoreInUseException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * What {@code heapload query} and {@code heapload cypher} share: the parameters ({@code -p}), the output format,
 * the row limit, the store and the timeout ({@link StoreOptions}: {@code --db} or the Bolt options, {@code --timeout}), and running one query with them,
 * read-only, under the transaction timeout and its watchdog ({@link QueryRunner}, {@link RemoteQueryRunner}).
 * Every problem with the parameters (an undeclared or missing one, a value of the wrong type) is a usage error,
 * exit 2, naming the closest declared parameter.
 */
final class QueryOptions {

    @Option(names = {"-p", "--param"}, paramLabel = "KEY=VALUE", mapFallbackValue = "",
        description = "A query parameter (repeatable); typed per a saved query's header (ad-hoc Cypher: an integer, "
            + "true or false, else a string).")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
        description = "table, csv or json (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--csv-raw",
        description = "With --format csv: write strings exactly (no escapes of control characters, no ' before = + - @).")
    boolean csvRaw;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "0",
        description = "Print at most N rows (default: all).")
    long limit;

    @CommandLine.Mixin
    StoreOptions store = new StoreOptions();

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    /**
     * Checks the options, binds the parameters, runs {@code query} and prints its result to standard output.
     *
     * @throws CommandLine.ParameterException usage errors (exit 2): format, limit, timeout, parameters, store options
     * @throws Exception one-line failures (exit 1): no store, unknown snapshot, a write, a timeout, a server error
     */
    void runAndPrint(SavedQuery query) throws Exception {
        ResultWriter.Format fmt = checkedFormat();
        Duration timeout = store.checked(spec);
        Map<String, Object> bound = bind(query);
        QueryResult result;
        if (store.bolt.remote()) {
            try (RemoteGraphStore remote = store.bolt.connect(Streams.err(spec))) {
                // a pair no load compared is compared on first request (one line on stderr), then kept
                remote.compareFor(query.name(), bound);
                result = run(remote, query, bound, timeout);
            }
        } else {
            OutputFiles.requireStore(store.db);
            result = runOnStore(query, bound, timeout);
        }
        ResultWriter.write(result, fmt, csvRaw, Streams.out(spec));
    }

    /**
     * A saved query of {@link ModelQueries} on the embedded store {@code --db}: answered from the stored models
     * ({@link StoredSnapshots}, read without taking the store's lock), without Neo4j, with the
     * same rows, one-line refusals and output as {@link #runAndPrint}; that runs it instead when the models cannot
     * answer (a pruned or unanalysed snapshot).
     */
    void runFromModelsAndPrint(SavedQuery query) throws Exception {
        ResultWriter.Format fmt = checkedFormat();
        store.checked(spec);
        Map<String, Object> bound = bind(query);
        OutputFiles.requireStore(store.db);
        Optional<QueryResult> result = ModelQueries.run(query, StoredSnapshots.open(store.db), bound, limit);
        if (result.isEmpty()) {
            runAndPrint(query);
            return;
        }
        ResultWriter.write(result.get(), fmt, csvRaw, Streams.out(spec));
    }

    /**
     * The built-in query {@code paths}, computed from the snapshot's model ({@link PathsQuery}): of the store
     * {@code --db}, also while {@code heapload serve} or a query holds it (the model file is only read); over
     * {@code --uri}, the snapshot read back from the server ({@link RemoteGraphStore#model}). Printed as
     * {@link #runAndPrint} prints a saved query's rows.
     */
    void runPathsAndPrint() throws Exception {
        ResultWriter.Format fmt = checkedFormat();
        store.checked(spec);
        Map<String, Object> bound = PathsQuery.bind(params);
        if (store.bolt.remote()) {
            HeapSnapshot model;
            try (RemoteGraphStore remote = store.bolt.connect(Streams.err(spec))) {
                model = remote.model((String) bound.get("snapshot"));
            } catch (SnapshotNotFoundException e) {
                throw new QueryFailedException("no snapshot '" + SafeText.visible((String) bound.get("snapshot"))
                    + "' in the store (heapload snapshots lists them)");
            }
            ResultWriter.write(PathsQuery.run(model, bound, limit), fmt, csvRaw, Streams.out(spec));
            return;
        }
        OutputFiles.requireStore(store.db);
        HeapSnapshot model;
        try {
            model = GraphStore.readModel(store.db, (String) bound.get("snapshot"));
        } catch (SnapshotNotFoundException e) {
            throw new QueryFailedException("no snapshot '" + SafeText.visible((String) bound.get("snapshot"))
                + "' in the store (heapload snapshots lists them)");
        }
        ResultWriter.write(PathsQuery.run(model, bound, limit), fmt, csvRaw, Streams.out(spec));
    }

    /**
     * The built-in query {@code class-histogram}, computed from the snapshots' models ({@link ClassHistogramQuery}): of
     * the store {@code --db} (the model files are only read), or over {@code --uri} the snapshots read back from the
     * server. Printed as {@link #runAndPrint} prints a saved query's rows.
     */
    void runClassHistogramAndPrint() throws Exception {
        ResultWriter.Format fmt = checkedFormat();
        store.checked(spec);
        Map<String, Object> bound = ClassHistogramQuery.bind(params);
        String snapshot = (String) bound.get("snapshot");
        String baseline = (String) bound.get("baseline");
        if (store.bolt.remote()) {
            HeapSnapshot model;
            HeapSnapshot base;
            try (RemoteGraphStore remote = store.bolt.connect(Streams.err(spec))) {
                model = remoteModel(remote, snapshot);
                base = baseline.isEmpty() ? null : remoteModel(remote, baseline);
            }
            ResultWriter.write(ClassHistogramQuery.run(model, base, limit), fmt, csvRaw, Streams.out(spec));
            return;
        }
        OutputFiles.requireStore(store.db);
        StoredSnapshots files = StoredSnapshots.open(store.db);
        ClassHistogram target = storedClasses(files, snapshot);
        ClassHistogram base = baseline.isEmpty() ? null : storedClasses(files, baseline);
        ResultWriter.write(ClassHistogramQuery.run(target, base, limit), fmt, csvRaw, Streams.out(spec));
    }

    /** The class histogram of stored snapshot {@code id}: its summary's, else computed from its model. */
    private ClassHistogram storedClasses(StoredSnapshots files, String id) throws Exception {
        if (files.entry(id) == null) {
            throw new QueryFailedException("no snapshot '" + SafeText.visible(id)
                + "' in the store (heapload snapshots lists them)");
        }
        if (files.hasSummary(id)) {
            java.util.List<ClassHistogram.Row> rows = files.summary(id).classes();
            if (rows != null) {
                return new ClassHistogram(rows);
            }
        }
        return ClassHistogramQuery.histogram(storedModel(id));
    }

    private static HeapSnapshot remoteModel(RemoteGraphStore remote, String id) throws Exception {
        try {
            return remote.model(id);
        } catch (SnapshotNotFoundException e) {
            throw new QueryFailedException("no snapshot '" + SafeText.visible(id)
                + "' in the store (heapload snapshots lists them)");
        }
    }

    private HeapSnapshot storedModel(String id) throws Exception {
        try {
            return GraphStore.readModel(store.db, id);
        } catch (SnapshotNotFoundException e) {
            throw new QueryFailedException("no snapshot '" + SafeText.visible(id)
                + "' in the store (heapload snapshots lists them)");
        }
    }

    /** The output format and limit checked (usage errors, exit 2). */
    private ResultWriter.Format checkedFormat() {
        ResultWriter.Format fmt;
        try {
            fmt = ResultWriter.Format.of(format);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (limit < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be >= 0");
        }
        return fmt;
    }

    /** {@link QueryRunner#bind}, its failures as usage errors; an undeclared parameter names the closest declared. */
    private Map<String, Object> bind(SavedQuery query) {
        List<String> declared = new ArrayList<>();
        for (QueryParameter p : query.parameters()) {
            declared.add(p.name());
        }
        for (String key : params.keySet()) {
            if (query.parameter(key) == null) {
                List<String> described = new ArrayList<>();
                for (QueryParameter p : query.parameters()) {
                    described.add(p.toString());
                }
                throw new CommandLine.ParameterException(spec.commandLine(), "query '" + query.name()
                    + "' has no parameter '" + key + "'" + Suggestions.didYouMean(key, declared) + " (it takes: "
                    + (described.isEmpty() ? "no parameters" : String.join(", ", described)) + ")");
            }
        }
        try {
            return QueryRunner.bind(query, params);
        } catch (QueryFailedException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** On the embedded store {@code --db}, or over Bolt while {@code heapload serve} holds it. */
    private QueryResult runOnStore(SavedQuery query, Map<String, Object> bound, Duration timeout) throws Exception {
        OutputFiles.requireStore(store.db);
        GraphStore opened;
        try {
            // another query holds the store: wait for it (it ends within its own timeout), then run
            opened = GraphStore.openWaiting(store.db, timeout.plus(Duration.ofSeconds(30)),
                inUse -> Streams.err(spec).println("heapload: " + SafeText.visible(inUse) + "; waiting for it to finish"));
        } catch (StoreInUseException e) {
            try (RemoteGraphStore served = ServedStore.connect(e, "running the query", Streams.err(spec))) {
                ServedStore.requireServedGraph(served, e.servingPid(), query.name(), bound);
                return run(served, query, bound, timeout);
            }
        }
        try (GraphStore graphs = opened) {
            return QueryRunner.run(graphs.databaseFor(query.name(), bound), query, bound, limit, timeout);
        }
    }

    private QueryResult run(RemoteGraphStore server, SavedQuery query, Map<String, Object> bound, Duration timeout)
        throws Exception {
        return RemoteQueryRunner.run(server.driver(), server.database(), query, bound, limit, timeout);
    }
}
