package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

import dev.heapload.model.ByteSums;
import dev.heapload.model.HeapSnapshot;

/**
 * The breadth-first "reachability tree" of Luau's {@code tools/heapgraph.py}: every object is charged to
 * one tree node, named by the path that first reached it (root names, string keys, {@code __meta},
 * {@code __env}, {@code __proto}, {@code __stack} with frames and locals, upvalues under their function's
 * source). Node self size/count are the bytes/objects charged to it; the total of a node is its self size
 * plus its children's totals.
 *
 * <p>Algorithm per shared/docs/formats/luau-luaC_dump.md §9 (heapgraph.py as of luau 367f9d83): FIFO
 * queue seeded with the roots in dump order; an object is charged to the node of the first queue entry
 * that pops it; child nodes are created when an edge is queued. Edge naming: table value under a string
 * key → child named by the key; metatable → {@code __meta}; closure env → {@code __env}; proto →
 * {@code __proto}; closure upvalue → child named by the proto's source ({@code ""} for C closures);
 * thread env → {@code __env}; stack slots under {@code __stack}, grouped by frame ({@code frame:} prefix
 * stripped) and by local name; everything else stays in the current node. A key's child is named as paths show it
 * ({@link PathHop#displayName}, the one rule of every output): a string key that is empty or starts with {@code [} or
 * {@code "} in double quotes, so the string key {@code "[1]"} and a Lua dump's number key {@code [1]} are two nodes,
 * and every renderer ({@code tree}'s text, the icicle graph, the JSON) shows the difference (heapgraph.py names such
 * a node by the bare key).
 *
 * <p>Deliberate differences, where heapgraph.py disagrees with the Luau GC (lgc.cpp {@code traversetable}):
 * weak references (as flagged by the reader) are never followed, so the array part of a weak-valued
 * table is not followed (heapgraph.py follows it), while string values of weak-valued tables are followed
 * (strings are never weak; heapgraph.py skips them). References of experimental {@code class}/{@code
 * object} records are followed like the GC marks them (heapgraph.py ignores them). Everywhere else the
 * numbers equal heapgraph.py's. Lua dumps: the value of an ephemeron (Lua 5.2+) or Lua 5.1/LuaJIT weak-key
 * entry is followed only when its key is alive per {@link Reachability}. No recursion: deep chains are fine.
 */
public final class ReachabilityTree {

    /**
     * A tree node: name, the type of the object it names, bytes and objects charged to it, children by name in
     * creation order.
     */
    public static final class Node {
        private final String name;
        private String type;
        private final Map<String, Node> children = new LinkedHashMap<>();
        private long size;
        private long count;
        private long total;
        private long totalCount;
        private final Map<Integer, long[]> byCategory;

        Node(String name, boolean split) {
            this.name = name;
            this.byCategory = split ? new LinkedHashMap<>() : null;
        }

        Node child(String childName) {
            Node c = children.get(childName);
            if (c == null) {
                c = new Node(childName, byCategory != null);
                children.put(childName, c);
            }
            return c;
        }

        /** The node's name ({@code ""} for the tree's root). */
        public String name() {
            return name;
        }

        /**
         * The type name ({@link HeapSnapshot#type}) of the first object the walk reached through this node's path
         * (the object the path names, e.g. the value under a table key), whether it was counted or not; {@code null}
         * for the root, a split's category nodes, and nodes whose every object had been reached earlier by
         * another path.
         */
        public String type() {
            return type;
        }

        /** Bytes of the objects charged to this node itself. */
        public long size() {
            return size;
        }

        /** Number of objects charged to this node itself. */
        public long count() {
            return count;
        }

        /** Bytes of this node and all nodes below it. */
        public long total() {
            return total;
        }

        /** Objects of this node and all nodes below it. */
        public long totalCount() {
            return totalCount;
        }

        /** Children in creation order (nodes with a zero total are left out). */
        public List<Node> children() {
            List<Node> out = new ArrayList<>();
            for (Node c : children.values()) {
                if (c.total > 0 || c.totalCount > 0) {
                    out.add(c);
                }
            }
            return Collections.unmodifiableList(out);
        }
    }

    /** How {@code --split} groups by memory category, as heapgraph.py's option of the same name. */
    public enum Split {
        /** One tree. */
        NONE,
        /** One subtree per category, categories below 128 merged into 0 (the VM's built-in range). */
        CUSTOM,
        /** One subtree per category. */
        ALL
    }

    private ReachabilityTree() {
    }

    /**
     * Builds the tree.
     *
     * @param snapshot the heap
     * @param counted  which objects are charged (all, or only those new relative to a baseline)
     * @param split    grouping by memory category
     * @return the root node (name {@code ""}); with a split, its children are one node per category, named
     *         by the category's name (or its number when it has none)
     */
    public static Node build(HeapSnapshot snapshot, IntPredicate counted, Split split) {
        boolean bySplit = split != Split.NONE;
        Node root = new Node("", bySplit);
        int n = snapshot.objectCount();
        boolean[] visited = new boolean[n];
        // entries of ephemeron / Lua 5.1 weak-key tables count only while their key is alive, which takes
        // the whole graph to decide (Reachability's fixpoint); Luau dumps have neither flag
        int[] keyDistance = null;
        for (int e = 0; e < snapshot.referenceCount() && keyDistance == null; e++) {
            if ((snapshot.referenceFlags(e) & (HeapSnapshot.EPHEMERON_VALUE | HeapSnapshot.WEAK_KEY_VALUE)) != 0) {
                keyDistance = new int[n];
                Reachability.compute(snapshot, keyDistance, new int[n], new int[n]);
            }
        }
        // FIFO of (object, node)
        int[] queueObject = new int[16];
        Node[] queueNode = new Node[16];
        int head = 0;
        int tail = 0;
        for (HeapSnapshot.GcRoot r : snapshot.roots()) {
            if (tail == queueObject.length) {
                queueObject = java.util.Arrays.copyOf(queueObject, tail * 2);
                queueNode = java.util.Arrays.copyOf(queueNode, tail * 2);
            }
            queueObject[tail] = r.object();
            queueNode[tail++] = root.child(r.name());
        }
        List<String> kinds = snapshot.referenceKinds();
        int kMetatable = kinds.indexOf("metatable");
        int kEnv = kinds.indexOf("env");
        int kProto = kinds.indexOf("proto");
        int kUpvalue = kinds.indexOf("upvalue");
        int kStack = kinds.indexOf("stack");
        int kValue = kinds.indexOf("value");
        String threadType = "thread";
        String functionType = "function";
        while (head < tail) {
            int o = queueObject[head];
            Node node = queueNode[head];
            queueNode[head] = null;
            head++;
            if (visited[o]) {
                continue;
            }
            visited[o] = true;
            String type = snapshot.type(o);
            if (node.type == null) {
                node.type = type;
            }
            if (counted.test(o)) {
                long size = snapshot.shallowSize(o);
                node.size = ByteSums.add(node.size, size);
                node.count++;
                if (bySplit) {
                    int cat = snapshot.category(o);
                    if (split == Split.CUSTOM && cat < 128) {
                        cat = 0;
                    }
                    long[] c = node.byCategory.computeIfAbsent(cat, k -> new long[2]);
                    c[0] = ByteSums.add(c[0], size);
                    c[1]++;
                }
            }
            boolean isThread = threadType.equals(type);
            boolean isFunction = functionType.equals(type);
            Node stackNode = null;
            Node frameNode = null;
            if (isThread) {
                // created even for an empty stack, after the env edge (as heapgraph.py does)
                for (int e = snapshot.firstReference(o); e < snapshot.firstReference(o + 1); e++) {
                    if (snapshot.referenceKindId(e) == kEnv) {
                        node.child("__env");
                    }
                }
                stackNode = node.child("__stack");
            }
            for (int e = snapshot.firstReference(o), end = snapshot.firstReference(o + 1); e < end; e++) {
                if (snapshot.isWeak(e)) {
                    continue;
                }
                if (keyDistance != null && e > snapshot.firstReference(o)
                    && (snapshot.referenceFlags(e) & (HeapSnapshot.EPHEMERON_VALUE | HeapSnapshot.WEAK_KEY_VALUE)) != 0
                    && keyDistance[snapshot.referenceTarget(e - 1)] < 0) {
                    continue; // an entry whose key is dead: the collector clears it
                }
                int kind = snapshot.referenceKindId(e);
                Node target;
                if (kind == kMetatable) {
                    target = node.child("__meta");
                } else if (kind == kEnv) {
                    target = node.child("__env");
                } else if (kind == kProto && isFunction) {
                    target = node.child("__proto");
                } else if (kind == kUpvalue && isFunction) {
                    String name = snapshot.referenceName(e);
                    target = node.child(name == null ? "" : name);
                } else if (kind == kValue) {
                    String name = snapshot.referenceName(e);
                    target = name == null ? node : node.child(PathHop.displayName(name, "value", snapshot.keyType(e)));
                } else if (kind == kStack && isThread) {
                    String name = snapshot.referenceName(e);
                    if (name != null && name.startsWith("frame:")) {
                        frameNode = stackNode.child(name.substring(6));
                        target = frameNode;
                    } else if (frameNode != null && name != null) {
                        target = frameNode.child(name);
                    } else if (frameNode != null) {
                        target = frameNode;
                    } else {
                        target = stackNode;
                    }
                } else {
                    target = node;
                }
                if (tail == queueObject.length) {
                    // compact the consumed prefix before growing
                    if (head > queueObject.length / 2) {
                        System.arraycopy(queueObject, head, queueObject, 0, tail - head);
                        System.arraycopy(queueNode, head, queueNode, 0, tail - head);
                        java.util.Arrays.fill(queueNode, tail - head, tail, null);
                        tail -= head;
                        head = 0;
                    } else {
                        queueObject = java.util.Arrays.copyOf(queueObject, queueObject.length * 2);
                        queueNode = java.util.Arrays.copyOf(queueNode, queueNode.length * 2);
                    }
                }
                queueObject[tail] = snapshot.referenceTarget(e);
                queueNode[tail++] = target;
            }
        }
        if (!bySplit) {
            sumTotals(root);
            return root;
        }
        return splitByCategory(root, snapshot, split);
    }

    /** Post-order totals without recursion. */
    private static void sumTotals(Node root) {
        List<Node> order = new ArrayList<>();
        List<Node> stack = new ArrayList<>();
        stack.add(root);
        while (!stack.isEmpty()) {
            Node n = stack.remove(stack.size() - 1);
            order.add(n);
            stack.addAll(n.children.values());
        }
        for (int i = order.size() - 1; i >= 0; i--) {
            Node n = order.get(i);
            n.total = n.size;
            n.totalCount = n.count;
            for (Node c : n.children.values()) {
                n.total = ByteSums.add(n.total, c.total);
                n.totalCount += c.totalCount;
            }
        }
    }

    /** One filtered copy of the tree per category, under a new root (heapgraph.py {@code --split}). */
    private static Node splitByCategory(Node tree, HeapSnapshot snapshot, Split split) {
        java.util.TreeSet<Integer> cats = new java.util.TreeSet<>();
        List<Node> all = new ArrayList<>();
        List<Node> stack = new ArrayList<>();
        stack.add(tree);
        while (!stack.isEmpty()) {
            Node n = stack.remove(stack.size() - 1);
            all.add(n);
            cats.addAll(n.byCategory.keySet());
            stack.addAll(n.children.values());
        }
        Node result = new Node("", false);
        for (int cat : cats) {
            var mc = snapshot.info().categories().get(cat);
            String name = mc != null && mc.name() != null ? mc.name() : Integer.toString(cat);
            Node copy = filteredCopy(tree, cat, name);
            if (copy.totalCount > 0) {
                // two categories with the same name: the later one replaces the earlier one, at the earlier
                // one's position, as heapgraph.py's assignment into its dict keyed by name does (spec §9)
                result.children.put(name, copy);
            }
        }
        sumTotals(result);
        return result;
    }

    private static Node filteredCopy(Node tree, int cat, String rootName) {
        Node copyRoot = new Node(rootName, false);
        List<Node> from = new ArrayList<>();
        List<Node> to = new ArrayList<>();
        from.add(tree);
        to.add(copyRoot);
        while (!from.isEmpty()) {
            Node s = from.remove(from.size() - 1);
            Node d = to.remove(to.size() - 1);
            long[] own = s.byCategory.get(cat);
            if (own != null) {
                d.size = own[0];
                d.count = own[1];
            }
            for (Node c : s.children.values()) {
                Node cc = new Node(c.name, false);
                cc.type = c.type;
                d.children.put(c.name, cc);
                from.add(c);
                to.add(cc);
            }
        }
        sumTotals(copyRoot);
        return copyRoot;
    }
}
