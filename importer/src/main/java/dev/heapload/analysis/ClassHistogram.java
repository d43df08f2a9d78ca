package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.heapload.model.ByteSums;
import dev.heapload.model.HeapSnapshot;

/**
 * Objects, shallow and retained bytes per class ({@link ObjectClasses}) in one snapshot, like Eclipse MAT's and
 * Roblox's heap tool's histogram by class; and the change between two snapshots of one program.
 *
 * <p>The retained bytes of a class are those of its objects together (MAT's "retained heap" of a class): the bytes
 * that would be freed if every object of the class became unreachable, i.e. the sum of the retained sizes of its
 * objects that no other object of the same class dominates (an object of the class inside another's retained set is
 * counted once, in the outer one). Computed in one walk of the dominator tree ({@link HeapAnalysis#immediateDominator}),
 * with an explicit stack (no recursion on heap depth).
 *
 * @param rows one per class with objects, ordered by retained bytes (largest first), then shallow bytes, then type and
 *             class name
 */
public record ClassHistogram(List<Row> rows) {

    /**
     * One class of one snapshot.
     *
     * @param type             the VM type of its objects ({@code table}, {@code userdata}, {@code cdata}, a MicroPython
     *                         class's type)
     * @param className        the class name ({@link ObjectClasses})
     * @param objects          objects of the class
     * @param bytes            their shallow sizes, bytes
     * @param reachableObjects how many of them are strongly reachable
     * @param reachableBytes   their shallow bytes
     * @param retainedBytes    the retained size of the class's objects together, bytes (0 without an analysis)
     */
    public record Row(String type, String className, long objects, long bytes, long reachableObjects,
                      long reachableBytes, long retainedBytes) {
    }

    /**
     * One class in a pair of snapshots: its figures in the target and in the baseline (0 when absent there).
     *
     * @param type             VM type
     * @param className        class name
     * @param objects          objects in the target
     * @param bytes            their shallow bytes
     * @param retainedBytes    retained bytes together, in the target
     * @param baselineObjects  objects in the baseline
     * @param baselineBytes    their shallow bytes
     * @param baselineRetained retained bytes together, in the baseline
     */
    public record Change(String type, String className, long objects, long bytes, long retainedBytes,
                         long baselineObjects, long baselineBytes, long baselineRetained) {

        /** Objects in the target minus in the baseline. */
        public long objectsChange() {
            return objects - baselineObjects;
        }

        /** Shallow bytes in the target minus in the baseline. */
        public long bytesChange() {
            return bytes - baselineBytes;
        }

        /** Retained bytes in the target minus in the baseline. */
        public long retainedChange() {
            return retainedBytes - baselineRetained;
        }
    }

    /**
     * The histogram of {@code snapshot}.
     *
     * @param snapshot the heap model
     * @param analysis its analysis, or {@code null} (no reachable or retained figures: 0)
     * @param classes  its classes ({@link ObjectClasses#compute})
     * @return the histogram; O(objects) time
     */
    public static ClassHistogram compute(HeapSnapshot snapshot, HeapAnalysis analysis, ObjectClasses classes) {
        int n = snapshot.objectCount();
        int k = classes.classCount();
        long[][] sums = new long[k][5];
        int[] classOf = classes.classOf();
        boolean[] reachable = analysis == null ? null : analysis.reachable();
        for (int o = 0; o < n; o++) {
            int c = classOf[o];
            if (c < 0) {
                continue;
            }
            long size = snapshot.shallowSize(o);
            sums[c][0]++;
            sums[c][1] = ByteSums.add(sums[c][1], size);
            if (reachable != null && reachable[o]) {
                sums[c][2]++;
                sums[c][3] = ByteSums.add(sums[c][3], size);
            }
        }
        if (analysis != null) {
            retainedTogether(analysis, classOf, sums);
        }
        List<Row> rows = new ArrayList<>(k);
        for (int c = 0; c < k; c++) {
            if (sums[c][0] > 0) {
                rows.add(new Row(classes.types()[c], classes.names()[c], sums[c][0], sums[c][1], sums[c][2],
                    sums[c][3], sums[c][4]));
            }
        }
        rows.sort(ORDER);
        return new ClassHistogram(List.copyOf(rows));
    }

    private static final Comparator<Row> ORDER = Comparator.comparingLong(Row::retainedBytes).reversed()
        .thenComparing(Comparator.comparingLong(Row::bytes).reversed())
        .thenComparing(Row::type).thenComparing(Row::className);

    /** Adds to {@code sums[c][4]} the retained size of each object of class c that no object of class c dominates. */
    private static void retainedTogether(HeapAnalysis a, int[] classOf, long[][] sums) {
        int n = classOf.length;
        int[] idom = a.immediateDominator();
        boolean[] reachable = a.reachable();
        long[] retained = a.retainedSize();
        // children of each node of the dominator tree, in CSR form; the tree's tops have idom -1
        int[] childStart = new int[n + 1];
        for (int o = 0; o < n; o++) {
            if (reachable[o] && idom[o] >= 0) {
                childStart[idom[o] + 1]++;
            }
        }
        for (int o = 0; o < n; o++) {
            childStart[o + 1] += childStart[o];
        }
        int[] children = new int[childStart[n]];
        int[] fill = java.util.Arrays.copyOf(childStart, n);
        for (int o = 0; o < n; o++) {
            if (reachable[o] && idom[o] >= 0) {
                children[fill[idom[o]]++] = o;
            }
        }
        int[] open = new int[sums.length];
        int[] stack = new int[n];
        int[] next = new int[n];
        for (int top = 0; top < n; top++) {
            if (!reachable[top] || idom[top] >= 0) {
                continue;
            }
            int depth = 0;
            stack[depth++] = top;
            enter(top, classOf, open, retained, sums);
            next[top] = childStart[top];
            while (depth > 0) {
                int o = stack[depth - 1];
                if (next[o] < childStart[o + 1]) {
                    int child = children[next[o]++];
                    stack[depth++] = child;
                    next[child] = childStart[child];
                    enter(child, classOf, open, retained, sums);
                } else {
                    depth--;
                    if (classOf[o] >= 0) {
                        open[classOf[o]]--;
                    }
                }
            }
        }
    }

    private static void enter(int o, int[] classOf, int[] open, long[] retained, long[][] sums) {
        int c = classOf[o];
        if (c >= 0) {
            if (open[c] == 0) {
                sums[c][4] = ByteSums.add(sums[c][4], retained[o]);
            }
            open[c]++;
        }
    }

    /**
     * The change of every class present in either snapshot: target figures against baseline figures, matched by VM
     * type and class name.
     *
     * @return one per class, ordered by the change in retained bytes (largest growth first), then in objects, then type
     *         and class name
     */
    public static List<Change> compare(ClassHistogram baseline, ClassHistogram target) {
        Map<String, long[]> byKey = new LinkedHashMap<>();
        Map<String, String[]> keys = new LinkedHashMap<>();
        for (Row r : target.rows()) {
            String key = r.type() + '\0' + r.className();
            keys.put(key, new String[] {r.type(), r.className()});
            long[] v = byKey.computeIfAbsent(key, x -> new long[6]);
            v[0] = r.objects();
            v[1] = r.bytes();
            v[2] = r.retainedBytes();
        }
        for (Row r : baseline.rows()) {
            String key = r.type() + '\0' + r.className();
            keys.putIfAbsent(key, new String[] {r.type(), r.className()});
            long[] v = byKey.computeIfAbsent(key, x -> new long[6]);
            v[3] = r.objects();
            v[4] = r.bytes();
            v[5] = r.retainedBytes();
        }
        List<Change> out = new ArrayList<>();
        byKey.forEach((key, v) -> {
            String[] k = keys.get(key);
            out.add(new Change(k[0], k[1], v[0], v[1], v[2], v[3], v[4], v[5]));
        });
        out.sort(Comparator.comparingLong(Change::retainedChange).reversed()
            .thenComparing(Comparator.comparingLong(Change::objectsChange).reversed())
            .thenComparing(Comparator.comparingLong(Change::bytesChange).reversed())
            .thenComparing(Change::type).thenComparing(Change::className));
        return out;
    }
}
