package dev.heapload.store;

import java.io.IOException;
import java.time.ZoneOffset;
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
final class GraphInput implements Input {

    /** Entities per chunk handed to an importer thread. */
    private static final int CHUNK = 10_000;

    /** Supplies a snapshot model, e.g. by reading its file. */
    interface Source {
        HeapSnapshot get() throws IOException;
    }

    /** One snapshot of the graph: its catalog entry and where its model comes from. */
    record Part(Catalog.Entry entry, Source source) {
    }

    private enum Segment {
        OBJECTS, SNAPSHOT, CATEGORIES,
        REFERENCES, ROOTS, HAS_CATEGORY, RETAINED_BY, DOMINATED_BY
    }

    private static final Segment[] NODE_SEGMENTS = {Segment.OBJECTS, Segment.SNAPSHOT, Segment.CATEGORIES};
    private static final Segment[] RELATIONSHIP_SEGMENTS =
        {Segment.REFERENCES, Segment.ROOTS, Segment.HAS_CATEGORY, Segment.RETAINED_BY, Segment.DOMINATED_BY};

    private final List<Part> parts;
    private final long[] nodeBase;
    private final long nodeCount;

    GraphInput(List<Part> parts) {
        this.parts = List.copyOf(parts);
        this.nodeBase = new long[parts.size()];
        long base = 0;
        for (int i = 0; i < parts.size(); i++) {
            nodeBase[i] = base;
            Catalog.Entry e = parts.get(i).entry();
            base += e.summary().objectCount() + 1 + e.categoryCount();
        }
        this.nodeCount = base;
    }

    /** Number of nodes the import creates. */
    long nodeCount() {
        return nodeCount;
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
            SnapshotSummary s = p.entry().summary();
            long n = s.objectCount();
            int c = p.entry().categoryCount();
            rels += s.referenceCount() + c + (s.analysed() ? 2 * n : 0);
            nodeProps += n * (s.analysed() ? 9 : 6) + 9 + 4L * c;
            relProps += 2 * s.referenceCount() + (s.analysed() ? 2 * n : 0);
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
        final String[] typeNames;
        final String[] kinds;
        final MemoryCategory[] categories;

        Loaded(Part part, long base) throws IOException {
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
            this.categories = snapshot.info().categories().values().toArray(MemoryCategory[]::new);
        }

        long count(Segment segment) {
            return switch (segment) {
                case OBJECTS -> snapshot.objectCount();
                case SNAPSHOT -> 1;
                case CATEGORIES, HAS_CATEGORY -> categories.length;
                case REFERENCES -> snapshot.referenceCount();
                case ROOTS -> snapshot.roots().size();
                case RETAINED_BY, DOMINATED_BY -> analysis == null ? 0 : snapshot.objectCount();
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
                if (loaded == null) {
                    part++;
                    if (part >= parts.size()) {
                        return false;
                    }
                    loaded = new Loaded(parts.get(part), nodeBase[part]);
                    segment = 0;
                    position = 0;
                }
                if (segment >= segments.length) {
                    loaded = null;
                    continue;
                }
                long count = loaded.count(segments[segment]);
                if (position >= count) {
                    segment++;
                    position = 0;
                    continue;
                }
                long end = Math.min(count, position + CHUNK);
                ((Chunk) chunk).init(loaded, segments[segment], (int) position, (int) end);
                position = end;
                return true;
            }
        }

        @Override
        public void close() {
            loaded = null;
        }
    }

    /** A range {@code [from, to)} of one segment of one snapshot. */
    private static final class Chunk implements InputChunk {
        private Loaded l;
        private Segment segment;
        private int at;
        private int to;
        private int source;

        void init(Loaded loaded, Segment segment, int from, int to) {
            this.l = loaded;
            this.segment = segment;
            this.at = from;
            this.to = to;
            if (segment == Segment.REFERENCES) {
                source = sourceOf(loaded.snapshot.firstReferenceColumn(), loaded.snapshot.objectCount(), from);
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
                    case ROOTS -> root(v, i);
                    case HAS_CATEGORY -> hasCategory(v, i);
                    case RETAINED_BY -> retainedBy(v, i);
                    case DOMINATED_BY -> dominatedBy(v, i);
                };
                if (emitted) {
                    v.endOfEntity();
                    return true;
                }
            }
            return false;
        }

        private boolean object(InputEntityVisitor v, int o) {
            HeapSnapshot s = l.snapshot;
            int type = s.typeId(o);
            v.id(l.base + o);
            v.labels(l.labelsByType[type]);
            v.property("snapshot", l.id);
            v.property("address", s.address(o));
            v.property("type", l.typeNames[type]);
            v.property("size", s.shallowSize(o));
            int category = s.category(o);
            if (category >= 0) {
                v.property("category", (long) category);
            }
            String label = s.label(o);
            if (label != null) {
                v.property("label", label);
            }
            HeapAnalysis a = l.analysis;
            if (a != null) {
                v.property("reachable", a.reachable()[o]);
                v.property("distance", (long) a.distance()[o]);
                v.property("retainedSize", a.retainedSize()[o]);
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
            v.property("loadedAt", s.loadedAt().atZone(ZoneOffset.UTC));
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
            }
            if ((flags & HeapSnapshot.EPHEMERON_VALUE) != 0) {
                v.property("ephemeron", Boolean.TRUE);
            }
            if ((flags & HeapSnapshot.WEAK_KEY_VALUE) != 0) {
                v.property("weakKey", Boolean.TRUE);
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

        private boolean retainedBy(InputEntityVisitor v, int o) {
            int r = l.analysis.retainedBy()[o];
            if (r < 0) {
                return false;
            }
            HeapSnapshot s = l.snapshot;
            v.startId(l.base + o);
            v.endId(l.base + sourceOf(s.firstReferenceColumn(), s.objectCount(), r));
            v.type(GraphSchema.RETAINED_BY);
            v.property("kind", l.kinds[s.referenceKindId(r)]);
            String name = s.referenceName(r);
            if (name != null) {
                v.property("name", name);
            }
            return true;
        }

        private boolean dominatedBy(InputEntityVisitor v, int o) {
            int d = l.analysis.immediateDominator()[o];
            if (d < 0) {
                return false;
            }
            v.startId(l.base + o);
            v.endId(l.base + d);
            v.type(GraphSchema.DOMINATED_BY);
            return true;
        }

        @Override
        public void close() {
            l = null;
        }
    }

    /** The object whose reference range {@code first[o] .. first[o+1]-1} holds reference {@code r}. */
    static int sourceOf(int[] first, int objectCount, int r) {
        int lo = 0;
        int hi = objectCount - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (first[mid] <= r) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
