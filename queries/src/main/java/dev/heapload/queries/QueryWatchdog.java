package dev.heapload.queries;

import java.time.Duration;
import java.util.function.Consumer;

import org.neo4j.graphdb.Transaction;

/**
 * Bounds one embedded query's run time even when Neo4j's own transaction timeout cannot: Neo4j checks the timeout
 * between rows, so a CPU- or GC-bound expression (a list comprehension over 200 million elements, a {@code collect}
 * of them) ran for minutes past {@code --timeout}. At the timeout this watchdog terminates the transaction
 * ({@link Transaction#terminate()}); when the query has still not ended {@link #GRACE} later it calls its halt
 * action with one line: {@link #EXIT} prints it on stderr and halts the JVM with exit code 1 (no shutdown hooks: a
 * GC-bound JVM may not finish them; the store is only read, so a halted query leaves it as it was).
 *
 * <p>One daemon thread per watched query, started by {@link #watch} and stopped by {@link #close()}.
 */
public final class QueryWatchdog implements AutoCloseable {

    /** How long a query may go on after its transaction was terminated before the JVM is halted. */
    public static final Duration GRACE = Duration.ofSeconds(10);

    /** Prints {@code heapload: LINE} on stderr and halts the JVM with exit code 1. */
    public static final Consumer<String> EXIT = line -> {
        System.err.println("heapload: " + line);
        System.err.flush();
        Runtime.getRuntime().halt(1);
    };

    private final Object lock = new Object();
    private final Thread thread;
    private boolean done;
    private volatile boolean terminated;

    private QueryWatchdog(Transaction tx, String name, Duration timeout, Duration grace, Consumer<String> halt) {
        thread = new Thread(() -> {
            if (!sleep(timeout.toNanos())) {
                return;
            }
            terminated = true;
            try {
                tx.terminate();
            } catch (RuntimeException e) {
                // the transaction is ending anyway
            }
            if (!sleep(grace.toNanos())) {
                return;
            }
            halt.accept("query '" + name + "' did not stop within " + grace.toSeconds() + " s after its timeout of "
                + timeout.toSeconds() + " s (CPU- or GC-bound); exiting");
        }, "heapload-query-watchdog");
        thread.setDaemon(true);
    }

    /**
     * Starts watching {@code tx}, which runs saved query {@code name}.
     *
     * @param timeout when to terminate the transaction
     * @param grace   how long after that to wait before calling {@code halt} ({@link #GRACE} for users)
     * @param halt    receives the one line (no prefix) when the query outlived {@code timeout + grace}
     */
    public static QueryWatchdog watch(Transaction tx, String name, Duration timeout, Duration grace,
                                      Consumer<String> halt) {
        QueryWatchdog w = new QueryWatchdog(tx, name, timeout, grace, halt);
        w.thread.start();
        return w;
    }

    /** True once the watchdog terminated the transaction (the query ran past its timeout). */
    public boolean terminated() {
        return terminated;
    }

    /** Sleeps {@code nanos}; false when {@link #close()} came first. */
    private boolean sleep(long nanos) {
        long end = System.nanoTime() + nanos;
        synchronized (lock) {
            while (!done) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                try {
                    lock.wait(left / 1_000_000L + 1);
                } catch (InterruptedException e) {
                    return false;
                }
            }
            return false;
        }
    }

    /** Waits until the watchdog's thread has ended: at once after {@link #close()}, else after timeout and grace. */
    public void awaitEnd() throws InterruptedException {
        thread.join();
    }

    /** The query ended: stops watching. */
    @Override
    public void close() {
        synchronized (lock) {
            done = true;
            lock.notifyAll();
        }
    }
}
