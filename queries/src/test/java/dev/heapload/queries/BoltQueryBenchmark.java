package dev.heapload.queries;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.summary.ResultSummary;

/**
 * Not a test: times every saved query over Bolt on a server holding snapshots 'before' and 'after' (README: the
 * 2.4M-object entity-system-large pair served by {@code heapload serve --no-auth}). Usage: {@code BoltQueryBenchmark URI
 * [ADDRESS]}; prints per query, for its first and its second run, the server's time to the first row plus the time
 * to consume the rest (from the result summary) and the client's wall time, and the row count. No authentication.
 */
public final class BoltQueryBenchmark {

    private BoltQueryBenchmark() {
    }

    /** Entry point: {@code URI [ADDRESS]}. */
    public static void main(String[] args) throws Exception {
        QueryLibrary lib = QueryLibrary.builtIn();
        Map<String, Map<String, String>> runs = QueryBenchmark.runs(args.length > 1 ? args[1] : null);
        try (Driver driver = GraphDatabase.driver(args[0], AuthTokens.none());
             Session session = driver.session()) {
            driver.verifyConnectivity();
            for (var e : runs.entrySet()) {
                SavedQuery q = lib.get(e.getKey());
                Map<String, Object> params = QueryRunner.bind(q, e.getValue());
                StringBuilder line = new StringBuilder(String.format("%-20s", e.getKey()));
                for (int i = 0; i < 2; i++) {
                    long t0 = System.nanoTime();
                    var result = session.run(q.text(), params);
                    int rows = result.list().size();
                    ResultSummary s = result.consume();
                    double server = (s.resultAvailableAfter(TimeUnit.MILLISECONDS) + s.resultConsumedAfter(TimeUnit.MILLISECONDS)) / 1e3;
                    line.append(String.format("  server %5.2f s, client %5.2f s (%d rows)", server,
                        (System.nanoTime() - t0) / 1e9, rows));
                }
                System.out.println(line);
            }
        }
    }
}
