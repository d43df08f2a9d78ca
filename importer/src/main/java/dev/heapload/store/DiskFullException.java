package dev.heapload.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A load, replace, delete or the first start of the embedded DBMS found too little free disk space in the store's
 * folder, before it started (the estimate of {@link DiskSpace}) or when the disk filled meanwhile (an
 * {@code ENOSPC}, "No space left on device", from Neo4j's importer, its page cache or a snapshot file). The message
 * is one line: the folder, the free bytes, the bytes needed (estimated). The store is as it was before the command.
 */
public final class DiskFullException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path directory;
    private final long freeBytes;
    private final long neededBytes;

    public DiskFullException(String message, Path directory, long freeBytes, long neededBytes, Throwable cause) {
        super(message, cause);
        this.directory = directory;
        this.freeBytes = freeBytes;
        this.neededBytes = neededBytes;
    }

    /** The folder whose file system is full (the store directory). */
    public Path directory() {
        return directory;
    }

    /** Bytes usable by this process in {@link #directory()} when the fault was seen. */
    public long freeBytes() {
        return freeBytes;
    }

    /** Estimated bytes the command needed there ({@link DiskSpace#needed}); -1 when not estimated. */
    public long neededBytes() {
        return neededBytes;
    }
}
