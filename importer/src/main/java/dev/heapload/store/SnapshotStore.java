package dev.heapload.store;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

import dev.heapload.model.HeapSnapshot;

/**
 * A store of heap snapshots as the commands see it, whichever route holds it: the embedded store's files
 * ({@link StoreDirectory}, no Neo4j started) or a Neo4j server over Bolt
 * ({@link dev.heapload.store.bolt.RemoteGraphStore}). What both routes answer the same way: the snapshots in load
 * order, a snapshot's model, the leak history of the loads' comparisons, and deleting a snapshot. (Loading, comparing
 * on first request and running queries are still per route.)
 */
public interface SnapshotStore extends AutoCloseable {

    /** Where the store is, for messages: the store directory, or the server's URI (and database). */
    String place();

    /** The snapshots in load order. */
    List<SnapshotSummary> snapshots() throws IOException;

    /** The snapshot {@code id}, if the store holds it. */
    Optional<SnapshotSummary> snapshot(String id) throws IOException;

    /** True when snapshot {@code id} was pruned (graph and model dropped, figures kept); a server prunes nothing. */
    boolean isPruned(String id);

    /**
     * The model and analysis of snapshot {@code id}.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     */
    HeapSnapshot model(String id) throws IOException;

    /** Every snapshot in load order with the comparisons its load made: the leak history. */
    List<SnapshotHistory> history() throws IOException;

    /**
     * Removes snapshot {@code id}, all or nothing.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id} (nothing changed)
     */
    void delete(String id) throws IOException;

    @Override
    void close() throws IOException;
}
