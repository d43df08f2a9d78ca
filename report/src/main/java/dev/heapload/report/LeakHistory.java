package dev.heapload.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.heapload.queries.SafeText;
import dev.heapload.store.SnapshotHistory;
import dev.heapload.store.StoredComparison;

/**
 * Leak groups night by night: for every snapshot of a store in load order, the objects and bytes each leak group
 * (by {@link LeakFingerprint}) gained relative to the snapshot before it, from the comparisons that the loads kept in
 * the snapshots' summaries ({@link dev.heapload.store.GraphStore#history}; pruned snapshots included). A group is
 * <em>growing</em> when it grew in each of the last {@code nights} snapshots (each compared with the one before it):
 * net objects above 0, its new objects more than the freed ones at its path (summaries written before net growth:
 * new objects above 0), like LeakCanary's heap-growth detection over repeated dumps. A group that only replaced
 * objects (a cache, a bounded history) does not grow.
 *
 * <p>A night's figure for a group is its entry in that snapshot's comparison with the snapshot loaded just before it
 * (the nearest earlier snapshot that the load compared with); a group absent from that comparison's kept groups (the
 * {@code StoredSummary.LEAK_GROUPS} largest) gained nothing that night as far as the store knows (0). A snapshot
 * whose load made no such comparison (the first, an unanalysed one, one loaded by an older heapload) has no figure:
 * {@code null}, and it breaks a run of growth.
 *
 * @param snapshots the snapshots in load order
 * @param groups    every group seen in some night, in order of first appearance (then rank in that night)
 */
public record LeakHistory(List<String> snapshots, List<Series> groups) {

    /** Default of {@code --growing-nights}: a group gaining objects in each of the last 3 nights is growing. */
    public static final int DEFAULT_NIGHTS = 3;

    /**
     * One snapshot's figure for a group.
     *
     * @param snapshot      the snapshot's id
     * @param pruned        its graph and model were pruned (its figures stay)
     * @param comparedWith  the snapshot its load compared it with (the one before it), or {@code null} (no comparison)
     * @param objects       new reachable objects of the group relative to {@code comparedWith} (0 when absent), or
     *                      {@code null} without a comparison
     * @param newBytes      their shallow bytes, or {@code null}
     * @param retainedBytes the heads' retained bytes, or {@code null}
     * @param heads         number of heads, or {@code null}
     * @param netObjects    new objects minus the freed ones at its path (0 when absent), or {@code null}
     * @param netBytes      new bytes minus freed bytes, or {@code null}
     */
    public record Night(String snapshot, boolean pruned, String comparedWith, Long objects, Long newBytes,
                        Long retainedBytes, Long heads, Long netObjects, Long netBytes) {

        /** A night without net growth figures (net = new). */
        public Night(String snapshot, boolean pruned, String comparedWith, Long objects, Long newBytes,
                     Long retainedBytes, Long heads) {
            this(snapshot, pruned, comparedWith, objects, newBytes, retainedBytes, heads, objects, newBytes);
        }
    }

    /**
     * One leak group over the nights.
     *
     * @param fingerprint {@link LeakFingerprint}
     * @param headType    its heads' type (not escaped)
     * @param path        its retention path, one line per hop (not escaped)
     * @param nights      one per snapshot, in load order
     * @param appeared    the first snapshot in which it gained objects
     * @param growing     it grew (net objects above 0) in each of the last {@code nights} snapshots
     */
    public record Series(String fingerprint, String headType, List<String> path, List<Night> nights, String appeared,
                         boolean growing) {
    }

    /**
     * The history of every group in {@code history}, up to and including snapshot {@code upTo} (null: all).
     *
     * @param nights how many last snapshots a group must have gained objects in to be growing (at least 1)
     * @throws IllegalArgumentException when {@code nights < 1}
     */
    public static LeakHistory of(List<SnapshotHistory> history, String upTo, int nights) {
        if (nights < 1) {
            throw new IllegalArgumentException("--growing-nights must be at least 1 (got " + nights + ")");
        }
        List<SnapshotHistory> list = new ArrayList<>();
        for (SnapshotHistory h : history) {
            list.add(h);
            if (h.snapshot().id().equals(upTo)) {
                break;
            }
        }
        List<String> ids = new ArrayList<>();
        Map<String, Integer> position = new LinkedHashMap<>();
        for (SnapshotHistory h : list) {
            position.put(h.snapshot().id(), ids.size());
            ids.add(h.snapshot().id());
        }
        // per snapshot: its comparison with the nearest earlier snapshot, groups by fingerprint
        List<StoredComparison> previous = new ArrayList<>();
        List<Map<String, StoredComparison.StoredLeakGroup>> byPrint = new ArrayList<>();
        Map<String, StoredComparison.StoredLeakGroup> first = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            StoredComparison best = null;
            int bestAt = -1;
            for (StoredComparison c : list.get(i).comparisons()) {
                Integer at = position.get(c.baseline());
                if (at != null && at < i && at > bestAt) {
                    best = c;
                    bestAt = at;
                }
            }
            previous.add(best);
            Map<String, StoredComparison.StoredLeakGroup> groups = new LinkedHashMap<>();
            if (best != null) {
                for (StoredComparison.StoredLeakGroup g : best.leakGroups()) {
                    String fp = fingerprint(g);
                    groups.putIfAbsent(fp, g);
                    first.putIfAbsent(fp, g);
                }
            }
            byPrint.add(groups);
        }
        List<Series> series = new ArrayList<>();
        for (var e : first.entrySet()) {
            List<Night> row = new ArrayList<>();
            String appeared = null;
            for (int i = 0; i < list.size(); i++) {
                SnapshotHistory h = list.get(i);
                StoredComparison c = previous.get(i);
                StoredComparison.StoredLeakGroup g = byPrint.get(i).get(e.getKey());
                if (c == null) {
                    row.add(new Night(h.snapshot().id(), h.pruned(), null, null, null, null, null, null, null));
                } else if (g == null) {
                    row.add(new Night(h.snapshot().id(), h.pruned(), c.baseline(), 0L, 0L, 0L, 0L, 0L, 0L));
                } else {
                    row.add(new Night(h.snapshot().id(), h.pruned(), c.baseline(), g.objects(), g.newBytes(),
                        g.retainedBytes(), g.heads(), g.netObjects(), g.netBytes()));
                    if (appeared == null && g.objects() > 0) {
                        appeared = h.snapshot().id();
                    }
                }
            }
            series.add(new Series(e.getKey(), e.getValue().headType(), e.getValue().path(), List.copyOf(row), appeared,
                growing(row, nights)));
        }
        return new LeakHistory(List.copyOf(ids), List.copyOf(series));
    }

    /** Whether each of the last {@code nights} nights of {@code row} has a comparison in which the group grew. */
    static boolean growing(List<Night> row, int nights) {
        if (row.size() < nights) {
            return false;
        }
        for (int i = row.size() - nights; i < row.size(); i++) {
            Long objects = row.get(i).netObjects();
            if (objects == null || objects <= 0) {
                return false;
            }
        }
        return true;
    }

    /** The fingerprint of a stored group: the one the report computes for the same group ({@link LeakFingerprint#ofHops}). */
    public static String fingerprint(StoredComparison.StoredLeakGroup g) {
        return LeakFingerprint.of(SafeText.visible(g.headType()), g.path().stream().map(SafeText::visible).toList());
    }

    /** The group with this fingerprint, or null. */
    public Series group(String fingerprint) {
        for (Series s : groups) {
            if (s.fingerprint().equalsIgnoreCase(fingerprint)) {
                return s;
            }
        }
        return null;
    }

    /** The groups that are growing. */
    public List<Series> growing() {
        return groups.stream().filter(Series::growing).toList();
    }
}
