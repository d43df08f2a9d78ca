package dev.heapload.analysis;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap;
import org.eclipse.collections.impl.set.mutable.primitive.LongHashSet;

import dev.heapload.model.HeapSnapshot;

/**
 * Which objects of a target snapshot are new relative to a baseline snapshot of <em>another process</em> (two
 * runs of one program: addresses differ, ASLR), matched by what survives a restart instead of by address: the
 * retention path, type and memory category.
 *
 * <p>Each object gets a path key: for a root, its root name, type and category; for any other reachable object,
 * its retention parent's key, the last hop's label (the reference's name with its key type, {@link
 * HeapSnapshot#keyType}, so the string key {@code "[1]"} and the number key {@code 1}, both named {@code [1]}, are
 * different hops; or {@code [kind]}) and its own type and category. When either snapshot has no key types (a
 * snapshot file written before they existed), names are compared without them. A hop into a table that holds
 * {@link SnapshotComparison#MAP_KEYS} or more children of one type under one reference kind, each under another name,
 * may be a map's entry, whose name (an id, a URL) differs from run to run: the hops to the children of that kind and
 * type are labelled {@code [kind]} in both snapshots when the table at that path has such an entry name in one
 * snapshot that the other lacks (a map that gained or lost keys), and keep their names when both snapshots have the
 * same names there (a record: differently named fields, such as three globals holding userdata, are never merged
 * into one hop). Unreachable objects are keyed by type
 * and category alone. Where the target has more objects under a key than the baseline, that many of them are new:
 * first those whose retention parent is new (so a new subtree is new as a whole and has one head), then the rest in
 * object order. So per path, {@code new = max(0, target - baseline)}: a per-path aggregate diff, which the leak
 * groups of {@link SnapshotComparison} then rank.
 *
 * <p>Keys are 64-bit hashes (collisions between two paths are possible in principle and would merge their
 * counts). Linear in objects plus references; no recursion (objects are taken in order of their distance from the
 * roots, so a parent's key exists before its children's).
 */
public final class RetentionPathMatch {

    private RetentionPathMatch() {
    }

    /**
     * Per target object id: whether it is new, by path-key counts (see the class comment).
     *
     * @param baseline         the earlier snapshot (another process)
     * @param baselineAnalysis its analysis
     * @param target           the later snapshot
     * @param targetAnalysis   its analysis
     * @return {@code isNew} per target object
     */
    public static boolean[] newObjects(HeapSnapshot baseline, HeapAnalysis baselineAnalysis, HeapSnapshot target,
                                       HeapAnalysis targetAnalysis) {
        long[][] keys = keys(baseline, baselineAnalysis, target, targetAnalysis, keyTypes(baseline, target));
        return excess(target, targetAnalysis, keys[1], keys[0]);
    }

    /**
     * Whether path keys are computed with key types: true when both snapshots have any (see the class comment).
     */
    public static boolean keyTypes(HeapSnapshot baseline, HeapSnapshot target) {
        return hasKeyTypes(baseline) && hasKeyTypes(target);
    }

    /**
     * The path keys of every object of both snapshots of a pair (see the class comment): equal keys in the two mean the
     * same retention path (names, or {@code [kind]} for a map's entries whose name the other snapshot does not have at
     * that path), type and memory category.
     *
     * @param keyTypes {@link #keyTypes} of the pair
     * @return {@code {baseline keys, target keys}}, one key per object id of each
     */
    public static long[][] keys(HeapSnapshot baseline, HeapAnalysis baselineAnalysis, HeapSnapshot target,
                                HeapAnalysis targetAnalysis, boolean keyTypes) {
        Side b = new Side(baseline, baselineAnalysis, keyTypes);
        Side t = new Side(target, targetAnalysis, keyTypes);
        // level by level in both (a parent's key is final once the level above is done in both): a table whose
        // entries have the same names in both snapshots is a record, whose fields keep their names; one whose entry
        // names differ (in either direction) is a map, whose entries are all labelled [kind]
        int levels = Math.max(b.levels(), t.levels());
        LongHashSet maps = new LongHashSet();
        for (int d = -1; d < levels; d++) {
            b.namedHops(d);
            t.namedHops(d);
            maps.clear();
            b.maps(d, t.named, maps);
            t.maps(d, b.named, maps);
            b.keys(d, maps);
            t.keys(d, maps);
        }
        return new long[][] {b.key, t.key};
    }

    /**
     * Per object of {@code s}: whether it is one of the excess objects of its path key, given the keys of the other
     * snapshot: where {@code s} has more objects under a key than {@code otherKeys}, that many of them (first those
     * whose retention parent is in the excess too). With {@code s} the target this is {@link #newObjects}; with
     * {@code s} the baseline, the objects that are gone in the target.
     *
     * @param keys      {@link #keys} of {@code s}
     * @param otherKeys {@link #keys} of the other snapshot (same {@code keyTypes})
     */
    public static boolean[] excess(HeapSnapshot s, HeapAnalysis analysis, long[] keys, long[] otherKeys) {
        int n = s.objectCount();
        int[] order = byDistance(analysis, n);
        int[] parent = parents(s, analysis);
        LongIntHashMap remaining = new LongIntHashMap();
        for (long k : keys) {
            remaining.addToValue(k, 1);
        }
        for (long k : otherKeys) {
            remaining.addToValue(k, -1);
        }
        boolean[] isNew = new boolean[n];
        int start = 0;
        while (start < n) {
            int level = analysis.distance()[order[start]];
            int end = start;
            while (end < n && analysis.distance()[order[end]] == level) {
                end++;
            }
            // objects of one key are all at one distance: children of new parents take the excess first
            for (int pass = 0; pass < 2; pass++) {
                for (int i = start; i < end; i++) {
                    int o = order[i];
                    boolean newParent = parent[o] >= 0 && isNew[parent[o]];
                    if (isNew[o] || newParent != (pass == 0)) {
                        continue;
                    }
                    if (remaining.get(keys[o]) > 0) {
                        remaining.addToValue(keys[o], -1);
                        isNew[o] = true;
                    }
                }
            }
            start = end;
        }
        return isNew;
    }

    /** Whether any reference of {@code s} has a key type other than {@link HeapSnapshot#KEY_NONE}. */
    private static boolean hasKeyTypes(HeapSnapshot s) {
        for (int r = 0; r < s.referenceCount(); r++) {
            if (s.keyTypeId(r) != HeapSnapshot.KEY_NONE) {
                return true;
            }
        }
        return false;
    }

    /** Object ids in order of distance from the roots; unreachable ones (distance -1) first. */
    private static int[] byDistance(HeapAnalysis analysis, int n) {
        int max = -1;
        for (int o = 0; o < n; o++) {
            max = Math.max(max, analysis.distance()[o]);
        }
        int[] start = new int[max + 3];
        for (int o = 0; o < n; o++) {
            start[analysis.distance()[o] + 2]++;
        }
        for (int d = 1; d < start.length; d++) {
            start[d] += start[d - 1];
        }
        int[] order = new int[n];
        for (int o = 0; o < n; o++) {
            order[start[analysis.distance()[o] + 1]++] = o;
        }
        return order;
    }

    private static int[] parents(HeapSnapshot s, HeapAnalysis analysis) {
        int[] parent = new int[s.objectCount()];
        for (int o = 0; o < parent.length; o++) {
            int r = analysis.retainedBy()[o];
            parent[o] = r < 0 ? -1 : s.referenceSource(r);
        }
        return parent;
    }

    /**
     * One snapshot of a pair while its path keys are computed level by level (distance from the roots; unreachable
     * objects at level -1).
     */
    private static final class Side {
        private final HeapSnapshot s;
        private final HeapAnalysis analysis;
        private final boolean keyTypes;
        private final int[] parent;
        private final int[] order;
        /** Start of each level in {@link #order}: level d's objects are order[levelStart[d + 1] .. levelStart[d + 2]). */
        private final int[] levelStart;
        private final boolean[] mapEntry;
        private final long[] typeHash;
        /** The path keys, final for the levels done. */
        final long[] key;
        /** Per object of the current level: its hop's key with the name kept (0 without a name). */
        private final long[] namedHop;
        /** The named hops of the current level. */
        final LongHashSet named = new LongHashSet();

        Side(HeapSnapshot s, HeapAnalysis analysis, boolean keyTypes) {
            this.s = s;
            this.analysis = analysis;
            this.keyTypes = keyTypes;
            int n = s.objectCount();
            this.parent = parents(s, analysis);
            this.order = byDistance(analysis, n);
            int max = -1;
            for (int o = 0; o < n; o++) {
                max = Math.max(max, analysis.distance()[o]);
            }
            this.levelStart = new int[max + 3];
            for (int o = 0; o < n; o++) {
                levelStart[analysis.distance()[o] + 2]++;
            }
            for (int d = 1; d < levelStart.length; d++) {
                levelStart[d] += levelStart[d - 1];
            }
            this.mapEntry = mapEntries(s, analysis, parent);
            this.typeHash = new long[s.typeNames().size()];
            for (int t = 0; t < typeHash.length; t++) {
                typeHash[t] = s.typeNames().get(t).hashCode();
            }
            this.key = new long[n];
            this.namedHop = new long[n];
        }

        /** Number of levels of reachable objects (the largest distance plus one). */
        int levels() {
            return levelStart.length - 2;
        }

        private int from(int d) {
            return d + 1 < levelStart.length - 1 ? levelStart[d + 1] : order.length;
        }

        private int to(int d) {
            return d + 2 < levelStart.length ? levelStart[d + 2] : order.length;
        }

        /** Level {@code d}: each object's hop with its name kept, into {@link #named}. */
        void namedHops(int d) {
            named.clear();
            if (d < 1) {
                return;
            }
            for (int i = from(d); i < to(d); i++) {
                int o = order[i];
                int r = analysis.retainedBy()[o];
                String name = r < 0 || parent[o] < 0 ? null : s.referenceName(r);
                namedHop[o] = name == null ? 0 : mix(key[parent[o]], mix(mix(0x6e616d65L, keyTypes ? s.keyTypeId(r) : 0),
                    name.hashCode()));
                if (name != null) {
                    named.add(namedHop[o]);
                }
            }
        }

        /**
         * Level {@code d}: adds to {@code maps} the entries ({@link #entries}) of every possible map entry (a child of
         * a table with {@link SnapshotComparison#MAP_KEYS} or more alike children by distinct names) whose named hop
         * {@code other} (the other snapshot's named hops of this level) lacks.
         */
        void maps(int d, LongHashSet other, LongHashSet maps) {
            if (d < 1) {
                return;
            }
            for (int i = from(d); i < to(d); i++) {
                int o = order[i];
                if (mapEntry[o] && namedHop[o] != 0 && !other.contains(namedHop[o])) {
                    maps.add(entries(o));
                }
            }
        }

        /**
         * The entries {@code o} is one of, alike in both snapshots: its parent's path key, its hop's reference kind
         * and its type.
         */
        private long entries(int o) {
            return mix(mix(key[parent[o]], s.referenceKind(analysis.retainedBy()[o]).hashCode()), typeHash[s.typeId(o)]);
        }

        /**
         * Level {@code d}'s keys: a named hop keeps its name unless its entries ({@link #entries}) are in
         * {@code maps}, where it is labelled {@code [kind]}.
         */
        void keys(int d, LongHashSet maps) {
            for (int i = from(d); i < to(d); i++) {
                int o = order[i];
                long own = mix(typeHash[s.typeId(o)], s.category(o));
                if (!analysis.reachable()[o]) {
                    key[o] = mix(0x756e72656163684cL, own); // "unreachL": type and category only
                } else if (parent[o] < 0) {
                    int root = analysis.rootOf()[o];
                    String name = root >= 0 ? s.roots().get(root).name() : null;
                    key[o] = mix(mix(0x726f6f74L, name == null ? 0 : name.hashCode()), own);
                } else {
                    int r = analysis.retainedBy()[o];
                    boolean named = s.referenceName(r) != null && !maps.contains(entries(o));
                    long hop = named ? namedHop[o] : mix(key[parent[o]], mix(0x6b696e64L, s.referenceKind(r).hashCode()));
                    key[o] = mix(hop, own);
                }
            }
        }
    }

    /**
     * Per object: whether its retention hop is a map entry, i.e. its parent holds {@link SnapshotComparison#MAP_KEYS}
     * or more children of its type under its reference kind by distinct names.
     */
    private static boolean[] mapEntries(HeapSnapshot s, HeapAnalysis analysis, int[] parent) {
        int n = s.objectCount();
        // children per parent, in compressed rows
        int[] first = new int[n + 1];
        for (int o = 0; o < n; o++) {
            if (parent[o] >= 0) {
                first[parent[o] + 1]++;
            }
        }
        for (int p = 0; p < n; p++) {
            first[p + 1] += first[p];
        }
        int[] children = new int[first[n]];
        int[] fill = first.clone();
        for (int o = 0; o < n; o++) {
            if (parent[o] >= 0) {
                children[fill[parent[o]]++] = o;
            }
        }
        boolean[] mapEntry = new boolean[n];
        Map<Long, Set<String>> names = new HashMap<>(); // per group: key type and name, e.g. "1 [1]" (string), "2 [1]" (number)
        for (int p = 0; p < n; p++) {
            if (first[p + 1] - first[p] < SnapshotComparison.MAP_KEYS) {
                continue;
            }
            names.clear();
            for (int i = first[p]; i < first[p + 1]; i++) {
                int c = children[i];
                int r = analysis.retainedBy()[c];
                String name = s.referenceName(r);
                if (name != null) {
                    names.computeIfAbsent(group(s, r, c), k -> new HashSet<>()).add(s.keyTypeId(r) + " " + name);
                }
            }
            for (int i = first[p]; i < first[p + 1]; i++) {
                int c = children[i];
                Set<String> distinct = names.get(group(s, analysis.retainedBy()[c], c));
                mapEntry[c] = distinct != null && distinct.size() >= SnapshotComparison.MAP_KEYS;
            }
        }
        return mapEntry;
    }

    private static long group(HeapSnapshot s, int reference, int child) {
        return ((long) s.referenceKindId(reference) << 32) | s.typeId(child);
    }

    /** A 64-bit mix of two values (splitmix64's finaliser over their combination). */
    private static long mix(long a, long b) {
        long z = a * 0x9E3779B97F4A7C15L + b;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
