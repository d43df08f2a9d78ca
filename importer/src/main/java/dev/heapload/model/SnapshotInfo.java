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
 */
public record SnapshotInfo(String id, String vm, String source, String sha256, long vmTotalBytes,
                           Map<Integer, MemoryCategory> categories, List<String> warnings) {

    public SnapshotInfo {
        categories = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(categories));
        warnings = List.copyOf(warnings);
    }

    /** A copy with another id (used by {@code --name}). */
    public SnapshotInfo withId(String newId) {
        return new SnapshotInfo(newId, vm, source, sha256, vmTotalBytes, categories, warnings);
    }
}
