package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;

import dev.heapload.model.ByteSums;
import dev.heapload.model.HeapSnapshot;

/**
 * Per-snapshot totals that queries would otherwise compute by scanning every object: counts and bytes per
 * (type, memory category), the objects with the largest retained size (in the whole snapshot and per
 * category), and which unreachable objects are held only weakly. Computed once at load time from the model
 * and its {@link HeapAnalysis}, and stored on the graph, so that the saved queries read a few hundred nodes
 * instead of millions (a scan of 2.4M objects takes 1–7 s, most of it reading properties).
 *
 * @param buckets      one per (type, category) present, ordered by type name then category
 * @param topRetainers object ids of the reachable objects with the largest retained size, largest first
 *                     (ties: lower address text first), at most {@link #TOP_RETAINERS}
 * @param topRetainersByCategory per category id (-1: none), the same list restricted to the category, at
 *                     most {@link #TOP_RETAINERS_PER_CATEGORY} each
 * @param weakOnly     per object id: unreachable, but a reachable object holds a weak reference to it
 *                     (collectable, not a leak)
 * @param topRetainerPaths per entry of {@code topRetainers}, its retention path as hops ({@link RetentionPath#hops}), or {@code null}
 */
public record SnapshotStatistics(List<Bucket> buckets, int[] topRetainers, Map<Integer, int[]> topRetainersByCategory,
                                 boolean[] weakOnly, List<List<PathHop>> topRetainerPaths) {

    /** How many of the largest retainers are kept per snapshot. */
    public static final int TOP_RETAINERS = 1000;
    /** How many of the largest retainers are kept per memory category. */
    public static final int TOP_RETAINERS_PER_CATEGORY = 100;

    /**
     * Totals of the objects of one type in one memory category.
     *
     * @param type              VM type name
     * @param category          memory category id, -1 when the VM has none
     * @param objects           object count
     * @param bytes             sum of shallow sizes, bytes
     * @param reachableObjects  how many of them are strongly reachable
     * @param reachableBytes    their shallow bytes
     * @param maxRetainedSize   largest retained size among them, bytes
     * @param weakOnlyObjects   unreachable ones a reachable object still references weakly
     */
    public record Bucket(String type, int category, long objects, long bytes, long reachableObjects,
                         long reachableBytes, long maxRetainedSize, long weakOnlyObjects) {
    }

    /**
     * Computes the statistics.
     *
     * @param snapshot the heap
     * @param analysis its analysis results
     * @return the statistics; O(objects + references) time
     */
    public static SnapshotStatistics compute(HeapSnapshot snapshot, HeapAnalysis analysis) {
        int n = snapshot.objectCount();
        boolean[] reachable = analysis.reachable();
        long[] retained = analysis.retainedSize();

        boolean[] weakOnly = new boolean[n];
        int[] first = snapshot.firstReferenceColumn();
        int[] targets = snapshot.referenceTargetColumn();
        byte[] flags = snapshot.referenceFlagsColumn();
        for (int o = 0; o < n; o++) {
            if (!reachable[o]) {
                continue;
            }
            for (int r = first[o]; r < first[o + 1]; r++) {
                if ((flags[r] & HeapSnapshot.WEAK) != 0 && !reachable[targets[r]]) {
                    weakOnly[targets[r]] = true;
                }
            }
        }

        IntObjectHashMap<long[]> byKey = new IntObjectHashMap<>();
        for (int o = 0; o < n; o++) {
            int category = snapshot.category(o);
            int key = snapshot.typeId(o) * 65_537 + (category + 1);
            long[] b = byKey.get(key);
            if (b == null) {
                b = new long[] {snapshot.typeId(o), category, 0, 0, 0, 0, 0, 0};
                byKey.put(key, b);
            }
            long size = snapshot.shallowSize(o);
            b[2]++;
            b[3] = ByteSums.add(b[3], size);
            if (reachable[o]) {
                b[4]++;
                b[5] = ByteSums.add(b[5], size);
            }
            b[6] = Math.max(b[6], retained[o]);
            if (weakOnly[o]) {
                b[7]++;
            }
        }
        List<Bucket> buckets = new ArrayList<>();
        for (long[] b : byKey.values()) {
            buckets.add(new Bucket(snapshot.typeNames().get((int) b[0]), (int) b[1], b[2], b[3], b[4], b[5], b[6], b[7]));
        }
        buckets.sort(Comparator.comparing(Bucket::type).thenComparingInt(Bucket::category));

        Comparator<Integer> largestFirst = largestFirst(snapshot, retained);
        TopList all = new TopList(TOP_RETAINERS, largestFirst);
        Map<Integer, TopList> perCategory = new LinkedHashMap<>();
        for (Bucket b : buckets) {
            perCategory.computeIfAbsent(b.category(), c -> new TopList(TOP_RETAINERS_PER_CATEGORY, largestFirst));
        }
        for (int o = 0; o < n; o++) {
            if (reachable[o]) {
                all.offer(o);
                perCategory.get(snapshot.category(o)).offer(o);
            }
        }
        Map<Integer, int[]> byCategory = new LinkedHashMap<>();
        perCategory.forEach((c, t) -> byCategory.put(c, t.sorted()));
        int[] top = all.sorted();
        List<List<PathHop>> paths = new java.util.ArrayList<>(top.length);
        for (int o : top) {
            paths.add(RetentionPath.hops(snapshot, analysis, o));
        }
        return new SnapshotStatistics(List.copyOf(buckets), top, byCategory, weakOnly,
            java.util.Collections.unmodifiableList(paths));
    }

    /**
     * The {@code limit} reachable objects with the largest retained size, as {@link #topRetainers} lists them (largest
     * first, ties by address text), without the rest of the statistics.
     *
     * @param limit at most this many, at most {@link #TOP_RETAINERS} to be the head of {@link #topRetainers}
     * @return object ids; O(objects log limit)
     */
    public static int[] largestRetainers(HeapSnapshot snapshot, HeapAnalysis analysis, int limit) {
        TopList top = new TopList(limit, largestFirst(snapshot, analysis.retainedSize()));
        boolean[] reachable = analysis.reachable();
        for (int o = 0, n = snapshot.objectCount(); o < n; o++) {
            if (reachable[o]) {
                top.offer(o);
            }
        }
        return top.sorted();
    }

    /** Largest retained size first, then lower address text. */
    private static Comparator<Integer> largestFirst(HeapSnapshot snapshot, long[] retained) {
        return (a, b) -> {
            int c = Long.compare(retained[b], retained[a]);
            return c != 0 ? c : snapshot.address(a).compareTo(snapshot.address(b));
        };
    }

    /** The {@code limit} best object ids in an order: a bounded heap whose head is the worst kept. */
    private static final class TopList {
        private final int limit;
        private final Comparator<Integer> order;
        private final PriorityQueue<Integer> heap;

        TopList(int limit, Comparator<Integer> order) {
            this.limit = limit;
            this.order = order;
            this.heap = new PriorityQueue<>(limit + 1, order.reversed());
        }

        void offer(int o) {
            if (heap.size() == limit && order.compare(o, heap.peek()) >= 0) {
                return;
            }
            heap.add(o);
            if (heap.size() > limit) {
                heap.poll();
            }
        }

        int[] sorted() {
            Integer[] best = heap.toArray(Integer[]::new);
            Arrays.sort(best, order);
            return Arrays.stream(best).mapToInt(Integer::intValue).toArray();
        }
    }
}
