package dev.heapload.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import dev.heapload.queries.SafeText;
import dev.heapload.store.embedded.GraphStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code heapload prune --keep-last N [--keep ID]...}: drops the graphs and models of older snapshots, keeping their
 * figures for {@code heapload trend} ({@link GraphStore#prune}).
 */
@Command(name = "prune", mixinStandardHelpOptions = true,
    description = "Drops the graphs and models of all snapshots but the newest N (and those named with --keep, and the "
        + "store's baseline); their figures stay, so heapload trend and the report's History still list them.")
final class PruneCommand implements Callable<Integer> {

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db",
        description = "Store directory (default: ${DEFAULT-VALUE}).")
    Path db;

    @Option(names = "--keep-last", paramLabel = "N", required = true,
        description = "How many of the newest snapshots keep their graphs and models (at least 1).")
    int keepLast;

    @Option(names = "--keep", paramLabel = "ID", description = "Also keep this snapshot (repeatable).")
    List<String> keep = List.of();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (keepLast < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keep-last must be at least 1");
        }
        OutputFiles.requireStore(db);
        PrintStream out = Streams.out(spec);
        try (GraphStore store = GraphStore.open(db)) {
            List<String> pruned = store.prune(keepLast, keep);
            out.println(pruned.isEmpty() ? "nothing to prune"
                : "pruned " + pruned.size() + " snapshot(s), figures kept: "
                    + String.join(", ", pruned.stream().map(SafeText::visible).toList()));
        }
        return 0;
    }
}
