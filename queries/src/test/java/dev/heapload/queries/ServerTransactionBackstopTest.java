package dev.heapload.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * {@link ServerTransactionBackstop} with injected transaction lists: a served transaction running past the
 * server's timeout plus the grace halts with one line; one within it does not.
 */
class ServerTransactionBackstopTest {

    @Test
    void aTransactionPastTimeoutAndGraceHaltsWithOneLine() throws Exception {
        Duration timeout = Duration.ofSeconds(120);
        assertNull(ServerTransactionBackstop.overdue(List.of(new ServerTransactionBackstop.Running(
            "neo4j-transaction-7", Duration.ofSeconds(130))), timeout, QueryWatchdog.GRACE));
        AtomicReference<List<ServerTransactionBackstop.Running>> now = new AtomicReference<>(List.of(
            new ServerTransactionBackstop.Running("neo4j-transaction-7", Duration.ofSeconds(125))));
        LinkedBlockingQueue<String> halts = new LinkedBlockingQueue<>();
        try (ServerTransactionBackstop b = ServerTransactionBackstop.start(now::get, timeout, QueryWatchdog.GRACE,
            Duration.ofMillis(20), halts::add)) {
            assertNull(halts.poll(300, TimeUnit.MILLISECONDS));
            // the clock moves on: the same transaction has now run 131 s
            now.set(List.of(new ServerTransactionBackstop.Running("neo4j-transaction-3", Duration.ofSeconds(1)),
                new ServerTransactionBackstop.Running("neo4j-transaction-7", Duration.ofSeconds(131))));
            assertEquals("a query over Bolt or HTTP (neo4j-transaction-7) did not stop within 10 s after the "
                + "server's transaction timeout of 120 s (CPU- or GC-bound); stopping the server",
                halts.poll(60, TimeUnit.SECONDS)); // a hang guard, not a timing assertion
            assertNull(halts.poll(200, TimeUnit.MILLISECONDS)); // once
        }
    }
}
