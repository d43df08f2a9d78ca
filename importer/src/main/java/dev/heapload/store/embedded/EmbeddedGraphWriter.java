package dev.heapload.store.embedded;

import dev.heapload.store.InputRows;
import dev.heapload.store.GraphInput;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.bolt.RemoteGraphStore;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.neo4j.batchimport.api.InputIterator;
import org.neo4j.batchimport.api.input.Collector;
import org.neo4j.batchimport.api.input.InputChunk;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;

/**
 * Writes the nodes and relationships of a small {@link GraphInput} (comparisons, other snapshots' summaries) into
 * an existing per-snapshot graph in one embedded transaction: the graph's own snapshot is the input's first part,
 * {@linkplain GraphInput.Part#stored() stored}, laid out as in its import (object {@code i} is node {@code i}), so
 * relationships to its objects ({@code EXAMPLE}, {@code GREW}) go to those nodes; stored Snapshot nodes are found by
 * id. Meant for hundreds to thousands of entities (a comparison: at most 1,000 GREW plus its groups), not snapshots.
 */
final class EmbeddedGraphWriter {

    private EmbeddedGraphWriter() {
    }

    /**
     * @param input         the entities; stored parts emit nothing
     * @param tx            an open write transaction on the graph of snapshot {@code ownId}
     * @param ownObjects    the object count of the graph's own snapshot (node ids below it are its objects)
     * @param ownId         that snapshot's id (checked on the first object node used)
     * @param snapshotNodes input ids of stored Snapshot nodes and the snapshot ids to find them by
     * @throws IOException when an input id maps to no node, or the graph's layout is not the expected one
     */
    static void write(GraphInput input, Transaction tx, long ownObjects, String ownId, Map<Long, String> snapshotNodes)
        throws IOException {
        Map<Long, Node> created = new HashMap<>();
        boolean[] checked = {false};
        InputRows.Sink nodes = r -> {
            Node n = tx.createNode(labels(r.labels));
            r.properties.forEach((k, v) -> n.setProperty(k, value(v)));
            created.put(r.id, n);
        };
        drain(input.nodes(Collector.EMPTY).iterator(), new InputRows(nodes));
        InputRows.Sink rels = r -> {
            Node from = node(tx, r.start, created, ownObjects, ownId, snapshotNodes, checked);
            Node to = node(tx, r.end, created, ownObjects, ownId, snapshotNodes, checked);
            Relationship rel = from.createRelationshipTo(to, RelationshipType.withName(r.type));
            r.properties.forEach((k, v) -> rel.setProperty(k, value(v)));
        };
        drain(input.relationships(Collector.EMPTY).iterator(), new InputRows(rels));
    }

    private static Node node(Transaction tx, long id, Map<Long, Node> created, long ownObjects, String ownId,
                             Map<Long, String> snapshotNodes, boolean[] checked) throws IOException {
        Node n = created.get(id);
        if (n != null) {
            return n;
        }
        String snapshot = snapshotNodes.get(id);
        if (snapshot != null) {
            n = tx.findNode(Label.label(GraphSchema.SNAPSHOT), "id", snapshot);
            if (n == null) {
                throw new IOException("the graph of '" + ownId + "' has no Snapshot node '" + snapshot + "'");
            }
            return n;
        }
        if (id >= 0 && id < ownObjects) {
            @SuppressWarnings("deprecation")
            Node o = tx.getNodeById(id);
            if (!checked[0]) {
                if (!ownId.equals(o.getProperty("snapshot", null))) {
                    throw new IOException("the graph of '" + ownId + "' is not laid out as built (node " + id
                        + " is not one of its objects)");
                }
                checked[0] = true;
            }
            return o;
        }
        throw new IOException("no node for input id " + id + " in the graph of '" + ownId + "'");
    }

    private static Label[] labels(String[] names) {
        Label[] labels = new Label[names.length];
        for (int i = 0; i < names.length; i++) {
            labels[i] = Label.label(names[i]);
        }
        return labels;
    }

    /** Rows turns arrays into lists (for the driver); the embedded API takes arrays. */
    private static Object value(Object v) {
        if (v instanceof List<?> list) {
            return list.stream().map(String::valueOf).toArray(String[]::new);
        }
        return v;
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
}
