package dev.heapload.analysis;

import org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.ObjectIntHashMap;

import dev.heapload.model.AddressFormat;
import dev.heapload.model.HeapSnapshot;

/**
 * Which objects of a target snapshot are new relative to a baseline snapshot of the same process.
 *
 * <p>Identity rule: an object of the target is the same object as one of the baseline when both have
 * the same address, the same type <b>and</b> the same memory category, and, for strings, the same size and
 * the same text (when both snapshots have it: a string's text never changes, and allocators round string sizes,
 * LuaJIT to 4 bytes, so a new string of another text can have the size of the freed one at its address).
 * A freed address can be reused by a new object (shared/docs/formats/luau-luaC_dump.md §3), so an address
 * alone does not prove identity: an address reused by an object of another type, another category or,
 * for strings, another length, counts as new. The category is part of the rule because a VM stamps it
 * when the object is created and never changes it (Luau {@code luaC_init} copies the creating thread's
 * {@code activememcat}); a table's size is not, because tables grow in place. Without the category,
 * memory-categories-medium classified 20 leaked Profiler tables (category 200) as old: they occupy
 * addresses of freed chat-history tables (category 5) of the baseline (spec §12.7). (heapgraph.py uses
 * the address alone.)
 *
 * @param isNew          per target object id: true when it has no counterpart in the baseline
 * @param sameAddress    per target object id: the baseline object id at the same address, or -1; for an object
 *                       that is not new this is its counterpart, for a new one a reused address
 * @param newCount       number of new objects
 * @param reusedAddresses new objects whose address existed in the baseline (address reuse)
 */
public record SnapshotDiff(boolean[] isNew, int[] sameAddress, int newCount, int reusedAddresses) {

    /**
     * Compares {@code target} against {@code baseline}.
     *
     * @param baseline the earlier snapshot
     * @param target   the later snapshot
     * @return per-object novelty of {@code target}
     */
    public static SnapshotDiff compare(HeapSnapshot baseline, HeapSnapshot target) {
        boolean opaque = baseline.addressFormat() == AddressFormat.OPAQUE
            || target.addressFormat() == AddressFormat.OPAQUE
            || baseline.addressFormat() != target.addressFormat();
        LongIntHashMap byKey = new LongIntHashMap(opaque ? 16 : baseline.objectCount());
        ObjectIntHashMap<String> byText = new ObjectIntHashMap<>(opaque ? baseline.objectCount() : 16);
        for (int o = 0; o < baseline.objectCount(); o++) {
            if (opaque) {
                byText.put(baseline.address(o), o);
            } else {
                byKey.put(baseline.addressKey(o), o);
            }
        }
        int n = target.objectCount();
        boolean[] isNew = new boolean[n];
        int[] sameAddress = new int[n];
        int count = 0;
        int reused = 0;
        for (int o = 0; o < n; o++) {
            int b = opaque ? byText.getIfAbsent(target.address(o), -1) : byKey.getIfAbsent(target.addressKey(o), -1);
            sameAddress[o] = b;
            boolean same = b >= 0 && baseline.type(b).equals(target.type(o))
                && baseline.category(b) == target.category(o)
                && (!"string".equals(target.type(o)) || (baseline.shallowSize(b) == target.shallowSize(o)
                    && sameText(baseline.label(b), target.label(o))));
            if (!same) {
                isNew[o] = true;
                count++;
                if (b >= 0) {
                    reused++;
                }
            }
        }
        return new SnapshotDiff(isNew, sameAddress, count, reused);
    }

    /** Two strings' texts match, or one of them is unknown (a dump without string contents). */
    private static boolean sameText(String a, String b) {
        return a == null || b == null || a.equals(b);
    }
}
