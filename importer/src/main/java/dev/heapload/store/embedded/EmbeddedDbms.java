package dev.heapload.store.embedded;

import dev.heapload.store.offline.OfflineImporter;
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
 * The embedded DBMS of a store's graph (queries, {@code heapload serve}): its settings and its start. Every DBMS it
 * starts is read-only, reaches no file or URL through Cypher, and offers only the {@code dbms.*} procedures a client
 * needs to connect. The procedure removal and two of the settings use Neo4j 5.26 internal API
 * ({@code GraphDatabaseAPI}, {@code GlobalProcedures}, {@code GraphDatabaseInternalSettings},
 * {@code BoltConnectorInternalSettings}); the offline import itself is in {@code dev.heapload.store.offline}.
 */
public final class EmbeddedDbms {

    private EmbeddedDbms() {
    }

    /**
     * Bound on the memory one transaction may use ({@code db.memory.transaction.max}), in bytes: a query that
     * needs more fails with an error instead of exhausting the heap. {@code -Dheapload.query.memoryMax=BYTES},
     * default 1.5 GiB or 60% of the maximum heap, whichever is smaller (the launcher's default heap is 1200 MiB).
     */
    static final long TRANSACTION_MEMORY_MAX = Long.getLong("heapload.query.memoryMax",
        Math.min(1536L << 20, Runtime.getRuntime().maxMemory() / 10 * 6));

    /**
     * Starts an embedded DBMS on {@code home} with logs in {@code logsDir}, the given page cache size in bytes,
     * {@link #TRANSACTION_MEMORY_MAX} as the per-transaction memory limit and {@code extra} settings on top
     * (empty, or {@link #serverSettings}).
     */
    static DatabaseManagementService start(Path home, Path logsDir, LogProvider userLog, long pageCache,
                                           Map<Setting<?>, Object> extra) {
        return start(home, logsDir, userLog, pageCache, extra, Map.of());
    }

    /**
     * {@link #start(Path, Path, LogProvider, long, Map)} with settings by name ({@code neo4j.conf} syntax) applied
     * first, so the typed settings (read-only, no file access, loopback connectors) override any of them.
     */
    static DatabaseManagementService start(Path home, Path logsDir, LogProvider userLog, long pageCache,
                                           Map<Setting<?>, Object> extra, Map<String, String> byName) {
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home.toAbsolutePath())
            .setConfig(settingsByName(byName))
            .setConfig(OfflineImporter.commonSettings(logsDir))
            .setConfig(GraphDatabaseSettings.pagecache_memory, pageCache)
            .setConfig(GraphDatabaseSettings.memory_transaction_max_size, TRANSACTION_MEMORY_MAX)
            .setConfig(readOnlySettings(logsDir))
            .setConfig(extra)
            .setUserLogProvider(userLog)
            .build();
        try {
            withoutDbmsProcedures(dbms);
        } catch (RuntimeException e) {
            dbms.shutdown();
            throw e;
        }
        return dbms;
    }

    /**
     * Parses settings given by name and value ({@code neo4j.conf} syntax) into typed settings, with Neo4j's own
     * parsers and validation.
     *
     * @throws IllegalArgumentException for an unknown name or a value that does not parse
     */
    static Map<Setting<?>, Object> settingsByName(Map<String, String> byName) {
        if (byName.isEmpty()) {
            return Map.of();
        }
        Config parsed = Config.newBuilder().setRaw(byName).build();
        Map<String, Setting<Object>> declared = parsed.getDeclaredSettings();
        Map<Setting<?>, Object> settings = new HashMap<>();
        for (String name : byName.keySet()) {
            Setting<Object> setting = declared.get(name);
            if (setting == null) {
                throw new IllegalArgumentException("unknown Neo4j setting " + name);
            }
            settings.put(setting, parsed.get(setting));
        }
        return settings;
    }

    /**
     * Removes every built-in {@code dbms.*} procedure except {@link #DBMS_PROCEDURES} from {@code dbms}'s registry
     * (the allowlist setting applies to plugin procedures only, measured: {@code CALL dbms.listConfig()} still answered
     * with it set), so calling {@code dbms.listConfig}, {@code dbms.queryJmx}, {@code dbms.listConnections},
     * {@code dbms.killConnection(s)} or {@code dbms.upgrade} fails with "There is no procedure with the name ...
     * registered for this database instance". The registry is shared by all databases of the DBMS.
     */
    private static void withoutDbmsProcedures(DatabaseManagementService dbms) {
        var resolver = ((org.neo4j.kernel.internal.GraphDatabaseAPI) dbms.database(
            GraphDatabaseSettings.SYSTEM_DATABASE_NAME)).getDependencyResolver();
        var procedures = resolver.resolveDependency(org.neo4j.kernel.api.procedure.GlobalProcedures.class);
        List<org.neo4j.internal.kernel.api.procs.QualifiedName> remove = new ArrayList<>();
        for (org.neo4j.kernel.api.QueryLanguage language : org.neo4j.kernel.api.QueryLanguage.values()) {
            procedures.getCurrentView().getAllProcedures(language).forEach(p -> {
                var name = p.name();
                if (name.namespace().length > 0 && name.namespace()[0].equals("dbms")
                    && !DBMS_PROCEDURES.contains(name.toString()) && !remove.contains(name)) {
                    remove.add(name);
                }
            });
        }
        for (var name : remove) {
            procedures.unregister(name);
        }
    }

    /**
     * The {@code dbms.*} procedures a client of {@link #start}'s DBMS may call: those Neo4j Browser and the drivers
     * call to connect. The others ({@code dbms.listConfig}, {@code dbms.queryJmx}, {@code dbms.listConnections},
     * {@code dbms.killConnection(s)}, {@code dbms.upgrade} ...) are removed when the DBMS starts.
     */
    static final java.util.Set<String> DBMS_PROCEDURES = java.util.Set.of("dbms.components", "dbms.clientConfig",
        "dbms.showCurrentUser", "dbms.info", "dbms.routing.getRoutingTable", "dbms.cluster.routing.getRoutingTable",
        "dbms.listCapabilities");

    /**
     * Settings of every DBMS that {@link #start} starts (queries, {@code heapload serve}): the graph is only read and
     * nothing reaches files or the network through Cypher.
     * <ul>
     *   <li>{@code server.databases.default_to_read_only=true}: every write (CREATE, SET, schema) fails with
     *       "... is read-only" and nothing is written to the graph (the offline import writes it, not this DBMS);
     *   <li>{@code dbms.security.allow_csv_import_from_file_urls=false}: {@code LOAD CSV FROM 'file:///...'} fails;
     *       {@code server.directories.import} is an empty folder ({@code DIR/logs/no-import}) besides;
     *   <li>{@code internal.dbms.cypher_ip_blocklist} = every IPv4 and IPv6 address: {@code LOAD CSV FROM
     *       'http://...'} fails before connecting (Neo4j 5 has no public setting that turns off URL loads);
     * </ul>
     * and {@link #DBMS_PROCEDURES} only, once started.
     */
    static Map<Setting<?>, Object> readOnlySettings(Path logsDir) {
        Map<Setting<?>, Object> settings = new HashMap<>();
        settings.put(GraphDatabaseSettings.read_only_database_default, true);
        settings.put(GraphDatabaseSettings.allow_file_urls, false);
        settings.put(GraphDatabaseSettings.load_csv_file_url_root, logsDir.toAbsolutePath().resolve("no-import"));
        settings.put(org.neo4j.configuration.GraphDatabaseInternalSettings.cypher_ip_blocklist,
            List.of(new inet.ipaddr.IPAddressString("0.0.0.0/0"), new inet.ipaddr.IPAddressString("::/0")));
        return settings;
    }

    /** The address the Bolt and HTTP connectors of {@link #serverSettings} listen on: loopback only. */
    static final String LOOPBACK = "127.0.0.1";

    /**
     * Settings that make the embedded DBMS a local server: Bolt on {@code boltPort} and HTTP on {@code httpPort},
     * both on {@link #LOOPBACK} only (advertised as {@code localhost}, which Neo4j Browser uses to reach Bolt),
     * HTTPS off, authentication off, {@code server.http.access_control_allow_origin} = {@code http://localhost:httpPort}
     * (Neo4j's default {@code *} lets any web page read the HTTP API's answers). The two Bolt shutdown waits are set to zero: with their defaults every
     * shutdown waits 5 s per Bolt connector (10 s; shared/docs/neo4j-measurements.md §1).
     */
    static Map<Setting<?>, Object> serverSettings(int boltPort, int httpPort) {
        return serverSettings(boltPort, httpPort, false);
    }

    /** {@link #serverSettings(int, int)}, with authentication on ({@code dbms.security.auth_enabled}) when {@code auth}. */
    static Map<Setting<?>, Object> serverSettings(int boltPort, int httpPort, boolean auth) {
        Map<Setting<?>, Object> settings = new HashMap<>();
        settings.put(BoltConnector.enabled, true);
        settings.put(BoltConnector.listen_address, new SocketAddress(LOOPBACK, boltPort));
        settings.put(BoltConnector.advertised_address, new SocketAddress("localhost", boltPort));
        settings.put(HttpConnector.enabled, true);
        settings.put(HttpConnector.listen_address, new SocketAddress(LOOPBACK, httpPort));
        settings.put(HttpConnector.advertised_address, new SocketAddress("localhost", httpPort));
        settings.put(HttpsConnector.enabled, false);
        // CORS: only Browser's own page may read HTTP API answers (Neo4j's default is *, any web page)
        settings.put(org.neo4j.server.configuration.ServerSettings.http_access_control_allow_origin,
            "http://localhost:" + httpPort);
        settings.put(GraphDatabaseSettings.auth_enabled, auth);
        settings.put(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ZERO);
        settings.put(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ZERO);
        return settings;
    }
}
