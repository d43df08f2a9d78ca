package dev.heapload.store.bolt;


/** Test access to {@link RemoteGraphStore}'s package-private hooks from the queries module's tests. */
public final class RemoteHooks {

    private RemoteHooks() {
    }

    /** Makes {@code store}'s loads write {@code rows} rows per transaction and run {@code action} after batch {@code n}. */
    public static void afterBatch(RemoteGraphStore store, int rows, int n, Runnable action) {
        store.batchSize = rows;
        store.batchHook = done -> {
            if (done == n) {
                action.run();
            }
        };
    }
}
