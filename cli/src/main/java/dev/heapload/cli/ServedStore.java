package dev.heapload.cli;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import org.neo4j.driver.Record;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;

import dev.heapload.store.bolt.RemoteGraphStore;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.StoreInUseException;

/**
 * Read-only commands ({@code query}, {@code trend}) on a store that {@code heapload serve} holds: instead of failing
 * on the store lock they run over the server's Bolt port (loopback; as user neo4j with the password from the
 * store's serve.password file when it serves with authentication), with one line on stderr
 * saying so. The served graph is the graph of the store's newest snapshot (one graph per snapshot, docs/design/store.md):
 * summary queries and queries on that snapshot give the same rows as without serve; a query that needs another
 * snapshot's objects, or a pair not compared yet (serve holds the store read-only), is refused with one line
 * ({@link #requireServedGraph}) instead of giving empty rows.
 */
final class ServedStore {

    private ServedStore() {
    }

    /**
     * Connects to the server that holds the store, or rethrows {@code e} when no {@code heapload serve} does.
     *
     * @param what the work, for the notice ("running the query")
     * @param err  where the notice goes
     * @throws IOException {@code e} itself, or a one-line connection failure naming the URI
     */
    static RemoteGraphStore connect(StoreInUseException e, String what, java.io.PrintStream err) throws IOException {
        String uri = e.servedBoltUri().orElseThrow(() -> e);
        err.println("heapload: the store is served by heapload serve (pid " + e.servingPid() + "): " + what
            + " over " + uri);
        return RemoteGraphStore.connect(uri, "neo4j", e.servedPassword().orElse(null), null);
    }

    /**
     * Refuses, with one line, a saved query that the served graph cannot answer as the store would: one whose
     * {@code target} (else {@code snapshot}) names a snapshot of the store whose objects are in another graph than
     * the served one, or a pair ({@code baseline}, {@code target}) that has not been compared (the store would
     * compare it on this first request, which a read-only served store cannot). Summary queries
     * ({@link GraphStore#SUMMARY_QUERIES}) read nodes every graph holds and always pass; unknown ids pass (the query
     * says so itself). The same rule as {@link GraphStore#databaseFor}.
     *
     * @param served    the connection to the serving process
     * @param pid       that process's id, for the message
     * @param queryName the saved query's name
     * @param params    its bound parameters
     * @throws IOException the one-line refusal, naming the snapshots and how to go on
     */
    static void requireServedGraph(RemoteGraphStore served, long pid, String queryName, Map<String, Object> params)
        throws IOException {
        String id = GraphStore.queriedSnapshot(params);
        if (id == null || GraphStore.SUMMARY_QUERIES.contains(queryName)) {
            return;
        }
        Object b = params.get("baseline");
        String baseline = b instanceof String s && !s.isEmpty() && id.equals(params.get("target")) ? s : null;
        Map<String, Object> bound = new HashMap<>(); // the baseline may be null: not Map.of
        bound.put("id", id);
        bound.put("baseline", baseline);
        Record r;
        SessionConfig config = served.database() == null ? SessionConfig.defaultConfig()
            : SessionConfig.forDatabase(served.database());
        try (Session session = served.driver().session(config)) {
            r = session.executeRead(tx -> tx.run("""
                OPTIONAL MATCH (s:Snapshot {id: $id})
                CALL { MATCH (o:Object) RETURN o.snapshot AS servedId LIMIT 1 }
                OPTIONAL MATCH (b:Snapshot {id: $baseline})
                RETURN s IS NOT NULL AS known, servedId, b IS NOT NULL AS baselineKnown,
                       CASE WHEN $baseline IS NULL THEN true
                            ELSE exists { MATCH (d:Diff {baseline: $baseline, target: $id}) } END AS compared""",
                bound).single());
        }
        String servedId = r.get("servedId").isNull() ? null : r.get("servedId").asString();
        if (!r.get("known").asBoolean() || servedId == null) {
            return;
        }
        if (!servedId.equals(id)) {
            throw new IOException("heapload serve (pid " + pid + ") serves the graph of snapshot '" + servedId
                + "' only, and the objects of '" + id + "' are in another graph of the store: stop serve to query '"
                + id + "'");
        }
        if (baseline != null && !baseline.equals(id) && r.get("baselineKnown").asBoolean()
            && !r.get("compared").asBoolean()) {
            throw new IOException("the pair '" + baseline + "' -> '" + id + "' has not been compared yet, and heapload "
                + "serve (pid " + pid + ") holds the store read-only: stop serve, then ask again (it is compared on "
                + "its first request and kept)");
        }
    }
}
