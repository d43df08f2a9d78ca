package dev.heapload.queries;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Path;
import org.neo4j.graphdb.QueryExecutionType;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

/**
 * Runs saved queries on an embedded Neo4j database, read-only, with a transaction timeout. The DBMS itself
 * bounds each transaction's memory ({@code db.memory.transaction.max}, set where the store starts Neo4j), so a
 * query that would exhaust the heap fails instead of taking the process down.
 */
public final class QueryRunner {

    /** Default transaction timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

    /** Parameters whose string values must name a snapshot in the store (when not empty). */
    static final Set<String> SNAPSHOT_PARAMETERS = SnapshotParameters.SNAPSHOT_PARAMETERS;

    private QueryRunner() {
    }

    /**
     * Types the command-line values per the query's header and fills in defaults.
     *
     * @param query  the query
     * @param values parameter name → value text, as given on the command line
     * @return parameter name → {@link String}, {@link Long} or {@link Boolean}, one entry per declared parameter
     * @throws QueryFailedException when a value is given for an undeclared parameter, a required one is
     *                              missing, or a value does not parse as its type
     */
    public static Map<String, Object> bind(SavedQuery query, Map<String, String> values) throws QueryFailedException {
        Map<String, Object> params = new LinkedHashMap<>();
        for (String key : values.keySet()) {
            if (query.parameter(key) == null) {
                throw new QueryFailedException("query '" + query.name() + "' has no parameter '" + key + "' (it takes: "
                    + describe(query) + ")");
            }
        }
        for (QueryParameter p : query.parameters()) {
            String text = values.get(p.name());
            if (text != null) {
                try {
                    params.put(p.name(), p.convert(text));
                } catch (IllegalArgumentException e) {
                    throw new QueryFailedException(e.getMessage());
                }
            } else if (p.required()) {
                throw new QueryFailedException("query '" + query.name() + "' needs -p " + p.name() + "=" + p.type().headerName().toUpperCase()
                    + " (it takes: " + describe(query) + ")");
            } else {
                params.put(p.name(), p.defaultValue());
            }
        }
        return params;
    }

    private static String describe(SavedQuery q) {
        if (q.parameters().isEmpty()) {
            return "no parameters";
        }
        List<String> parts = new ArrayList<>();
        for (QueryParameter p : q.parameters()) {
            parts.add(p.toString());
        }
        return String.join(", ", parts);
    }

    /**
     * Runs {@code query} in a read transaction and returns up to {@code limit} rows.
     *
     * @param db      the database
     * @param query   the query
     * @param params  typed parameters ({@link #bind})
     * @param limit   maximum rows to return (0 or less: all)
     * @param timeout transaction timeout
     * @throws QueryFailedException (one line) when a snapshot parameter names no snapshot in the database or
     *                              {@code snapshot}/{@code target} is empty, when the query would write,
     *                              on timeout, when the transaction memory limit was reached, or on a Cypher error
     */
    public static QueryResult run(GraphDatabaseService db, SavedQuery query, Map<String, Object> params, long limit,
                                  Duration timeout) throws QueryFailedException {
        return run(db, query, params, limit, timeout, QueryWatchdog.GRACE, QueryWatchdog.EXIT);
    }

    /**
     * {@link #run(GraphDatabaseService, SavedQuery, Map, long, Duration)} under a {@link QueryWatchdog} with the
     * given grace and halt action (tests: a short grace, an action that records instead of halting the JVM).
     */
    public static QueryResult run(GraphDatabaseService db, SavedQuery query, Map<String, Object> params, long limit,
                           Duration timeout, Duration grace, java.util.function.Consumer<String> halt)
        throws QueryFailedException {
        QueryWatchdog watchdog = null;
        try (Transaction tx = db.beginTx(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            watchdog = QueryWatchdog.watch(tx, query.name(), timeout, grace, halt);
            checkSnapshots(params, id -> {
                try (Result r = tx.execute(SNAPSHOT_COUNT, Map.of("id", id))) {
                    return ((Number) r.next().get("n")).longValue() > 0;
                }
            });
            params = checkAddress(params, (snapshot, address) -> {
                try (Result r = tx.execute(OBJECT_COUNT, Map.of("snapshot", snapshot, "address", address))) {
                    return ((Number) r.next().get("n")).longValue() > 0;
                }
            });
            List<List<Object>> rows = new ArrayList<>();
            boolean truncated = false;
            List<String> columns;
            try (Result r = tx.execute(query.text(), params)) {
                if (r.getQueryExecutionType().queryType() != QueryExecutionType.QueryType.READ_ONLY) {
                    throw new QueryFailedException("query '" + query.name() + "' would change the graph; queries are "
                        + "read-only (nothing was changed)");
                }
                columns = List.copyOf(r.columns());
                while (r.hasNext()) {
                    if (limit > 0 && rows.size() >= limit) {
                        truncated = true;
                        break;
                    }
                    Map<String, Object> row = r.next();
                    List<Object> values = new ArrayList<>(columns.size());
                    for (String c : columns) {
                        values.add(plain(row.get(c)));
                    }
                    rows.add(values);
                }
            }
            tx.rollback();
            return new QueryResult(columns, rows, truncated);
        } catch (QueryFailedException e) {
            throw e;
        } catch (RuntimeException e) {
            if (watchdog != null && watchdog.terminated()) {
                throw new QueryFailedException(timedOut(query, timeout));
            }
            throw new QueryFailedException(failure(query, e, timeout));
        } finally {
            if (watchdog != null) {
                watchdog.close();
            }
        }
    }

    /**
     * Plans {@code query} without running it ({@code EXPLAIN}), with placeholder parameters of the header's types
     * (defaults where declared; {@code ""}, {@code 0} or {@code false} otherwise), and plans the snapshot check that
     * {@link #run} does first. Cypher keeps the plans in its query cache, keyed by the text and the parameter types,
     * so a later run of the same query with real values skips planning; the first plan in a JVM also loads and
     * warms the planner itself (on the 2.4M-object pair: 1.3–3.7 s for a saved query's first run in a fresh JVM,
     * 0.01–0.02 s once planned).
     *
     * @param db the database
     * @throws QueryFailedException (one line) when Cypher rejects the query
     */
    public static void plan(GraphDatabaseService db, SavedQuery query) throws QueryFailedException {
        Map<String, Object> params = new LinkedHashMap<>();
        for (QueryParameter p : query.parameters()) {
            params.put(p.name(), p.required() ? switch (p.type()) {
                case STRING -> "";
                case INTEGER -> 0L;
                case BOOLEAN -> Boolean.FALSE;
            } : p.defaultValue());
        }
        try (Transaction tx = db.beginTx()) {
            tx.execute("EXPLAIN " + SNAPSHOT_COUNT, Map.of("id", "")).close();
            tx.execute("EXPLAIN " + query.text(), params).close();
            tx.rollback();
        } catch (RuntimeException e) {
            throw new QueryFailedException(failure(query, e, DEFAULT_TIMEOUT));
        }
    }

    /** Counts the Snapshot nodes with id {@code $id}: 1 for a complete snapshot, else 0. */
    static final String SNAPSHOT_COUNT = "MATCH (s:Snapshot {id: $id}) RETURN count(s) AS n";

    /** Counts the objects of snapshot {@code $snapshot} at {@code $address} (an index lookup): 1 or 0. */
    static final String OBJECT_COUNT = "MATCH (o:Object {snapshot: $snapshot, address: $address}) RETURN count(o) AS n";

    /** {@link SnapshotParameters#checkAddress}. */
    static Map<String, Object> checkAddress(Map<String, Object> params,
                                            java.util.function.BiPredicate<String, String> exists)
        throws QueryFailedException {
        return SnapshotParameters.checkAddress(params, exists);
    }

    /** {@link SnapshotParameters#addressSpellings}. */
    public static List<String> addressSpellings(String text) {
        return SnapshotParameters.addressSpellings(text);
    }

    /** {@link SnapshotParameters#checkSnapshots}. */
    static void checkSnapshots(Map<String, Object> params, java.util.function.Predicate<String> exists)
        throws QueryFailedException {
        SnapshotParameters.checkSnapshots(params, exists);
    }

    /**
     * One line for a failed query: timeout, memory limit and a refused {@code LOAD CSV} (the store's DBMS allows no
     * file or URL access) and a write the read-only database refused in words, else the innermost Neo4j message.
     */
    static String failure(SavedQuery query, Throwable e, Duration timeout) {
        StringBuilder all = new StringBuilder();
        String innermost = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            all.append(t.getClass().getSimpleName()).append(' ').append(m).append('\n');
            if (m != null && !m.isBlank()) {
                innermost = m;
            }
        }
        String text = all.toString();
        String prefix = "query '" + query.name() + "' ";
        if (text.contains("db.memory.transaction.max") || text.contains("MemoryLimitExceeded")) {
            return prefix + "stopped: it needed more memory than a transaction may use (db.memory.transaction.max; "
                + "narrow it with parameters or --limit)";
        }
        if (text.contains("WriteOperationsNotAllowed") || text.contains("read-only mode")) {
            return prefix + "would change the graph; queries are read-only (nothing was changed)";
        }
        if (text.contains("allow_csv_import_from_file_urls") || text.contains("cypher_ip_blocklist")) {
            return prefix + "refused: LOAD CSV is off (queries read the graph only, no files or URLs)";
        }
        if (text.contains("TransactionTimedOut") || text.contains("timed out") || text.contains("timeout")) {
            return timedOut(query, timeout);
        }
        String m = innermost == null ? e.getClass().getSimpleName() : innermost;
        int nl = m.indexOf('\n');
        return prefix + "failed: " + (nl >= 0 ? m.substring(0, nl) : m).strip();
    }

    private static String timedOut(SavedQuery query, Duration timeout) {
        return "query '" + query.name() + "' stopped after the transaction timeout of " + timeout.toSeconds()
            + " s (raise it with --timeout)";
    }

    /** Neo4j values of the embedded API as plain Java values; nodes and relationships become their element ids. */
    static Object plain(Object v) {
        return plain(v, QueryRunner::embeddedGraphValue);
    }

    private static Object embeddedGraphValue(Object v) {
        if (v instanceof Entity en) {
            return en.getElementId();
        }
        if (v instanceof Path p) {
            List<Object> ids = new ArrayList<>();
            p.nodes().forEach(n -> ids.add(n.getElementId()));
            return ids;
        }
        return null;
    }

    /**
     * A query value as a plain Java value of the types {@link QueryResult} lists: whole numbers as {@code Long},
     * floating point as {@code Double}, lists, maps with string keys, temporal and other values as text.
     *
     * @param graphValue the API-specific part (embedded or driver): the plain form of a node, relationship, path or
     *                   wrapped value, or {@code null} when {@code v} is none of those
     */
    static Object plain(Object v, java.util.function.Function<Object, Object> graphValue) {
        if (v == null || v instanceof String || v instanceof Boolean || v instanceof Long || v instanceof Double) {
            return v;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Float f) {
            return f.doubleValue();
        }
        Object graph = graphValue.apply(v);
        if (graph != null) {
            return graph;
        }
        if (v instanceof Iterable<?> it) {
            List<Object> out = new ArrayList<>();
            for (Object o : it) {
                out.add(plain(o, graphValue));
            }
            return out;
        }
        if (v.getClass().isArray()) {
            List<Object> out = new ArrayList<>();
            int n = java.lang.reflect.Array.getLength(v);
            for (int i = 0; i < n; i++) {
                out.add(plain(java.lang.reflect.Array.get(v, i), graphValue));
            }
            return out;
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.put(String.valueOf(e.getKey()), plain(e.getValue(), graphValue));
            }
            return out;
        }
        return v.toString();
    }
}
