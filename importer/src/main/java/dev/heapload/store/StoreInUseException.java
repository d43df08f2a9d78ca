package dev.heapload.store;

import java.io.IOException;
import java.util.Optional;

/**
 * {@link StoreDirectory#open} found the store locked by another process: a load, a query, or {@code heapload serve}
 * (the message names which, with its pid, from the lock file). When it is
 * {@code heapload serve} (its {@link StoreDirectory#SERVING} file names a live process), {@link #servedBoltUri()} is the
 * Bolt URI it serves the store on (loopback; with the password of serve.password unless it runs with --no-auth),
 * so read-only commands can run there instead.
 */
public final class StoreInUseException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient String servedBoltUri;
    private final long servingPid;
    private final boolean heldByQuery;
    private final transient String servedPassword;

    StoreInUseException(String message, String servedBoltUri, long servingPid) {
        this(message, servedBoltUri, servingPid, false);
    }

    StoreInUseException(String message, String servedBoltUri, long servingPid, boolean heldByQuery) {
        this(message, servedBoltUri, servingPid, heldByQuery, null);
    }

    StoreInUseException(String message, String servedBoltUri, long servingPid, boolean heldByQuery,
                        String servedPassword) {
        super(message);
        this.servedPassword = servedPassword;
        this.servedBoltUri = servedBoltUri;
        this.servingPid = servingPid;
        this.heldByQuery = heldByQuery;
    }

    /**
     * True when the holder is a live process running a query (its lock file says {@code command=a query}): it only
     * reads and ends within its timeout, so another reader may wait for it ({@link StoreDirectory#openWaiting}).
     */
    public boolean heldByQuery() {
        return heldByQuery;
    }

    /** {@code bolt://localhost:PORT} when {@code heapload serve} holds the store, else empty. */
    public Optional<String> servedBoltUri() {
        return Optional.ofNullable(servedBoltUri);
    }

    /** Process id of the serving {@code heapload serve}, or -1. */
    public long servingPid() {
        return servingPid;
    }

    /**
     * The password of user {@code neo4j} on the serving {@code heapload serve}, read from its
     * {@link StoreDirectory#SERVE_PASSWORD} file (readable by the serving user only); empty when it serves without
     * authentication ({@code --no-auth}) or the file cannot be read.
     */
    public Optional<String> servedPassword() {
        return Optional.ofNullable(servedPassword);
    }
}
