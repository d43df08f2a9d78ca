package dev.heapload.cli;

import java.io.IOException;
import java.util.Map;

import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.SavedQuery;

/**
 * Runs one saved query with typed parameters, on the embedded store ({@code QueryRunner}) or a server
 * ({@code RemoteQueryRunner}): what the report and trend commands need, whichever store they read.
 */
@FunctionalInterface
interface SavedQueryRunner {
    /**
     * @throws QueryFailedException when the query fails or times out (one line)
     * @throws IOException          when the store cannot be read
     */
    QueryResult run(SavedQuery query, Map<String, Object> params) throws QueryFailedException, IOException;
}
