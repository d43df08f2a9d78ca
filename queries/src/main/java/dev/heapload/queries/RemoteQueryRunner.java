package dev.heapload.queries;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.neo4j.driver.AccessMode;
import org.neo4j.driver.Driver;
import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.TransactionConfig;
import org.neo4j.driver.Value;
import org.neo4j.driver.types.Entity;
import org.neo4j.driver.types.Node;
import org.neo4j.driver.types.Path;

/**
 * Runs saved queries on a Neo4j server over Bolt, the remote counterpart of {@link QueryRunner}: the same snapshot
 * check, one read transaction with the transaction timeout, no retries, and the same plain Java values in the
 * {@link QueryResult} ({@code null}, {@link String}, {@link Long}, {@link Double}, {@link Boolean}, {@link List},
 * {@link Map}; nodes and relationships as their element ids, paths as the element ids of their nodes, temporal
 * values as their ISO text), so {@link ResultWriter} prints the same table, CSV and JSON. The server's own
 * {@code db.memory.transaction.max} bounds the query's memory.
 */
public final class RemoteQueryRunner {

    private RemoteQueryRunner() {
    }

    /**
     * Runs {@code query} in a read transaction on the server and returns up to {@code limit} rows.
     *
     * @param driver   connected driver
     * @param database database name, or {@code null} for the server's default
     * @param query    the query
     * @param params   typed parameters ({@link QueryRunner#bind})
     * @param limit    maximum rows to return (0 or less: all)
     * @param timeout  transaction timeout
     * @throws QueryFailedException (one line) when a snapshot parameter names no complete snapshot on the server,
     *                              on timeout, when the server's transaction memory limit was reached, on a Cypher
     *                              error or when the connection fails
     */
    public static QueryResult run(Driver driver, String database, SavedQuery query, Map<String, Object> params,
                                  long limit, Duration timeout) throws QueryFailedException {
        return run(driver, database, query, params, limit, timeout, true);
    }

    /** {@link #run} with the snapshot check optional (tests run a query on an incomplete snapshot without it). */
    static QueryResult run(Driver driver, String database, SavedQuery query, Map<String, Object> params, long limit,
                           Duration timeout, boolean checkSnapshots) throws QueryFailedException {
        SessionConfig.Builder config = SessionConfig.builder().withDefaultAccessMode(AccessMode.READ);
        if (database != null) {
            config.withDatabase(database);
        }
        TransactionConfig txConfig = TransactionConfig.builder().withTimeout(timeout).build();
        try (Session session = driver.session(config.build()); Transaction tx = session.beginTransaction(txConfig)) {
            if (checkSnapshots) {
                QueryRunner.checkSnapshots(params,
                    id -> tx.run(QueryRunner.SNAPSHOT_COUNT, Map.of("id", id)).single().get("n").asLong() > 0);
                params = QueryRunner.checkAddress(params, (snapshot, address) -> tx.run(QueryRunner.OBJECT_COUNT,
                    Map.of("snapshot", snapshot, "address", address)).single().get("n").asLong() > 0);
            }
            List<List<Object>> rows = new ArrayList<>();
            boolean truncated = false;
            Result r = tx.run(query.text(), params);
            List<String> columns = List.copyOf(r.keys());
            while (r.hasNext()) {
                if (limit > 0 && rows.size() >= limit) {
                    truncated = true;
                    break;
                }
                Record record = r.next();
                List<Object> values = new ArrayList<>(columns.size());
                for (String c : columns) {
                    values.add(plain(record.get(c)));
                }
                rows.add(values);
            }
            tx.rollback();
            return new QueryResult(columns, rows, truncated);
        } catch (QueryFailedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new QueryFailedException(QueryRunner.failure(query, e, timeout));
        }
    }

    /** A driver value as a plain Java value of the types {@link QueryResult} lists. */
    static Object plain(Value v) {
        return QueryRunner.plain(v.asObject(), RemoteQueryRunner::driverGraphValue);
    }

    private static Object driverGraphValue(Object v) {
        if (v instanceof Entity e) {
            return e.elementId();
        }
        if (v instanceof Path p) {
            List<Object> ids = new ArrayList<>();
            for (Node n : p.nodes()) {
                ids.add(n.elementId());
            }
            return ids;
        }
        if (v instanceof Value value) {
            return plain(value);
        }
        return null;
    }
}
