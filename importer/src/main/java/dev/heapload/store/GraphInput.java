package dev.heapload.store;

import java.io.IOException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.neo4j.batchimport.api.InputIterable;
import org.neo4j.batchimport.api.InputIterator;
import org.neo4j.batchimport.api.input.Collector;
import org.neo4j.batchimport.api.input.IdType;
import org.neo4j.batchimport.api.input.Input;
import org.neo4j.batchimport.api.input.InputChunk;
import org.neo4j.batchimport.api.input.InputEntityVisitor;
import org.neo4j.batchimport.api.input.PropertySizeCalculator;
import org.neo4j.batchimport.api.input.ReadableGroups;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.PathHop;
import dev.heapload.analysis.RetentionPath;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SnapshotStatistics;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.MemoryCategory;

/**
 * The whole graph of a store (all its snapshots) as an in-memory {@link Input} for Neo4j's offline
 * parallel importer, with {@link IdType#ACTUAL} node ids laid out per snapshot as
 * {@code [objects 0..n-1][the Snapshot node][its categories]}.
 *
 * <p>Snapshots are fetched from their {@link Source} when the importer reaches them and released when it
 * moves on, so at most about two snapshot models are on the heap per pass (the importer makes one pass
 * over nodes and one over relationships). Thread safety: {@link InputIterator#next} is synchronized,
 * each chunk is used by one importer thread.
 */
public final class GraphInput implements Input {

    /** Entities per chunk handed to an importer thread. */
    private static final int CHUNK = 10_000;

    /** Supplies a snapshot model, e.g. by reading its file. */
    public interface Source {
        /**
         * The snapshot's model, read or made when asked (called once per build, on the importer's thread).
         *
         * @throws IOException when its file cannot be read (the build fails and the store is left as it was)
         */
        HeapSnapshot get() throws IOException;
    }

    /**
     * One snapshot of the graph: its catalog entry, where its model comes from, and its precomputed
     * statistics ({@code null} when the snapshot was not analysed). A {@code stored} part is already in the
     * target database (a Bolt load comparing new snapshots with the server's): none of its nodes and
     * relationships are emitted, but its node ids are reserved as for any part, so the comparisons can point
     * at its Snapshot node and objects (the writer maps those ids to the existing nodes).
     */
    public record Part(Catalog.Entry entry, Source source, SnapshotStatistics stats, boolean stored, StoredSummary summary) {
        /** A part whose nodes and relationships are written. */
        public Part(Catalog.Entry entry, Source source, SnapshotStatistics stats) {
            this(entry, source, stats, false, null);
        }

        /** A part with all its objects, stored or not. */
        public Part(Catalog.Entry entry, Source source, SnapshotStatistics stats, boolean stored) {
            this(entry, source, stats, stored, null);
        }

        /**
         * A summary-only part: the snapshot's {@code Snapshot} node with its {@code Category} and {@code Stats} nodes
         * from {@code summary}, no objects (another snapshot of a per-snapshot graph, docs/design/store.md).
         */
        public static Part summaryOnly(Catalog.Entry entry, StoredSummary summary, boolean stored) {
            return new Part(entry, null, null, stored, summary);
        }

        /** Object nodes this part has (or reserves) in the graph: none for a summary-only part. */
        public long objectNodes() {
            return summary != null ? 0 : entry.summary().objectCount();
        }

        /** Its Stats nodes. */
        public int statsNodes() {
            return summary != null ? summary.buckets().size() : stats == null ? 0 : stats.buckets().size();
        }
    }

    /** The comparison of two snapshots, by their indexes in the parts list. */
    public record Pair(int baseline, int target, SnapshotComparison comparison) {
    }

    private enum Segment {
        OBJECTS, SNAPSHOT, CATEGORIES, STATS, MISSING,
        REFERENCES, MISSING_REFERENCES, ROOTS, HAS_CATEGORY, HAS_STATS, TOP_RETAINER, CATEGORY_TOP_RETAINER,
        DIFF, NEW_OBJECTS, LEAK_GROUPS,
        DIFF_SNAPSHOTS, HAS_NEW_OBJECTS, HAS_LEAK_GROUP, EXAMPLE, GREW
    }

    private static final Segment[] NODE_SEGMENTS = {Segment.OBJECTS, Segment.SNAPSHOT, Segment.CATEGORIES,
        Segment.STATS, Segment.MISSING, Segment.DIFF, Segment.NEW_OBJECTS, Segment.LEAK_GROUPS};
    private static final Segment[] RELATIONSHIP_SEGMENTS = {Segment.REFERENCES, Segment.MISSING_REFERENCES, Segment.ROOTS, Segment.HAS_CATEGORY,
        Segment.HAS_STATS, Segment.TOP_RETAINER, Segment.CATEGORY_TOP_RETAINER,
        Segment.DIFF_SNAPSHOTS, Segment.HAS_NEW_OBJECTS, Segment.HAS_LEAK_GROUP, Segment.EXAMPLE, Segment.GREW};

    private final List<Part> parts;
    private final List<Pair> pairs;
    private final long[] nodeBase;
    private final long[] pairBase;
    private final long nodeCount;
    private final long firstLoadOrder;
    /** Per part its Snapshot node's {@code loadOrder}, or null for {@code firstLoadOrder + index}. */
    private final long[] loadOrders;

    /** A graph of snapshots without comparisons. */
    public GraphInput(List<Part> parts) {
        this(parts, List.of());
    }

    /** A graph whose snapshots get {@code loadOrder} 0, 1, 2… in list order. */
    public GraphInput(List<Part> parts, List<Pair> pairs) {
        this(parts, pairs, 0);
    }

    /**
     * @param parts          the snapshots, in catalog order
     * @param pairs          comparisons between them (indexes into {@code parts})
     * @param firstLoadOrder the {@code loadOrder} property of the first part's Snapshot node; the next parts get
     *                       the following numbers
     */
    public GraphInput(List<Part> parts, List<Pair> pairs, long firstLoadOrder) {
        this(parts, pairs, firstLoadOrder, null);
    }

    /**
     * A graph whose parts' Snapshot nodes get the given {@code loadOrder} each (one per part), e.g. a per-snapshot graph
     * whose first part is its own snapshot and the others the store's other snapshots in any order.
     */
    public GraphInput(List<Part> parts, List<Pair> pairs, long[] loadOrders) {
        this(parts, pairs, 0, loadOrders.clone());
    }

    private GraphInput(List<Part> parts, List<Pair> pairs, long firstLoadOrder, long[] loadOrders) {
        this.parts = List.copyOf(parts);
        this.pairs = List.copyOf(pairs);
        this.firstLoadOrder = firstLoadOrder;
        this.loadOrders = loadOrders;
        this.nodeBase = new long[parts.size()];
        this.pairBase = new long[pairs.size()];
        long base = 0;
        for (int i = 0; i < parts.size(); i++) {
            nodeBase[i] = base;
            Part p = parts.get(i);
            Catalog.Entry e = p.entry();
            base += p.objectNodes() + 1 + e.categoryCount() + p.statsNodes() + (p.summary() != null ? 0 : e.missingCount());
        }
        for (int i = 0; i < pairs.size(); i++) {
            pairBase[i] = base;
            SnapshotComparison c = pairs.get(i).comparison();
            base += 1 + c.newBuckets().size() + c.leakGroups().size();
        }
        this.nodeCount = base;
    }

    /** Number of node ids: the nodes the import creates plus the ids reserved for stored parts. */
    public long nodeCount() {
        return nodeCount;
    }

    /** The node id of object 0 of part {@code part}; its Snapshot node is this plus its object count. */
    public long nodeBase(int part) {
        return nodeBase[part];
    }

    /** Number of snapshots (parts). */
    public int partCount() {
        return parts.size();
    }

    /** The snapshot id of part {@code part}. */
    public String snapshotId(int part) {
        return parts.get(part).entry().summary().id();
    }

    /** The number of object nodes of part {@code part} (0 for a summary-only part). */
    public long objectCount(int part) {
        return parts.get(part).objectNodes();
    }

    /** True when part {@code part} is summary-only (no objects, no model). */
    public boolean summaryOnly(int part) {
        return parts.get(part).summary() != null;
    }

    private long loadOrder(int part) {
        return loadOrders != null ? loadOrders[part] : firstLoadOrder + part;
    }

    /** The node id of part {@code part}'s Snapshot node. */
    public long snapshotNode(int part) {
        return nodeBase[part] + objectCount(part);
    }

    /** The model of part {@code part}, from its source (read again from its file when it is not in memory). */
    public HeapSnapshot model(int part) throws IOException {
        return parts.get(part).source().get();
    }

    @Override
    public InputIterable nodes(Collector collector) {
        return () -> new Iterator(NODE_SEGMENTS);
    }

    @Override
    public InputIterable relationships(Collector collector) {
        return () -> new Iterator(RELATIONSHIP_SEGMENTS);
    }

    @Override
    public IdType idType() {
        return IdType.ACTUAL;
    }

    @Override
    public ReadableGroups groups() {
        return ReadableGroups.EMPTY;
    }

    @Override
    public Estimates validateAndEstimate(PropertySizeCalculator valueSizeCalculator) {
        long rels = 0;
        long nodeProps = 0;
        long relProps = 0;
        long labels = 0;
        for (Part p : parts) {
            if (p.stored()) {
                continue;
            }
            SnapshotSummary s = p.entry().summary();
            if (p.summary() != null) {
                nodeProps += 9 + 4L * p.entry().categoryCount();
                labels += 1 + p.entry().categoryCount();
                rels += p.entry().categoryCount();
                continue;
            }
            long n = s.objectCount();
            int c = p.entry().categoryCount();
            rels += s.referenceCount() + c;
            nodeProps += n * (s.analysed() ? 9 : 6) + 9 + 4L * c;
            relProps += 2 * s.referenceCount() + (s.analysed() ? n : 0);
            labels += 2 * n + 1 + c;
        }
        return Input.knownEstimates(nodeCount, rels, nodeProps, relProps, nodeProps * 12, relProps * 10, labels);
    }

    /** A snapshot while the importer is in it: the model and the precomputed per-type label sets. */
    private static final class Loaded {
        final HeapSnapshot snapshot;
        final HeapAnalysis analysis;
        final SnapshotSummary summary;
        final String id;
        final long base;
        final long snapshotNode;
        final long categoryBase;
        final String[][] labelsByType;
        final String[][] weakOnlyLabels;
        final String[] typeNames;
        final String[] kinds;
        final MemoryCategory[] categories;
        final SnapshotStatistics stats;
        /** The Stats buckets: the statistics' or the stored summary's. */
        final List<SnapshotStatistics.Bucket> buckets;
        final long statsBase;
        /** Per-category top retainers flattened: category id, rank, object id. */
        final int[][] categoryTop;
        /** The Snapshot node's {@code loadOrder}. */
        final long loadOrder;
        /** The node id of the first Missing node (the last nodes of the part's block). */
        final long missingBase;
        final dev.heapload.model.DanglingReferences dangling;

        /** A summary-only part: Snapshot, Category and Stats nodes, nothing else. */
        Loaded(Part part, long base, long loadOrder, StoredSummary stored) {
            this.loadOrder = loadOrder;
            this.snapshot = null;
            this.summary = part.entry().summary();
            this.id = summary.id();
            this.analysis = null;
            this.base = base;
            this.snapshotNode = base;
            this.categoryBase = snapshotNode + 1;
            this.typeNames = new String[0];
            this.kinds = new String[0];
            this.labelsByType = new String[0][];
            this.weakOnlyLabels = new String[0][];
            this.categories = stored.categories().toArray(MemoryCategory[]::new);
            this.stats = null;
            this.buckets = stored.buckets();
            this.statsBase = categoryBase + categories.length;
            this.categoryTop = new int[0][];
            this.dangling = dev.heapload.model.DanglingReferences.NONE;
            this.missingBase = statsBase + buckets.size();
        }

        Loaded(Part part, long base, long loadOrder) throws IOException {
            this.loadOrder = loadOrder;
            this.snapshot = part.source().get();
            this.summary = part.entry().summary();
            this.id = summary.id();
            if (snapshot.objectCount() != summary.objectCount()
                || snapshot.referenceCount() != summary.referenceCount()
                || snapshot.info().categories().size() != part.entry().categoryCount()) {
                throw new IOException("snapshot '" + id + "': model does not match the store catalog ("
                    + snapshot.objectCount() + " objects, " + snapshot.referenceCount() + " references; catalog says "
                    + summary.objectCount() + ", " + summary.referenceCount() + ")");
            }
            Object a = snapshot.analysis();
            this.analysis = summary.analysed() && a instanceof HeapAnalysis h ? h : null;
            this.base = base;
            this.snapshotNode = base + snapshot.objectCount();
            this.categoryBase = snapshotNode + 1;
            this.typeNames = snapshot.typeNames().toArray(String[]::new);
            this.kinds = snapshot.referenceKinds().toArray(String[]::new);
            this.labelsByType = new String[typeNames.length][];
            for (int t = 0; t < typeNames.length; t++) {
                String label = GraphSchema.typeLabel(typeNames[t]);
                labelsByType[t] = label == null || label.equals(GraphSchema.OBJECT)
                    ? new String[] {GraphSchema.OBJECT}
                    : new String[] {GraphSchema.OBJECT, label};
            }
            this.weakOnlyLabels = new String[typeNames.length][];
            for (int t = 0; t < typeNames.length; t++) {
                weakOnlyLabels[t] = java.util.Arrays.copyOf(labelsByType[t], labelsByType[t].length + 1);
                weakOnlyLabels[t][labelsByType[t].length] = GraphSchema.WEAK_ONLY;
            }
            this.categories = snapshot.info().categories().values().toArray(MemoryCategory[]::new);
            this.stats = analysis == null ? null : part.stats();
            this.buckets = stats == null ? List.of() : stats.buckets();
            this.statsBase = categoryBase + categories.length;
            List<int[]> top = new ArrayList<>();
            if (stats != null) {
                stats.topRetainersByCategory().forEach((category, objects) -> {
                    for (int rank = 0; rank < objects.length; rank++) {
                        top.add(new int[] {category, rank + 1, objects[rank]});
                    }
                });
            }
            this.categoryTop = top.toArray(int[][]::new);
            this.dangling = snapshot.danglingReferences();
            this.missingBase = categoryBase + categories.length + (part.stats() == null ? 0 : part.stats().buckets().size());
            if (dangling.missingCount() != part.entry().missingCount()) {
                throw new IOException("snapshot '" + id + "': model has " + dangling.missingCount()
                    + " missing addresses, the store catalog says " + part.entry().missingCount());
            }
        }

        long count(Segment segment) {
            return switch (segment) {
                case OBJECTS -> snapshot == null ? 0 : snapshot.objectCount();
                case SNAPSHOT -> 1;
                case CATEGORIES, HAS_CATEGORY -> categories.length;
                case REFERENCES -> snapshot == null ? 0 : snapshot.referenceCount();
                case ROOTS -> snapshot == null ? 0 : snapshot.roots().size();
                case STATS, HAS_STATS -> buckets.size();
                case TOP_RETAINER -> stats == null ? 0 : stats.topRetainers().length;
                case CATEGORY_TOP_RETAINER -> categoryTop.length;
                case MISSING -> dangling.missingCount();
                case MISSING_REFERENCES -> dangling.keptCount();
                default -> 0;
            };
        }
    }

    /** A comparison while the importer is in it. */
    private final class LoadedPair {
        final SnapshotComparison c;
        final String baseline;
        final String target;
        final long node;
        final long baselineSnapshotNode;
        final long targetSnapshotNode;
        final long targetBase;

        LoadedPair(int index) {
            Pair p = pairs.get(index);
            this.c = p.comparison();
            this.baseline = parts.get(p.baseline()).entry().summary().id();
            this.target = parts.get(p.target()).entry().summary().id();
            this.node = pairBase[index];
            this.baselineSnapshotNode = nodeBase[p.baseline()] + parts.get(p.baseline()).objectNodes();
            this.targetBase = nodeBase[p.target()];
            this.targetSnapshotNode = targetBase + parts.get(p.target()).objectNodes();
        }

        long count(Segment segment) {
            return switch (segment) {
                case DIFF -> 1;
                case DIFF_SNAPSHOTS -> 2;
                case NEW_OBJECTS, HAS_NEW_OBJECTS -> c.newBuckets().size();
                case LEAK_GROUPS, HAS_LEAK_GROUP, EXAMPLE -> c.leakGroups().size();
                case GREW -> c.growth().size();
                default -> 0;
            };
        }
    }

    /** Hands out chunks of consecutive entities, segment by segment, snapshot by snapshot. */
    private final class Iterator implements InputIterator {
        private final Segment[] segments;
        private int part = -1;
        private int segment;
        private long position;
        private Loaded loaded;
        private LoadedPair loadedPair;

        Iterator(Segment[] segments) {
            this.segments = segments;
        }

        @Override
        public InputChunk newChunk() {
            return new Chunk();
        }

        @Override
        public synchronized boolean next(InputChunk chunk) throws IOException {
            while (true) {
                if (loaded == null && loadedPair == null) {
                    part++;
                    if (part >= parts.size() + pairs.size()) {
                        return false;
                    }
                    if (part < parts.size()) {
                        if (parts.get(part).stored()) {
                            continue;
                        }
                        Part p = parts.get(part);
                        loaded = p.summary() != null ? new Loaded(p, nodeBase[part], loadOrder(part), p.summary())
                            : new Loaded(p, nodeBase[part], loadOrder(part));
                    } else {
                        loadedPair = new LoadedPair(part - parts.size());
                    }
                    segment = 0;
                    position = 0;
                }
                if (segment >= segments.length) {
                    loaded = null;
                    loadedPair = null;
                    continue;
                }
                long count = loaded != null ? loaded.count(segments[segment]) : loadedPair.count(segments[segment]);
                if (position >= count) {
                    segment++;
                    position = 0;
                    continue;
                }
                long end = Math.min(count, position + CHUNK);
                ((Chunk) chunk).init(loaded, loadedPair, segments[segment], (int) position, (int) end);
                position = end;
                return true;
            }
        }

        @Override
        public void close() {
            loaded = null;
            loadedPair = null;
        }
    }

    /** A range {@code [from, to)} of one segment of one snapshot. */
    private static final class Chunk implements InputChunk {
        private Loaded l;
        private LoadedPair d;
        private Segment segment;
        private int at;
        private int to;
        private int source;

        void init(Loaded loaded, LoadedPair pair, Segment segment, int from, int to) {
            this.l = loaded;
            this.d = pair;
            this.segment = segment;
            this.at = from;
            this.to = to;
            if (segment == Segment.REFERENCES) {
                source = loaded.snapshot.referenceSource(from);
            }
        }

        @Override
        public boolean next(InputEntityVisitor v) throws IOException {
            while (at < to) {
                int i = at++;
                boolean emitted = switch (segment) {
                    case OBJECTS -> object(v, i);
                    case SNAPSHOT -> snapshot(v);
                    case CATEGORIES -> category(v, i);
                    case REFERENCES -> reference(v, i);
                    case MISSING -> missing(v, i);
                    case MISSING_REFERENCES -> missingReference(v, i);
                    case ROOTS -> root(v, i);
                    case HAS_CATEGORY -> hasCategory(v, i);
                    case STATS -> stats(v, i);
                    case HAS_STATS -> edge(v, l.snapshotNode, l.statsBase + i, GraphSchema.HAS_STATS);
                    case TOP_RETAINER -> topRetainer(v, i);
                    case CATEGORY_TOP_RETAINER -> categoryTopRetainer(v, i);
                    case DIFF -> diff(v);
                    case NEW_OBJECTS -> newObjects(v, i);
                    case LEAK_GROUPS -> leakGroup(v, i);
                    case DIFF_SNAPSHOTS -> edge(v, d.node, i == 0 ? d.baselineSnapshotNode : d.targetSnapshotNode,
                        i == 0 ? GraphSchema.BASELINE : GraphSchema.TARGET);
                    case HAS_NEW_OBJECTS -> edge(v, d.node, d.node + 1 + i, GraphSchema.HAS_NEW_OBJECTS);
                    case HAS_LEAK_GROUP -> edge(v, d.node, leakGroupNode(i), GraphSchema.HAS_LEAK_GROUP);
                    case EXAMPLE -> edge(v, leakGroupNode(i), d.targetBase + d.c.leakGroups().get(i).example(),
                        GraphSchema.EXAMPLE);
                    case GREW -> grew(v, i);
                };
                if (emitted) {
                    v.endOfEntity();
                    return true;
                }
            }
            return false;
        }

        /**
         * An object node. The order of the properties is the order of their blocks in the property records (4
         * blocks of 8 bytes each, per Neo4j's record format; a property never spans two records), chosen so
         * that few records are left part-empty: the two addresses (2 blocks each as short strings), then the
         * one-block numbers, booleans and snapshot id, then the type name (1–2 blocks) and the label (any
         * length). An analysed object without a label takes 3 records instead of 4 in the schema's order. On
         * entity-system-large (2.4M objects) the property store shrinks from 771,751,936 to 671,088,640 bytes
         * (about one 41-byte record less per object). The order is invisible to queries.
         */
        private boolean object(InputEntityVisitor v, int o) {
            HeapSnapshot s = l.snapshot;
            int type = s.typeId(o);
            v.id(l.base + o);
            HeapAnalysis a = l.analysis;
            boolean weakOnly = a != null && l.stats != null && l.stats.weakOnly()[o];
            v.labels(weakOnly ? l.weakOnlyLabels[type] : l.labelsByType[type]);
            v.property("address", s.address(o));
            if (a != null) {
                int dominator = a.immediateDominator()[o];
                if (dominator >= 0) {
                    v.property("dominator", s.address(dominator));
                }
            }
            v.property("snapshot", l.id);
            v.property("size", s.shallowSize(o));
            int category = s.category(o);
            if (category >= 0) {
                v.property("category", (long) category);
            }
            if (a != null) {
                v.property("reachable", a.reachable()[o]);
                v.property("distance", (long) a.distance()[o]);
                v.property("retainedSize", a.retainedSize()[o]);
            }
            v.property("type", l.typeNames[type]);
            String label = s.label(o);
            if (label != null) {
                v.property("label", label);
            }
            int site = s.sites().site(o);
            if (site != dev.heapload.model.AllocationSites.NO_SITE) {
                v.property("site", s.sites().text(site));
            }
            if (a != null) {
                int root = a.rootOf()[o];
                if (a.retainedBy()[o] < 0 && root >= 0) {
                    String name = s.roots().get(root).name();
                    if (name != null) {
                        v.property("rootName", name);
                    }
                }
            }
            return true;
        }

        private boolean snapshot(InputEntityVisitor v) {
            SnapshotSummary s = l.summary;
            v.id(l.snapshotNode);
            v.labels(new String[] {GraphSchema.SNAPSHOT});
            v.property("id", s.id());
            v.property("vm", s.vm());
            if (s.source() != null) {
                v.property("source", s.source());
            }
            if (s.sha256() != null) {
                v.property("sha256", s.sha256());
            }
            if (s.producer() != null) {
                v.property("producer", s.producer());
            }
            if (s.vmVersion() != null) {
                v.property("vmVersion", s.vmVersion());
            }
            v.property("loadedAt", s.loadedAt().atZone(ZoneOffset.UTC));
            v.property("loadOrder", l.loadOrder);
            v.property("objectCount", s.objectCount());
            v.property("referenceCount", s.referenceCount());
            v.property("totalBytes", s.totalBytes());
            v.property("objectBytes", s.objectBytes());
            return true;
        }

        private boolean category(InputEntityVisitor v, int i) {
            MemoryCategory c = l.categories[i];
            v.id(l.categoryBase + i);
            v.labels(new String[] {GraphSchema.CATEGORY});
            v.property("snapshot", l.id);
            v.property("id", (long) c.id());
            if (c.name() != null) {
                v.property("name", c.name());
            }
            v.property("bytes", c.bytes());
            return true;
        }

        private boolean reference(InputEntityVisitor v, int r) {
            HeapSnapshot s = l.snapshot;
            int[] first = s.firstReferenceColumn();
            while (first[source + 1] <= r) {
                source++;
            }
            int flags = s.referenceFlags(r);
            v.startId(l.base + source);
            v.endId(l.base + s.referenceTarget(r));
            v.type((flags & HeapSnapshot.WEAK) != 0 ? GraphSchema.WEAK_REF : GraphSchema.REF);
            v.property("kind", l.kinds[s.referenceKindId(r)]);
            String name = s.referenceName(r);
            if (name != null) {
                v.property("name", name);
                v.property(GraphSchema.KEY_TYPE, s.keyType(r));
            }
            if ((flags & HeapSnapshot.EPHEMERON_VALUE) != 0) {
                v.property("ephemeron", Boolean.TRUE);
            }
            String frame = s.referenceFrame(r);
            if (frame != null) {
                v.property("frame", frame);
            }
            if ((flags & HeapSnapshot.WEAK_KEY_VALUE) != 0) {
                v.property("weakKey", Boolean.TRUE);
            }
            if (l.analysis != null && l.analysis.retainedBy()[s.referenceTarget(r)] == r) {
                v.property(GraphSchema.RETENTION, Boolean.TRUE);
            }
            return true;
        }

        /** A {@code (:Missing {snapshot, address, reason})} node ({@link GraphSchema#MISSING}). */
        private boolean missing(InputEntityVisitor v, int i) {
            v.id(l.missingBase + i);
            v.labels(new String[] {GraphSchema.MISSING});
            v.property("snapshot", l.id);
            v.property("address", l.dangling.missingAddress(i));
            v.property("reason", l.dangling.missingReason(i).text());
            return true;
        }

        /** A reference between an object and a Missing node, in the dump's direction. */
        private boolean missingReference(InputEntityVisitor v, int r) {
            var d = l.dangling;
            long object = l.base + d.object(r);
            long missing = l.missingBase + d.missing(r);
            v.startId(d.incoming(r) ? missing : object);
            v.endId(d.incoming(r) ? object : missing);
            v.type((d.flags(r) & HeapSnapshot.WEAK) != 0 ? GraphSchema.WEAK_REF : GraphSchema.REF);
            v.property("kind", d.kind(r));
            if (d.name(r) != null) {
                v.property("name", d.name(r));
            }
            return true;
        }

        private boolean root(InputEntityVisitor v, int i) {
            HeapSnapshot.GcRoot root = l.snapshot.roots().get(i);
            v.startId(l.snapshotNode);
            v.endId(l.base + root.object());
            v.type(GraphSchema.ROOT);
            if (root.name() != null) {
                v.property("name", root.name());
            }
            return true;
        }

        private boolean hasCategory(InputEntityVisitor v, int i) {
            v.startId(l.snapshotNode);
            v.endId(l.categoryBase + i);
            v.type(GraphSchema.HAS_CATEGORY);
            return true;
        }

        private long leakGroupNode(int i) {
            return d.node + 1 + d.c.newBuckets().size() + i;
        }

        private static boolean edge(InputEntityVisitor v, long from, long to, String type) {
            v.startId(from);
            v.endId(to);
            v.type(type);
            return true;
        }

        private boolean stats(InputEntityVisitor v, int i) {
            SnapshotStatistics.Bucket b = l.buckets.get(i);
            v.id(l.statsBase + i);
            v.labels(new String[] {GraphSchema.STATS});
            v.property("snapshot", l.id);
            v.property("type", b.type());
            if (b.category() >= 0) {
                v.property("category", (long) b.category());
            }
            v.property("objects", b.objects());
            v.property("bytes", b.bytes());
            v.property("reachableObjects", b.reachableObjects());
            v.property("reachableBytes", b.reachableBytes());
            v.property("maxRetainedSize", b.maxRetainedSize());
            v.property("weakOnlyObjects", b.weakOnlyObjects());
            return true;
        }

        private boolean topRetainer(InputEntityVisitor v, int i) {
            edge(v, l.snapshotNode, l.base + l.stats.topRetainers()[i], GraphSchema.TOP_RETAINER);
            v.property("rank", (long) i + 1);
            List<PathHop> path = l.stats.topRetainerPaths().get(i);
            if (path != null) {
                v.property("path", RetentionPath.names(path).toArray(String[]::new));
                hops(v, path);
            }
            return true;
        }

        private boolean categoryTopRetainer(InputEntityVisitor v, int i) {
            int[] t = l.categoryTop[i];
            edge(v, l.snapshotNode, l.base + t[2], GraphSchema.CATEGORY_TOP_RETAINER);
            if (t[0] >= 0) {
                v.property("category", (long) t[0]);
            }
            v.property("rank", (long) t[1]);
            return true;
        }

        private boolean diff(InputEntityVisitor v) {
            v.id(d.node);
            v.labels(new String[] {GraphSchema.DIFF});
            v.property("baseline", d.baseline);
            v.property("target", d.target);
            v.property("newObjects", d.c.newObjects());
            v.property("newBytes", d.c.newBytes());
            v.property("reusedAddresses", d.c.reusedAddresses());
            return true;
        }

        private boolean newObjects(InputEntityVisitor v, int i) {
            SnapshotComparison.NewBucket b = d.c.newBuckets().get(i);
            v.id(d.node + 1 + i);
            v.labels(new String[] {GraphSchema.NEW_OBJECTS});
            v.property("baseline", d.baseline);
            v.property("target", d.target);
            v.property("type", b.type());
            if (b.category() >= 0) {
                v.property("category", (long) b.category());
            }
            v.property("objects", b.objects());
            v.property("bytes", b.bytes());
            v.property("reachableObjects", b.reachableObjects());
            v.property("reachableBytes", b.reachableBytes());
            v.property("reusedAddresses", b.reusedAddresses());
            return true;
        }

        private boolean leakGroup(InputEntityVisitor v, int i) {
            SnapshotComparison.LeakGroup g = d.c.leakGroups().get(i);
            v.id(leakGroupNode(i));
            v.labels(new String[] {GraphSchema.LEAK_GROUP});
            v.property("baseline", d.baseline);
            v.property("target", d.target);
            v.property("rank", (long) i + 1);
            v.property("objects", g.objects());
            v.property("newBytes", g.newBytes());
            v.property("retainedBytes", g.retainedBytes());
            v.property("heads", g.heads());
            v.property("headType", g.headType());
            v.property("path", g.path().toArray(String[]::new));
            hops(v, g.hops());
            v.property("verdict", g.verdict().label());
            v.property("netObjects", g.netObjects());
            v.property("netBytes", g.netBytes());
            v.property("baselineHeads", g.baselineHeads());
            v.property("freedHeads", g.freedHeads());
            v.property("freedObjects", g.freedObjects());
            v.property("freedBytes", g.freedBytes());
            return true;
        }

        private boolean grew(InputEntityVisitor v, int i) {
            SnapshotComparison.Growth g = d.c.growth().get(i);
            edge(v, d.node, d.targetBase + g.target(), GraphSchema.GREW);
            v.property("rank", (long) i + 1);
            v.property("sizeBefore", g.sizeBefore());
            v.property("refsBefore", g.refsBefore());
            v.property("refsAfter", g.refsAfter());
            if (g.path() != null) {
                v.property("path", RetentionPath.names(g.path()).toArray(String[]::new));
                hops(v, g.path());
            }
            return true;
        }

        /**
         * A retention path as the parallel lists {@code pathNames} ({@code ""} for a hop without a name),
         * {@code pathKinds}, {@code pathKeyTypes} and {@code pathTypes} ({@link PathHop}; Neo4j lists hold no null).
         */
        private static void hops(InputEntityVisitor v, List<PathHop> hops) {
            v.property(GraphSchema.PATH_NAMES, PathHop.pathNames(hops).toArray(String[]::new));
            v.property(GraphSchema.PATH_KINDS, PathHop.pathKinds(hops).toArray(String[]::new));
            v.property(GraphSchema.PATH_KEY_TYPES, PathHop.pathKeyTypes(hops).toArray(String[]::new));
            v.property(GraphSchema.PATH_TYPES, PathHop.pathTypes(hops).toArray(String[]::new));
        }

        @Override
        public void close() {
            l = null;
            d = null;
        }
    }
}
