package dev.heapload.store;

import java.util.List;

/**
 * A comparison a load made with a snapshot as the target, as its stored summary keeps it forever (also after
 * {@code heapload prune}): the pair's totals and its largest leak groups ({@link StoredSummary}). What
 * {@code heapload trend --leak} and the report's leak history read, night by night (docs/design/store.md).
 *
 * @param baseline       the id of the snapshot the target was compared with (the previous one in load order, the
 *                       store's baseline, or the first file of the same command)
 * @param newObjects     new objects of the target relative to the baseline (reachable or not)
 * @param newBytes       their shallow bytes
 * @param leakGroupCount how many leak groups the comparison found (at most {@link StoredSummary#LEAK_GROUPS} of them
 *                       are kept in {@code leakGroups})
 * @param leakGroups     the first leak groups in the comparison's order ({@code SnapshotComparison.RANK}: leaks by net
 *                       bytes, replaced groups after them; summaries of format {@code HLSUM2} by new bytes), at most
 *                       {@link StoredSummary#LEAK_GROUPS}
 */
public record StoredComparison(String baseline, long newObjects, long newBytes, int leakGroupCount,
                               List<StoredLeakGroup> leakGroups) {

    public StoredComparison {
        leakGroups = List.copyOf(leakGroups);
    }

    /**
     * One leak group of a stored comparison.
     *
     * @param objects       new reachable objects under its heads (heads included)
     * @param newBytes      their shallow bytes
     * @param retainedBytes sum of the heads' retained sizes, bytes
     * @param heads         number of heads
     * @param headType      the heads' type, as the dump names it (not escaped)
     * @param path          the retention path, one leak-trace line per hop from the root ({@code PathHop#line}, not
     *                      escaped): with {@code headType} what the report's {@code LeakFingerprint} is computed from,
     *                      so the fingerprint of a stored group is the one the report shows for the same group
     * @param verdict       {@code growing}, {@code new} or {@code replaced} ({@code SnapshotComparison.Verdict}), or
     *                      {@code null} in a summary written before verdicts (format {@code HLSUM2})
     * @param netObjects    new objects minus the freed ones at its path ({@code objects} when unknown)
     * @param netBytes      new bytes minus freed bytes ({@code newBytes} when unknown)
     */
    public record StoredLeakGroup(long objects, long newBytes, long retainedBytes, long heads, String headType,
                                  List<String> path, String verdict, long netObjects, long netBytes) {

        public StoredLeakGroup {
            path = List.copyOf(path);
        }

        /** A group without a verdict: net = new. */
        public StoredLeakGroup(long objects, long newBytes, long retainedBytes, long heads, String headType,
                               List<String> path) {
            this(objects, newBytes, retainedBytes, heads, headType, path, null, objects, newBytes);
        }
    }
}
