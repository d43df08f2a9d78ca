package dev.heapload.store;

import java.io.IOException;

/**
 * A query, comparison or model read asked for a snapshot whose graph and model {@code heapload prune} (or
 * {@code --keep}) dropped: only its summary is kept (trend, the report's History). The message is one line.
 */
public final class SnapshotPrunedException extends IOException {

    private final String id;

    /**
     * @param id    the pruned snapshot's id
     * @param store the store directory, for the message
     */
    public SnapshotPrunedException(String id, String store) {
        super("snapshot '" + id + "' in " + store + " was pruned: its graph and model are gone, only its figures are"
            + " kept (heapload trend)");
        this.id = id;
    }

    /** The pruned snapshot's id. */
    public String id() {
        return id;
    }
}
