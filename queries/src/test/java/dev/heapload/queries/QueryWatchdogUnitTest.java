package dev.heapload.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.Transaction;

/**
 * {@link QueryWatchdog} on a transaction that ignores {@link Transaction#terminate()}, the case of a query Neo4j
 * cannot stop: terminated at the timeout, the halt line after the grace; nothing when the query ends in time.
 */
class QueryWatchdogUnitTest {

    /** A transaction whose every method returns null, and which counts the {@code terminate()} calls. */
    private static Transaction counting(AtomicInteger terminations) {
        return (Transaction) Proxy.newProxyInstance(Transaction.class.getClassLoader(),
            new Class<?>[] {Transaction.class}, (proxy, method, args) -> {
                if (method.getName().equals("terminate")) {
                    terminations.incrementAndGet();
                }
                return null;
            });
    }

    @Test
    void aQueryThatDoesNotStopIsTerminatedThenHaltedWithOneLine() throws Exception {
        AtomicInteger terminations = new AtomicInteger();
        LinkedBlockingQueue<String> halts = new LinkedBlockingQueue<>();
        try (QueryWatchdog w = QueryWatchdog.watch(counting(terminations), "spin", Duration.ofMillis(200),
            Duration.ofMillis(300), halts::add)) {
            String line = halts.poll(10, TimeUnit.MINUTES); // a hang guard, not a timing assertion
            assertEquals("query 'spin' did not stop within 0 s after its timeout of 0 s (CPU- or GC-bound); exiting",
                line);
            assertEquals(1, terminations.get());
            assertTrue(w.terminated());
        }
    }

    @Test
    void aQueryThatEndsInTimeIsNeitherTerminatedNorHalted() throws Exception {
        AtomicInteger terminations = new AtomicInteger();
        List<String> halts = new CopyOnWriteArrayList<>();
        // ten minutes: the query surely ends in time, however slow the machine; the watchdog's end is awaited
        QueryWatchdog w = QueryWatchdog.watch(counting(terminations), "quick", Duration.ofMinutes(10),
            Duration.ofMillis(100), halts::add);
        w.close();
        w.awaitEnd();
        assertFalse(w.terminated());
        assertEquals(0, terminations.get());
        assertEquals(List.of(), halts);
    }
}
