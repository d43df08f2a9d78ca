package dev.heapload.store.bolt;


/** Test access to {@link RemoteGraphStore}'s package-private hooks from the queries module's tests. */
public final class RemoteHooks {

    private RemoteHooks() {
    }

    /** Makes {@code store}'s loads write {@code rows} rows per transaction and run {@code action} after batch {@code n}. */
    public static void afterBatch(RemoteGraphStore store, int rows, int n, Runnable action) {
        store.batchSize = rows;
        // one writer: batches commit in order, so "after batch n" is an exact cut
        store.writers = 1;
        store.batchHook = done -> {
            if (done == n) {
                action.run();
            }
        };
    }

    /**
     * Makes {@code store}'s comparisons on first request fail inside their write transaction, after writing every row
     * (null: succeed again).
     */
    public static void failComparisonWrites(RemoteGraphStore store, String message) {
        store.comparisons.writeHook = message == null ? () -> {
        } : () -> {
            throw new java.io.IOException(message);
        };
    }
}
