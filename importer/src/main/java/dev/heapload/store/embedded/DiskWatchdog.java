package dev.heapload.store.embedded;

import dev.heapload.store.DiskSpace;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.offline.OfflineImporter;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Watches the free space of a store's file system while a rebuild, or a start or stop of the DBMS, runs (a daemon
 * thread, one look every {@link #PERIOD_MS} ms). Normally the rebuild itself fails within a second or two once the
 * disk is full (Neo4j's page cache throws {@code OutOfDiskSpaceException}, the JDK "No space left on device") and {@link #sawFull} only
 * tells it that this was the cause. It is the backstop for a rebuild that instead keeps retrying (Neo4j's page
 * cache retries failed flushes): when the disk is full and a thread has been in that retry loop for
 * {@link #RETRY_LOOKS} looks, or the disk has stayed full for {@link #GRACE_MS} ms and the rebuild still runs,
 * it removes the attempt's files ({@code abort}), prints the one-line error to {@code System.err} and, when
 * {@link GraphStore#setHaltOnDiskFullHang} enabled it (the command-line tool does), ends the JVM with exit code 1
 * (shutdown hooks cannot run a stuck importer to an end); otherwise it interrupts the rebuilding thread.
 */
public final class DiskWatchdog {

    /** See {@link #setHaltOnDiskFullHang}. */
    private static volatile boolean haltOnDiskFullHang;

    /** See {@link GraphStore#setHaltOnDiskFullHang}: here so that turning it on loads no Neo4j class. */
    public static void setHaltOnDiskFullHang(boolean on) {
        haltOnDiskFullHang = on;
    }


    /** Free bytes below which the disk counts as full: less than one page-cache page and a file-system block. */
    public static final long FULL_BELOW = 256L << 10;
    public static final long PERIOD_MS = 200;
    public static final long GRACE_MS = 10_000;

    /**
     * Looks in a row (of {@link #PERIOD_MS}) in which a thread was seen in Neo4j's page-cache close loop
     * ({@code MuninnPageCache.flushAndCloseWithoutFail} retries a failed flush until it succeeds, which on a full
     * disk is never) before the watchdog ends the rebuild, instead of waiting {@link #GRACE_MS}.
     */
    public static final int RETRY_LOOKS = 5;

    private final Thread thread;
    private volatile boolean sawFull;
    private volatile boolean stopped;
    private volatile int looks;

    public DiskWatchdog(Path dir, Thread rebuilding, Runnable abort, PrintStream log, Supplier<String> message) {
        PrintStream terminal = System.err;
        thread = new Thread(() -> {
            long fullSince = -1;
            int retryLooks = 0;
            while (!stopped) {
                long free = DiskSpace.usable(dir);
                if (free >= 0 && free < FULL_BELOW) {
                    sawFull = true;
                    boolean retrying = inFlushRetryLoop();
                    if (!retrying) {
                        retryLooks = 0;
                    } else {
                        retryLooks++;
                    }
                    if (fullSince < 0) {
                        fullSince = System.nanoTime();
                    } else if (retryLooks >= RETRY_LOOKS
                        || System.nanoTime() - fullSince > TimeUnit.MILLISECONDS.toNanos(GRACE_MS)) {
                        String line = message.get();
                        log.println("heapload: still running on a full disk (Neo4j retrying a flush), ending it: "
                            + line);
                        abort.run();
                        if (stopped) {
                            return;
                        }
                        if (haltOnDiskFullHang) {
                            terminal.println("heapload: " + line);
                            terminal.flush();
                            log.flush();
                            Runtime.getRuntime().halt(1);
                        }
                        rebuilding.interrupt();
                        return;
                    }
                } else {
                    fullSince = -1;
                }
                looks++;
                try {
                    Thread.sleep(PERIOD_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "heapload-disk-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    /** True when some thread is in Neo4j's page-cache close retry loop (see {@link #RETRY_LOOKS}). */
    public static boolean inFlushRetryLoop() {
        for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
            for (StackTraceElement frame : stack) {
                if (frame.getMethodName().equals("flushAndCloseWithoutFail")
                    && frame.getClassName().endsWith("MuninnPageCache")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** True once the free space was seen below {@link #FULL_BELOW} during the rebuild. */
    public boolean sawFull() {
        return sawFull;
    }

    /** How many looks at the disk ended without ending the rebuild so far (one per {@link #PERIOD_MS} ms). */
    public int looks() {
        return looks;
    }

    /** Ends the watchdog (the rebuild ended); waits for its thread. */
    public void stop() {
        stopped = true;
        thread.interrupt();
        OfflineImporter.joinUninterruptibly(thread);
    }
}
