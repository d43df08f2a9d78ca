package dev.heapload.store.offline;

import dev.heapload.store.GraphInput;
import dev.heapload.store.GraphSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import org.eclipse.collections.impl.utility.primitive.IntQuickSort;
import org.neo4j.configuration.Config;
import org.neo4j.exceptions.KernelException;
import org.neo4j.index.internal.gbptree.RecoveryCleanupWorkCollector;
import org.neo4j.internal.batchimport.store.BatchingNeoStores;
import org.neo4j.internal.recordstorage.RecordStorageIndexingBehaviour;
import org.neo4j.internal.recordstorage.SchemaRuleAccess;
import org.neo4j.internal.schema.AllIndexProviderDescriptors;
import org.neo4j.internal.schema.IndexDescriptor;
import org.neo4j.internal.schema.IndexPrototype;
import org.neo4j.internal.schema.IndexType;
import org.neo4j.internal.schema.SchemaDescriptors;
import org.neo4j.internal.schema.SchemaRule;
import org.neo4j.internal.schema.constraints.ConstraintDescriptorFactory;
import org.neo4j.internal.schema.constraints.UniquenessConstraintDescriptor;
import org.neo4j.io.fs.FileSystemAbstraction;
import org.neo4j.io.memory.ByteBufferFactory;
import org.neo4j.io.pagecache.PageCache;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.io.pagecache.context.CursorContextFactory;
import org.neo4j.io.pagecache.tracing.FileFlushEvent;
import org.neo4j.io.pagecache.tracing.PageCacheTracer;
import org.neo4j.kernel.api.exceptions.index.IndexEntryConflictException;
import org.neo4j.kernel.api.index.IndexDirectoryStructure;
import org.neo4j.kernel.api.index.IndexEntryConflictHandler;
import org.neo4j.kernel.api.index.IndexPopulator;
import org.neo4j.kernel.api.index.IndexProvider;
import org.neo4j.kernel.api.index.IndexSample;
import org.neo4j.kernel.api.index.IndexUpdater;
import org.neo4j.kernel.impl.api.index.IndexSamplingConfig;
import org.neo4j.kernel.impl.api.index.PhaseTracker;
import org.neo4j.kernel.impl.api.index.stats.IndexStatisticsStore;
import org.neo4j.kernel.impl.index.schema.DatabaseIndexContext;
import org.neo4j.kernel.impl.index.schema.RangeIndexProvider;
import org.neo4j.kernel.impl.store.DynamicAllocatorProvider;
import org.neo4j.kernel.impl.store.DynamicAllocatorProviders;
import org.neo4j.kernel.impl.store.NeoStores;
import org.neo4j.kernel.impl.store.SchemaStore;
import org.neo4j.kernel.impl.store.cursor.CachedStoreCursors;
import org.neo4j.memory.EmptyMemoryTracker;
import org.neo4j.storageengine.api.IndexEntryUpdate;
import org.neo4j.storageengine.util.IdUpdateListener;
import org.neo4j.token.TokenHolders;
import org.neo4j.values.ElementIdMapper;
import org.neo4j.values.storable.Value;
import org.neo4j.values.storable.Values;

import dev.heapload.model.AddressFormat;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Writes the store's schema into a freshly imported database while the importer still holds its stores open:
 * the uniqueness constraint {@value GraphSchema#SNAPSHOT_ID_CONSTRAINT} on {@code :Snapshot(id)} with its range
 * index, and the range index {@value GraphSchema#OBJECT_ADDRESS_INDEX} on {@code :Object(snapshot, address)},
 * each written ONLINE and with its sample in the index statistics store, so the database opens with both
 * indexes ready.
 *
 * <p>Why not {@code CREATE INDEX} on a started DBMS: that scans the node store, sorts the keys in blocks and
 * merges them, single-threaded (7–16 s for 2.4M objects on 2 cores, plus about 2 s to start the DBMS). Here the
 * keys come from the heap models in memory, put in key order (snapshot id, then address: see
 * {@link #addressOrder}), and go straight into the index tree; the node ids are
 * known because the import uses {@code IdType.ACTUAL} ids laid out by {@link GraphInput}. Measured on
 * entity-system-large (2.4M keys): 4.0–4.9 s, no DBMS start. The object index's keys are written with a writer that
 * keeps full leaves ({@link PackedTree}): 86 MiB for those 2.4M keys, where the populator's updater, which splits
 * leaves in the middle, left them half full (192 MiB); the snapshot index's few keys go through the updater. When
 * the keys do not come in key order (a {@code 0x} address format with addresses of different lengths, whose text
 * does not sort as their numbers do, or addresses kept verbatim), the rest go through the updater as before.
 * The sample's distinct-value count counts address changes in that order (addresses are unique per snapshot in
 * every supported format).
 *
 * <p>Internal API of Neo4j 5.26 (as is the importer route of {@link OfflineImporter}): schema rules are written the
 * way the importer writes its token lookup indexes ({@code SchemaRuleAccess.writeSchemaRule} with the
 * importer's token holders), index files through {@code RangeIndexProvider}'s populator on the importer's page
 * cache, samples through {@code IndexStatisticsStore}. A DBMS that finds an index without a sample samples it
 * when it starts ({@code IndexSamplingController.recoverIndexSamples}), so the samples are written here too.
 */
final class OfflineSchema {

    /** Updates per updater: the populator's updater collects its updates and writes them when closed. */
    private static final int BATCH = 20_000;

    private OfflineSchema() {
    }

    /**
     * Writes the constraint, both indexes, their files and samples.
     *
     * @param stores         the importer's stores, after its last stage and before they close
     * @param config         the database configuration the import ran with
     * @param contextFactory the importer's cursor context factory
     * @param input          the imported graph: its parts give the snapshot ids, object addresses and node ids
     * @param progress       phase {@code "index"}, unit objects
     * @param log            the store's log: gets one line when the object index's keys were not in key order
     * @throws IOException when a snapshot model cannot be read again, or the index files cannot be written
     */
    static void write(BatchingNeoStores stores, Config config, CursorContextFactory contextFactory, GraphInput input,
                      Progress progress, java.io.PrintStream log) throws IOException {
        NeoStores neoStores = stores.getNeoStores();
        TokenHolders tokens = stores.getTokenHolders();
        SchemaStore schemaStore = neoStores.getSchemaStore();
        FileSystemAbstraction fs = stores.fileSystem();
        PageCache pageCache = stores.getPageCache();
        try (CursorContext context = contextFactory.create("heapload schema");
             CachedStoreCursors cursors = new CachedStoreCursors(neoStores, context)) {
            int snapshotLabel = tokens.labelTokens().getOrCreateId(GraphSchema.SNAPSHOT);
            int objectLabel = tokens.labelTokens().getOrCreateId(GraphSchema.OBJECT);
            int idKey = tokens.propertyKeyTokens().getOrCreateId("id");
            int snapshotKey = tokens.propertyKeyTokens().getOrCreateId("snapshot");
            int addressKey = tokens.propertyKeyTokens().getOrCreateId("address");

            long constraintId = schemaStore.getIdGenerator().nextId(context);
            long snapshotIndexId = schemaStore.getIdGenerator().nextId(context);
            long objectIndexId = schemaStore.getIdGenerator().nextId(context);
            var snapshotSchema = SchemaDescriptors.forLabel(snapshotLabel, idKey);
            IndexDescriptor snapshotIndex = IndexPrototype
                .uniqueForSchema(snapshotSchema, AllIndexProviderDescriptors.RANGE_DESCRIPTOR)
                .withIndexType(IndexType.RANGE).withName(GraphSchema.SNAPSHOT_ID_CONSTRAINT)
                .materialise(snapshotIndexId).withOwningConstraintId(constraintId);
            UniquenessConstraintDescriptor constraint = ConstraintDescriptorFactory
                .uniqueForSchema(snapshotSchema, IndexType.RANGE)
                .withId(constraintId).withName(GraphSchema.SNAPSHOT_ID_CONSTRAINT).withOwnedIndexId(snapshotIndexId);
            IndexDescriptor objectIndex = IndexPrototype
                .forSchema(SchemaDescriptors.forLabel(objectLabel, snapshotKey, addressKey),
                    AllIndexProviderDescriptors.RANGE_DESCRIPTOR)
                .withIndexType(IndexType.RANGE).withName(GraphSchema.OBJECT_ADDRESS_INDEX)
                .materialise(objectIndexId);

            RangeIndexProvider provider = new RangeIndexProvider(
                DatabaseIndexContext.builder(pageCache, fs, contextFactory, PageCacheTracer.NULL,
                    stores.databaseLayout().getDatabaseName()).build(),
                IndexDirectoryStructure.directoriesByProvider(stores.databaseLayout().databaseDirectory()),
                RecoveryCleanupWorkCollector.immediate(), config);
            var behaviour = new RecordStorageIndexingBehaviour(neoStores.getNodeStore().getRecordsPerPage(),
                neoStores.getRelationshipStore().getRecordsPerPage());
            Populator populator = new Populator(provider, config, tokens, stores, behaviour, context);

            List<Integer> order = new ArrayList<>();
            for (int p = 0; p < input.partCount(); p++) {
                order.add(p);
            }
            order.sort(Comparator.comparing(input::snapshotId));
            long objects = 0;
            for (int p : order) {
                objects += input.objectCount(p);
            }

            IndexSample snapshotSample;
            try (Populator.Index index = populator.open(snapshotIndex)) {
                for (int p : order) {
                    index.add(input.snapshotNode(p), Values.stringValue(input.snapshotId(p)));
                }
                snapshotSample = new IndexSample(order.size(), order.size(), order.size());
                index.online();
            }

            progress.start("index", objects, "objects");
            long done = 0;
            long distinct = 0;
            try (Populator.Index index = populator.open(objectIndex)) {
                index.packed();
                for (int p : order) {
                    if (input.summaryOnly(p)) {
                        continue; // another snapshot's summary: no objects in this graph
                    }
                    HeapSnapshot snapshot = input.model(p);
                    Value id = Values.stringValue(input.snapshotId(p));
                    long base = input.nodeBase(p);
                    int[] sorted = addressOrder(snapshot);
                    String previous = null;
                    for (int o : sorted) {
                        String address = snapshot.address(o);
                        if (!address.equals(previous)) {
                            distinct++;
                        }
                        previous = address;
                        index.add(base + o, id, Values.stringValue(address));
                        if (++done % BATCH == 0) {
                            progress.step(done);
                        }
                    }
                }
                index.online();
                if (index.disordered()) {
                    log.println("heapload: the keys of index " + GraphSchema.OBJECT_ADDRESS_INDEX + " did not come in key"
                        + " order (addresses of mixed lengths or spellings): its leaves are half full");
                }
            }
            progress.step(done);
            progress.end();

            IndexStatisticsStore statistics = new IndexStatisticsStore(pageCache, fs, stores.databaseLayout(),
                RecoveryCleanupWorkCollector.immediate(), false, contextFactory, PageCacheTracer.NULL,
                stores.getOpenOptions());
            try {
                statistics.setSampleStats(snapshotIndexId, snapshotSample);
                statistics.setSampleStats(objectIndexId, new IndexSample(done, distinct, done));
                statistics.checkpoint(FileFlushEvent.NULL, context);
            } finally {
                statistics.shutdown();
            }

            SchemaRuleAccess rules = SchemaRuleAccess.getSchemaRuleAccess(schemaStore, tokens);
            DynamicAllocatorProvider allocator = DynamicAllocatorProviders.nonTransactionalAllocator(neoStores);
            for (SchemaRule rule : List.<SchemaRule>of(snapshotIndex, constraint, objectIndex)) {
                rules.writeSchemaRule(rule, IdUpdateListener.DIRECT, allocator, context, EmptyMemoryTracker.INSTANCE,
                    cursors);
            }
        } catch (KernelException e) {
            throw new IOException("writing the schema failed: " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * The snapshot's objects in about address order, so the index tree is written from left to right. Any order
     * gives the same index; this one keeps the tree's working set small. Numeric addresses are packed with the
     * object id into one {@code long} (the address's low bits dropped when both do not fit) and sorted as
     * primitives; opaque spellings are sorted by their text.
     */
    static int[] addressOrder(HeapSnapshot snapshot) {
        int n = snapshot.objectCount();
        int[] order = new int[n];
        if (snapshot.addressFormat() == AddressFormat.OPAQUE) {
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            if (n > 1) {
                IntQuickSort.sort(order, 0, n - 1, (a, b) -> snapshot.address(a).compareTo(snapshot.address(b)));
            }
            return order;
        }
        int idBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(n));
        long highest = 0;
        for (int i = 0; i < n; i++) {
            highest |= snapshot.addressKey(i);
        }
        int shift = Math.max(0, (64 - Long.numberOfLeadingZeros(highest)) - (63 - idBits));
        long[] packed = new long[n];
        for (int i = 0; i < n; i++) {
            packed[i] = ((snapshot.addressKey(i) >>> shift) << idBits) | i;
        }
        Arrays.parallelSort(packed);
        long mask = (1L << idBits) - 1;
        for (int i = 0; i < n; i++) {
            order[i] = (int) (packed[i] & mask);
        }
        if (shift > 0) {
            // objects whose addresses differ only in the dropped low bits are in id order: put each such run in
            // address order, so the index gets its keys in key order (see Populator.Index#packed)
            int i = 0;
            while (i < n) {
                long high = packed[i] >>> idBits;
                int j = i + 1;
                while (j < n && (packed[j] >>> idBits) == high) {
                    j++;
                }
                if (j - i > 1) {
                    IntQuickSort.sort(order, i, j - 1, (a, b) -> Long.compare(snapshot.addressKey(a), snapshot.addressKey(b)));
                }
                i = j;
            }
        }
        return order;
    }

    /** The populator merges scan updates with this; there are none. */
    private static final IndexPopulator.PopulationWorkScheduler NO_MERGE = new IndexPopulator.PopulationWorkScheduler() {
        @Override
        public <T> org.neo4j.scheduler.JobHandle<T> schedule(IndexPopulator.JobDescriptionSupplier description,
                                                               java.util.concurrent.Callable<T> job) {
            throw new IllegalStateException("no scan updates to merge");
        }
    };

    /** Makes index files with {@link RangeIndexProvider}'s populator, fed directly instead of by a store scan. */
    private record Populator(IndexProvider provider, Config config, TokenHolders tokens, BatchingNeoStores stores,
                             RecordStorageIndexingBehaviour behaviour, CursorContext context) {

        Index open(IndexDescriptor descriptor) throws IOException {
            IndexDescriptor complete = provider.completeConfiguration(descriptor, behaviour);
            IndexPopulator populator = provider.getPopulator(complete, new IndexSamplingConfig(config),
                ByteBufferFactory.heapBufferFactory(64 << 10), EmptyMemoryTracker.INSTANCE, tokens,
                ElementIdMapper.PLACEHOLDER, stores.getOpenOptions(), behaviour);
            populator.create();
            try {
                // nothing was added as scan updates: this only makes the (empty) tree; later updates go into it
                populator.scanCompleted(PhaseTracker.nullInstance, NO_MERGE, IndexEntryConflictHandler.THROW, context);
            } catch (IndexEntryConflictException e) {
                populator.close(false, context);
                throw new IOException(e.getMessage(), e);
            }
            return new Index(complete, populator, context);
        }

        /** One index being written; {@link #online()} marks it complete, closing without it leaves it failed. */
        static final class Index implements AutoCloseable {
            private final IndexDescriptor descriptor;
            private final IndexPopulator populator;
            private final CursorContext context;
            private IndexUpdater updater;
            private int pending;
            private boolean online;
            private PackedTree packed;
            private boolean disordered;

            Index(IndexDescriptor descriptor, IndexPopulator populator, CursorContext context) {
                this.descriptor = descriptor;
                this.populator = populator;
                this.context = context;
            }

            /**
             * From here on, keys given in ascending key order go straight into the index tree with full leaves
             * ({@link PackedTree}); at the first key out of order, it and the rest go through the populator's
             * updater as before ({@link #disordered()}). Does nothing when Neo4j's internals are not as expected.
             */
            void packed() throws IOException {
                packed = PackedTree.open(populator, context);
            }

            /** True when {@link #packed()} was on and a key came out of key order. */
            boolean disordered() {
                return disordered;
            }

            void add(long nodeId, Value... values) throws IOException {
                if (packed != null) {
                    if (packed.add(nodeId, values)) {
                        return;
                    }
                    packed.close();
                    packed = null;
                    disordered = true;
                }
                if (updater == null) {
                    updater = populator.newPopulatingUpdater(context);
                }
                try {
                    updater.process(IndexEntryUpdate.add(nodeId, descriptor, values));
                    if (++pending == BATCH) {
                        flush();
                    }
                } catch (IndexEntryConflictException e) {
                    throw new IOException("index " + descriptor.getName() + ": " + e.getMessage(), e);
                }
            }

            private void flush() throws IndexEntryConflictException {
                if (updater != null) {
                    updater.close();
                    updater = null;
                    pending = 0;
                }
            }

            void online() throws IOException {
                if (packed != null) {
                    packed.close();
                    packed = null;
                }
                try {
                    flush();
                } catch (IndexEntryConflictException e) {
                    throw new IOException("index " + descriptor.getName() + ": " + e.getMessage(), e);
                }
                populator.close(true, context);
                online = true;
            }

            @Override
            public void close() {
                if (packed != null) {
                    try {
                        packed.close();
                    } catch (IOException | RuntimeException ignored) {
                        // the index is marked failed and its database deleted with the build
                    }
                    packed = null;
                }
                if (!online) {
                    populator.close(false, context);
                }
            }
        }
    }

    /**
     * Writes keys given in ascending key order straight into a range index populator's tree, with a writer that
     * keeps every key in the left leaf when a leaf splits ({@code DataTree.W_SPLIT_KEEP_ALL_LEFT}, what Neo4j's own
     * population uses when it merges sorted keys): each leaf is filled before the next one starts. The populator's
     * updater splits leaves in the middle, which leaves a tree grown in key order with half-full leaves, twice the
     * size on disk. Lookups read the same keys either way.
     *
     * <p>Internal API of Neo4j 5.26, by reflection: the populator's tree and layout ({@code NativeIndex.tree},
     * {@code NativeIndex.layout}) and the key set-up of its updater ({@code NativeIndexUpdater.initializeKeyFromUpdate}).
     * When any of them is missing, {@link #open} returns null and the updater is used.
     */
    static final class PackedTree implements java.io.Closeable {
        private static final java.lang.reflect.Field TREE;
        private static final java.lang.reflect.Field LAYOUT;
        private static final java.lang.invoke.MethodHandle INIT_KEY;

        static {
            java.lang.reflect.Field tree = null;
            java.lang.reflect.Field layout = null;
            java.lang.invoke.MethodHandle init = null;
            try {
                Class<?> nativeIndex = Class.forName("org.neo4j.kernel.impl.index.schema.NativeIndex");
                tree = nativeIndex.getDeclaredField("tree");
                tree.setAccessible(true);
                layout = nativeIndex.getDeclaredField("layout");
                layout.setAccessible(true);
                Class<?> key = Class.forName("org.neo4j.kernel.impl.index.schema.NativeIndexKey");
                java.lang.reflect.Method m = Class.forName("org.neo4j.kernel.impl.index.schema.NativeIndexUpdater")
                    .getDeclaredMethod("initializeKeyFromUpdate", key, long.class, Value[].class);
                m.setAccessible(true);
                init = java.lang.invoke.MethodHandles.lookup().unreflect(m).asType(java.lang.invoke.MethodType
                    .methodType(void.class, Object.class, long.class, Value[].class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                tree = null;
            }
            TREE = tree;
            LAYOUT = layout;
            INIT_KEY = init;
        }

        private final org.neo4j.index.internal.gbptree.Layout<Object, Object> layout;
        private final org.neo4j.index.internal.gbptree.Writer<Object, Object> writer;
        private final Object value;
        private Object key;
        private Object previous;

        private PackedTree(org.neo4j.index.internal.gbptree.Layout<Object, Object> layout,
                           org.neo4j.index.internal.gbptree.Writer<Object, Object> writer) {
            this.layout = layout;
            this.writer = writer;
            this.value = layout.newValue();
            this.key = layout.newKey();
            this.previous = layout.newKey();
        }

        /** A writer into {@code populator}'s tree (created and scan-completed), or null when that is not possible. */
        @SuppressWarnings("unchecked")
        static PackedTree open(IndexPopulator populator, CursorContext context) throws IOException {
            if (TREE == null || !TREE.getDeclaringClass().isInstance(populator)) {
                return null;
            }
            Object tree;
            Object layout;
            try {
                tree = TREE.get(populator);
                layout = LAYOUT.get(populator);
            } catch (IllegalAccessException e) {
                return null;
            }
            if (!(tree instanceof org.neo4j.index.internal.gbptree.GBPTree<?, ?> t)
                || !(layout instanceof org.neo4j.index.internal.gbptree.Layout<?, ?> l)) {
                return null;
            }
            var writer = ((org.neo4j.index.internal.gbptree.GBPTree<Object, Object>) t).writer(
                org.neo4j.index.internal.gbptree.DataTree.W_BATCHED_SINGLE_THREADED
                    | org.neo4j.index.internal.gbptree.DataTree.W_SPLIT_KEEP_ALL_LEFT, context);
            return new PackedTree((org.neo4j.index.internal.gbptree.Layout<Object, Object>) l, writer);
        }

        /** Writes the key; false (writing nothing) when it is not greater than the one before. */
        boolean add(long nodeId, Value[] values) {
            try {
                INIT_KEY.invokeExact(key, nodeId, values);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
            if (written > 0 && layout.compare(previous, key) >= 0) {
                return false;
            }
            writer.put(key, value);
            written++;
            Object swap = previous;
            previous = key;
            key = swap;
            return true;
        }

        private long written;

        @Override
        public void close() throws IOException {
            writer.close();
        }
    }
}
