package dev.heapload.analysis;

import java.util.Arrays;

import dev.heapload.model.HeapSnapshot;

/**
 * Strong reachability from the GC roots, with each object's distance and retention path, computed the
 * way the VM's collector decides liveness, from the per-reference flags the format reader set:
 * <ul>
 *   <li>a reference flagged {@link HeapSnapshot#WEAK} never keeps its target alive (Luau and Lua
 *       {@code __mode} tables per lgc.c {@code traversetable}; MicroPython weak-reference entries);</li>
 *   <li>a reference flagged {@link HeapSnapshot#EPHEMERON_VALUE} keeps its target alive only once the
 *       entry's key (the target of the reference just before it) is reachable by other means (Lua 5.2+
 *       ephemeron tables, per Lua 5.4 lgc.c {@code traverseephemeron}, a fixpoint);</li>
 *   <li>a reference flagged {@link HeapSnapshot#WEAK_KEY_VALUE} (Lua 5.1 / LuaJIT weak-key tables, no
 *       ephemerons) is strong while its entry survives; an entry whose key (the target of the reference
 *       just before it) is unreachable after a search is dropped, per Lua 5.1 lgc.c {@code cleartable}, and
 *       the search is repeated until no entry is dropped (each round only removes references, so this
 *       ends; usually after two rounds);</li>
 *   <li>every other reference is strong.</li>
 * </ul>
 * Readers translate each VM's rules (which tables are weak, whether weak-key tables are ephemerons) into
 * these flags, so this engine has no VM-specific cases.
 *
 * <p>The walk is a breadth-first search seeded with the roots in dump order, following each object's
 * references in dump order. The first time an object is discovered fixes its distance (hops from the
 * nearest root) and its retention path's last hop, so the path is the first shortest strong path and is
 * the same on every run over the same dump. An ephemeron value whose key is not yet reached is parked
 * on the key and discovered when the key is processed; its distance is still the length of its retention
 * path (table's distance + 1), so in that one case discovery order and distance order can differ.
 *
 * <p>Time O(objects + references); extra memory 4 bytes per object (queue) plus 8 bytes per parked
 * ephemeron entry. No recursion.
 */
public final class Reachability {

    private Reachability() {
    }

    /**
     * Runs the search.
     *
     * @param snapshot   the heap
     * @param distance   out: per object, hops from the nearest root, {@code -1} when unreachable
     *                   (length {@code objectCount})
     * @param retainedBy out: per object, the reference id of the last hop of its retention path, {@code -1}
     *                   for roots and unreachable objects
     * @param rootOf     out: per object, index into {@code snapshot.roots()} where its path starts, {@code -1}
     *                   when unreachable
     * @return the object ids in discovery (BFS) order: exactly the reachable objects
     */
    public static int[] compute(HeapSnapshot snapshot, int[] distance, int[] retainedBy, int[] rootOf) {
        byte[] flags = snapshot.referenceFlagsColumn();
        int[] targets = snapshot.referenceTargetColumn();
        boolean keyed = false;
        for (byte f : flags) {
            if ((f & HeapSnapshot.WEAK_KEY_VALUE) != 0) {
                keyed = true;
                break;
            }
        }
        if (!keyed) {
            return search(snapshot, distance, retainedBy, rootOf, null);
        }
        int[] first = snapshot.firstReferenceColumn();
        boolean[] dropped = new boolean[flags.length];
        while (true) {
            int[] order = search(snapshot, distance, retainedBy, rootOf, dropped);
            boolean changed = false;
            for (int o = 0; o < snapshot.objectCount(); o++) {
                for (int e = first[o] + 1; e < first[o + 1]; e++) {
                    if ((flags[e] & HeapSnapshot.WEAK_KEY_VALUE) != 0 && !dropped[e] && distance[targets[e - 1]] < 0) {
                        dropped[e] = true;
                        changed = true;
                    }
                }
            }
            if (!changed) {
                return order;
            }
        }
    }

    private static int[] search(HeapSnapshot snapshot, int[] distance, int[] retainedBy, int[] rootOf, boolean[] dropped) {
        int n = snapshot.objectCount();
        Arrays.fill(distance, -1);
        Arrays.fill(retainedBy, -1);
        Arrays.fill(rootOf, -1);
        int[] first = snapshot.firstReferenceColumn();
        int[] targets = snapshot.referenceTargetColumn();
        byte[] flags = snapshot.referenceFlagsColumn();

        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        var roots = snapshot.roots();
        for (int r = 0; r < roots.size(); r++) {
            int o = roots.get(r).object();
            if (distance[o] < 0) {
                distance[o] = 0;
                rootOf[o] = r;
                queue[tail++] = o;
            }
        }
        // parked ephemeron values: per key object, a linked list of reference ids
        int[] parkedHead = null;
        int[] parkedRef = new int[0];
        int[] parkedTable = new int[0];
        int[] parkedNext = new int[0];
        int parkedCount = 0;

        while (head < tail) {
            int u = queue[head++];
            int du = distance[u];
            for (int e = first[u], end = first[u + 1]; e < end; e++) {
                int f = flags[e];
                if ((f & HeapSnapshot.EPHEMERON_VALUE) != 0) {
                    int key = e > first[u] ? targets[e - 1] : -1;
                    if (key >= 0 && distance[key] < 0) {
                        if (parkedHead == null) {
                            parkedHead = new int[n];
                            Arrays.fill(parkedHead, -1);
                        }
                        if (parkedCount == parkedRef.length) {
                            int cap = Math.max(16, parkedCount * 2);
                            parkedRef = Arrays.copyOf(parkedRef, cap);
                            parkedTable = Arrays.copyOf(parkedTable, cap);
                            parkedNext = Arrays.copyOf(parkedNext, cap);
                        }
                        parkedRef[parkedCount] = e;
                        parkedTable[parkedCount] = u;
                        parkedNext[parkedCount] = parkedHead[key];
                        parkedHead[key] = parkedCount++;
                        continue;
                    }
                } else if ((f & HeapSnapshot.WEAK) != 0 || dropped != null && dropped[e]) {
                    continue;
                }
                int v = targets[e];
                if (distance[v] < 0) {
                    distance[v] = du + 1;
                    retainedBy[v] = e;
                    rootOf[v] = rootOf[u];
                    queue[tail++] = v;
                }
            }
            if (parkedHead != null && parkedHead[u] >= 0) {
                for (int p = parkedHead[u]; p >= 0; p = parkedNext[p]) {
                    int e = parkedRef[p];
                    int table = parkedTable[p];
                    int v = targets[e];
                    if (distance[v] < 0) {
                        distance[v] = distance[table] + 1;
                        retainedBy[v] = e;
                        rootOf[v] = rootOf[table];
                        queue[tail++] = v;
                    }
                }
                parkedHead[u] = -1;
            }
        }
        return Arrays.copyOf(queue, tail);
    }
}
