package dev.heapload.queries;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

/**
 * The halt backstop of a served store (the Bolt side): Neo4j ends a Bolt or HTTP transaction at the
 * server's {@code db.transaction.timeout} by terminating it, which a CPU- or GC-bound expression may not notice for
 * minutes. Every second this lists the running transactions ({@code SHOW TRANSACTIONS}); when one has run longer
 * than the timeout plus {@link QueryWatchdog#GRACE}, it calls its halt action with one line ({@link QueryWatchdog#EXIT}:
 * stderr, exit 1; the clients' connections then end with an error, the store is only read). The same bound as
 * {@link QueryWatchdog} gives an embedded query.
 *
 * <p>One daemon thread, started by {@link #start} and stopped by {@link #close()}.
 */
public final class ServerTransactionBackstop implements AutoCloseable {

    /** A transaction the server runs: its id and how long it has run. */
    public record Running(String id, Duration elapsed) {
    }

    private final Thread thread;
    private volatile boolean closed;

    private ServerTransactionBackstop(Supplier<List<Running>> running, Duration timeout, Duration grace,
                                      Duration every, Consumer<String> halt) {
        thread = new Thread(() -> {
            while (!closed) {
                try {
                    Thread.sleep(every.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                if (closed) {
                    return;
                }
                List<Running> now;
                try {
                    now = running.get();
                } catch (RuntimeException e) {
                    continue; // the server is stopping, or was busy: next round
                }
                String line = overdue(now, timeout, grace);
                if (line != null && !closed) {
                    halt.accept(line);
                    return;
                }
            }
        }, "heapload-serve-backstop");
        thread.setDaemon(true);
    }

    /**
     * Watches the transactions of the served database {@code db}.
     *
     * @param timeout the server's transaction timeout
     * @param halt    receives the one line (no prefix) when a transaction outlived {@code timeout + GRACE}
     */
    public static ServerTransactionBackstop start(GraphDatabaseService db, Duration timeout, Consumer<String> halt) {
        return start(() -> running(db), timeout, QueryWatchdog.GRACE, Duration.ofSeconds(1), halt);
    }

    /** {@link #start(GraphDatabaseService, Duration, Consumer)} with the transactions, grace and period given (tests). */
    static ServerTransactionBackstop start(Supplier<List<Running>> running, Duration timeout, Duration grace,
                                           Duration every, Consumer<String> halt) {
        ServerTransactionBackstop b = new ServerTransactionBackstop(running, timeout, grace, every, halt);
        b.thread.start();
        return b;
    }

    /**
     * The one line for the first transaction in {@code running} that has run longer than {@code timeout + grace},
     * or null when none has.
     */
    static String overdue(List<Running> running, Duration timeout, Duration grace) {
        Duration limit = timeout.plus(grace);
        for (Running r : running) {
            if (r.elapsed().compareTo(limit) > 0) {
                return "a query over Bolt or HTTP (" + SafeText.visible(r.id()) + ") did not stop within "
                    + grace.toSeconds() + " s after the server's transaction timeout of " + timeout.toSeconds()
                    + " s (CPU- or GC-bound); stopping the server";
            }
        }
        return null;
    }

    /** The running transactions of {@code db} but the one asking ({@code SHOW TRANSACTIONS}). */
    public static List<Running> running(GraphDatabaseService db) {
        List<Running> out = new ArrayList<>();
        try (Transaction tx = db.beginTx();
             Result r = tx.execute("SHOW TRANSACTIONS YIELD transactionId, elapsedTime, currentQuery "
                 + "WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS' RETURN transactionId, elapsedTime")) {
            while (r.hasNext()) {
                var row = r.next();
                Object elapsed = row.get("elapsedTime");
                Duration d = elapsed instanceof java.time.temporal.TemporalAmount t ? Duration.ofSeconds(
                    t.get(java.time.temporal.ChronoUnit.SECONDS)) : Duration.ZERO;
                out.add(new Running(String.valueOf(row.get("transactionId")), d));
            }
        }
        return out;
    }

    /** Stops watching. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
