package dev.heapload.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.heapload.luau.LuauDumpReader;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Chooses the reader for a dump file and names snapshots. The one place that lists the formats.
 */
public final class DumpReaders {

    private DumpReaders() {
    }

    /**
     * Reads a dump into a heap model.
     *
     * @param file       the dump ({@code .json} or gzip-compressed)
     * @param snapshotId id for the snapshot, or {@code null} for {@link #defaultSnapshotId(Path)}
     * @param progress   receives the {@code read} phase in bytes of the file
     * @return the snapshot
     * @throws DumpFormatException when the file is missing, unreadable, or not a dump heapload can read
     *                             (one-line message naming the file and byte offset)
     * @throws IOException         on an I/O failure while reading
     */
    public static HeapSnapshot read(Path file, String snapshotId, Progress progress) throws IOException {
        if (!Files.exists(file)) {
            throw new DumpFormatException(file.toString(), -1, "no such file");
        }
        if (Files.isDirectory(file)) {
            throw new DumpFormatException(file.toString(), -1, "is a directory, not a dump file");
        }
        if (!Files.isReadable(file)) {
            throw new DumpFormatException(file.toString(), -1, "not readable (permission denied)");
        }
        String id = snapshotId != null ? snapshotId : defaultSnapshotId(file);
        return new LuauDumpReader().read(file, id, progress);
    }

    /** The file name without directory and without {@code .gz} and {@code .json} extensions. */
    public static String defaultSnapshotId(Path file) {
        String name = file.getFileName().toString();
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".gz")) {
            name = name.substring(0, name.length() - 3);
            lower = lower.substring(0, lower.length() - 3);
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            name = name.substring(0, dot);
        }
        return name;
    }
}
