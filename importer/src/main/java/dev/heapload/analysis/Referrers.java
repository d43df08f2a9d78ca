package dev.heapload.analysis;

import java.util.Arrays;

import dev.heapload.model.HeapSnapshot;

/**
 * The references into one object (its incoming edges): the model keeps references grouped by their source, so this
 * is one pass over the reference-target column (a few milliseconds per million references) rather than an index
 * kept for every object.
 */
public final class Referrers {

    private Referrers() {
    }

    /**
     * Every reference whose target is {@code object}, strong and weak, self-references included.
     *
     * @return reference ids in ascending order (so grouped by source object, in dump order); O(references)
     */
    public static int[] of(HeapSnapshot s, int object) {
        int[] targets = s.referenceTargetColumn();
        int[] out = new int[4];
        int k = 0;
        for (int r = 0; r < targets.length; r++) {
            if (targets[r] == object) {
                if (k == out.length) {
                    out = Arrays.copyOf(out, k * 2);
                }
                out[k++] = r;
            }
        }
        return Arrays.copyOf(out, k);
    }
}
