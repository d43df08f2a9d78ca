package dev.heapload.cli;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import dev.heapload.queries.SafeText;
import dev.heapload.queries.TextTable;
import dev.heapload.store.SnapshotStore;
import dev.heapload.store.SnapshotSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code heapload snapshots}: lists the snapshots in a store, in load order. */
@Command(name = "snapshots", mixinStandardHelpOptions = true,
    description = "Lists the snapshots held in the store (without starting Neo4j), or on a Neo4j server with --uri.")
final class SnapshotsCommand implements Callable<Integer> {

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db",
        description = "Store directory (default: ${DEFAULT-VALUE}).")
    Path db;

    @Option(names = "--delete", paramLabel = "ID", description = "Remove this snapshot from the store.")
    String delete;

    @picocli.CommandLine.Mixin
    BoltOptions bolt = new BoltOptions();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintStream out = Streams.out(spec);
        bolt.check(spec);
        // on a server a delete removes leftovers of incomplete loads first and deletes in batches; on the store
        // directory it is a catalog commit; neither starts Neo4j here
        try (SnapshotStore store = bolt.open(db, Streams.err(spec), java.time.Duration.ZERO)) {
            if (delete != null) {
                store.delete(delete);
                out.println("deleted snapshot " + SafeText.visible(delete));
            }
            print(store.snapshots(), out, store::isPruned);
        }
        return 0;
    }

    /** The listing: a {@link TextTable}, one row per snapshot. */
    private static void print(List<SnapshotSummary> list, PrintStream out, java.util.function.Predicate<String> pruned) {
        TextTable table = new TextTable().column("id", TextTable.Align.LEFT).column("vm", TextTable.Align.LEFT)
            .column("objects", TextTable.Align.RIGHT).column("references", TextTable.Align.RIGHT)
            .column("bytes", TextTable.Align.RIGHT).column("loaded at", TextTable.Align.LEFT)
            .column("source", TextTable.Align.LEFT);
        for (SnapshotSummary s : list) {
            table.row(SafeText.visible(s.id()), SafeText.visible(s.vm()), number(s.objectCount()),
                number(s.referenceCount()), number(s.totalBytes()), s.loadedAt().toString().replaceFirst("\\.\\d+Z$", "Z"),
                SafeText.visible(s.source()) + (pruned.test(s.id()) ? " (pruned: figures only)" : ""));
        }
        out.print(table.render());
    }

    private static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
