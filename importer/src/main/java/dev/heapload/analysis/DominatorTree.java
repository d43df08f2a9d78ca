package dev.heapload.analysis;

import java.util.Arrays;

import dev.heapload.model.ByteSums;
import dev.heapload.model.HeapSnapshot;

/**
 * Immediate dominators and retained sizes over the strong reachable graph, with a super-root whose
 * children are the GC roots.
 *
 * <p>Algorithm: Lengauer and Tarjan, "A Fast Algorithm for Finding Dominators in a Flowgraph" (ACM
 * TOPLAS 1979), the simple version (path compression without balancing, O(m log n)), written
 * without recursion: the depth-first numbering uses an explicit stack and {@code eval}'s path
 * compression an explicit array, so chains millions of objects deep are fine.
 *
 * <p>The graph is the one {@link Reachability} walks: references flagged {@link HeapSnapshot#WEAK} are
 * left out; ephemeron values count as edges from their table only when the table's reachable set
 * already reaches them (i.e. only edges into reachable objects are considered, and for ephemeron edges
 * only when the key is reachable). An object that an ephemeron entry keeps alive is thereby attributed to
 * the table, not the key: its retained size is a lower bound for the key.
 *
 * <p>Retained size of {@code o} = shallow size of {@code o} + retained sizes of the objects it
 * immediately dominates; the super-root's retained size equals the total shallow size of reachable
 * objects.
 *
 * <p>Memory: at most 40 bytes per reachable object plus 4 bytes per strong reference (predecessor lists), all
 * primitive arrays, each let go as soon as the algorithm is done with it.
 */
public final class DominatorTree {

    private DominatorTree() {
    }

    /**
     * Computes immediate dominators and retained sizes.
     *
     * @param snapshot           the heap
     * @param distance           per object, from {@link Reachability}: {@code -1} marks unreachable objects
     * @param immediateDominator out: per object, the immediate dominator's object id, {@code -1} when the
     *                           super-root dominates it or it is unreachable
     * @param retainedSize       out: per object, retained bytes (0 when unreachable)
     * @return the super-root's retained size: total shallow bytes of the reachable objects
     */
    public static long compute(HeapSnapshot snapshot, int[] distance, int[] immediateDominator, long[] retainedSize) {
        int n = snapshot.objectCount();
        int[] first = snapshot.firstReferenceColumn();
        int[] targets = snapshot.referenceTargetColumn();
        byte[] flags = snapshot.referenceFlagsColumn();
        Arrays.fill(immediateDominator, -1);
        Arrays.fill(retainedSize, 0L);

        // Vertex numbering: 0 = super-root, object o = o + 1.
        int vertices = n + 1;
        // 1. depth-first preorder numbering from the super-root
        int[] number = new int[vertices];          // vertex -> preorder number + 1 (0 = not visited)
        int[] vertexOf = new int[vertices];        // preorder number -> vertex
        int[] parent = new int[vertices];          // preorder number -> parent's preorder number
        int count = 0;
        int[] stackVertex = new int[vertices];
        int[] stackEdge = new int[vertices];
        int sp = 0;
        var roots = snapshot.roots();

        number[0] = ++count;
        vertexOf[0] = 0;
        parent[0] = -1;
        int rootCursor = 0;
        stackVertex[sp++] = 0;
        while (sp > 0) {
            int v = stackVertex[sp - 1];
            int next = -1;
            if (v == 0) {
                while (next < 0 && rootCursor < roots.size()) {
                    int w = roots.get(rootCursor++).object() + 1;
                    if (number[w] == 0) {
                        next = w;
                    }
                }
            } else {
                int o = v - 1;
                int end = first[o + 1];
                int e = stackEdge[sp - 1];
                while (next < 0 && e < end) {
                    int edge = e++;
                    int w = targets[edge] + 1;
                    if (number[w] == 0 && isStrongEdge(edge, first[o], targets, flags, distance)) {
                        next = w;
                    }
                }
                stackEdge[sp - 1] = e;
            }
            if (next < 0) {
                sp--;
                continue;
            }
            number[next] = ++count;
            vertexOf[count - 1] = next;
            parent[count - 1] = number[v] - 1;
            stackVertex[sp] = next;
            stackEdge[sp] = first[next - 1];
            sp++;
        }
        stackVertex = null;
        stackEdge = null;

        // 2. predecessor lists in preorder-number space (strong edges between numbered vertices)
        int[] predFirst = new int[count + 1];
        for (int r = 0; r < roots.size(); r++) {
            int w = number[roots.get(r).object() + 1] - 1;
            predFirst[w + 1]++;
        }
        for (int o = 0; o < n; o++) {
            if (number[o + 1] == 0) {
                continue;
            }
            for (int e = first[o]; e < first[o + 1]; e++) {
                if (isStrongEdge(e, first[o], targets, flags, distance)) {
                    predFirst[number[targets[e] + 1]]++;
                }
            }
        }
        for (int i = 0; i < count; i++) {
            predFirst[i + 1] += predFirst[i];
        }
        int[] pred = new int[predFirst[count]];
        int[] fill = Arrays.copyOf(predFirst, count);
        for (int r = 0; r < roots.size(); r++) {
            int w = number[roots.get(r).object() + 1] - 1;
            pred[fill[w]++] = 0;
        }
        for (int o = 0; o < n; o++) {
            int vnum = number[o + 1] - 1;
            if (vnum < 0) {
                continue;
            }
            for (int e = first[o]; e < first[o + 1]; e++) {
                if (isStrongEdge(e, first[o], targets, flags, distance)) {
                    int w = number[targets[e] + 1] - 1;
                    pred[fill[w]++] = vnum;
                }
            }
        }
        fill = null;
        number = null;

        // 3. semidominators and immediate dominators (all in preorder-number space)
        int[] semi = new int[count];
        int[] label = new int[count];
        int[] ancestor = new int[count];
        int[] idom = new int[count];
        int[] bucketHead = new int[count];
        int[] bucketNext = new int[count];
        int[] compressStack = new int[count];
        for (int i = 0; i < count; i++) {
            semi[i] = i;
            label[i] = i;
            ancestor[i] = -1;
            bucketHead[i] = -1;
        }
        for (int w = count - 1; w >= 1; w--) {
            for (int p = predFirst[w]; p < predFirst[w + 1]; p++) {
                int v = pred[p];
                int u = eval(v, ancestor, label, semi, compressStack);
                if (semi[u] < semi[w]) {
                    semi[w] = semi[u];
                }
            }
            int s = semi[w];
            bucketNext[w] = bucketHead[s];
            bucketHead[s] = w;
            int pw = parent[w];
            ancestor[w] = pw;
            for (int v = bucketHead[pw]; v >= 0; v = bucketNext[v]) {
                int u = eval(v, ancestor, label, semi, compressStack);
                idom[v] = semi[u] < semi[v] ? u : pw;
            }
            bucketHead[pw] = -1;
        }
        idom[0] = -1;
        for (int w = 1; w < count; w++) {
            if (idom[w] != semi[w]) {
                idom[w] = idom[idom[w]];
            }
        }

        semi = null;
        label = null;
        ancestor = null;
        bucketHead = null;
        bucketNext = null;
        compressStack = null;
        pred = null;
        predFirst = null;
        parent = null;

        // 4. retained sizes, summed in object space straight into retainedSize: children have larger preorder
        // numbers than their immediate dominator
        long[] sizes = snapshot.shallowSizeColumn();
        long superRoot = 0;
        for (int w = count - 1; w >= 1; w--) {
            int o = vertexOf[w] - 1;
            int d = idom[w];
            // saturating (ByteSums): a dump may declare sizes that sum past 2^63
            long r = ByteSums.add(retainedSize[o], sizes[o]);
            retainedSize[o] = r;
            if (d == 0) {
                superRoot = ByteSums.add(superRoot, r);
                immediateDominator[o] = -1;
            } else {
                int dominator = vertexOf[d] - 1;
                retainedSize[dominator] = ByteSums.add(retainedSize[dominator], r);
                immediateDominator[o] = dominator;
            }
        }
        return superRoot;
    }

    private static boolean isStrongEdge(int e, int firstOfSource, int[] targets, byte[] flags, int[] distance) {
        int f = flags[e];
        if ((f & (HeapSnapshot.EPHEMERON_VALUE | HeapSnapshot.WEAK_KEY_VALUE)) != 0) {
            // an ephemeron value, or a Lua 5.1 weak-key value whose entry survived (its key is reachable)
            return e > firstOfSource && distance[targets[e - 1]] >= 0 && distance[targets[e]] >= 0;
        }
        return (f & HeapSnapshot.WEAK) == 0 && distance[targets[e]] >= 0;
    }

    private static int eval(int v, int[] ancestor, int[] label, int[] semi, int[] stack) {
        if (ancestor[v] < 0) {
            return v;
        }
        // iterative path compression
        int top = 0;
        int x = v;
        while (ancestor[ancestor[x]] >= 0) {
            stack[top++] = x;
            x = ancestor[x];
        }
        while (top > 0) {
            x = stack[--top];
            int a = ancestor[x];
            if (semi[label[a]] < semi[label[x]]) {
                label[x] = label[a];
            }
            ancestor[x] = ancestor[a];
        }
        return label[v];
    }
}
