package dev.heapload.export;

import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.RetentionPaths;
import dev.heapload.model.HeapSnapshot;

/**
 * Writes a snapshot as a Chrome DevTools heap snapshot ({@code .heapsnapshot}, the JSON that V8's
 * {@code HeapSnapshotJSONSerializer} writes and DevTools' Memory panel, memlab and other tools read), so the Summary,
 * Containment, Retainers and Comparison views work on any VM's heap.
 *
 * <p>Layout (facts from V8 {@code src/profiler/heap-snapshot-generator.cc} and DevTools
 * {@code front_end/entrypoints/heap_snapshot_worker/HeapSnapshot.ts}): {@code snapshot.meta} names the fields;
 * {@code nodes} is a flat array of 7 numbers per node ({@code type, name, id, self_size, edge_count, trace_node_id,
 * detachedness}); {@code edges} 3 numbers per edge ({@code type, name_or_index, to_node}), the edges of each node
 * following each other in node order, {@code to_node} being the target's index into {@code nodes} (node number × 7);
 * names are indexes into {@code strings}. Node 0 is the synthetic root; DevTools computes dominators and retained
 * sizes from it, following every edge but {@code weak} ones.
 *
 * <p>Mapping: node 0 is the synthetic root (type {@code synthetic}, size 0) with one {@code property} edge per GC root
 * (named by the root's name; an object that is several roots gets one edge per name). Then one node per object, in
 * the model's order: name = the type, plus a space and the label when the object has one (for strings the label, the
 * string's text, alone), self size = shallow size in bytes, id from the address ({@link #ids}), so exports of two
 * snapshots of one process share the ids of the objects they share and DevTools' Comparison view tells new objects
 * from old ones. Node types: {@code string} for strings, {@code
 * closure} for functions, {@code code} for prototypes and bytecode, {@code native} for threads and userdata,
 * {@code hidden} for upvalues, {@code object} otherwise. One edge per reference, in dump order: {@code weak} when the
 * VM's GC does not keep the target alive through it (a weak reference; an ephemeron value or a Lua 5.1 weak-key
 * table's value whose key is unreachable), else {@code property} named by the reference's name, or {@code internal}
 * named {@code [kind]} when it has none. With these, DevTools' strong graph is heapload's, so its retained sizes are
 * heapload's for every reachable object.
 *
 * <p>Streams: the nodes, edges and strings are written as they are produced (jackson-core's generator); memory is the
 * model plus the string table (one entry per distinct name).
 */
public final class DevToolsHeapSnapshot {

    /** The node fields, in order. */
    public static final List<String> NODE_FIELDS = List.of("type", "name", "id", "self_size", "edge_count",
        "trace_node_id", "detachedness");
    /** V8's node types, in order (the index is the {@code type} field). */
    public static final List<String> NODE_TYPES = List.of("hidden", "array", "string", "object", "code", "closure",
        "regexp", "number", "native", "synthetic", "concatenated string", "sliced string", "symbol", "bigint",
        "object shape");
    /** The edge fields, in order. */
    public static final List<String> EDGE_FIELDS = List.of("type", "name_or_index", "to_node");
    /** V8's edge types, in order (the index is the {@code type} field). */
    public static final List<String> EDGE_TYPES = List.of("context", "element", "property", "internal", "hidden",
        "shortcut", "weak");

    private static final int HIDDEN = 0;
    private static final int STRING = 2;
    private static final int OBJECT = 3;
    private static final int CODE = 4;
    private static final int CLOSURE = 5;
    private static final int NATIVE = 8;
    private static final int SYNTHETIC = 9;
    private static final int PROPERTY = 2;
    private static final int INTERNAL = 3;
    private static final int WEAK = 6;

    private DevToolsHeapSnapshot() {
    }

    /**
     * Writes {@code snapshot} (with its {@link HeapAnalysis} attached, for the reachability of ephemeron keys) to
     * {@code out} as UTF-8 JSON.
     *
     * @param snapshot the heap
     * @param out      the stream; not closed
     * @throws IOException when writing fails
     */
    public static void write(HeapSnapshot snapshot, OutputStream out) throws IOException {
        HeapAnalysis a = snapshot.analysis();
        if (a == null) {
            throw new IllegalArgumentException("snapshot not analysed");
        }
        boolean[] reachable = a.reachable();
        int n = snapshot.objectCount();
        int[] first = snapshot.firstReferenceColumn();
        int[] targets = snapshot.referenceTargetColumn();
        byte[] flags = snapshot.referenceFlagsColumn();
        List<HeapSnapshot.GcRoot> roots = snapshot.roots();
        Strings strings = new Strings();
        int fields = NODE_FIELDS.size();
        int[] typeOfType = new int[snapshot.typeNames().size()];
        for (int t = 0; t < typeOfType.length; t++) {
            typeOfType[t] = nodeType(snapshot.typeNames().get(t));
        }
        JsonFactory factory = new JsonFactory();
        try (JsonGenerator g = factory.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            g.writeObjectFieldStart("snapshot");
            g.writeObjectFieldStart("meta");
            stringArray(g, "node_fields", NODE_FIELDS);
            g.writeArrayFieldStart("node_types");
            g.writeStartArray();
            for (String t : NODE_TYPES) {
                g.writeString(t);
            }
            g.writeEndArray();
            for (int i = 1; i < fields; i++) {
                g.writeString(i == 1 ? "string" : "number");
            }
            g.writeEndArray();
            stringArray(g, "edge_fields", EDGE_FIELDS);
            g.writeArrayFieldStart("edge_types");
            g.writeStartArray();
            for (String t : EDGE_TYPES) {
                g.writeString(t);
            }
            g.writeEndArray();
            g.writeString("string_or_number");
            g.writeString("node");
            g.writeEndArray();
            stringArray(g, "trace_function_info_fields", List.of("function_id", "name", "script_name", "script_id",
                "line", "column"));
            stringArray(g, "trace_node_fields", List.of("id", "function_info_index", "count", "size", "children"));
            stringArray(g, "sample_fields", List.of("timestamp_us", "last_assigned_id"));
            stringArray(g, "location_fields", List.of("object_index", "script_id", "line", "column"));
            g.writeEndObject();
            g.writeNumberField("node_count", n + 1L);
            g.writeNumberField("edge_count", (long) snapshot.referenceCount() + roots.size());
            g.writeNumberField("trace_function_count", 0);
            g.writeEndObject();

            long[] ids = ids(snapshot);
            g.writeArrayFieldStart("nodes");
            // the synthetic root
            node(g, SYNTHETIC, strings.id(""), 1, 0, roots.size());
            for (int o = 0; o < n; o++) {
                int type = typeOfType[snapshot.typeId(o)];
                String label = snapshot.label(o);
                String name = type == STRING ? (label == null ? "" : label)
                    : label == null || label.isEmpty() ? snapshot.type(o) : snapshot.type(o) + " " + label;
                node(g, type, strings.id(name), ids[o], snapshot.shallowSize(o), first[o + 1] - first[o]);
            }
            g.writeEndArray();

            g.writeArrayFieldStart("edges");
            for (HeapSnapshot.GcRoot root : roots) {
                edge(g, PROPERTY, strings.id(root.name() == null ? "" : root.name()), (root.object() + 1L) * fields);
            }
            for (int o = 0; o < n; o++) {
                for (int e = first[o], end = first[o + 1]; e < end; e++) {
                    long to = (targets[e] + 1L) * fields;
                    if (!RetentionPaths.strong(e, first[o], flags, targets, reachable)) {
                        String name = snapshot.referenceName(e);
                        edge(g, WEAK, strings.id(name != null ? name : "[" + snapshot.referenceKind(e) + "]"), to);
                    } else {
                        String name = snapshot.referenceName(e);
                        if (name != null) {
                            edge(g, PROPERTY, strings.id(name), to);
                        } else {
                            edge(g, INTERNAL, strings.id("[" + snapshot.referenceKind(e) + "]"), to);
                        }
                    }
                }
            }
            g.writeEndArray();
            for (String empty : List.of("trace_function_info", "trace_tree", "samples", "locations")) {
                g.writeArrayFieldStart(empty);
                g.writeEndArray();
            }
            g.writeArrayFieldStart("strings");
            for (String s : strings.list) {
                g.writeString(s);
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    /**
     * Node ids: V8's are 32-bit ({@code SnapshotObjectId}), and readers keep them in {@code Uint32Array}s (DevTools,
     * memlab), so an id is 2 × (the address / 8, modulo 2^31) + 1: odd like V8's heap object ids, unique for objects
     * 8-byte aligned within any 16 GiB, and the same for the same address in two snapshots. An id already given
     * (or 1, the synthetic root's) is replaced by the next free odd number, in object order.
     *
     * @return per object its id, each below 2^32
     */
    static long[] ids(HeapSnapshot s) {
        int n = s.objectCount();
        long[] ids = new long[n];
        org.eclipse.collections.impl.set.mutable.primitive.LongHashSet used =
            new org.eclipse.collections.impl.set.mutable.primitive.LongHashSet(n * 2);
        used.add(1);
        for (int o = 0; o < n; o++) {
            long id = ((s.addressKey(o) >>> 3) & 0x7FFF_FFFFL) * 2 + 1;
            while (!used.add(id)) {
                id = id + 2 > 0xFFFF_FFFFL ? 3 : id + 2;
            }
            ids[o] = id;
        }
        return ids;
    }

    /** The node type of a VM type name (Luau, Lua, MicroPython). */
    static int nodeType(String type) {
        return switch (type.toLowerCase(Locale.ROOT)) {
            case "string", "str", "bytes", "qstr", "str_data" -> STRING;
            case "function", "closure", "bound_meth", "fun_bc", "cfunction", "lclosure", "cclosure" -> CLOSURE;
            case "proto", "bytecode" -> CODE;
            case "thread", "userdata", "buffer" -> NATIVE;
            case "upvalue", "upval" -> HIDDEN;
            default -> OBJECT;
        };
    }

    private static void node(JsonGenerator g, int type, int name, long id, long size, int edges) throws IOException {
        g.writeNumber(type);
        g.writeNumber(name);
        g.writeNumber(id);
        g.writeNumber(size);
        g.writeNumber(edges);
        g.writeNumber(0);
        g.writeNumber(0);
    }

    private static void edge(JsonGenerator g, int type, int name, long toNode) throws IOException {
        g.writeNumber(type);
        g.writeNumber(name);
        g.writeNumber(toNode);
    }

    private static void stringArray(JsonGenerator g, String field, List<String> values) throws IOException {
        g.writeArrayFieldStart(field);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }

    /** The string table: each distinct string once, in first-use order. */
    private static final class Strings {
        final Map<String, Integer> ids = new HashMap<>();
        final List<String> list = new java.util.ArrayList<>();

        int id(String s) {
            Integer i = ids.get(s);
            if (i == null) {
                i = list.size();
                ids.put(s, i);
                list.add(s);
            }
            return i;
        }
    }
}
