package dev.heapload.store;

import java.io.IOException;

/**
 * {@link GraphStore#load} was asked to load a snapshot whose id the store already holds, without
 * {@code replace}. The store is unchanged. {@link #getMessage()} is one line, e.g.
 * {@code snapshot 'before' already exists in ./heapload-db (use replace to overwrite it)}.
 */
public final class SnapshotExistsException extends IOException {

    private final String id;

    /**
     * @param id    the snapshot id that exists
     * @param store the store directory, for the message
     */
    public SnapshotExistsException(String id, String store) {
        super("snapshot '" + id + "' already exists in " + store + " (use replace to overwrite it)");
        this.id = id;
    }

    /** The snapshot id that exists. */
    public String id() {
        return id;
    }
}
