package dev.heapload.analysis;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The analysis pass: runs {@link Reachability} and {@link DominatorTree} over a snapshot and attaches
 * the {@link HeapAnalysis} to it. Works on the model's primitive arrays only; no Neo4j.
 */
public final class HeapAnalyzer {

    private HeapAnalyzer() {
    }

    /**
     * Analyses {@code snapshot} and attaches the result ({@link HeapSnapshot#attachAnalysis}).
     *
     * @param snapshot the heap
     * @param progress receives the phase {@code analyse} (units: objects)
     * @return the result, also attached to the snapshot
     */
    public static HeapAnalysis analyze(HeapSnapshot snapshot, Progress progress) {
        int n = snapshot.objectCount();
        progress.start("analyse", n, "objects"); // two passes over the objects: half way after the first
        int[] distance = new int[n];
        int[] retainedBy = new int[n];
        int[] rootOf = new int[n];
        Reachability.compute(snapshot, distance, retainedBy, rootOf);
        progress.step(n / 2);
        int[] idom = new int[n];
        long[] retained = new long[n];
        DominatorTree.compute(snapshot, distance, idom, retained);
        progress.step(n);
        boolean[] reachable = new boolean[n];
        for (int i = 0; i < n; i++) {
            reachable[i] = distance[i] >= 0;
        }
        HeapAnalysis result = new HeapAnalysis(reachable, distance, retainedBy, rootOf, idom, retained);
        snapshot.attachAnalysis(result);
        progress.end();
        return result;
    }
}
