package dev.heapload.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;

/**
 * Disk space of a store: the estimate a rebuild checks before it starts, the one-line {@link DiskFullException}
 * when the disk is (or becomes) too full, and the recognition of Neo4j's and the JDK's "disk full" failures.
 *
 * <p>Estimate, in bytes: {@link #FIXED} per graph, plus per object {@link #GRAPH_PER_OBJECT} and per reference
 * {@link #GRAPH_PER_REFERENCE} for every snapshot of the new graph (the old graph stays until the new one is
 * committed), plus per new snapshot's file {@link #FILE_PER_OBJECT} and {@link #FILE_PER_REFERENCE}. Source of the
 * factors: {@code du -sb} of stores heapload built on the project machine (Neo4j 5.26 record format, graph schema
 * of this version):
 * <pre>
 *   dump                                   objects  references   graph (data/)   .hsnap      estimate graph / file
 *   testdata event-listeners/after             871       2,016       2.5 MB      0.07 MB      4.6 MB / 0.07 MB
 *   shared entity-system-medium/after       72,622     264,974      39.4 MB      6.5 MB      45.9 MB / 6.5 MB
 *   shared entity-system-large/before    1,200,622   4,400,974     697.6 MB    107.9 MB     694.5 MB / 107.2 MB
 * </pre>
 * (about 580 bytes of graph and 90 of file per object at these dumps' 3.7 references per object; the split between
 * objects and references is a guess, as both dumps have the same ratio.)
 * Neo4j also preallocates its store files in steps of up to 128 MiB while it imports, so a load can still run out
 * of disk after the check passed; that is caught as {@link #isDiskFull}.
 */
public final class DiskSpace {

    /** A graph's size without any object: transaction log, checkpoint file, index and store file headers. */
    public static final long FIXED = 4L << 20;
    /** Graph bytes per object (node, its properties, its label and index entries), measured. */
    public static final long GRAPH_PER_OBJECT = 300;
    /** Graph bytes per reference (relationship and its properties), measured. */
    public static final long GRAPH_PER_REFERENCE = 75;
    /** Snapshot-file ({@code .hsnap}) bytes per object, measured. */
    public static final long FILE_PER_OBJECT = 60;
    /** Snapshot-file bytes per reference, measured. */
    public static final long FILE_PER_REFERENCE = 8;

    /**
     * Bytes the first start of the embedded DBMS on a graph writes, with margin: its system database (1.0 MB
     * measured), its transaction log (19 KB) and debug log (70 KB).
     */
    public static final long FIRST_START = 4L << 20;

    /** Bytes a later start and stop write (transaction log and checkpoint records, logs): a margin, not measured. */
    public static final long RESTART = 1L << 20;

    private DiskSpace() {
    }

    /** Estimated bytes a rebuild of {@code all} (graph) with new files for {@code added} needs in the store folder. */
    public static long needed(Collection<Catalog.Entry> all, Collection<Catalog.Entry> added) {
        long bytes = FIXED;
        for (Catalog.Entry e : all) {
            bytes = saturatedAdd(bytes, saturatedAdd(times(e.summary().objectCount(), GRAPH_PER_OBJECT),
                times(e.summary().referenceCount(), GRAPH_PER_REFERENCE)));
        }
        for (Catalog.Entry e : added) {
            bytes = saturatedAdd(bytes, saturatedAdd(times(e.summary().objectCount(), FILE_PER_OBJECT),
                times(e.summary().referenceCount(), FILE_PER_REFERENCE)));
        }
        return bytes;
    }

    /** Bytes usable by this process on the file system of {@code dir}, or -1 when it cannot be told. */
    public static long usable(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Refuses a rebuild that clearly cannot fit: throws when {@code dir}'s free space is below {@code needed}.
     *
     * @return the free bytes (-1 when the file system does not tell)
     *
     * @throws DiskFullException "not enough disk space in DIR for WHAT: F free, about N needed; nothing was changed"
     */
    public static long check(Path dir, long needed, String what) throws DiskFullException {
        long free = usable(dir);
        if (free >= 0 && free < needed) {
            throw new DiskFullException("not enough disk space in " + dir + " for " + what + ": " + bytes(free)
                + " free, about " + bytes(needed) + " needed; nothing was changed", dir, free, needed, null);
        }
        return free;
    }

    /**
     * The one-line error for a disk that filled during {@code what} (the store is as it was):
     * "disk full in DIR while WHAT: F free at the start, about N needed; nothing was changed".
     */
    public static DiskFullException full(Path dir, long freeAtStart, long needed, String what, Throwable cause) {
        return new DiskFullException("disk full in " + dir + " while " + what + ": "
            + (freeAtStart >= 0 ? bytes(freeAtStart) : "an unknown amount") + " free at the start, about "
            + bytes(needed) + " needed; nothing was changed", dir, freeAtStart, needed, cause);
    }

    /**
     * True when {@code e} or one of its causes is a "disk full" failure: an {@code IOException} "No space left on
     * device" (ENOSPC, the JDK's message on Linux and macOS; "There is not enough space on the disk" on Windows),
     * or Neo4j's {@code OutOfDiskSpaceException} (its page cache, when it cannot grow a store file).
     */
    public static boolean isDiskFull(Throwable e) {
        int depth = 0;
        for (Throwable t = e; t != null && depth < 100; t = t.getCause(), depth++) {
            if (t.getClass().getSimpleName().equals("OutOfDiskSpaceException")) {
                return true;
            }
            String m = t.getMessage();
            if (m != null) {
                String lower = m.toLowerCase(Locale.ROOT);
                if (lower.contains("no space left on device") || lower.contains("not enough space on the disk")
                    || lower.contains("errorcode=28")) {
                    return true;
                }
            }
            for (Throwable s : t.getSuppressed()) {
                if (s != t && isDiskFullShallow(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isDiskFullShallow(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getSimpleName().equals("OutOfDiskSpaceException")
            || (m != null && m.toLowerCase(Locale.ROOT).contains("no space left on device"));
    }

    /** {@code 1.2 GiB}, {@code 35.0 MiB}, {@code 512 bytes}. */
    public static String bytes(long n) {
        if (n < 1024) {
            return n + " bytes";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    private static long times(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return (hi == 0 && lo >= 0) ? lo : Long.MAX_VALUE;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
