package dev.heapload.store;

import java.io.IOException;
import java.util.Optional;

/**
 * {@link GraphStore#open} found the store locked by another process: a load, or {@code heapload serve}. When it is
 * {@code heapload serve} (its {@link GraphStore#SERVING} file names a live process), {@link #servedBoltUri()} is the
 * Bolt URI it serves the store on (loopback, no authentication), so read-only commands can run there instead.
 */
public final class StoreInUseException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient String servedBoltUri;
    private final long servingPid;
    private final transient java.nio.file.Path storeDirectory;

    StoreInUseException(String message, java.nio.file.Path storeDirectory, String servedBoltUri, long servingPid) {
        super(message);
        this.storeDirectory = storeDirectory;
        this.servedBoltUri = servedBoltUri;
        this.servingPid = servingPid;
    }

    /** The store's directory (absolute). */
    public java.nio.file.Path storeDirectory() {
        return storeDirectory;
    }

    /** {@code bolt://localhost:PORT} when {@code heapload serve} holds the store, else empty. */
    public Optional<String> servedBoltUri() {
        return Optional.ofNullable(servedBoltUri);
    }

    /** Process id of the serving {@code heapload serve}, or -1. */
    public long servingPid() {
        return servingPid;
    }
}
