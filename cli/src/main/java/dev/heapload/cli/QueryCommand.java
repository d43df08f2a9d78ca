package dev.heapload.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.explore.PathsQuery;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.RemoteQueryRunner;
import dev.heapload.queries.ResultWriter;
import dev.heapload.queries.SavedQuery;
import dev.heapload.store.GraphStore;
import dev.heapload.store.RemoteGraphStore;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.StoreInUseException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload query NAME|FILE.cypher [-p key=value]... [--format table|csv|json] [--csv-raw] [--limit N] [--db DIR]}: runs
 * one saved query on the store, read-only, with its parameters passed as Cypher parameters (typed per the query's
 * header). Exit 1 with one line on stderr when the store, the snapshot or a parameter is wrong, or when the query
 * hits the transaction timeout or memory limit; exit 2 on usage errors. While {@code heapload serve} holds the store,
 * the query runs over its Bolt port ({@link ServedStore}); while another query holds it, this one waits for it (one
 * line on stderr) and then runs ({@link GraphStore#openWaiting}); a load holding it is one line, exit 1.
 * Table and CSV show dump strings in their {@link dev.heapload.queries.SafeText} form (CSV formula cells
 * neutralised) unless {@code --csv-raw}.
 */
@Command(name = "query", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs a saved query (see: heapload queries) or any .cypher file with a saved-query header.",
        "Example: heapload query new-objects -p baseline=before -p target=after"})
final class QueryCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "Saved query name, or a path to a .cypher file.")
    String name;

    @Option(names = {"-p", "--param"}, paramLabel = "KEY=VALUE", mapFallbackValue = "",
        description = "A query parameter (repeatable); typed per the query's header.")
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

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
        description = "Stop the query after this many seconds (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db",
        description = "Store directory (default: ${DEFAULT-VALUE}).")
    Path db;

    @CommandLine.Mixin
    BoltOptions bolt = new BoltOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ResultWriter.Format fmt;
        try {
            fmt = ResultWriter.Format.of(format);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (limit < 0 || timeoutSeconds <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be >= 0 and --timeout > 0");
        }
        bolt.check(spec);
        if (PathsQuery.NAME.equals(name)) {
            ResultWriter.write(paths(PathsQuery.bind(params)), fmt, csvRaw, System.out);
            return 0;
        }
        SavedQuery query = QueryLibrary.builtIn().resolve(name);
        Map<String, Object> bound = QueryRunner.bind(query, params);
        Duration timeout = Duration.ofSeconds(timeoutSeconds);
        QueryResult result;
        if (bolt.remote()) {
            try (RemoteGraphStore remote = bolt.connect()) {
                result = run(remote, query, bound, timeout);
            }
        } else {
            result = runOnStore(query, bound, timeout);
        }
        ResultWriter.write(result, fmt, csvRaw, System.out);
        return 0;
    }

    /** On the embedded store {@code --db}, or over Bolt while {@code heapload serve} holds it. */
    private QueryResult runOnStore(SavedQuery query, Map<String, Object> bound, Duration timeout) throws Exception {
        OutputFiles.requireStore(db);
        GraphStore store;
        try {
            // another query holds the store: wait for it (it ends within its own timeout), then run
            store = GraphStore.openWaiting(db, timeout.plus(Duration.ofSeconds(30)),
                inUse -> System.err.println("heapload: " + inUse + "; waiting for it to finish"));
        } catch (StoreInUseException e) {
            try (RemoteGraphStore served = ServedStore.connect(e, "running the query")) {
                return run(served, query, bound, timeout);
            }
        }
        try (store) {
            return QueryRunner.run(store.database(), query, bound, limit, timeout);
        }
    }

    /**
     * The built-in query {@code paths}, computed from the snapshot's model ({@link PathsQuery}): from the store
     * {@code --db}, also while {@code heapload serve} or a query holds it (the model file is only read).
     */
    private QueryResult paths(Map<String, Object> bound) throws Exception {
        if (bolt.remote()) {
            throw new QueryFailedException("query 'paths' needs the snapshot files of a heapload store (--db), which a "
                + "server does not keep; over --uri, use why-alive and referrers");
        }
        OutputFiles.requireStore(db);
        HeapSnapshot model;
        try {
            model = GraphStore.readModel(db, (String) bound.get("snapshot"));
        } catch (SnapshotNotFoundException e) {
            throw new QueryFailedException("no snapshot '" + dev.heapload.queries.SafeText.visible(
                (String) bound.get("snapshot")) + "' in the store (heapload snapshots lists them)");
        }
        return PathsQuery.run(model, bound, limit);
    }

    private QueryResult run(RemoteGraphStore server, SavedQuery query, Map<String, Object> bound, Duration timeout)
        throws Exception {
        return RemoteQueryRunner.run(server.driver(), server.database(), query, bound, limit, timeout);
    }
}
