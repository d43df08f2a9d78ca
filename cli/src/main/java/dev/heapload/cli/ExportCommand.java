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
        "Example: heapload export --devtools after.heapsnapshot after"})
final class ExportCommand implements Callable<Integer> {

    @Option(names = "--devtools", paramLabel = "FILE", required = true,
        description = "Write a Chrome DevTools heap snapshot (.heapsnapshot) here: Memory panel > Load.")
    Path devtools;

    @Parameters(index = "0", paramLabel = "SNAPSHOT", description = "A dump file, or the id of a stored snapshot.")
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
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--devtools", devtools.toString());
        long start = System.nanoTime();
        HeapSnapshot model;
        Path file = Path.of(snapshot);
        if (Files.isRegularFile(file)) {
            TerminalProgress bars = TerminalProgress.forOption(null);
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
        System.out.printf(Locale.ROOT, "devtools: %s (%,d nodes, %,d edges, %,d bytes, %.1f s)%n",
            SafeText.visible(out.toString()), model.objectCount() + 1L,
            (long) model.referenceCount() + model.roots().size(), Files.size(out), (System.nanoTime() - start) / 1e9);
        return 0;
    }
}
