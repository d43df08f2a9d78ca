package dev.heapload.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.IntPredicate;


import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.analysis.SnapshotDiff;
import dev.heapload.export.FoldedStacks;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.SafeText;
import dev.heapload.report.TreeJson;
import dev.heapload.report.svg.IcicleSvg;
import dev.heapload.report.text.TreeText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload tree}: the reachability tree of Luau's heapgraph.py for one snapshot, or for the objects
 * new in a second snapshot relative to a first, as an SVG icicle graph and JSON.
 */
@Command(name = "tree", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Reachability tree of dump files, like Luau's tools/heapgraph.py, as an SVG icicle graph and JSON.",
        "",
        "Every object is charged to the path that first reaches it breadth-first from the roots (string keys, "
            + "__meta, __env, __proto, __stack frames, upvalues under their function's source). With two files, "
            + "only objects new in AFTER count. Weak references are not followed, as the GC does (docs/guide/exploring.md)."})
final class TreeCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "FILE", description = "Dump file (the baseline when AFTER is given).")
    Path first;

    @Parameters(index = "1", arity = "0..1", paramLabel = "AFTER", description = "Later dump of the same process: count only its new objects.")
    Path second;

    @Option(names = "--split", paramLabel = "MODE", defaultValue = "none",
        description = "Group by memory category: none, custom (categories < 128 merged into 0) or all. Default: ${DEFAULT-VALUE}.")
    String split;

    @Option(names = "--svg", paramLabel = "FILE", defaultValue = "heapload-tree.svg",
        description = "Write the icicle graph here (default: ${DEFAULT-VALUE}; '-' for none).")
    String svg;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the tree as JSON here ('-' for stdout).")
    String json;

    @Option(names = "--folded", paramLabel = "FILE",
        description = "Also write the tree as folded stacks (a;b;c BYTES, for speedscope, FlameGraph) here ('-' for stdout).")
    String folded;

    @Option(names = "--top", paramLabel = "N", defaultValue = "15", description = "Heaviest paths to print (default: ${DEFAULT-VALUE}).")
    int top;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ReachabilityTree.Split mode;
        try {
            mode = ReachabilityTree.Split.valueOf(split.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                "--split must be none, custom or all, not '" + split + "'");
        }
        if (top < 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--top must be 0 or more");
        }
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--svg", svg);
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--json", json);
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--folded", folded);
        if ("-".equals(json) && "-".equals(folded)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--json - and --folded - cannot both write to stdout");
        }
        // with --json - or --folded - that output owns stdout and the text report goes to stderr
        PrintStream out = "-".equals(json) || "-".equals(folded) ? Streams.err(spec) : Streams.out(spec);
        TerminalProgress bars = TerminalProgress.forOption(null, Streams.err(spec));
        HeapSnapshot snapshot;
        IntPredicate counted;
        String title;
        if (second == null) {
            snapshot = DumpReaders.read(first, null, bars);
            counted = o -> true;
            title = "heap of " + first.getFileName();
        } else {
            HeapSnapshot baseline = DumpReaders.read(first, null, bars);
            snapshot = DumpReaders.read(second, null, bars);
            SnapshotDiff diff = SnapshotDiff.compare(baseline, snapshot);
            boolean[] isNew = diff.isNew();
            counted = o -> isNew[o];
            title = "new in " + second.getFileName() + " relative to " + first.getFileName();
            out.printf(Locale.ROOT, "%,d objects new in %s (%,d of them at an address the baseline used for another object)%n",
                diff.newCount(), SafeText.visible(second.toString()), diff.reusedAddresses());
        }
        bars.end();
        ReachabilityTree.Node root = ReachabilityTree.build(snapshot, counted, mode);
        out.printf(Locale.ROOT, "tree total: %,d bytes in %,d objects%n", root.total(), root.totalCount());
        TreeText.heaviest(root, top, out);
        if (!"-".equals(svg)) {
            try (Writer w = Files.newBufferedWriter(Path.of(svg), StandardCharsets.UTF_8)) {
                IcicleSvg.write(root, title, w);
            }
            out.println("svg: " + Path.of(svg).toAbsolutePath().normalize());
        }
        if (json != null) {
            if ("-".equals(json)) {
                TreeJson.write(root, Streams.out(spec));
            } else {
                try (OutputStream os = Files.newOutputStream(Path.of(json))) {
                    TreeJson.write(root, os);
                }
                out.println("json: " + Path.of(json).toAbsolutePath().normalize());
            }
        }
        if (folded != null) {
            if ("-".equals(folded)) {
                Writer w = new java.io.OutputStreamWriter(Streams.out(spec), StandardCharsets.UTF_8);
                FoldedStacks.write(root, w);
                w.flush();
            } else {
                try (Writer w = Files.newBufferedWriter(Path.of(folded), StandardCharsets.UTF_8)) {
                    FoldedStacks.write(root, w);
                }
                out.println("folded: " + Path.of(folded).toAbsolutePath().normalize());
            }
        }
        return 0;
    }
}
