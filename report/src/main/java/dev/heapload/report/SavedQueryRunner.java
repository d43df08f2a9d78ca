package dev.heapload.report;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.RemoteQueryRunner;
import dev.heapload.queries.SavedQuery;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.bolt.RemoteGraphStore;

/**
 * Runs one saved query with typed parameters, on the embedded store ({@code QueryRunner}) or a server
 * ({@code RemoteQueryRunner}): what the report and trend commands need, whichever store they read.
 */
@FunctionalInterface
public interface SavedQueryRunner {
    /**
     * @throws QueryFailedException when the query fails or times out (one line)
     * @throws IOException          when the store cannot be read
     */
    QueryResult run(SavedQuery query, Map<String, Object> params) throws QueryFailedException, IOException;

    /** All rows of each query on the embedded store, each in a read transaction with {@code timeout}. */
    static SavedQueryRunner on(GraphStore store, Duration timeout) {
        return (q, p) -> QueryRunner.run(store.databaseFor(q.name(), p), q, p, 0, timeout);
    }

    /**
     * All rows of each query on the server, each in a read transaction with {@code timeout}; no comparison is made
     * (for the Bolt port of {@code heapload serve}, whose graph holds one snapshot's objects).
     */
    static SavedQueryRunner on(RemoteGraphStore remote, Duration timeout) {
        return (q, p) -> RemoteQueryRunner.run(remote.driver(), remote.database(), q, p, 0, timeout);
    }

    /**
     * {@link #on(RemoteGraphStore, Duration)} on a server loaded by heapload ({@code --uri}): a query on a pair that
     * no load compared compares it first, once ({@link RemoteGraphStore#compareFor}), as the embedded store does.
     */
    static SavedQueryRunner comparingOn(RemoteGraphStore remote, Duration timeout) {
        return (q, p) -> {
            remote.compareFor(q.name(), p);
            return RemoteQueryRunner.run(remote.driver(), remote.database(), q, p, 0, timeout);
        };
    }
}
