package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.eclipse.collections.impl.list.mutable.primitive.IntArrayList;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

import dev.heapload.model.ByteSums;
import dev.heapload.model.HeapSnapshot;

/**
 * What changed from a baseline snapshot to a target snapshot of the same process: the target's new objects
 * per (type, memory category), its leak groups, and the objects present in both that grew. Computed at load
 * time on the models (identity rule of {@link SnapshotDiff}) and stored on the graph, because the same work
 * in Cypher joins millions of objects by address (30–70 s on the 2.4M-object pair of shared/testdata/luau-large).
 *
 * <p>Leak groups: every new, reachable object of the target walks up its retention path while the parent is
 * new too; the last new object on the way is its <em>head</em> (its parent is old, or it is a root). Heads
 * with the same retention path and type form one group. The path is a list of hops ({@link PathHop}: name, kind,
 * key type, holder type), shown one line per hop from the root: {@code root NAME (TYPE)}, then per hop the
 * reference's name (or {@code [kind]}) and the type of the object holding it, {@code NAME in TYPE}
 * ({@link PathHop#line}). This is the leak trace of LeakCanary-style tools, over the retention
 * paths of {@link Reachability}. Heads that one table holds under {@link #MAP_KEYS} or more distinct names (the
 * entries of a map keyed by URL or id) form one group, with that hop shown as {@code [kind]}.
 *
 * <p>Net growth: "new" alone cannot tell a leak from a cache, pool or bounded history that replaces its entries. Each
 * group therefore also counts the objects of the baseline at its heads' path (the path key of
 * {@link RetentionPathMatch}, as a cross-process pair is matched) and those of them that are gone, with the gone
 * objects under them: net objects and bytes are new minus freed, and the {@link Verdict} says growing, new or
 * replaced (LeakCanary's heap-growth detection also counts per retention path). Groups are ranked by {@link #RANK}:
 * leaks (growing, new) by net bytes, replaced groups after them.
 *
 * @param newBuckets one per (type, category) with new objects, ordered by type then category
 * @param newObjects total number of new objects
 * @param newBytes   their shallow bytes
 * @param reusedAddresses new objects whose address held another object in the baseline
 * @param leakGroups leak groups in {@link #RANK} order: leaks (growing, new) by net bytes, then net objects;
 *                   replaced groups after them by new bytes, then objects; then head type, then path
 * @param growth     objects present in both whose shallow size or strong out-degree grew, largest growth first
 *                   (size growth, then out-degree growth, then address text), at most {@link #GROWTH_ROWS}; empty
 *                   for a cross-process pair (no object is known to be in both)
 * @param sameObjects target objects that are baseline objects by the identity rule of {@link SnapshotDiff}
 *                    (same address, type, category)
 * @param crossProcess the pair looks like two processes (see {@link #isCrossProcess}): "new" is then decided by
 *                     {@link RetentionPathMatch} (retention path, type, category), not by address
 */
public record SnapshotComparison(List<NewBucket> newBuckets, long newObjects, long newBytes, long reusedAddresses,
                                 List<LeakGroup> leakGroups, List<Growth> growth, long sameObjects,
                                 boolean crossProcess) {

    /**
     * A pair is taken to come from two processes when under this share of the baseline's objects are found in the
     * target by address (with the same type and category) and none of the target's roots is: two runs of a program
     * place their heaps elsewhere (ASLR), while within one process most objects of a baseline outlive it and the
     * roots (registry, main thread) never move. (A real pair of one process shares 70-100 % on the shared dumps.)
     */
    public static final double CROSS_PROCESS_SHARE = 0.10;

    /**
     * Heads held by one object under at least this many distinct reference names (with the same reference kind
     * and head type) are one leak group, their last hop shown as {@code [kind]}: the names are a map's keys
     * (URLs, ids), not fields. (3: two named fields of one module are still told apart.)
     */
    public static final int MAP_KEYS = 3;

    /** How many growth rows are kept per pair. */
    public static final int GROWTH_ROWS = 1000;

    /**
     * New objects of one type in one memory category.
     *
     * @param type             VM type name
     * @param category         memory category id, -1 when none
     * @param objects          new objects
     * @param bytes            their shallow bytes
     * @param reachableObjects how many of them are strongly reachable
     * @param reachableBytes   their shallow bytes
     * @param reusedAddresses  how many of them sit at an address another object had in the baseline
     */
    public record NewBucket(String type, int category, long objects, long bytes, long reachableObjects,
                            long reachableBytes, long reusedAddresses) {
    }

    /**
     * What a leak group's net growth says: whether the paths of its heads held more objects in the target than in the
     * baseline ({@link LeakGroup}). Lower-case {@link #label} in every output.
     */
    public enum Verdict {
        /** More objects at its path than in the baseline (net objects &gt; 0), which held some there already. */
        GROWING,
        /** Nothing at its path in the baseline. */
        NEW,
        /**
         * The new objects took the place of objects of the baseline at the same path that are gone (net objects
         * &lt;= 0): churn of a cache, pool, queue or bounded history, not a leak.
         */
        REPLACED;

        /** The name shown: {@code growing}, {@code new}, {@code replaced}. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** Whether a group with this verdict is a leak (growing or new), not churn. */
        public boolean leak() {
            return this != REPLACED;
        }

        /** The verdict of a {@link #label}, or {@code null} for {@code null} or an unknown label. */
        public static Verdict of(String label) {
            for (Verdict v : values()) {
                if (v.label().equals(label)) {
                    return v;
                }
            }
            return null;
        }

        /**
         * The verdict of a group with {@code baselineHeads} objects at its heads' path in the baseline and
         * {@code netObjects} net objects.
         */
        public static Verdict of(long baselineHeads, long netObjects) {
            return baselineHeads == 0 ? NEW : netObjects > 0 ? GROWING : REPLACED;
        }
    }

    /**
     * One leak group, with its net growth: the objects of the baseline at its heads' path (the path key of
     * {@link RetentionPathMatch}: retention path with a map's keys as {@code [kind]}, type, memory category) and
     * those of them gone in the target, with the objects under them that are gone too (their own leak groups in
     * reverse: the gone objects of the baseline grouped by their topmost gone object).
     *
     * @param objects       new objects under its heads (heads included)
     * @param newBytes      their shallow bytes
     * @param retainedBytes sum of the heads' retained sizes, bytes
     * @param heads         number of heads
     * @param headType      the heads' type
     * @param hops          retention path as hops, root first
     * @param example       target object id of the head with the largest retained size (ties: lowest address)
     * @param verdict       {@link Verdict#of(long, long)} of {@code baselineHeads} and {@link #netObjects}
     * @param baselineHeads objects of the baseline at its heads' path (kept or gone)
     * @param freedHeads    how many of them are gone in the target. When several groups share one path key (the
     *                      entries of a map each shown under its own name), the gone ones are shared out in rank
     *                      order, each taking as many as it has heads there, the last the rest
     * @param freedObjects  gone objects under the freed heads (heads included), as {@code objects} counts new ones
     * @param freedBytes    their shallow bytes
     * @param headClasses   the classes of its heads ({@link ObjectClasses}), each with how many heads have it, most
     *                      heads first (ties by name); heads without a class are not counted; empty when none has one
     * @param headCategories the memory categories of its heads, each with how many heads are in it, most heads first
     *                      (ties by id); empty for VMs without categories
     * @param sites         where its new objects were allocated ({@link SiteCount}), most bytes first; empty when
     *                      the target's dump tracked no allocations
     */
    public record LeakGroup(long objects, long newBytes, long retainedBytes, long heads, String headType,
                            List<PathHop> hops, int example, Verdict verdict, long baselineHeads, long freedHeads,
                            long freedObjects, long freedBytes, List<Map.Entry<String, Long>> headClasses,
                            List<Map.Entry<Integer, Long>> headCategories, List<SiteCount> sites) {

        /** A group without allocation sites. */
        public LeakGroup(long objects, long newBytes, long retainedBytes, long heads, String headType,
                         List<PathHop> hops, int example, Verdict verdict, long baselineHeads, long freedHeads,
                         long freedObjects, long freedBytes, List<Map.Entry<String, Long>> headClasses,
                         List<Map.Entry<Integer, Long>> headCategories) {
            this(objects, newBytes, retainedBytes, heads, headType, hops, example, verdict, baselineHeads, freedHeads,
                freedObjects, freedBytes, headClasses, headCategories, List.of());
        }

        /** This group with {@code sites}. */
        public LeakGroup withSites(List<SiteCount> sites) {
            return new LeakGroup(objects, newBytes, retainedBytes, heads, headType, hops, example, verdict,
                baselineHeads, freedHeads, freedObjects, freedBytes, headClasses, headCategories, List.copyOf(sites));
        }

        /** A group with nothing at its path in the baseline ({@link Verdict#NEW}). */
        public LeakGroup(long objects, long newBytes, long retainedBytes, long heads, String headType,
                         List<PathHop> hops, int example, List<Map.Entry<String, Long>> headClasses,
                         List<Map.Entry<Integer, Long>> headCategories) {
            this(objects, newBytes, retainedBytes, heads, headType, hops, example, Verdict.NEW, 0, 0, 0, 0,
                headClasses, headCategories);
        }

        /** The retention path as leak-trace lines ({@link PathHop#line}), root first. */
        public List<String> path() {
            return lines(hops);
        }

        /** New objects minus freed objects: the growth of the group's path in objects. */
        public long netObjects() {
            return objects - freedObjects;
        }

        /** New bytes minus freed bytes: the growth of the group's path in shallow bytes. */
        public long netBytes() {
            return newBytes - freedBytes;
        }

        /** Whether this group is a leak (growing or new), not churn ({@link Verdict#leak}). */
        public boolean leak() {
            return verdict.leak();
        }
    }

    /**
     * Objects of a leak group allocated at one site (the target's {@link dev.heapload.model.AllocationSites}).
     *
     * @param site    the site as text ({@link dev.heapload.model.AllocationSites#text}), or null for the objects
     *                allocated while the dumper was not tracking
     * @param objects how many of the group's new objects
     * @param bytes   their shallow bytes
     */
    public record SiteCount(String site, long objects, long bytes) {
    }

    /** How many sites a leak group keeps ({@link LeakGroup#sites}), largest first. */
    public static final int SITES_KEPT = 5;

    /** Hops as leak-trace lines ({@link PathHop#line}). */
    public static List<String> lines(List<PathHop> hops) {
        List<String> lines = new ArrayList<>(hops.size());
        for (PathHop h : hops) {
            lines.add(h.line());
        }
        return List.copyOf(lines);
    }

    /**
     * An object present in both snapshots that grew.
     *
     * @param target     target object id
     * @param sizeBefore shallow size in the baseline, bytes
     * @param sizeAfter  shallow size in the target, bytes
     * @param refsBefore strong outgoing references in the baseline
     * @param refsAfter  strong outgoing references in the target
     * @param path       the object's retention path in the target as hops ({@link RetentionPath#hops}), or
     *                   {@code null} (unreachable, or the target has no analysis)
     */
    public record Growth(int target, long sizeBefore, long sizeAfter, long refsBefore, long refsAfter,
                         List<PathHop> path) {
    }

    /**
     * Compares two analysed snapshots.
     *
     * @param baseline         the earlier snapshot
     * @param target           the later snapshot
     * @param targetAnalysis   the target's analysis (reachability, retention paths, retained sizes)
     * @return the comparison; O(objects + references) time plus the sort of the groups
     */
    public static SnapshotComparison compute(HeapSnapshot baseline, HeapSnapshot target, HeapAnalysis targetAnalysis) {
        SnapshotDiff diff = SnapshotDiff.compare(baseline, target);
        int n = target.objectCount();
        long same = n - diff.newCount();
        Object attached = baseline.analysis();
        HeapAnalysis baselineAnalysis = attached instanceof HeapAnalysis a ? a : null;
        // path keys, once: for a cross-process pair's novelty and for every group's net growth
        long[] targetKeys = null;
        long[] baselineKeys = null;
        if (baselineAnalysis != null && targetAnalysis != null) {
            long[][] keys = RetentionPathMatch.keys(baseline, baselineAnalysis, target, targetAnalysis,
                RetentionPathMatch.keyTypes(baseline, target));
            baselineKeys = keys[0];
            targetKeys = keys[1];
        }
        boolean crossProcess = isCrossProcess(baseline, target, diff) && baselineKeys != null;
        boolean[] isNew = crossProcess ? RetentionPathMatch.excess(target, targetAnalysis, targetKeys, baselineKeys)
            : diff.isNew();
        long newCount = 0;
        for (boolean b : isNew) {
            newCount += b ? 1 : 0;
        }
        boolean[] reachable = targetAnalysis.reachable();

        IntObjectHashMap<long[]> byKey = new IntObjectHashMap<>();
        long newBytes = 0;
        for (int o = 0; o < n; o++) {
            if (!isNew[o]) {
                continue;
            }
            int category = target.category(o);
            int key = target.typeId(o) * 65_537 + (category + 1);
            long[] b = byKey.get(key);
            if (b == null) {
                b = new long[] {target.typeId(o), category, 0, 0, 0, 0, 0};
                byKey.put(key, b);
            }
            long size = target.shallowSize(o);
            newBytes = ByteSums.add(newBytes, size);
            b[2]++;
            b[3] = ByteSums.add(b[3], size);
            if (reachable[o]) {
                b[4]++;
                b[5] = ByteSums.add(b[5], size);
            }
            if (!crossProcess && diff.sameAddress()[o] >= 0) {
                b[6]++;
            }
        }
        List<NewBucket> buckets = new ArrayList<>();
        for (long[] b : byKey.values()) {
            buckets.add(new NewBucket(target.typeNames().get((int) b[0]), (int) b[1], b[2], b[3], b[4], b[5], b[6]));
        }
        buckets.sort(Comparator.comparing(NewBucket::type).thenComparingInt(NewBucket::category));

        Baseline side = baselineKeys == null ? null
            : new Baseline(baseline, baselineAnalysis, baselineKeys, target, targetAnalysis, targetKeys);
        return new SnapshotComparison(List.copyOf(buckets), newCount, newBytes, crossProcess ? 0 : diff.reusedAddresses(),
            leakGroups(target, targetAnalysis, isNew, side),
            crossProcess ? List.of() : growth(baseline, target, targetAnalysis, diff), same, crossProcess);
    }

    /**
     * Both snapshots' path keys ({@link RetentionPathMatch#keys}, with the same key types), for the groups' net
     * growth.
     */
    private record Baseline(HeapSnapshot snapshot, HeapAnalysis analysis, long[] keys, HeapSnapshot target,
                            HeapAnalysis targetAnalysis, long[] targetKeys) {
    }

    /**
     * Whether {@code baseline} and {@code target} look like snapshots of two processes: under
     * {@link #CROSS_PROCESS_SHARE} of the baseline's objects are in the target by the identity rule, and no root
     * object of the target is.
     */
    public static boolean isCrossProcess(HeapSnapshot baseline, HeapSnapshot target, SnapshotDiff diff) {
        if (baseline.objectCount() == 0 || target.objectCount() == 0) {
            return false;
        }
        for (HeapSnapshot.GcRoot root : target.roots()) {
            if (root.object() >= 0 && !diff.isNew()[root.object()]) {
                return false;
            }
        }
        long same = target.objectCount() - diff.newCount();
        return same < CROSS_PROCESS_SHARE * baseline.objectCount();
    }

    /**
     * Which target objects {@link #compute} counts as new, and by which rule.
     *
     * @param isNew        per target object id
     * @param crossProcess true when decided by {@link RetentionPathMatch} (a cross-process pair, see
     *                     {@link #isCrossProcess}), false when by the identity rule of {@link SnapshotDiff}
     */
    public record Novelty(boolean[] isNew, boolean crossProcess) {
    }

    /**
     * The new objects of {@code target}, as {@link #compute} counts them: by address, or for a cross-process pair by
     * retention path (which needs the baseline's analysis attached; without it, by address).
     *
     * @param diff {@code SnapshotDiff.compare(baseline, target)}
     */
    public static Novelty novelty(HeapSnapshot baseline, HeapSnapshot target, HeapAnalysis targetAnalysis,
                                  SnapshotDiff diff) {
        if (isCrossProcess(baseline, target, diff) && baseline.analysis() != null && targetAnalysis != null) {
            return new Novelty(RetentionPathMatch.newObjects(baseline, baseline.analysis(), target, targetAnalysis), true);
        }
        return new Novelty(diff.isNew(), false);
    }

    /** As {@link #novelty(HeapSnapshot, HeapSnapshot, HeapAnalysis, SnapshotDiff)}, with the target's attached analysis. */
    public static Novelty novelty(HeapSnapshot baseline, HeapSnapshot target) {
        return novelty(baseline, target, target.analysis(), SnapshotDiff.compare(baseline, target));
    }

    /** As {@link #isCrossProcess(HeapSnapshot, HeapSnapshot, SnapshotDiff)}, comparing the two first. */
    public static boolean isCrossProcess(HeapSnapshot baseline, HeapSnapshot target) {
        return isCrossProcess(baseline, target, SnapshotDiff.compare(baseline, target));
    }

    /**
     * The objects of a mask grouped under their heads: each masked reachable object walks up its retention path
     * while the parent is masked too; the last one is its head.
     *
     * @param parent      per object, the source of its retention reference ({@code -1}: a root or unreachable)
     * @param headOf      per object, its head, or {@code -1} (not masked, or unreachable)
     * @param members     per head, the objects under it (itself included); 0 for other objects
     * @param memberBytes per head, their shallow bytes
     */
    private record Heads(int[] parent, int[] headOf, int[] members, long[] memberBytes) {
    }

    private static Heads heads(HeapSnapshot s, HeapAnalysis analysis, boolean[] mask) {
        int n = s.objectCount();
        boolean[] reachable = analysis.reachable();
        int[] retainedBy = analysis.retainedBy();
        int[] parent = new int[n];
        for (int o = 0; o < n; o++) {
            parent[o] = retainedBy[o] < 0 ? -1 : s.referenceSource(retainedBy[o]);
        }
        int[] headOf = new int[n];
        Arrays.fill(headOf, -1);
        int[] stack = new int[16];
        for (int o = 0; o < n; o++) {
            if (!mask[o] || !reachable[o] || headOf[o] >= 0) {
                continue;
            }
            int depth = 0;
            int x = o;
            while (headOf[x] < 0) {
                if (depth == stack.length) {
                    stack = Arrays.copyOf(stack, depth * 2);
                }
                stack[depth++] = x;
                int p = parent[x];
                if (p < 0 || !mask[p]) {
                    headOf[x] = x;
                    break;
                }
                x = p;
            }
            int head = headOf[x];
            for (int i = 0; i < depth; i++) {
                headOf[stack[i]] = head;
            }
        }
        int[] members = new int[n];
        long[] memberBytes = new long[n];
        for (int o = 0; o < n; o++) {
            if (headOf[o] >= 0) {
                members[headOf[o]]++;
                memberBytes[headOf[o]] = ByteSums.add(memberBytes[headOf[o]], s.shallowSize(o));
            }
        }
        return new Heads(parent, headOf, members, memberBytes);
    }

    /** The entries of {@code counts} (null: none), the largest count first, then by key. */
    private static <K extends Comparable<K>> List<Map.Entry<K, Long>> mostFirst(Map<K, Long> counts) {
        if (counts == null) {
            return List.of();
        }
        List<Map.Entry<K, Long>> out = new ArrayList<>();
        counts.forEach((k, v) -> out.add(Map.entry(k, v)));
        out.sort(Map.Entry.<K, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        return List.copyOf(out);
    }

    /** Leaks first, by net bytes, net objects; then replaced groups by new bytes, objects; then head type, path. */
    public static final Comparator<LeakGroup> RANK = Comparator.comparing((LeakGroup g) -> !g.leak())
        .thenComparing(Comparator.comparingLong((LeakGroup g) -> g.leak() ? g.netBytes() : g.newBytes()).reversed())
        .thenComparing(Comparator.comparingLong((LeakGroup g) -> g.leak() ? g.netObjects() : g.objects()).reversed())
        .thenComparing(LeakGroup::headType)
        .thenComparing(LeakGroup::path, SnapshotComparison::compareLists);

    private static List<LeakGroup> leakGroups(HeapSnapshot target, HeapAnalysis analysis, boolean[] isNew,
                                              Baseline side) {
        int n = target.objectCount();
        int[] retainedBy = analysis.retainedBy();
        Heads th = heads(target, analysis, isNew);
        int[] parent = th.parent();
        int[] headOf = th.headOf();
        // map-like tables: heads under the same holder, reference kind and type, but under MAP_KEYS or more
        // distinct names (string keys of a cache or registry) are one leak, not one per key
        Map<Long, java.util.Set<String>> namesByHolder = new HashMap<>();
        for (int h = 0; h < n; h++) {
            if (headOf[h] == h && parent[h] >= 0 && target.referenceName(retainedBy[h]) != null) {
                namesByHolder.computeIfAbsent(holderKey(target, parent[h], retainedBy[h], h), k -> new java.util.HashSet<>())
                    .add(target.referenceName(retainedBy[h]));
            }
        }
        Map<List<PathHop>, long[]> groups = new HashMap<>();
        Map<List<PathHop>, Integer> examples = new HashMap<>();
        ObjectClasses classes = ObjectClasses.compute(target, analysis);
        Map<List<PathHop>, Map<String, Long>> classesOf = new HashMap<>();
        Map<List<PathHop>, Map<Integer, Long>> categoriesOf = new HashMap<>();
        // per group: its heads' path keys, each with its new heads, objects and bytes there
        Map<List<PathHop>, TreeMap<Long, long[]>> headKeys = new HashMap<>();
        Map<Long, long[]> newAt = new HashMap<>();
        long[] retained = analysis.retainedSize();
        // with allocation sites: per head, the id of its group key (keyIds)
        int[] keyOfHead = target.sites().tracked() ? new int[n] : null;
        Map<List<PathHop>, Integer> keyIds = new HashMap<>();
        for (int h = 0; h < n; h++) {
            if (headOf[h] != h) {
                continue;
            }
            List<PathHop> hops = new ArrayList<>(path(target, analysis, parent, h));
            if (parent[h] >= 0 && target.referenceName(retainedBy[h]) != null
                && namesByHolder.get(holderKey(target, parent[h], retainedBy[h], h)).size() >= MAP_KEYS) {
                hops.set(hops.size() - 1, hops.get(hops.size() - 1).folded());
            }
            // the head's type closes the key: a hop of its own kind, never shown
            hops.add(new PathHop(null, HEAD, "", target.type(h)));
            List<PathHop> key = List.copyOf(hops);
            long[] g = groups.computeIfAbsent(key, k -> new long[4]);
            if (keyOfHead != null) {
                Integer id = keyIds.get(key);
                if (id == null) {
                    id = keyIds.size();
                    keyIds.put(key, id);
                }
                keyOfHead[h] = id;
            }
            g[0] += th.members()[h];
            g[1] = ByteSums.add(g[1], th.memberBytes()[h]);
            g[2] = ByteSums.add(g[2], retained[h]);
            g[3]++;
            String className = classes.className(h);
            if (className != null) {
                classesOf.computeIfAbsent(key, k -> new HashMap<>()).merge(className, 1L, Long::sum);
            }
            if (target.category(h) >= 0) {
                categoriesOf.computeIfAbsent(key, k -> new HashMap<>()).merge(target.category(h), 1L, Long::sum);
            }
            Integer ex = examples.get(key);
            if (ex == null || retained[h] > retained[ex]
                || (retained[h] == retained[ex] && target.address(h).compareTo(target.address(ex)) < 0)) {
                examples.put(key, h);
            }
            if (side != null) {
                long pk = side.targetKeys()[h];
                long[] own = headKeys.computeIfAbsent(key, k -> new TreeMap<>()).computeIfAbsent(pk, k -> new long[3]);
                long[] at = newAt.computeIfAbsent(pk, k -> new long[3]);
                for (long[] a : List.of(own, at)) {
                    a[0]++;
                    a[1] += th.members()[h];
                    a[2] = ByteSums.add(a[2], th.memberBytes()[h]);
                }
            }
        }
        List<List<PathHop>> keys = new ArrayList<>(groups.keySet());
        List<LeakGroup> result = new ArrayList<>();
        for (List<PathHop> key : keys) {
            long[] g = groups.get(key);
            result.add(new LeakGroup(g[0], g[1], g[2], g[3], key.get(key.size() - 1).type(),
                key.subList(0, key.size() - 1), examples.get(key), mostFirst(classesOf.get(key)),
                mostFirst(categoriesOf.get(key))));
        }
        if (keyOfHead != null) {
            int[] groupOfKey = new int[keyIds.size()];
            for (int i = 0; i < keys.size(); i++) {
                groupOfKey[keyIds.get(keys.get(i))] = i;
            }
            result = withSites(target, headOf, keyOfHead, groupOfKey, result);
        }
        if (side != null) {
            // the freed objects are shared out in the order of new bytes (the ranking without net growth)
            Comparator<LeakGroup> byNew = Comparator.comparingLong(LeakGroup::newBytes).reversed()
                .thenComparing(Comparator.comparingLong(LeakGroup::objects).reversed())
                .thenComparing(LeakGroup::headType)
                .thenComparing(LeakGroup::path, SnapshotComparison::compareLists);
            result.sort(byNew);
            List<TreeMap<Long, long[]>> perGroup = new ArrayList<>();
            for (LeakGroup g : result) {
                List<PathHop> key = new ArrayList<>(g.hops());
                key.add(new PathHop(null, HEAD, "", g.headType()));
                perGroup.add(headKeys.get(List.copyOf(key)));
            }
            result = withNetGrowth(result, perGroup, newAt, side);
        }
        result.sort(RANK);
        return List.copyOf(result);
    }

    /**
     * The groups with the allocation sites of their objects ({@link SiteCount}, the {@link #SITES_KEPT} largest by
     * bytes, then objects, then text; the objects without a site form one row, site null). Each object counts in the
     * group of its head.
     *
     * @param keyOfHead  per head, the id of its group key
     * @param groupOfKey per key id, the index of its group in {@code groups}
     */
    private static List<LeakGroup> withSites(HeapSnapshot target, int[] headOf, int[] keyOfHead, int[] groupOfKey,
                                             List<LeakGroup> groups) {
        dev.heapload.model.AllocationSites sites = target.sites();
        List<Map<Integer, long[]>> perGroup = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            perGroup.add(new HashMap<>());
        }
        for (int o = 0; o < target.objectCount(); o++) {
            int h = headOf[o];
            if (h < 0) {
                continue;
            }
            long[] c = perGroup.get(groupOfKey[keyOfHead[h]]).computeIfAbsent(sites.site(o), k -> new long[2]);
            c[0]++;
            c[1] = ByteSums.add(c[1], target.shallowSize(o));
        }
        List<LeakGroup> out = new ArrayList<>(groups.size());
        for (int i = 0; i < groups.size(); i++) {
            List<SiteCount> rows = new ArrayList<>();
            for (var e : perGroup.get(i).entrySet()) {
                int site = e.getKey();
                rows.add(new SiteCount(site == dev.heapload.model.AllocationSites.NO_SITE ? null : sites.text(site),
                    e.getValue()[0], e.getValue()[1]));
            }
            rows.sort(Comparator.comparingLong(SiteCount::bytes).reversed()
                .thenComparing(Comparator.comparingLong(SiteCount::objects).reversed())
                .thenComparing(r -> r.site() == null ? "" : r.site()));
            out.add(groups.get(i).withSites(rows.subList(0, Math.min(SITES_KEPT, rows.size()))));
        }
        return out;
    }

    /**
     * The groups with their net growth (see {@link LeakGroup}), counted per path key, so that it does not depend on
     * which objects the identity rule paired (an allocator that reuses a freed address for a new object of the same
     * type makes a new object look old): per head key K, {@code t} and {@code b} objects at K in the target and the
     * baseline, and the growth of K's subtree in the tree of path keys (objects and shallow bytes at K and at every
     * key below it, target minus baseline). The new heads at K replaced {@code max(0, new heads - (t - b))} freed ones,
     * and their new objects and bytes replaced {@code max(0, new - subtree growth)} freed ones. Groups that share a
     * head key share these out by their new heads there (the last in order takes the remainder).
     *
     * @param groups   in the order the freed objects are shared out
     * @param headKeys per group, its heads' path keys, each with the group's new heads there, their objects and bytes
     * @param newAt    per head key: new heads, their objects and their bytes (over all groups)
     */
    private static List<LeakGroup> withNetGrowth(List<LeakGroup> groups, List<TreeMap<Long, long[]>> headKeys,
                                                 Map<Long, long[]> newAt, Baseline side) {
        KeyTree tree = new KeyTree();
        tree.add(side.target(), side.targetAnalysis(), side.targetKeys(), 1);
        tree.add(side.snapshot(), side.analysis(), side.keys(), -1);
        tree.sumSubtrees();
        LongIntHashMap lastGroup = new LongIntHashMap();
        for (int i = 0; i < groups.size(); i++) {
            for (long k : headKeys.get(i).keySet()) {
                lastGroup.put(k, i);
            }
        }
        // per head key: what is left to share out (freed heads, objects, bytes), and the new ones not yet shared
        Map<Long, long[]> left = new HashMap<>();
        for (var e : newAt.entrySet()) {
            long k = e.getKey();
            long[] na = e.getValue();
            long netHeads = tree.count(k, 1) - tree.count(k, -1);
            left.put(k, new long[] {Math.max(0, na[0] - netHeads), Math.max(0, na[1] - tree.subtreeObjects(k)),
                Math.max(0, na[2] - tree.subtreeBytes(k)), na[0], na[1], na[2]});
        }
        List<LeakGroup> out = new ArrayList<>(groups.size());
        for (int i = 0; i < groups.size(); i++) {
            LeakGroup g = groups.get(i);
            long before = 0;
            long[] freed = new long[3];
            for (var e : headKeys.get(i).entrySet()) {
                long k = e.getKey();
                before += tree.count(k, -1);
                long[] l = left.get(k);
                long[] own = e.getValue();
                for (int x = 0; x < 3; x++) {
                    // the last group at this key takes the remainder; the others in proportion to their new ones
                    long share = lastGroup.get(k) == i || l[3 + x] <= 0 ? l[x]
                        : (long) Math.floor((double) l[x] * own[x] / l[3 + x]);
                    share = Math.min(share, l[x]);
                    l[x] -= share;
                    l[3 + x] -= own[x];
                    freed[x] += share;
                }
            }
            long freedHeads = freed[0];
            long freedObjects = freed[1];
            long freedBytes = freed[2];
            out.add(new LeakGroup(g.objects(), g.newBytes(), g.retainedBytes(), g.heads(), g.headType(), g.hops(),
                g.example(), Verdict.of(before, g.objects() - freedObjects), before, freedHeads, freedObjects,
                freedBytes, g.headClasses(), g.headCategories(), g.sites()));
        }
        return out;
    }

    /**
     * The tree of path keys of two snapshots: per key, its objects in each snapshot and the growth (target minus
     * baseline, objects and shallow bytes) of the key and of all keys below it. A key's parent is the key of its
     * objects' retention parent (the same for all of them: a key includes its parent's key).
     */
    private static final class KeyTree {
        private final LongLongHashMap targetCount = new LongLongHashMap();
        private final LongLongHashMap baselineCount = new LongLongHashMap();
        private final LongLongHashMap objects = new LongLongHashMap();
        private final LongLongHashMap bytes = new LongLongHashMap();
        private final LongLongHashMap parent = new LongLongHashMap();
        private final LongIntHashMap depth = new LongIntHashMap();
        private final org.eclipse.collections.impl.set.mutable.primitive.LongHashSet roots =
            new org.eclipse.collections.impl.set.mutable.primitive.LongHashSet();

        /** Adds the reachable objects of {@code s} with {@code sign} 1 (target) or -1 (baseline). */
        void add(HeapSnapshot s, HeapAnalysis analysis, long[] keys, int sign) {
            boolean[] reachable = analysis.reachable();
            LongLongHashMap counts = sign > 0 ? targetCount : baselineCount;
            for (int o = 0; o < s.objectCount(); o++) {
                if (!reachable[o]) {
                    continue;
                }
                long k = keys[o];
                counts.addToValue(k, 1);
                objects.addToValue(k, sign);
                bytes.addToValue(k, sign * s.shallowSize(o));
                if (!depth.containsKey(k)) {
                    depth.put(k, analysis.distance()[o]);
                    int r = analysis.retainedBy()[o];
                    if (r < 0) {
                        roots.add(k);
                    } else {
                        parent.put(k, keys[s.referenceSource(r)]);
                    }
                }
            }
        }

        /** Turns the per-key growth into the growth of each key's subtree: deepest keys first, each into its parent. */
        void sumSubtrees() {
            long[] keys = depth.keySet().toArray();
            int[] order = new int[keys.length];
            Integer[] boxed = new Integer[keys.length];
            for (int i = 0; i < keys.length; i++) {
                boxed[i] = i;
            }
            Arrays.sort(boxed, (x, y) -> Integer.compare(depth.get(keys[y]), depth.get(keys[x])));
            for (int i = 0; i < keys.length; i++) {
                order[i] = boxed[i];
            }
            for (int i : order) {
                long k = keys[i];
                if (roots.contains(k) || !parent.containsKey(k)) {
                    continue;
                }
                long p = parent.get(k);
                // a key deeper than its parent only (a hash collision could make a cycle)
                if (depth.getIfAbsent(p, Integer.MAX_VALUE) < depth.get(k)) {
                    objects.addToValue(p, objects.get(k));
                    bytes.addToValue(p, bytes.get(k));
                }
            }
        }

        /** Objects at key {@code k} in the target ({@code sign} 1) or the baseline (-1). */
        long count(long k, int sign) {
            return (sign > 0 ? targetCount : baselineCount).get(k);
        }

        /** Growth of {@code k}'s subtree in objects (after {@link #sumSubtrees}). */
        long subtreeObjects(long k) {
            return objects.get(k);
        }

        /** Growth of {@code k}'s subtree in shallow bytes (after {@link #sumSubtrees}). */
        long subtreeBytes(long k) {
            return bytes.get(k);
        }
    }

    /**
     * The objects of {@code mask} that are reachable in {@code target}, grouped as leak groups are (by the retention
     * path and type of their topmost masked object), largest first (new bytes, objects, head type, path); verdict
     * {@link Verdict#NEW} without net growth. For views other than "new relative to a baseline", e.g. the survivors of
     * {@link SurvivorView}.
     */
    public static List<LeakGroup> groups(HeapSnapshot target, HeapAnalysis analysis, boolean[] mask) {
        return leakGroups(target, analysis, mask, null);
    }

    /** Holder object, reference kind and head type packed into one key. */
    private static long holderKey(HeapSnapshot s, int holder, int reference, int head) {
        return ((long) holder << 32) | ((long) s.referenceKindId(reference) << 24) | s.typeId(head);
    }

    /** Kind of the pseudo-hop that closes a group key with the head's type. */
    private static final String HEAD = "head";

    /**
     * The retention path of {@code o} as hops, root first (see the class comment); the root hop's name is {@code null}
     * when the root has none.
     *
     * @param parent per object, the source of its retention reference ({@code -1}: a root or unreachable)
     */
    public static List<PathHop> path(HeapSnapshot s, HeapAnalysis analysis, int[] parent, int o) {
        List<PathHop> hops = new ArrayList<>();
        int x = o;
        while (parent[x] >= 0) {
            hops.add(PathHop.of(s, analysis.retainedBy()[x], parent[x]));
            x = parent[x];
        }
        int root = analysis.rootOf()[x];
        hops.add(PathHop.root(s, root >= 0 ? s.roots().get(root).name() : null, x));
        java.util.Collections.reverse(hops);
        return List.copyOf(hops);
    }

    private static int compareLists(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private static List<Growth> growth(HeapSnapshot baseline, HeapSnapshot target, HeapAnalysis targetAnalysis,
                                       SnapshotDiff diff) {
        Comparator<Growth> order = Comparator.comparingLong((Growth g) -> g.sizeAfter() - g.sizeBefore()).reversed()
            .thenComparing(Comparator.comparingLong((Growth g) -> g.refsAfter() - g.refsBefore()).reversed())
            .thenComparing(g -> target.address(g.target()));
        // bounded heap whose head is the smallest growth kept: O(n log GROWTH_ROWS)
        java.util.PriorityQueue<Growth> kept = new java.util.PriorityQueue<>(GROWTH_ROWS + 1, order.reversed());
        for (int o = 0; o < target.objectCount(); o++) {
            int b = diff.sameAddress()[o];
            if (diff.isNew()[o] || b < 0) {
                continue;
            }
            long before = baseline.shallowSize(b);
            long after = target.shallowSize(o);
            long refsBefore = strongOutDegree(baseline, b);
            long refsAfter = strongOutDegree(target, o);
            if (after > before || refsAfter > refsBefore) {
                Growth g = new Growth(o, before, after, refsBefore, refsAfter, null);
                if (kept.size() == GROWTH_ROWS && order.compare(g, kept.peek()) >= 0) {
                    continue;
                }
                kept.add(g);
                if (kept.size() > GROWTH_ROWS) {
                    kept.poll();
                }
            }
        }
        List<Growth> rows = new ArrayList<>(kept);
        rows.sort(order);
        List<Growth> out = new ArrayList<>(rows.size());
        for (Growth g : rows) {
            out.add(new Growth(g.target(), g.sizeBefore(), g.sizeAfter(), g.refsBefore(), g.refsAfter(),
                targetAnalysis == null ? null : RetentionPath.hops(target, targetAnalysis, g.target())));
        }
        return List.copyOf(out);
    }

    private static long strongOutDegree(HeapSnapshot s, int o) {
        long count = 0;
        for (int r = s.firstReference(o); r < s.firstReference(o + 1); r++) {
            if (!s.isWeak(r)) {
                count++;
            }
        }
        return count;
    }
}
