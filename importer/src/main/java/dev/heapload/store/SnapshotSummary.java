package dev.heapload.store;

import java.time.Instant;

/**
 * One snapshot held by a {@link GraphStore}, as listed by {@link GraphStore#snapshots()} without
 * opening the database. The same values are properties of its {@code (:Snapshot)} node.
 *
 * @param id             snapshot id, unique in the store
 * @param vm             VM family, e.g. {@code luau}
 * @param source         the dump file it was read from, as given
 * @param sha256         hex SHA-256 of the dump file
 * @param loadedAt       when it was loaded (the {@code loadedAt} property, UTC)
 * @param objectCount    number of {@code (:Object)} nodes
 * @param referenceCount number of references ({@code REF} plus {@code WEAK_REF} relationships)
 * @param totalBytes     the VM's own total when it reported one, else {@code objectBytes}, in bytes
 * @param objectBytes    sum of shallow sizes of all objects, in bytes
 * @param analysed       true when analysis results (reachable, retainedSize, dominator, REF retention flags) are stored
 * @param producer       the program that wrote the dump ({@code SnapshotInfo.producer}), or {@code null}
 * @param vmVersion      the VM's version ({@code SnapshotInfo.vmVersion}), or {@code null}
 */
public record SnapshotSummary(String id, String vm, String source, String sha256, Instant loadedAt,
                              long objectCount, long referenceCount, long totalBytes, long objectBytes,
                              boolean analysed, String producer, String vmVersion) {

    /** A summary without producer and VM version. */
    public SnapshotSummary(String id, String vm, String source, String sha256, Instant loadedAt, long objectCount,
                           long referenceCount, long totalBytes, long objectBytes, boolean analysed) {
        this(id, vm, source, sha256, loadedAt, objectCount, referenceCount, totalBytes, objectBytes, analysed, null, null);
    }
}
