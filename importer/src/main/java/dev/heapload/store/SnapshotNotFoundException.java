package dev.heapload.store;

import java.io.IOException;

/**
 * {@link GraphStore#delete} was asked for a snapshot id the store does not hold. The store is
 * unchanged. {@link #getMessage()} is one line, e.g. {@code no snapshot 'after' in ./heapload-db}.
 */
public final class SnapshotNotFoundException extends IOException {

    private final String id;

    /**
     * @param id    the snapshot id asked for
     * @param store the store directory, for the message
     */
    public SnapshotNotFoundException(String id, String store) {
        super("no snapshot '" + id + "' in " + store);
        this.id = id;
    }

    /** The snapshot id asked for. */
    public String id() {
        return id;
    }
}
