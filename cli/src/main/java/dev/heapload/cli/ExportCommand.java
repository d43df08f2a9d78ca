package dev.heapload.cli;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.export.DevToolsHeapSnapshot;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.SafeText;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.offline.DatabaseDump;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload export --devtools FILE.heapsnapshot SNAPSHOT [--db DIR]}: writes one snapshot as a Chrome DevTools
 * heap snapshot ({@link DevToolsHeapSnapshot}). SNAPSHOT is a dump file (read and analysed, not loaded) when such a
 * file exists, else the id of a snapshot of the store (its stored model is read; also while {@code heapload serve}
 * holds the store). The file is written whole or not at all (a temporary file beside it, renamed at the end).
 */
@Command(name = "export", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Exports a snapshot (a dump file or a stored snapshot id) for other tools.",
        "Example: heapload export --devtools after.heapsnapshot after",
        "         heapload export --neo4j-dump heapload.dump before after"})
final class ExportCommand implements Callable<Integer> {

    @Option(names = "--devtools", paramLabel = "FILE",
        description = "Write a Chrome DevTools heap snapshot (.heapsnapshot) here: Memory panel > Load.")
    Path devtools;

    @Option(names = "--neo4j-dump", paramLabel = "FILE",
        description = "Write a Neo4j 5 database dump of the stored SNAPSHOTs (default: all not pruned) here, for "
            + "neo4j-admin database load (same schema, indexes and constraints as the store's graphs).")
    Path neo4jDump;

    @Parameters(paramLabel = "SNAPSHOT", arity = "0..*",
        description = "--devtools: one dump file or stored snapshot id; --neo4j-dump: stored snapshot ids.")
    java.util.List<String> snapshots = new java.util.ArrayList<>();

    String snapshot;

    @Option(names = "--format", paramLabel = "FORMAT",
        description = "The dump's format when SNAPSHOT is a file (default: detected): luau, lua, lua-snapshot, micropython.")
    String format;

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db",
        description = "Store directory for a snapshot id (default: ${DEFAULT-VALUE}).")
    Path db;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if ((devtools == null) == (neo4jDump == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give one of --devtools FILE and --neo4j-dump FILE");
        }
        if (neo4jDump != null) {
            return neo4jDump();
        }
        if (snapshots.size() != 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--devtools needs exactly one SNAPSHOT");
        }
        snapshot = snapshots.get(0);
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--devtools", devtools.toString());
        long start = System.nanoTime();
        HeapSnapshot model;
        Path file = Path.of(snapshot);
        if (Files.isRegularFile(file)) {
            TerminalProgress bars = TerminalProgress.forOption(null, Streams.err(spec));
            model = format == null ? DumpReaders.read(file, null, bars) : DumpReaders.read(file, null, bars, format);
            HeapAnalyzer.analyze(model, bars);
            bars.end();
        } else {
            OutputFiles.requireStore(db);
            model = GraphStore.readModel(db, snapshot);
        }
        Path out = devtools.toAbsolutePath().normalize();
        Path tmp = out.resolveSibling(out.getFileName() + ".part");
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
            DevToolsHeapSnapshot.write(model, os);
        } catch (Exception e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Streams.out(spec).printf(Locale.ROOT, "devtools: %s (%,d nodes, %,d edges, %,d bytes, %.1f s)%n",
            SafeText.visible(out.toString()), model.objectCount() + 1L,
            (long) model.referenceCount() + model.roots().size(), Files.size(out), (System.nanoTime() - start) / 1e9);
        return 0;
    }

    /** {@code --neo4j-dump}: {@link DatabaseDump} of the chosen snapshots; Neo4j's messages go to the store's log. */
    private int neo4jDump() throws Exception {
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--neo4j-dump", neo4jDump.toString());
        OutputFiles.requireStore(db);
        long start = System.nanoTime();
        Path out = neo4jDump.toAbsolutePath().normalize();
        TerminalProgress bars = TerminalProgress.forOption(null, Streams.err(spec));
        java.util.List<String> done;
        Path logFile = db.toAbsolutePath().normalize().resolve("logs").resolve("neo4j-dump.log");
        Files.createDirectories(logFile.getParent());
        try (java.io.PrintStream log = new java.io.PrintStream(Files.newOutputStream(logFile), true,
            java.nio.charset.StandardCharsets.UTF_8)) {
            done = DatabaseDump.write(db, snapshots, out, log, bars);
        } finally {
            bars.end();
        }
        Streams.out(spec).printf(Locale.ROOT, "neo4j dump: %s (snapshots %s, %,d bytes, %.1f s)%n", SafeText.visible(out.toString()),
            SafeText.visible(String.join(", ", done)), Files.size(out), (System.nanoTime() - start) / 1e9);
        Streams.out(spec).println("  load it on a server (stopped database): neo4j-admin database load --from-path="
            + SafeText.visible(HeapLoad.shellWord(out.getParent().toString())) + " DBNAME --overwrite-destination"
            + "   (the file must be named DBNAME.dump)");
        return 0;
    }
}
