package dev.heapload.model;

import java.util.List;
import java.util.Map;

/**
 * Metadata of one snapshot.
 *
 * @param id           snapshot id in the store (default: the file name without extension)
 * @param vm           VM family: {@code luau}, {@code lua5.1} … {@code micropython}
 * @param source       the file it was read from, as given
 * @param sha256       hex SHA-256 of the file's bytes (compressed bytes for {@code .gz})
 * @param vmTotalBytes the VM's own total of allocated bytes (Luau {@code stats.size}), or {@code -1}
 * @param categories   memory categories by id, ascending (empty when the VM has none)
 * @param warnings     repaired spots and other non-fatal findings, one line each
 * @param producer     the program that wrote the dump when the dump says it (the Lua dumper's {@code dumper.name})
 *                     or the user does ({@code --producer}), else {@code null}
 * @param vmVersion    the VM's version when the dump says it ({@code Lua 5.4}, {@code LuaJIT 2.1.0-beta3}) or the
 *                     user does ({@code --vm-version}), else {@code null}
 */
public record SnapshotInfo(String id, String vm, String source, String sha256, long vmTotalBytes,
                           Map<Integer, MemoryCategory> categories, List<String> warnings, String producer,
                           String vmVersion) {

    public SnapshotInfo {
        categories = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(categories));
        warnings = List.copyOf(warnings);
    }

    /** Metadata without producer and VM version. */
    public SnapshotInfo(String id, String vm, String source, String sha256, long vmTotalBytes,
                        Map<Integer, MemoryCategory> categories, List<String> warnings) {
        this(id, vm, source, sha256, vmTotalBytes, categories, warnings, null, null);
    }

    /** A copy with another id (used by {@code --name}). */
    public SnapshotInfo withId(String newId) {
        return new SnapshotInfo(newId, vm, source, sha256, vmTotalBytes, categories, warnings, producer, vmVersion);
    }

    /** A copy with other warnings. */
    public SnapshotInfo withWarnings(List<String> newWarnings) {
        return new SnapshotInfo(id, vm, source, sha256, vmTotalBytes, categories, newWarnings, producer, vmVersion);
    }

    /**
     * A copy with the producer and VM version replaced where the arguments are not {@code null} ({@code --producer},
     * {@code --vm-version}).
     */
    public SnapshotInfo withProducer(String newProducer, String newVmVersion) {
        return new SnapshotInfo(id, vm, source, sha256, vmTotalBytes, categories, warnings,
            newProducer != null ? newProducer : producer, newVmVersion != null ? newVmVersion : vmVersion);
    }
}
