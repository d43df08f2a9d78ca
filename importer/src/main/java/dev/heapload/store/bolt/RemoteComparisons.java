package dev.heapload.store.bolt;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.neo4j.batchimport.api.InputIterator;
import org.neo4j.batchimport.api.input.Collector;
import org.neo4j.batchimport.api.input.InputChunk;
import org.neo4j.driver.Record;
import org.neo4j.driver.TransactionContext;

import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.store.Catalog;
import dev.heapload.store.GraphInput;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.InputRows;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.SnapshotSummary;

/**
 * Comparisons on first request over Bolt: a load over {@code --uri} compares the new snapshot with
 * the previous complete one and {@code --baseline} only; any other pair is compared here when a pair query,
 * {@code categories} with a baseline, a report or the leak answer first asks for it, as
 * {@link GraphStore#compare} does for the embedded store.
 *
 * <p>How: both snapshots are read back from the server ({@link StoredSnapshotReader}, one read transaction each,
 * one after the other), compared with {@link SnapshotComparison} exactly as at load, and the comparison's nodes
 * ({@code Diff}, {@code NewObjects}, {@code LeakGroup}) and relationships ({@code BASELINE}, {@code TARGET},
 * {@code HAS_NEW_OBJECTS}, {@code HAS_LEAK_GROUP}, {@code EXAMPLE}, {@code GREW}: the rows {@link GraphInput} hands a
 * load) are written in <em>one</em> write transaction, so an interrupted or failed comparison leaves nothing on the
 * server (nothing to clean up). That transaction first takes the write lock of the target's {@code Snapshot} node and
 * looks for the pair again, so two processes asking at once write it once; the element ids read back are checked
 * (a snapshot replaced meanwhile fails the transaction). One line goes to the notice sink first:
 * {@code comparing 'T' with 'B' (first request for this pair; kept for later)}.
 *
 * <p>Cost: about one read of each snapshot over Bolt (the load's read-back of the previous snapshot, twice) plus the
 * compare phase of a load of the pair; memory: both models with their analyses. Not thread-safe (as
 * {@link RemoteGraphStore}).
 */
final class RemoteComparisons {

    /** Test hook: called inside the write transaction after the comparison's rows are written (throw to roll back). */
    interface WriteHook {
        void written() throws IOException;
    }

    /** Receives one-line notices (no prefix, no newline); none by default. */
    private static volatile java.util.function.Consumer<String> notices = line -> {
    };

    private final RemoteGraphStore store;
    /** Pairs "baseline\0target" known to be compared (or not comparable) since this store was made. */
    private final Set<String> known = new HashSet<>();
    WriteHook writeHook = () -> {
    };

    RemoteComparisons(RemoteGraphStore store) {
        this.store = store;
    }

    /** Where every Bolt store of this process sends its notices (the command line prints them on stderr). */
    static void setNotices(java.util.function.Consumer<String> sink) {
        notices = sink;
    }

    /**
     * The comparison a saved query with these parameters needs, made first if missing: with non-empty
     * {@code baseline} and {@code target} (or {@code snapshot}), both complete snapshots on the server, and a query
     * that is not one of {@link GraphSchema#SUMMARY_QUERIES}. Unknown ids are left to the query's own check.
     */
    void prepare(String queryName, Map<String, Object> params) throws IOException {
        String target = text(params.get("target"));
        String id = target != null ? target : text(params.get("snapshot"));
        String baseline = text(params.get("baseline"));
        if (id == null || baseline == null || GraphSchema.SUMMARY_QUERIES.contains(queryName)
            || known.contains(baseline + "\0" + id)) {
            return;
        }
        Optional<SnapshotSummary> b = store.snapshot(baseline);
        Optional<SnapshotSummary> t = store.snapshot(id);
        if (b.isPresent() && t.isPresent()) {
            compare(b.get(), t.get());
        }
    }

    /** {@link RemoteGraphStore#compare}. */
    boolean compare(String baseline, String target) throws IOException {
        SnapshotSummary b = store.snapshot(baseline).orElseThrow(() -> new SnapshotNotFoundException(baseline, store.uri()));
        SnapshotSummary t = store.snapshot(target).orElseThrow(() -> new SnapshotNotFoundException(target, store.uri()));
        return compare(b, t);
    }

    private boolean compare(SnapshotSummary b, SnapshotSummary t) throws IOException {
        String pair = b.id() + "\0" + t.id();
        if (b.id().equals(t.id()) || !b.analysed() || !t.analysed()) {
            known.add(pair);
            return false;
        }
        boolean present = store.read(tx -> tx.run("MATCH (d:" + GraphSchema.DIFF + " {baseline: $b, target: $t}) "
            + "RETURN count(d) > 0 AS p", Map.of("b", b.id(), "t", t.id())).single().get("p").asBoolean());
        if (present) {
            known.add(pair);
            return false;
        }
        notices.accept("comparing '" + t.id() + "' with '" + b.id() + "' (first request for this pair; kept for later)");
        HeapSnapshot baselineModel = store.readStored(b, false).snapshot();
        StoredSnapshotReader.Stored target = store.readStored(t, false);
        SnapshotComparison comparison = SnapshotComparison.compute(baselineModel, target.snapshot(),
            target.snapshot().analysis());
        baselineModel = null;
        String baselineNode = store.read(tx -> tx.run("MATCH (s:" + GraphSchema.SNAPSHOT + " {id: $id}) "
            + "RETURN elementId(s) AS e", Map.of("id", b.id())).single().get("e").asString());
        // the target first (its objects are the EXAMPLE and GREW ends), the baseline second; both stored: the input
        // emits the comparison's nodes and relationships only, their ends on the server mapped below
        List<GraphInput.Part> parts = List.of(
            new GraphInput.Part(new Catalog.Entry(t, null, 0), () -> target.snapshot(), null, true),
            new GraphInput.Part(new Catalog.Entry(b, null, 0), () -> {
                throw new IOException("stored part");
            }, null, true));
        GraphInput input = new GraphInput(parts, List.of(new GraphInput.Pair(1, 0, comparison)));
        Map<Long, String> existing = new HashMap<>();
        existing.put(input.snapshotNode(0), target.snapshotElementId());
        existing.put(input.snapshotNode(1), baselineNode);
        long base = input.nodeBase(0);
        for (var g : comparison.leakGroups()) {
            existing.put(base + g.example(), target.elementIds().get(g.example()));
        }
        for (var g : comparison.growth()) {
            existing.put(base + g.target(), target.elementIds().get(g.target()));
        }
        Rows rows = rows(input);
        boolean written = store.write(tx -> {
            // the target's write lock: a second process comparing the same pair waits here, then finds it written
            Record lock = tx.run("MATCH (s:" + GraphSchema.SNAPSHOT + ") WHERE elementId(s) = $e AND s.id = $id "
                + "SET s.heaploadLock = true REMOVE s.heaploadLock RETURN count(s) AS n",
                Map.of("e", target.snapshotElementId(), "id", t.id())).single();
            if (lock.get("n").asLong() != 1) {
                throw new IllegalStateException("snapshot '" + t.id() + "' was deleted or replaced while it was being "
                    + "compared; nothing was written");
            }
            if (tx.run("MATCH (d:" + GraphSchema.DIFF + " {baseline: $b, target: $t}) RETURN count(d) > 0 AS p",
                Map.of("b", b.id(), "t", t.id())).single().get("p").asBoolean()) {
                return false;
            }
            write(tx, rows, existing);
            try {
                writeHook.written();
            } catch (IOException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            return true;
        });
        known.add(pair);
        return written;
    }

    /** The comparison's node rows by label set and relationship rows by type, as the input hands them out. */
    private record Rows(Map<String, List<Map<String, Object>>> nodes, Map<String, List<Map<String, Object>>> relationships) {
    }

    private static Rows rows(GraphInput input) throws IOException {
        Map<String, List<Map<String, Object>>> nodes = new LinkedHashMap<>();
        drain(input.nodes(Collector.EMPTY).iterator(), new InputRows(r -> {
            for (String label : r.labels) {
                check(label);
            }
            Map<String, Object> row = new HashMap<>(4);
            row.put("i", r.id);
            row.put("p", r.properties);
            nodes.computeIfAbsent(String.join(":", r.labels), k -> new ArrayList<>()).add(row);
        }));
        Map<String, List<Map<String, Object>>> relationships = new LinkedHashMap<>();
        drain(input.relationships(Collector.EMPTY).iterator(), new InputRows(r -> {
            check(r.type);
            Map<String, Object> row = new HashMap<>(4);
            row.put("s", r.start);
            row.put("e", r.end);
            row.put("p", r.properties);
            relationships.computeIfAbsent(r.type, k -> new ArrayList<>()).add(row);
        }));
        return new Rows(nodes, relationships);
    }

    /**
     * Creates the rows in {@code tx}: nodes per label set (their element ids collected by input id), then relationships
     * per type between those nodes and the {@code existing} ones, each statement checked to create every row.
     */
    private static void write(TransactionContext tx, Rows rows, Map<Long, String> existing) {
        Map<Long, String> ids = new HashMap<>(existing);
        for (Map.Entry<String, List<Map<String, Object>>> e : rows.nodes().entrySet()) {
            Record rec = tx.run("UNWIND $rows AS r CREATE (n:" + e.getKey() + ") SET n = r.p "
                + "RETURN collect(r.i) AS i, collect(elementId(n)) AS e", Map.of("rows", e.getValue())).single();
            List<Object> is = rec.get("i").asList();
            List<Object> es = rec.get("e").asList();
            for (int k = 0; k < is.size(); k++) {
                ids.put((Long) is.get(k), (String) es.get(k));
            }
        }
        for (Map.Entry<String, List<Map<String, Object>>> e : rows.relationships().entrySet()) {
            List<Map<String, Object>> resolved = new ArrayList<>(e.getValue().size());
            for (Map<String, Object> row : e.getValue()) {
                String s = ids.get((Long) row.get("s"));
                String x = ids.get((Long) row.get("e"));
                if (s == null || x == null) {
                    throw new IllegalStateException("a comparison relationship " + e.getKey() + " ends at no node");
                }
                resolved.add(Map.of("s", s, "e", x, "p", row.get("p")));
            }
            long created = tx.run("UNWIND $rows AS r MATCH (a) WHERE elementId(a) = r.s MATCH (b) WHERE elementId(b) = r.e "
                + "CREATE (a)-[x:" + e.getKey() + "]->(b) SET x = r.p RETURN count(x) AS n", Map.of("rows", resolved))
                .single().get("n").asLong();
            if (created != resolved.size()) {
                throw new IllegalStateException("created " + created + " of " + resolved.size() + " " + e.getKey()
                    + " relationships: a snapshot changed on the server while it was being compared; nothing was written");
            }
        }
    }

    private static void check(String name) throws IOException {
        if (!name.matches("[A-Za-z][A-Za-z0-9_]*")) {
            throw new IOException("refusing to write label or type '" + name + "' into Cypher");
        }
    }

    private static void drain(InputIterator it, InputRows visitor) throws IOException {
        try (it; InputChunk chunk = it.newChunk()) {
            while (it.next(chunk)) {
                while (chunk.next(visitor)) {
                    // each call hands one entity to the visitor
                }
            }
        }
    }

    private static String text(Object value) {
        return value instanceof String s && !s.isEmpty() ? s : null;
    }
}
