package dev.heapload.analysis;

import java.util.List;

import dev.heapload.model.ByteSums;
import dev.heapload.model.HeapSnapshot;

/**
 * The survivor view of the three-snapshot method (memlab, Chrome DevTools): objects allocated between a first and a
 * second snapshot (new in the second) that are still alive in a third, taken after the action that allocated them
 * was undone or repeated. A leak survives; a temporary object (a cache entry that was evicted, a request's scratch
 * tables) does not. Objects are told apart by the identity rule of {@link SnapshotDiff} (address, type, memory
 * category), so the three snapshots must come from one process; an allocator that reuses a freed address for a new
 * object of the same type can make a few objects look like survivors.
 *
 * @param first        the first snapshot's id
 * @param second       the second's
 * @param third        the third's
 * @param objects      survivors reachable in the third snapshot
 * @param bytes        their shallow bytes in the third snapshot
 * @param groups       the survivors grouped by the retention path (in the third snapshot) of their topmost
 *                     survivor, largest first ({@link SnapshotComparison#groups}); example ids are of the third
 * @param crossProcess a pair of the three looks like two processes ({@link SnapshotComparison#isCrossProcess}):
 *                     nothing could be matched by address, the view is empty
 */
public record SurvivorView(String first, String second, String third, long objects, long bytes,
                           List<SnapshotComparison.LeakGroup> groups, boolean crossProcess) {

    /**
     * Computes the view.
     *
     * @param first  the first snapshot (before the action)
     * @param second the second (after it), analysed or not
     * @param third  the third (after undoing or repeating it), with its analysis attached
     * @return the view; O(objects) of each snapshot plus the grouping
     */
    public static SurvivorView compute(HeapSnapshot first, HeapSnapshot second, HeapSnapshot third) {
        HeapAnalysis analysis = third.analysis();
        SnapshotDiff d12 = SnapshotDiff.compare(first, second);
        SnapshotDiff d23 = SnapshotDiff.compare(second, third);
        String a = first.info().id();
        String b = second.info().id();
        String c = third.info().id();
        if (SnapshotComparison.isCrossProcess(first, second, d12) || SnapshotComparison.isCrossProcess(second, third, d23)) {
            return new SurvivorView(a, b, c, 0, 0, List.of(), true);
        }
        boolean[] survivor = new boolean[third.objectCount()];
        long objects = 0;
        long bytes = 0;
        for (int o = 0; o < survivor.length; o++) {
            int s = d23.sameAddress()[o];
            if (!d23.isNew()[o] && s >= 0 && d12.isNew()[s]) {
                survivor[o] = true;
                if (analysis.reachable()[o]) {
                    objects++;
                    bytes = ByteSums.add(bytes, third.shallowSize(o));
                }
            }
        }
        return new SurvivorView(a, b, c, objects, bytes, SnapshotComparison.groups(third, analysis, survivor), false);
    }
}
