package dev.heapload.store.bolt;

import dev.heapload.store.GraphSchema;
import dev.heapload.store.SnapshotSummary;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.TransactionCallback;
import org.neo4j.driver.Value;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.SnapshotInfo;

/**
 * Reads a complete, analysed snapshot back from a Neo4j server into a {@link HeapSnapshot} with its
 * {@link HeapAnalysis}, so that {@link dev.heapload.analysis.SnapshotComparison} can compare it with a snapshot
 * being loaded, in both directions, exactly as the embedded store compares two models.
 *
 * <p>What is read (graph schema of {@link GraphSchema}): per {@code :Object} of the snapshot its address, type,
 * shallow size, memory category, {@code reachable}, {@code distance}, {@code retainedSize}, {@code rootName}, its
 * outgoing {@code REF}/{@code WEAK_REF} relationships (target address, kind, name, key type, ephemeron, weak-key and
 * retention flags; the {@code REF} flagged {@code retention} is the last hop of its target's retention path); the
 * {@code ROOT} relationships of the
 * {@code :Snapshot} node. From these the model gets every object and reference (references of one object in the
 * server's order, not necessarily the dump's), the GC roots, and an analysis whose {@code reachable},
 * {@code distance}, {@code retainedSize}, {@code retainedBy} (the first strong reference from the holder of the
 * flagged reference with its kind and name) and {@code rootOf} (the root of the retention path's first object, named as its
 * {@code rootName}) are the stored ones. Labels (a string's text, a function's name) only when asked for
 * ({@link #read(SnapshotSummary, boolean)}: {@code heapload query paths} shows them; a comparison does not use them).
 * Not read: the immediate dominators (left {@code -1}: neither the comparison nor the paths use them). The objects' and the Snapshot node's element ids are kept, so relationships can be
 * written to them.
 *
 * <p>Memory: the model's columns (about 27 bytes per object, 10 per reference), plus per object a {@code long}
 * element id and four {@code int}s while reading; records are streamed from the server (the driver's fetch size),
 * nothing is kept per record.
 */
final class StoredSnapshotReader {

    /** A snapshot read back: the model (analysis attached) and the element ids of its objects and Snapshot node. */
    record Stored(HeapSnapshot snapshot, RemoteGraphStore.ElementIds elementIds, String snapshotElementId) {
    }

    private StoredSnapshotReader() {
    }

    /**
     * Work for one read transaction that reads snapshot {@code summary.id()}.
     *
     * @param summary the snapshot's summary as the server lists it (must be analysed)
     * @return the work; it throws {@link IllegalStateException} (one line) when the stored graph is inconsistent
     *         (an object defined twice, a reference to an address without an object, two retention flags into one
     *         object, an object count differing from the Snapshot node's)
     */
    static TransactionCallback<Stored> read(SnapshotSummary summary) {
        return read(summary, false);
    }

    /**
     * {@link #read(SnapshotSummary)}, with the objects' labels when {@code labels} is true (more to transfer: a
     * string's whole text).
     */
    static TransactionCallback<Stored> read(SnapshotSummary summary, boolean labels) {
        String id = summary.id();
        return tx -> {
            Record snapshotRecord = tx.run("MATCH (s:" + GraphSchema.SNAPSHOT + " {id: $id}) RETURN elementId(s) AS e",
                Map.of("id", id)).single();
            String snapshotElementId = snapshotRecord.get("e").asString();
            int n = (int) summary.objectCount();
            HeapSnapshotBuilder builder = new HeapSnapshotBuilder();
            RemoteGraphStore.ElementIds elementIds = new RemoteGraphStore.ElementIds(n);
            List<String> names = new ArrayList<>();
            // per builder object id: reading state of the analysis
            boolean[] reachable = new boolean[n];
            int[] distance = new int[n];
            long[] retainedSize = new long[n];
            int[] holder = new int[n];
            int[] holderKind = new int[n];
            int[] holderName = new int[n];
            int[] rootName = new int[n];
            Arrays.fill(holder, -1);
            Arrays.fill(rootName, HeapSnapshot.NO_NAME);
            Result objects = tx.run("MATCH (o:" + GraphSchema.OBJECT + ") WHERE o.snapshot = $id AND o.address IS NOT NULL "
                    + "RETURN elementId(o) AS e, o.address AS a, o.type AS t, o.size AS s, o.category AS c, "
                    + "o.reachable AS re, o.distance AS d, o.retainedSize AS rs, o.rootName AS rn, "
                    + (labels ? "o.label AS l, " : "null AS l, ")
                    + "[(o)-[r:" + GraphSchema.REF + "|" + GraphSchema.WEAK_REF + "]->(x) | [x.address, type(r) = '"
                    + GraphSchema.WEAK_REF + "', r.kind, r.name, coalesce(r.ephemeron, false), coalesce(r.weakKey, false), "
                    + "coalesce(r." + GraphSchema.RETENTION + ", false), r." + GraphSchema.KEY_TYPE + "]] AS refs",
                Map.of("id", id));
            int defined = 0;
            while (objects.hasNext()) {
                Record r = objects.next();
                String address = r.get("a").asString();
                int o;
                try {
                    o = builder.defineObject(address, r.get("t").asString(), r.get("s").asLong(), r.get("c").asInt(-1),
                        r.get("l").asString(null));
                } catch (IllegalStateException e) {
                    throw new IllegalStateException("snapshot '" + id + "' on the server: " + e.getMessage());
                }
                if (o >= n) {
                    throw new IllegalStateException("snapshot '" + id + "' on the server has more objects than its "
                        + "objectCount " + n);
                }
                defined++;
                elementIds.put(o, r.get("e").asString());
                reachable[o] = r.get("re").asBoolean(false);
                distance[o] = r.get("d").asInt(-1);
                retainedSize[o] = r.get("rs").asLong(0);
                rootName[o] = name(builder, names, r.get("rn"));
                for (Value ref : r.get("refs").values()) {
                    int flags = (ref.get(1).asBoolean() ? HeapSnapshot.WEAK : 0)
                        | (ref.get(4).asBoolean() ? HeapSnapshot.EPHEMERON_VALUE : 0)
                        | (ref.get(5).asBoolean() ? HeapSnapshot.WEAK_KEY_VALUE : 0)
                        | HeapSnapshot.keyTypeFlag(keyTypeId(ref.get(7).asString(null)));
                    int target = builder.objectId(ref.get(0).asString());
                    int kind = builder.kind(ref.get(2).asString());
                    int refName = name(builder, names, ref.get(3));
                    builder.addReference(target, kind, refName, flags);
                    if (ref.get(6).asBoolean()) {
                        if (target >= n) {
                            throw new IllegalStateException("snapshot '" + id + "' on the server: a reference from "
                                + address + " to an address without an object");
                        }
                        if (holder[target] >= 0) {
                            throw new IllegalStateException("snapshot '" + id + "' on the server: two references flagged "
                                + GraphSchema.RETENTION + " into " + ref.get(0).asString());
                        }
                        holder[target] = o;
                        holderKind[target] = kind;
                        holderName[target] = refName;
                    }
                }
            }
            if (defined != n || builder.objectCount() != n) {
                throw new IllegalStateException("snapshot '" + id + "' on the server: " + defined + " objects ("
                    + builder.objectCount() + " addresses) where its Snapshot node says " + n);
            }
            for (Record r : tx.run("MATCH (:" + GraphSchema.SNAPSHOT + " {id: $id})-[g:" + GraphSchema.ROOT + "]->(o) "
                + "RETURN g.name AS name, o.address AS a", Map.of("id", id)).list()) {
                builder.addRoot(r.get("name").asString(null), builder.objectId(r.get("a").asString()));
            }
            // every builder id is defined (checked above), so build() keeps the ids
            HeapSnapshot s = builder.build(new SnapshotInfo(id, summary.vm(), summary.source(), summary.sha256(),
                summary.totalBytes(), Map.of(), List.of(), summary.producer(), summary.vmVersion()));
            s.attachAnalysis(analysis(s, names, reachable, distance, retainedSize, holder, holderKind, holderName, rootName));
            return new Stored(s, elementIds, snapshotElementId);
        };
    }

    /** The key type id ({@link HeapSnapshot#KEY_STRING} …) of a stored {@code keyType}; absent or unknown: none. */
    private static int keyTypeId(String keyType) {
        if (keyType == null) {
            return HeapSnapshot.KEY_NONE;
        }
        return switch (keyType) {
            case "string" -> HeapSnapshot.KEY_STRING;
            case "number" -> HeapSnapshot.KEY_NUMBER;
            case "boolean" -> HeapSnapshot.KEY_BOOLEAN;
            case "object" -> HeapSnapshot.KEY_OBJECT;
            case "other" -> HeapSnapshot.KEY_OTHER;
            default -> HeapSnapshot.KEY_NONE;
        };
    }

    /** Interns a name; {@code names} mirrors the builder's dense name table. */
    private static int name(HeapSnapshotBuilder builder, List<String> names, Value v) {
        if (v.isNull()) {
            return HeapSnapshot.NO_NAME;
        }
        String text = v.asString();
        int i = builder.name(text);
        if (i == names.size()) {
            names.add(text);
        }
        return i;
    }

    private static HeapAnalysis analysis(HeapSnapshot s, List<String> names, boolean[] reachable, int[] distance,
                                         long[] retainedSize, int[] holder, int[] holderKind, int[] holderName,
                                         int[] rootName) {
        int n = s.objectCount();
        String id = s.info().id();
        int[] retainedBy = new int[n];
        Arrays.fill(retainedBy, -1);
        for (int o = 0; o < n; o++) {
            int p = holder[o];
            if (p < 0) {
                continue;
            }
            String name = holderName[o] == HeapSnapshot.NO_NAME ? null : names.get(holderName[o]);
            for (int r = s.firstReference(p); r < s.firstReference(p + 1); r++) {
                if (s.referenceTarget(r) == o && !s.isWeak(r) && s.referenceKindId(r) == holderKind[o]
                    && Objects.equals(s.referenceName(r), name)) {
                    retainedBy[o] = r;
                    break;
                }
            }
            if (retainedBy[o] < 0) {
                throw new IllegalStateException("snapshot '" + id + "' on the server: the reference flagged "
                    + GraphSchema.RETENTION + " into " + s.address(o) + " is not a strong reference from " + s.address(p));
            }
        }
        // roots: the retention path's first object names its root (rootName); the others inherit it
        int[] rootOf = new int[n];
        Arrays.fill(rootOf, -1);
        List<HeapSnapshot.GcRoot> roots = s.roots();
        for (int i = roots.size() - 1; i >= 0; i--) {
            HeapSnapshot.GcRoot root = roots.get(i);
            int o = root.object();
            if (!reachable[o] || retainedBy[o] >= 0) {
                continue;
            }
            String wanted = rootName[o] == HeapSnapshot.NO_NAME ? null : names.get(rootName[o]);
            if (rootOf[o] < 0 || Objects.equals(root.name(), wanted)) {
                rootOf[o] = i;
            }
        }
        int[] stack = new int[16];
        for (int o = 0; o < n; o++) {
            if (!reachable[o] || rootOf[o] >= 0) {
                continue;
            }
            int depth = 0;
            int x = o;
            while (rootOf[x] < 0 && retainedBy[x] >= 0 && depth <= n) {
                if (depth == stack.length) {
                    stack = Arrays.copyOf(stack, depth * 2);
                }
                stack[depth++] = x;
                x = s.referenceSource(retainedBy[x]);
            }
            for (int i = 0; i < depth; i++) {
                rootOf[stack[i]] = rootOf[x];
            }
        }
        int[] dominator = new int[n];
        Arrays.fill(dominator, -1);
        return new HeapAnalysis(reachable, distance, retainedBy, rootOf, dominator, retainedSize);
    }
}
