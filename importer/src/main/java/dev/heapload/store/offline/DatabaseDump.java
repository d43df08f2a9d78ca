package dev.heapload.store.offline;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

import org.neo4j.cli.AdminTool;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import org.neo4j.logging.log4j.Log4jLogProvider;

import dev.heapload.model.HeapSnapshotFile;
import dev.heapload.store.Catalog;
import dev.heapload.store.GraphInput;
import dev.heapload.store.GraphSchema;
import dev.heapload.store.Precomputation;
import dev.heapload.store.SnapshotNotFoundException;
import dev.heapload.store.SnapshotPrunedException;
import dev.heapload.model.Progress;

/**
 * A Neo4j 5 database dump of stored snapshots, for a server's administrator: the file that
 * {@code neo4j-admin database dump} writes, to be loaded with {@code neo4j-admin database load} or, on Enterprise,
 * {@code CREATE DATABASE … OPTIONS {seedURI: …}}.
 *
 * <p>The graph is built like a snapshot's graph of the embedded store ({@link OfflineImporter}, {@link GraphInput},
 * {@link OfflineSchema}: the same nodes, relationships, indexes and constraints, graph schema
 * {@value GraphSchema#VERSION}), but holds the objects of every chosen snapshot, their statistics, and the comparison
 * of every ordered pair of them (k(k-1) for k snapshots, as the one-graph store of graph schema 3 had), so each
 * saved query answers on it for any of them. The build goes into a temporary Neo4j home beside the dump file; the
 * dump is then written by Neo4j's own {@code database dump} command (neo4j-admin's {@code DumpCommand} in
 * {@code org.neo4j:neo4j-dbms} 5.26, run in this process) and renamed to {@code file}: the file is there whole or not
 * at all. Written for Neo4j 5.26 (the store format its {@code neo4j-admin database load} accepts; 5.x servers from
 * 5.26 on load it).
 */
public final class DatabaseDump {

    private DatabaseDump() {
    }

    /**
     * Writes the dump of snapshots {@code ids} of the store in {@code storeDir} to {@code file}.
     *
     * @param ids      snapshot ids in the order given (load order when empty: every snapshot that is not pruned)
     * @param log      receives the importer's and the dump command's messages
     * @param progress phases {@code "compare"}, {@code "import"}, {@code "index"}
     * @return the snapshot ids dumped
     * @throws SnapshotNotFoundException when an id is not in the store
     * @throws SnapshotPrunedException   when a chosen snapshot was pruned (its model is gone)
     * @throws IOException               when a model cannot be read, the import or the dump fails (one line)
     */
    public static List<String> write(Path storeDir, List<String> ids, Path file, PrintStream log, Progress progress)
        throws IOException {
        Path abs = storeDir.toAbsolutePath().normalize();
        Catalog catalog = Catalog.read(abs);
        List<Catalog.Entry> chosen = new ArrayList<>();
        if (ids.isEmpty()) {
            for (Catalog.Entry e : catalog.entries) {
                if (!e.pruned()) {
                    chosen.add(e);
                }
            }
        } else {
            for (String id : ids) {
                Catalog.Entry e = catalog.find(id);
                if (e == null) {
                    throw new SnapshotNotFoundException(id, abs.toString());
                }
                if (e.pruned()) {
                    throw new SnapshotPrunedException(id, abs.toString());
                }
                if (!chosen.contains(e)) {
                    chosen.add(e);
                }
            }
        }
        if (chosen.isEmpty()) {
            throw new IOException("the store " + abs + " holds no snapshot to dump");
        }
        List<GraphInput.Part> parts = new ArrayList<>();
        long[] orders = new long[chosen.size()];
        for (int i = 0; i < chosen.size(); i++) {
            Catalog.Entry e = chosen.get(i);
            Path model = abs.resolve("snapshots").resolve(e.file());
            parts.add(new GraphInput.Part(e, () -> HeapSnapshotFile.read(model), null));
            orders[i] = catalog.entries.indexOf(e);
        }
        List<GraphInput.Pair> pairs = new ArrayList<>();
        parts = Precomputation.run(parts, pairs, progress);

        Path out = file.toAbsolutePath().normalize();
        Path home = Files.createTempDirectory(out.getParent(), "." + out.getFileName() + ".building-");
        try {
            Path logs = home.resolve("logs");
            Files.createDirectories(logs);
            try (Log4jLogProvider logProvider = new Log4jLogProvider(log)) {
                OfflineImporter.importGraph(home, logs, new GraphInput(parts, pairs, orders), log, logProvider,
                    Long.getLong("heapload.import.maxOffHeap", OfflineImporter.DEFAULT_MAX_OFF_HEAP),
                    Long.getLong("heapload.import.pageCache", OfflineImporter.DEFAULT_IMPORT_PAGE_CACHE), progress, () -> {
                    });
            }
            Path dumps = home.resolve("dumps");
            Files.createDirectories(dumps);
            Path conf = home.resolve("conf");
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("neo4j.conf"), "server.directories.logs=" + logs + "\n");
            ByteArrayOutputStream messages = new ByteArrayOutputStream();
            int exit;
            try (PrintStream cmdOut = new PrintStream(messages, true, StandardCharsets.UTF_8);
                 DefaultFileSystemAbstraction fs = new DefaultFileSystemAbstraction()) {
                exit = AdminTool.execute(new ExecutionContext(home, conf, cmdOut, cmdOut, fs),
                    "database", "dump", GraphDatabaseSettings.DEFAULT_DATABASE_NAME, "--to-path=" + dumps);
            }
            String text = messages.toString(StandardCharsets.UTF_8).strip();
            log.println(text);
            Path written = dumps.resolve(GraphDatabaseSettings.DEFAULT_DATABASE_NAME + ".dump");
            if (exit != 0 || !Files.isRegularFile(written)) {
                throw new IOException("Neo4j's database dump failed (exit " + exit + "): "
                    + (text.isEmpty() ? "no message" : text.lines().reduce((a, b) -> b).orElse(text)));
            }
            Files.move(written, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            try (java.util.stream.Stream<Path> files = Files.walk(home)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
        List<String> done = new ArrayList<>();
        for (Catalog.Entry e : chosen) {
            done.add(e.id());
        }
        return done;
    }
}
