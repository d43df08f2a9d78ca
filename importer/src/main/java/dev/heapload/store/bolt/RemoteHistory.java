package dev.heapload.store.bolt;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.neo4j.driver.Record;
import org.neo4j.driver.TransactionCallback;
import org.neo4j.driver.Value;

import dev.heapload.store.GraphInput;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.SnapshotHistory;
import dev.heapload.store.SnapshotSummary;
import dev.heapload.store.StoredComparison;
import dev.heapload.store.StoredSummary;

/**
 * The leak history on a Neo4j server: what the embedded store keeps in each snapshot's
 * summary file ({@link StoredSummary#comparisons()}), kept on the server as small nodes of the snapshot, written in
 * the load's last transaction (with its {@code Snapshot} node, so all or nothing) and deleted with it:
 *
 * <pre>
 * (:Snapshot)-[:LOAD_COMPARISON]-&gt;(:LoadComparison {snapshot, baseline, position, newObjects, newBytes, leakGroupCount})
 * (:LoadComparison)-[:LOAD_LEAK_GROUP]-&gt;(:LoadLeakGroup {snapshot, baseline, rank, objects, newBytes, retainedBytes,
 *                                                       heads, headType, path, verdict, netObjects, netBytes})
 * </pre>
 *
 * One {@code LoadComparison} per comparison the load made with the snapshot as the target, chosen as the embedded
 * store chooses them (the nearest earlier analysed snapshot, the {@code --baseline}, and for the last of several files
 * the first), {@code position} its place in that order (0 first); its {@value StoredSummary#LEAK_GROUPS} largest leak
 * groups as {@code LoadLeakGroup} ({@code rank} 1 first, {@code path} the retention path's lines, as the summary keeps
 * them; {@code verdict}, {@code netObjects}, {@code netBytes} the group's net growth, absent on groups an older
 * heapload wrote, read as net = new). A comparison made on first request is not part of the history (as in the embedded store). Deleting the
 * baseline keeps them (the embedded summaries keep them too; the history skips baselines that are gone).
 */
final class RemoteHistory {

    /** Label of a comparison a load made (see the class comment). */
    static final String LOAD_COMPARISON = "LoadComparison";
    /** Label of one of its largest leak groups. */
    static final String LOAD_LEAK_GROUP = "LoadLeakGroup";
    /** Relationship from the Snapshot node to its LoadComparison nodes. */
    static final String HAS_LOAD_COMPARISON = "LOAD_COMPARISON";
    /** Relationship from a LoadComparison to its LoadLeakGroup nodes. */
    static final String HAS_LOAD_LEAK_GROUP = "LOAD_LEAK_GROUP";

    private RemoteHistory() {
    }

    /**
     * Work for the load's last transaction (after its Snapshot nodes are created in it) that writes the history of the
     * loaded snapshots: per new analysed part, the comparisons the embedded store's load would keep in its summary,
     * taken from {@code pairs}.
     *
     * @param newParts the number of new parts (the first ones of {@code parts}; stored ones follow, the previous
     *                 complete snapshot first)
     * @param baseline the load's {@code --baseline}, or {@code null}
     */
    static TransactionCallback<Void> work(List<GraphInput.Part> parts, int newParts, List<GraphInput.Pair> pairs,
                                          String baseline) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int t = 0; t < newParts; t++) {
            if (!parts.get(t).entry().summary().analysed()) {
                continue;
            }
            String targetId = parts.get(t).entry().id();
            StoredSummary summary = new StoredSummary(List.of(), List.of(), List.of());
            for (int p : partners(parts, newParts, t, baseline)) {
                for (GraphInput.Pair pair : pairs) {
                    if (pair.baseline() == p && pair.target() == t) {
                        summary = summary.with(parts.get(p).entry().id(), pair.comparison());
                        break;
                    }
                }
            }
            int position = 0;
            for (StoredComparison c : summary.comparisons()) {
                Map<String, Object> props = new LinkedHashMap<>();
                props.put("snapshot", targetId);
                props.put("baseline", c.baseline());
                props.put("position", (long) position++);
                props.put("newObjects", c.newObjects());
                props.put("newBytes", c.newBytes());
                props.put("leakGroupCount", (long) c.leakGroupCount());
                List<Map<String, Object>> groups = new ArrayList<>();
                long rank = 1;
                for (StoredComparison.StoredLeakGroup g : c.leakGroups()) {
                    Map<String, Object> gp = new HashMap<>();
                    gp.put("snapshot", targetId);
                    gp.put("baseline", c.baseline());
                    gp.put("rank", rank++);
                    gp.put("objects", g.objects());
                    gp.put("newBytes", g.newBytes());
                    gp.put("retainedBytes", g.retainedBytes());
                    gp.put("heads", g.heads());
                    gp.put("headType", g.headType());
                    gp.put("path", g.path());
                    if (g.verdict() != null) {
                        gp.put("verdict", g.verdict());
                    }
                    gp.put("netObjects", g.netObjects());
                    gp.put("netBytes", g.netBytes());
                    groups.add(gp);
                }
                rows.add(Map.of("snapshot", targetId, "p", props, "groups", groups));
            }
        }
        return tx -> {
            if (rows.isEmpty()) {
                return null;
            }
            long created = tx.run("UNWIND $rows AS c MATCH (s:" + GraphSchema.SNAPSHOT + " {id: c.snapshot}) "
                + "CREATE (s)-[:" + HAS_LOAD_COMPARISON + "]->(x:" + LOAD_COMPARISON + ") SET x = c.p "
                + "WITH x, c CALL (x, c) { UNWIND c.groups AS g "
                + "CREATE (x)-[:" + HAS_LOAD_LEAK_GROUP + "]->(y:" + LOAD_LEAK_GROUP + ") SET y = g } "
                + "RETURN count(x) AS n", Map.of("rows", rows)).single().get("n").asLong();
            if (created != rows.size()) {
                throw new IllegalStateException("wrote " + created + " of " + rows.size() + " load comparisons: a "
                    + "Snapshot node of this load is missing");
            }
            return null;
        };
    }

    /**
     * The parts the embedded store's load compares new part {@code t} with ({@code GraphStore}'s partners): the
     * nearest earlier analysed one (an earlier new part, else the previous stored snapshot), the baseline, and for
     * the last of several new parts the first; each once, never itself, analysed only.
     */
    static List<Integer> partners(List<GraphInput.Part> parts, int newParts, int t, String baseline) {
        List<Integer> out = new ArrayList<>();
        for (int i = t - 1; i >= 0; i--) {
            if (parts.get(i).entry().summary().analysed()) {
                out.add(i);
                break;
            }
        }
        if (out.isEmpty() && parts.size() > newParts) {
            // the stored parts: the previous complete, analysed snapshot first (RemoteGraphStore.comparedWith)
            out.add(newParts);
        }
        List<Integer> more = new ArrayList<>();
        if (baseline != null) {
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i).entry().id().equals(baseline)) {
                    more.add(i);
                }
            }
        }
        if (newParts > 1 && t == newParts - 1) {
            more.add(0);
        }
        for (int i : more) {
            if (i != t && parts.get(i).entry().summary().analysed() && !out.contains(i)) {
                out.add(i);
            }
        }
        return out;
    }

    /** Work deleting the history nodes of snapshot {@code id} (with its Snapshot node, before that node goes). */
    static TransactionCallback<Void> delete(String id) {
        return tx -> {
            tx.run("MATCH (:" + GraphSchema.SNAPSHOT + " {id: $id})-[:" + HAS_LOAD_COMPARISON + "]->(c:" + LOAD_COMPARISON
                + ") OPTIONAL MATCH (c)-[:" + HAS_LOAD_LEAK_GROUP + "]->(g:" + LOAD_LEAK_GROUP + ") DETACH DELETE c, g",
                Map.of("id", id)).consume();
            return null;
        };
    }

    /**
     * Every complete snapshot in load order with the comparisons its load kept ({@code pruned} always false: a server
     * has no pruning). One read transaction.
     *
     * @param snapshots the server's complete snapshots in load order
     */
    static TransactionCallback<List<SnapshotHistory>> read(List<SnapshotSummary> snapshots) {
        return tx -> {
            Map<String, List<StoredComparison>> byId = new HashMap<>();
            for (Record r : tx.run("MATCH (s:" + GraphSchema.SNAPSHOT + ")-[:" + HAS_LOAD_COMPARISON + "]->(c:"
                + LOAD_COMPARISON + ") OPTIONAL MATCH (c)-[:" + HAS_LOAD_LEAK_GROUP + "]->(g:" + LOAD_LEAK_GROUP + ") "
                + "WITH s, c, g ORDER BY g.rank WITH s, c, collect(g{.*}) AS groups "
                + "RETURN s.id AS id, c{.*} AS c, groups ORDER BY id, c.position").list()) {
                Value c = r.get("c");
                List<StoredComparison.StoredLeakGroup> groups = new ArrayList<>();
                for (Value g : r.get("groups").values()) {
                    List<String> path = new ArrayList<>();
                    for (Value line : g.get("path").values()) {
                        path.add(line.asString());
                    }
                    long objects = g.get("objects").asLong();
                    long newBytes = g.get("newBytes").asLong();
                    // groups written before verdicts: net = new
                    groups.add(new StoredComparison.StoredLeakGroup(objects, newBytes, g.get("retainedBytes").asLong(),
                        g.get("heads").asLong(), g.get("headType").asString(null), path, g.get("verdict").asString(null),
                        g.get("netObjects").asLong(objects), g.get("netBytes").asLong(newBytes)));
                }
                byId.computeIfAbsent(r.get("id").asString(), k -> new ArrayList<>()).add(new StoredComparison(
                    c.get("baseline").asString(), c.get("newObjects").asLong(), c.get("newBytes").asLong(),
                    (int) c.get("leakGroupCount").asLong(), groups));
            }
            List<SnapshotHistory> out = new ArrayList<>(snapshots.size());
            for (SnapshotSummary s : snapshots) {
                out.add(new SnapshotHistory(s, false, byId.getOrDefault(s.id(), List.of())));
            }
            return out;
        };
    }
}
