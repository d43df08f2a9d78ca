package dev.heapload.io;

import java.io.IOException;
import java.util.Locale;

/**
 * The Java heap a command's dumps need against what the machine gives, as the launcher sized it: heapload's
 * launchers ({@code bin/heapload}, {@code ./heapload}, both through {@code lib/heap.sh}) estimate from the files'
 * decoded sizes how many heap bytes are alive at the peak of reading, analysing and storing them
 * ({@value #NEED_PROPERTY}, bytes) and the most heap the machine allows ({@value #LIMIT_PROPERTY}, bytes: 3/4 of its
 * memory or its cgroup's limit, less what a load keeps off the heap), and set {@code -Xmx} between the two. A command
 * whose need is more than the limit is refused before anything is read ({@link #requireEnough}), instead of
 * running out of memory minutes later. Without the properties (the user set {@code HEAPLOAD_XMX}, or the JVM was
 * started by other means) nothing is checked.
 */
public final class HeapBudget {

    /** System property: the estimated heap bytes alive at the peak, set by the launcher. */
    public static final String NEED_PROPERTY = "heapload.heap.need";
    /** System property: the most heap bytes the machine allows, set by the launcher; 0 when unknown. */
    public static final String LIMIT_PROPERTY = "heapload.heap.limit";

    private HeapBudget() {
    }

    /** Thrown by {@link #requireEnough} when the machine's memory is too small for the input. */
    public static final class NotEnoughMemoryException extends IOException {
        private static final long serialVersionUID = 1L;

        NotEnoughMemoryException(String message) {
            super(message);
        }
    }

    /**
     * Refuses, before any file is read, input whose estimated need is more than the machine's limit.
     *
     * @throws NotEnoughMemoryException with one line naming the need, the limit and {@code HEAPLOAD_XMX}
     */
    public static void requireEnough() throws NotEnoughMemoryException {
        String message = refusal(Long.getLong(NEED_PROPERTY, -1), Long.getLong(LIMIT_PROPERTY, 0));
        if (message != null) {
            throw new NotEnoughMemoryException(message);
        }
    }

    /**
     * The refusal line for a need and a limit in bytes, or null when they fit (or either is unknown: negative need,
     * limit 0).
     */
    static String refusal(long need, long limit) {
        if (need < 0 || limit <= 0 || need <= limit) {
            return null;
        }
        return String.format(Locale.ROOT, "not enough memory for these dumps: they need about %.1f GiB of Java heap"
                + " (estimated from their size), more than the %.1f GiB this machine gives heapload (3/4 of its memory"
                + " or cgroup limit, less 1 GiB kept off the heap); nothing was read and the store is as it was;"
                + " HEAPLOAD_XMX=%dg heapload … tries anyway", need / (double) (1L << 30), limit / (double) (1L << 30),
            (need + (need >> 1) + (1L << 30) - 1) >> 30);
    }

    /** Whether the launcher sized the heap from the input (no {@code HEAPLOAD_XMX}). */
    public static boolean sizedFromInput() {
        return System.getProperty(NEED_PROPERTY) != null;
    }
}
