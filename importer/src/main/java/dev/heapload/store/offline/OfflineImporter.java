package dev.heapload.store.offline;

import dev.heapload.store.GraphInput;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import org.neo4j.batchimport.api.Configuration;
import org.neo4j.batchimport.api.IndexConfig;
import org.neo4j.batchimport.api.Monitor;
import org.neo4j.batchimport.api.input.Collector;
import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.dbms.identity.AbstractIdentityModule;
import org.neo4j.dbms.identity.ServerId;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.internal.batchimport.DefaultAdditionalIds;
import org.neo4j.internal.batchimport.ImportLogic;
import org.neo4j.internal.batchimport.staging.ExecutionMonitors;
import org.neo4j.internal.batchimport.store.BatchingNeoStores;
import org.neo4j.io.ByteUnit;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import org.neo4j.io.layout.recordstorage.RecordDatabaseLayout;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.io.pagecache.context.CursorContextFactory;
import org.neo4j.io.pagecache.context.FixedVersionContextSupplier;
import org.neo4j.io.pagecache.tracing.FileFlushEvent;
import org.neo4j.io.pagecache.tracing.PageCacheTracer;
import org.neo4j.kernel.database.MetadataCache;
import org.neo4j.kernel.impl.index.schema.IndexImporterFactoryImpl;
import org.neo4j.kernel.impl.store.CommonAbstractStore;
import org.neo4j.kernel.impl.store.NeoStores;
import org.neo4j.kernel.impl.scheduler.JobSchedulerFactory;
import org.neo4j.kernel.impl.transaction.log.EmptyLogTailMetadata;
import org.neo4j.kernel.impl.transaction.log.files.TransactionLogInitializer;
import org.neo4j.logging.InternalLogProvider;
import org.neo4j.logging.LogProvider;
import org.neo4j.logging.internal.SimpleLogService;
import org.neo4j.memory.EmptyMemoryTracker;
import org.neo4j.scheduler.JobScheduler;

import dev.heapload.model.Progress;

/**
 * Neo4j specifics of a store: the offline import of a {@link GraphInput} into a fresh Neo4j home with its schema
 * (constraint, index), and the embedded DBMS configuration.
 *
 * <p>Importer route: the in-memory {@link GraphInput} through Neo4j 5.26's internal parallel importer, its stages
 * called one by one through {@code ImportLogic} on {@code BatchingNeoStores} (the importer measured in
 * shared/docs/neo4j-measurements.md §2: 6.5 s for 1M nodes / 3M relationships). Internal API: it changes between
 * Neo4j versions. The importer's console report goes to the store's log file, and the
 * line its stages print to {@code System.err} when they fail is filtered out ({@link PanicFilter}); what remains
 * is its warning when native memory runs out and its caches fall back to the page cache, which the importer prints
 * to {@code System.err} (not seen in any run here).
 *
 * <p>Off-heap memory: {@code Configuration.maxOffHeapMemory} is the importer's budget for its caches (it sizes
 * the relationship-linking rounds from it); its page cache and the caches it must have come on top.
 *
 * <p>Indexes: the 5.26 record-format importer refuses schema commands ("Record format batch import does not
 * support schema changes", {@code ParallelBatchImporter.doImport}); it only builds the label and
 * relationship-type lookup indexes. So the importer's stages are run here one by one through its
 * {@code ImportLogic} (the sequence of {@code ParallelBatchImporter.doImport}), and before its stores close
 * {@link OfflineSchema} writes the constraint and the property index, ready and online, from the models in memory.
 * No DBMS is started during a load.
 */
public final class OfflineImporter {

    /** The Neo4j version whose internal API this package is written for (the importer stages, the schema store). */
    public static final String NEO4J_VERSION = "5.26";

    /** Default bound of the importer's off-heap memory (caches); override with {@code -Dheapload.import.maxOffHeap=BYTES}. */
    public static final long DEFAULT_MAX_OFF_HEAP = 512L << 20;
    /** Default page cache of the importer (Neo4j's own default is min(1 GiB, free RAM)); {@code -Dheapload.import.pageCache=BYTES}. */
    public static final long DEFAULT_IMPORT_PAGE_CACHE = 256L << 20;

    private OfflineImporter() {
    }

    /** Settings common to the importer and the embedded DBMS: logs in {@code logsDir}, small transaction logs. */
    public static Map<Setting<?>, Object> commonSettings(Path logsDir) {
        Map<Setting<?>, Object> settings = new HashMap<>();
        settings.put(GraphDatabaseSettings.logs_directory, logsDir.toAbsolutePath());
        settings.put(GraphDatabaseSettings.preallocate_logical_logs, false);
        // a write into an existing graph (on-demand comparison, summary update) must not grow a store file by a
        // whole preallocated chunk (see withoutPreallocation)
        settings.put(GraphDatabaseSettings.preallocate_store_files, false);
        settings.put(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(16));
        settings.put(GraphDatabaseSettings.keep_logical_logs, "false");
        settings.put(GraphDatabaseSettings.udc_enabled, false);
        return settings;
    }

    /** Called once the graph is imported, before its schema is written. */
    public interface AfterImport {
        public void run() throws IOException;
    }

    /**
     * Imports {@code input} into a new Neo4j home {@code home} (which must not hold a database).
     *
     * @param log         receives the importer's own progress and summary lines
     * @param logProvider receives the importer's log lines
     * @param progress    phase {@code "import"}, unit {@code "%"}, 0..100 as the importer reports it
     * @throws IOException on import errors (including bad input) or file-system errors
     */
    public static void importGraph(Path home, Path logsDir, GraphInput input, PrintStream log, InternalLogProvider logProvider,
                                   long maxOffHeap, long pageCache, Progress progress, AfterImport imported) throws IOException {
        Config config = Config.newBuilder().set(commonSettings(logsDir))
            .set(GraphDatabaseSettings.neo4j_home, home.toAbsolutePath())
            .set(GraphDatabaseSettings.pagecache_memory, pageCache)
            .build();
        RecordDatabaseLayout layout = RecordDatabaseLayout.of(config);
        Configuration importConfig = new Configuration() {
            @Override
            public long maxOffHeapMemory() {
                return maxOffHeap;
            }

            /**
             * Off: with it on (Neo4j's default) a {@code PageCacheFlusher} thread flushes and forces the whole
             * page cache over and over while the stages run, writing pages that are dirtied again moments later.
             * Without it pages are written when evicted and once at the end (the importer flushes and forces every
             * store when it closes, so the result on disk is the same). Measured on entity-system-large (2.4M
             * nodes, 8.8M relationships): node stage 2.3–2.9 s instead of 5.1–6.1 s, relationship stage
             * 1.8–2.4 s instead of 3.3 s, user CPU of the whole load 35–47 s instead of 49–51 s.
             */
            @Override
            public boolean sequentialBackgroundFlushing() {
                return false;
            }

            @Override
            public IndexConfig indexConfig() {
                return IndexConfig.create().withLabelIndex().withRelationshipTypeIndex();
            }
        };
        Monitor monitor = new Monitor() {
            @Override
            public void percentageCompleted(int percentage) {
                progress.step(percentage);
            }
        };
        progress.start("import", 100, "%");
        PrintStream terminal = System.err;
        PanicFilter filter = new PanicFilter(terminal, log);
        System.setErr(filter);
        CursorContextFactory contextFactory =
            new CursorContextFactory(PageCacheTracer.NULL, FixedVersionContextSupplier.EMPTY_CONTEXT_SUPPLIER);
        SimpleLogService logService = new SimpleLogService(logProvider, logProvider);
        EmptyLogTailMetadata logTail = new EmptyLogTailMetadata(config);
        long closeStart;
        try (DefaultFileSystemAbstraction fs = new DefaultFileSystemAbstraction();
             JobScheduler scheduler = JobSchedulerFactory.createInitialisedScheduler();
             BatchingNeoStores stores = ImportLogic.instantiateNeoStores(fs, layout, PageCacheTracer.NULL, importConfig,
                 logService, DefaultAdditionalIds.EMPTY, logTail, config, scheduler, EmptyMemoryTracker.INSTANCE,
                 contextFactory);
             ImportLogic logic = new ImportLogic(layout, stores, importConfig, config, logService,
                 ExecutionMonitors.defaultVisible(monitor, log, System.err), Collector.STRICT, monitor, contextFactory,
                 new IndexImporterFactoryImpl(), PageCacheTracer.NULL, EmptyMemoryTracker.INSTANCE);
             // closed first: a flush still running after a failure ends before the stores close
             EarlyFlushes flushes = new EarlyFlushes()) {
            long importStart = System.nanoTime();
            // the stages of Neo4j's ParallelBatchImporter.doImport (5.26), with the schema written before the
            // stores close (that importer refuses schema commands for the record format)
            withoutPreallocation(stores.getPageCache(), log);
            stores.createNew();
            logic.initialize(input);
            logic.importNodes();
            logic.prepareIdMapper();
            logic.importRelationships();
            // the property stores are complete once the relationships are in, the node and relationship stores
            // once they are linked: each is written to disk while the importer's CPU-bound stages go on, instead of
            // all at once when the stores close (the OS keeps up to a tenth of RAM dirty before writing)
            NeoStores neoStores = stores.getNeoStores();
            flushes.start(contextFactory, neoStores.getPropertyStore(),
                neoStores.getPropertyStore().getStringStore(), neoStores.getPropertyStore().getArrayStore());
            logic.calculateNodeDegrees();
            logic.linkRelationshipsOfAllTypes();
            logic.defragmentRelationshipGroups();
            flushes.start(contextFactory, neoStores.getNodeStore(), neoStores.getRelationshipStore(),
                neoStores.getRelationshipGroupStore());
            TransactionLogInitializer.getLogFilesInitializer().initializeLogFiles(layout,
                neoStores.getMetaDataStore(), new MetadataCache(logTail), fs, "heapload import checkpoint");
            logic.buildAuxiliaryStores();
            log.printf("heapload: doImport %.2f s%n", (System.nanoTime() - importStart) / 1e9);
            progress.step(100);
            progress.end();
            imported.run();
            long schemaStart = System.nanoTime();
            OfflineSchema.write(stores, config, contextFactory, input, progress, log);
            logic.success();
            log.printf("heapload: schema %.2f s%n", (System.nanoTime() - schemaStart) / 1e9);
            long flushWait = System.nanoTime();
            flushes.await();
            log.printf("heapload: waited %.2f s for the early flushes%n", (System.nanoTime() - flushWait) / 1e9);
            closeStart = System.nanoTime();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            // the importer wraps failures of its worker threads (including IOExceptions of the input)
            throw new IOException("Neo4j import failed: " + rootCause(e), e);
        } finally {
            if (System.err == filter) {
                System.setErr(terminal);
            }
            log.flush();
        }
        long trimStart = System.nanoTime();
        log.printf("heapload: closed the stores in %.2f s%n", (trimStart - closeStart) / 1e9);
        trimPreallocatedLogs(home.resolve("data").resolve("transactions"));
        log.printf("heapload: trimmed the transaction logs in %.2f s%n", (System.nanoTime() - trimStart) / 1e9);
        writeServerId(home);
    }

    /**
     * Turns off the importer's store file preallocation. Neo4j's page cache grows a file it writes by whole chunks of
     * its translation table (4,096 pages, 32 MiB) with {@code fallocate} when it preallocates, so every store file
     * over 32 MiB ends up to 32 MiB larger than its records; the importer builds its page cache with Neo4j's default
     * (preallocation on) and ignores {@code db.store.files.preallocate} ({@code BatchingNeoStores.createPageCache}).
     * Measured on entity-system-large (2.4M objects): node store 64 MiB for 36 MB of records, property store 736 MiB,
     * relationship store 288 MiB, object index 192 MiB. Without it the files end at their last written page, as
     * Neo4j's own files do with the setting off. Internal API (the final field {@code MuninnPageCache.
     * preallocateStoreFiles}, read when a file is mapped), set by reflection; when that fails, one log line and the
     * import goes on with preallocation.
     */
    static void withoutPreallocation(org.neo4j.io.pagecache.PageCache pageCache, PrintStream log) {
        try {
            java.lang.reflect.Field f = org.neo4j.io.pagecache.impl.muninn.MuninnPageCache.class
                .getDeclaredField("preallocateStoreFiles");
            f.setAccessible(true);
            if (pageCache instanceof org.neo4j.io.pagecache.impl.muninn.MuninnPageCache) {
                f.setBoolean(pageCache, false);
                return;
            }
            log.println("heapload: the importer's page cache is a " + pageCache.getClass().getName()
                + ": store files are preallocated");
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.println("heapload: could not turn off store file preallocation (" + rootCause(e) + ")");
        }
    }

    /**
     * Flushes finished store files from Neo4j's page cache and forces them to disk, each set on a thread of its own,
     * while the importer goes on with other stores. {@link #await} rethrows the first failure; {@link #close} only
     * waits for the threads.
     */
    private static final class EarlyFlushes implements AutoCloseable {
        private final List<Thread> threads = new ArrayList<>(2);
        private final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>(1));

        void start(CursorContextFactory contextFactory, CommonAbstractStore<?, ?>... stores) {
            Thread thread = new Thread(() -> {
                try (CursorContext context = contextFactory.create("heapload early flush")) {
                    for (CommonAbstractStore<?, ?> store : stores) {
                        store.flush(FileFlushEvent.NULL, context);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "heapload-early-flush-" + threads.size());
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }

        void await() throws IOException {
            close();
            if (!failures.isEmpty()) {
                throw new IOException("writing the store failed: " + rootCause(failures.get(0)), failures.get(0));
            }
        }

        @Override
        public void close() {
            for (Thread thread : threads) {
                joinUninterruptibly(thread);
            }
        }
    }

    /**
     * Waits until {@code thread} has ended, even when interrupted meanwhile (the interrupt is kept for the caller):
     * for threads that write into files that are about to be closed or deleted.
     */
    public static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * While an import, or a start or stop of the DBMS, runs, {@code System.err} is this: it passes everything
     * through except stack traces ({@link #println(Object)}) and the line the importer's stages print (hard-coded, {@code StageExecution.DEFAULT_PANIC_MONITOR}) when a stage fails,
     * which goes to the store's log instead. The failure itself reaches the caller as an exception.
     */
    public static final class PanicFilter extends PrintStream {
        public static final String PANIC = "Critical error occurred! Shutting down the import...";
        private final PrintStream log;

        public PanicFilter(PrintStream terminal, PrintStream log) {
            super(terminal, true);
            this.log = log;
        }

        @Override
        public void println(String line) {
            if (PANIC.equals(line)) {
                log.println(line);
            } else {
                super.println(line);
            }
        }

        /**
         * {@code Throwable.printStackTrace} prints every line through {@code println(Object)}: those traces go to the
         * store's log. Neo4j's page cache prints one (50 lines) each time it fails to flush a file it closes, e.g.
         * on a full disk ({@code MuninnPageCache.flushAndCloseWithoutFail}); the failure reaches the caller as an
         * exception or through {@link DiskWatchdog}.
         */
        @Override
        public void println(Object x) {
            log.println(x);
        }
    }

    /** Bytes of zeros {@link #trimPreallocatedLogs} keeps after a log's content (one file-system block). */
    public static final int LOG_ZEROS_KEPT = 4096;

    /**
     * The importer writes its transaction log and checkpoint log through Neo4j's {@code TransactionLogInitializer},
     * which ignores {@code db.tx_log.preallocate=false} (it builds its log files from {@code Config.defaults}) and so
     * leaves a 256 MiB transaction log and a 1 MiB checkpoint log that are all zeros after a few hundred bytes. Neo4j
     * reads a log until the first zeros, as it does in any preallocated file, or its end; this cuts each file to its
     * content plus {@link #LOG_ZEROS_KEPT} bytes of zeros (so a last entry that ends in zero bytes stays whole), which
     * reads the same; a later write into the graph (on-demand comparison, summary update: the DBMS runs without log
     * preallocation) appends after the content. It reads each file from the start up to its first 1 MiB of zeros.
     */
    public static void trimPreallocatedLogs(Path transactions) throws IOException {
        if (!Files.isDirectory(transactions)) {
            return;
        }
        List<Path> logs;
        try (Stream<Path> walk = Files.walk(transactions)) {
            logs = walk.filter(p -> p.getFileName().toString().startsWith("neostore.transaction.db.")
                || p.getFileName().toString().startsWith("checkpoint.")).toList();
        }
        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
        for (Path log : logs) {
            try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                // the content is at the start; the first chunk of only zeros marks the preallocated rest
                long size = ch.size();
                long lastNonZero = -1;
                long pos = 0;
                while (pos < size) {
                    buf.clear();
                    int n = ch.read(buf, pos);
                    if (n <= 0) {
                        break;
                    }
                    byte[] a = buf.array();
                    int last = n - 1;
                    while (last >= 0 && a[last] == 0) {
                        last--;
                    }
                    if (last < 0) {
                        break;
                    }
                    lastNonZero = pos + last;
                    pos += n;
                }
                long keep = lastNonZero + 1 + LOG_ZEROS_KEPT;
                if (keep < size) {
                    ch.truncate(keep);
                    ch.force(true);
                }
            }
        }
    }

    /** The file in which a Neo4j home keeps its DBMS's identity ({@code Neo4jLayout.serverIdFile()}). */
    public static Path serverIdFile(Path home) {
        return home.resolve("data").resolve("server_id");
    }

    /**
     * Writes a new server id into {@code home} the way Neo4j does on a first start ({@code DefaultIdentityModule}:
     * a random UUID through {@code ServerIdMarshal}), but atomically: into a temporary file, then renamed. Neo4j
     * itself writes the file in place on its first start, which on a full disk left a 0-byte file that made every
     * later start fail with {@code EOFException}; with the file present it only reads it.
     */
    public static void writeServerId(Path home) throws IOException {
        Path file = serverIdFile(home);
        Path tmp = file.resolveSibling("server_id.tmp");
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(tmp);
        try (DefaultFileSystemAbstraction fs = new DefaultFileSystemAbstraction()) {
            AbstractIdentityModule.createServerIdStorage(fs, tmp).writeState(new ServerId(UUID.randomUUID()));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Before a DBMS starts on {@code home}: a server id file that cannot be read (0 bytes or cut short, as an
     * interrupted first start on a full disk leaves it) is replaced by a new one ({@link #writeServerId}), or
     * deleted when that fails too (Neo4j then writes one itself). A missing file is left to Neo4j. The id only
     * names the DBMS instance; the graph does not depend on it.
     */
    public static void repairServerId(Path home, PrintStream log) {
        Path file = serverIdFile(home);
        if (!Files.exists(file)) {
            return;
        }
        try (DefaultFileSystemAbstraction fs = new DefaultFileSystemAbstraction()) {
            AbstractIdentityModule.createServerIdStorage(fs, file).readState();
            return;
        } catch (IOException | RuntimeException e) {
            log.println("heapload: " + file + " is damaged (" + rootCause(e) + "), writing a new one");
        }
        try {
            writeServerId(home);
        } catch (IOException | RuntimeException e) {
            log.println("heapload: could not write " + file + " (" + rootCause(e) + "), deleting it");
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // the start that follows reports it
            }
        }
    }

    /** The innermost cause's class and message, e.g. {@code IOException: snapshots/a.hsnap: truncated}. */
    public static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
