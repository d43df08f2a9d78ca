package dev.heapload.model;

/**
 * Sums of byte sizes that cannot overflow: a dump may declare any size (a 2^62-byte string twice sums past
 * {@link Long#MAX_VALUE}), so every total of the model and the analyses (snapshot, type and category totals, retained
 * sizes, leak groups) adds with {@link #add}, which saturates at {@link Long#MAX_VALUE} (and {@link Long#MIN_VALUE})
 * instead of wrapping to a negative number. {@link HeapSnapshotBuilder#build} adds a warning to the snapshot when its
 * sizes sum past the limit, so a capped total is never silent.
 */
public final class ByteSums {

    /** The warning a snapshot gets when its object sizes sum past {@link Long#MAX_VALUE} bytes. */
    public static final String SATURATED_WARNING = "object sizes sum to more than 9,223,372,036,854,775,807 bytes "
        + "(2^63-1): byte totals are capped there";

    private ByteSums() {
    }

    /** {@code a + b}, saturated at {@link Long#MAX_VALUE} and {@link Long#MIN_VALUE}. */
    public static long add(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }
}
