package dev.heapload.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.heapload.luau.LuauDumpReader;
import dev.heapload.micropython.MicroPythonFiles;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Chooses the reader for a dump file and names snapshots. The one place that lists the formats: a MicroPython
 * {@code regions.json} (symbols found beside it, see {@code MicroPythonFiles}), else a Luau JSON dump.
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
        if (MicroPythonFiles.isRegionsJson(file)) {
            progress.start("read " + file.getFileName(), -1, "B");
            HeapSnapshot snapshot = MicroPythonFiles.read(file, id).snapshot();
            progress.end();
            return snapshot;
        }
        if (MicroPythonFiles.isPrintedHeapMap(file)) {
            throw new DumpFormatException(file.toString(), -1, "is a printed MicroPython heap map (no object graph "
                + "to load); see its figures with: heapload micropython --printed-map " + file);
        }
        return new LuauDumpReader().read(file, id, progress);
    }

    /**
     * The file name without directory and without {@code .gz} and {@code .json} extensions; for a MicroPython
     * {@code regions.json}, the name of its directory ({@code dump1}).
     */
    public static String defaultSnapshotId(Path file) {
        String name = file.getFileName().toString();
        Path parent = file.toAbsolutePath().getParent();
        if (name.equals("regions.json") && parent != null && parent.getFileName() != null) {
            return parent.getFileName().toString();
        }
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
