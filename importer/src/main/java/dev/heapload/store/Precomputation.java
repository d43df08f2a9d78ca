package dev.heapload.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SnapshotStatistics;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Before a build: the statistics of every analysed snapshot ({@link SnapshotStatistics}) and the comparison of
 * every ordered pair of analysed snapshots ({@link SnapshotComparison}), so that the saved queries read
 * precomputed nodes. A store of k snapshots gets k(k-1) comparisons (both directions: "new in B relative to A"
 * is a leak question, "new in A relative to B" is what B freed), each O(objects).
 *
 * <p>Memory: at most two models are held at once (a two-entry cache over the parts' sources), so a store of two
 * snapshots reads each model once.
 */
public final class Precomputation {

    private Precomputation() {
    }

    /**
     * @param parts the build's snapshots (their {@code stats} are ignored). {@linkplain GraphInput.Part#stored()
     *              Stored} parts (already in the database) keep their statistics unset and are compared only with
     *              the parts that are not stored, in both directions; each stored model is fetched once when the
     *              other parts' models are held in memory (as in a Bolt load)
     * @param pairs receives the comparisons
     * @param progress phase {@code "compare"}, unit: comparisons
     * @return the parts with their statistics set (stored parts unchanged)
     * @throws IOException when a snapshot's model cannot be read
     */
    public static List<GraphInput.Part> run(List<GraphInput.Part> parts, List<GraphInput.Pair> pairs, Progress progress)
        throws IOException {
        int k = parts.size();
        Cache cache = new Cache(parts);
        List<GraphInput.Part> out = new ArrayList<>(k);
        boolean[] analysed = new boolean[k];
        boolean[] stored = new boolean[k];
        for (int i = 0; i < k; i++) {
            analysed[i] = parts.get(i).entry().summary().analysed();
            stored[i] = parts.get(i).stored();
        }
        long total = 0;
        for (int i = 0; i < k; i++) {
            for (int j = 0; j < k; j++) {
                total += i != j && analysed[i] && analysed[j] && !(stored[i] && stored[j]) ? 1 : 0;
            }
        }
        progress.start("compare", total, "pairs");
        long done = 0;
        // pairs of parts that are not stored: target by target (each target is read once)
        for (int t = 0; t < k; t++) {
            GraphInput.Part part = parts.get(t);
            if (!analysed[t] || stored[t]) {
                out.add(part);
                continue;
            }
            HeapSnapshot target = cache.get(t);
            HeapAnalysis analysis = target.analysis();
            out.add(new GraphInput.Part(part.entry(), part.source(), SnapshotStatistics.compute(target, analysis)));
            for (int b = 0; b < k; b++) {
                if (b == t || !analysed[b] || stored[b]) {
                    continue;
                }
                HeapSnapshot baseline = cache.get(b);
                target = cache.get(t);
                pairs.add(new GraphInput.Pair(b, t, SnapshotComparison.compute(baseline, target, target.analysis())));
                progress.step(++done);
            }
        }
        // a stored part with each other part, both ways: the stored one is used last in each pair, so it stays cached
        for (int s = 0; s < k; s++) {
            if (!analysed[s] || !stored[s]) {
                continue;
            }
            for (int o = 0; o < k; o++) {
                if (!analysed[o] || stored[o]) {
                    continue;
                }
                HeapSnapshot baseline = cache.get(s);
                HeapSnapshot target = cache.get(o);
                pairs.add(new GraphInput.Pair(s, o, SnapshotComparison.compute(baseline, target, target.analysis())));
                progress.step(++done);
                baseline = cache.get(o);
                target = cache.get(s);
                pairs.add(new GraphInput.Pair(o, s, SnapshotComparison.compute(baseline, target, target.analysis())));
                progress.step(++done);
            }
        }
        progress.end();
        return out;
    }

    /** The two most recently used models (a miss replaces the one used less recently). */
    private static final class Cache {
        private final List<GraphInput.Part> parts;
        private final int[] index = {-1, -1};
        private final HeapSnapshot[] models = new HeapSnapshot[2];
        private int lastUsed;

        Cache(List<GraphInput.Part> parts) {
            this.parts = parts;
        }

        HeapSnapshot get(int i) throws IOException {
            for (int s = 0; s < 2; s++) {
                if (index[s] == i) {
                    lastUsed = s;
                    return models[s];
                }
            }
            int slot = 1 - lastUsed;
            lastUsed = slot;
            models[slot] = null;
            index[slot] = -1;
            models[slot] = parts.get(i).source().get();
            if (parts.get(i).stored() && !(models[slot].analysis() instanceof HeapAnalysis)) {
                throw new IOException("snapshot '" + parts.get(i).entry().id() + "' came without its analysis");
            }
            index[slot] = i;
            return models[slot];
        }
    }
}
