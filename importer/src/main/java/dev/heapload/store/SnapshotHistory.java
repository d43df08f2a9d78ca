package dev.heapload.store;

import java.util.List;

/**
 * One snapshot of a store's history ({@link GraphStore#history}): its catalog summary, whether it was pruned, and
 * the comparisons its load made with it as the target, read from its stored summary (kept forever).
 *
 * @param snapshot    the snapshot's figures as the catalog has them
 * @param pruned      its graph and model were dropped by {@code heapload prune}
 * @param comparisons the comparisons its load made (previous snapshot first when there was one); empty for the first
 *                    snapshot, an unanalysed one, or one stored by a heapload version before leak histories
 */
public record SnapshotHistory(SnapshotSummary snapshot, boolean pruned, List<StoredComparison> comparisons) {

    public SnapshotHistory {
        comparisons = List.copyOf(comparisons);
    }
}
