package dev.heapload.cli;

import java.io.IOException;

import dev.heapload.store.bolt.RemoteGraphStore;
import dev.heapload.store.embedded.StoreInUseException;

/**
 * Read-only commands ({@code query}, {@code trend}) on a store that {@code heapload serve} holds: instead of failing
 * on the store lock they run over the server's Bolt port (loopback; as user neo4j with the password from the
 * store's serve.password file when it serves with authentication), with one line on stderr
 * saying so. The served graph is the store's graph, so the rows are the same.
 */
final class ServedStore {

    private ServedStore() {
    }

    /**
     * Connects to the server that holds the store, or rethrows {@code e} when no {@code heapload serve} does.
     *
     * @param what the work, for the notice ("running the query")
     * @throws IOException {@code e} itself, or a one-line connection failure naming the URI
     */
    static RemoteGraphStore connect(StoreInUseException e, String what) throws IOException {
        String uri = e.servedBoltUri().orElseThrow(() -> e);
        System.err.println("heapload: the store is served by heapload serve (pid " + e.servingPid() + "): " + what
            + " over " + uri);
        return RemoteGraphStore.connect(uri, "neo4j", e.servedPassword().orElse(null), null);
    }
}
