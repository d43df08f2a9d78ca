package dev.heapload.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.heapload.store.GraphStore;
import dev.heapload.store.RemoteGraphStore;
import dev.heapload.store.StoreInUseException;

/**
 * Read-only commands ({@code query}, {@code trend}) on a store that {@code heapload serve} holds: instead of failing
 * on the store lock they run over the server's Bolt port (loopback; logged in with the password serve wrote into
 * the store directory, readable by its user only), with one line on stderr
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
        // the password file of a serve with authentication (mode 0600: only its user reads it); none with --no-auth
        Path secret = e.storeDirectory().resolve(GraphStore.SERVING_PASSWORD);
        String password = Files.isRegularFile(secret) ? Files.readString(secret, StandardCharsets.UTF_8).strip() : null;
        return RemoteGraphStore.connect(uri, GraphStore.SERVED_USER, password, null);
    }
}
