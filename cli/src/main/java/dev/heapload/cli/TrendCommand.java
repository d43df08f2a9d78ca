package dev.heapload.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.ResultWriter;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.SavedQuery;
import dev.heapload.report.SavedQueryRunner;
import dev.heapload.report.svg.TrendChartSvg;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.bolt.RemoteGraphStore;
import dev.heapload.store.StoreInUseException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code heapload trend [--category N] [--by-category] [--format table|csv|json] [--csv-raw] [--svg FILE] [--db DIR | --uri URI]}
 * (or {@code --leak FINGERPRINT}, or {@code --steps}: the groups that grew at every step and the survivors):
 * the history of a store: objects and bytes of every snapshot in load order (saved query {@code trend}), or of one
 * memory category ({@code --category N}), or of every category ({@code --by-category}, saved query
 * {@code trend-categories}); with {@code --svg} also the chart ({@link TrendChartSvg}). Reads only the precomputed
 * Snapshot, Category and Stats nodes. A store without snapshots is one line on stderr and exit 1. Category names in
 * the table and CSV are shown as {@link dev.heapload.queries.SafeText} makes them (exact with {@code --csv-raw}).
 */
@Command(name = "trend", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Objects and bytes of every snapshot in the store, in load order, as a table and an SVG chart.",
        "Example: heapload trend --svg trend.svg"})
final class TrendCommand implements Callable<Integer> {

    @Option(names = "--category", paramLabel = "N",
        description = "Only this memory category (its objects, bytes and VM bytes per snapshot).")
    Long category;

    @Option(names = "--by-category",
        description = "Print one row per snapshot and memory category instead of one per snapshot.")
    boolean byCategory;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
        description = "table, csv or json (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--csv-raw",
        description = "With --format csv: write strings exactly (no escapes of control characters, no ' before = + - @).")
    boolean csvRaw;

    @Option(names = "--svg", paramLabel = "FILE",
        description = "Also write the chart: bytes per snapshot (and per category: the 5 largest, the rest as "
            + "\"other\"), objects per snapshot.")
    Path svg;

    @Option(names = "--leak", paramLabel = "FINGERPRINT",
        description = "The history of one leak group (its fingerprint, as reports show it): its new objects and bytes "
            + "per snapshot relative to the one before, when it appeared, whether it grows.")
    String leak;

    @Option(names = "--growing-nights", paramLabel = "N", defaultValue = "3",
        description = "With --leak: growing means it gained objects in each of the last N snapshots (default: "
            + "${DEFAULT-VALUE}).")
    int growingNights;

    @Option(names = "--steps",
        description = "Over the store's snapshots in load order (with --growing-nights N: the last N+1): the leak groups "
            + "that grew at every step (net objects above 0 against the snapshot before), with their growth per step, "
            + "and the survivors (new in the second of them, still alive in the last). As heapload s1 s2 s3 prints.")
    boolean steps;

    @CommandLine.Mixin
    StoreOptions store = new StoreOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ResultWriter.Format fmt;
        try {
            fmt = ResultWriter.Format.of(format);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (category != null && category < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--category must be a category number >= 0");
        }
        if (category != null && byCategory) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--category and --by-category exclude each other");
        }
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--svg", svg == null ? null : svg.toString());
        Duration timeout = store.checked(spec);
        Path db = store.db;
        if (steps) {
            if (leak != null || category != null || byCategory || svg != null) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                    "--steps goes with --db or --uri and --growing-nights only");
            }
            if (growingNights < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--growing-nights must be at least 1");
            }
            boolean last = spec.commandLine().getParseResult().hasMatchedOption("--growing-nights");
            try (dev.heapload.store.SnapshotStore opened = store.bolt.open(db, Streams.err(spec),
                Duration.ofSeconds(timeout.toSeconds() + 30))) {
                return printSteps(opened.history(), last, store.bolt.remote() ? null : opened, opened.place());
            }
        }
        if (leak != null) {
            if (!leak.matches("[0-9a-fA-F]{" + dev.heapload.report.LeakFingerprint.LENGTH + "}")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--leak takes a leak group's fingerprint: "
                    + dev.heapload.report.LeakFingerprint.LENGTH + " hex digits, as heapload report shows it");
            }
            if (growingNights < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--growing-nights must be at least 1");
            }
            if (category != null || byCategory || svg != null) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                    "--leak goes with --db or --uri, --format and --growing-nights only");
            }
            try (dev.heapload.store.SnapshotStore opened = store.bolt.open(db, Streams.err(spec),
                Duration.ofSeconds(timeout.toSeconds() + 30))) {
                return printLeak(fmt, opened.history(), opened.place());
            }
        }
        if (store.bolt.remote()) {
            try (RemoteGraphStore remote = store.bolt.connect(Streams.err(spec))) {
                return print(fmt, SavedQueryRunner.on(remote, timeout),
                    remote.uri());
            }
        }
        OutputFiles.requireStore(db);
        GraphStore opened;
        try {
            // another query or trend holds the store: wait for it (it ends within its own timeout), then read
            opened = GraphStore.openWaiting(db, timeout.plus(java.time.Duration.ofSeconds(30)),
                inUse -> Streams.err(spec).println("heapload: " + SafeText.visible(inUse) + "; waiting for it to finish"));
        } catch (StoreInUseException e) {
            try (RemoteGraphStore served = ServedStore.connect(e, "reading the trend", Streams.err(spec))) {
                return print(fmt, SavedQueryRunner.on(served, timeout),
                    db.toAbsolutePath().normalize().toString());
            }
        }
        try (GraphStore graphs = opened) {
            if (graphs.snapshots().isEmpty()) {
                throw new IOException(empty(db.toAbsolutePath().normalize().toString()));
            }
            return print(fmt, SavedQueryRunner.on(graphs, timeout),
                db.toAbsolutePath().normalize().toString());
        }
    }

    /**
     * The rows of {@code --leak}: one per snapshot in load order (snapshot, pruned, comparedWith, objects, newBytes,
     * retainedBytes, heads; null figures where the load made no comparison with the snapshot before), then on stderr
     * (table format: on stdout after the table) when the group appeared and whether it is growing.
     */
    private int printLeak(ResultWriter.Format fmt, List<dev.heapload.store.SnapshotHistory> history, String where)
        throws IOException {
        if (history.isEmpty()) {
            throw new IOException(empty(where));
        }
        var h = dev.heapload.report.LeakHistory.of(history, null, growingNights);
        var s = h.group(leak);
        if (s == null) {
            throw new IOException("no leak group " + leak + " in the history of the store " + where + " (fingerprints"
                + " are in heapload report; the history keeps each load's comparison with the snapshot before it)");
        }
        List<List<Object>> rows = new ArrayList<>();
        for (var n : s.nights()) {
            List<Object> row = new ArrayList<>();
            row.add(n.snapshot());
            row.add(n.pruned());
            row.add(n.comparedWith());
            row.add(n.objects());
            row.add(n.newBytes());
            row.add(n.retainedBytes());
            row.add(n.heads());
            rows.add(row);
        }
        QueryResult r = new QueryResult(List.of("snapshot", "pruned", "comparedWith", "objects", "newBytes",
            "retainedBytes", "heads"), rows, false);
        PrintStream out = Streams.out(spec);
        ResultWriter.write(r, fmt, csvRaw, out);
        String line = "leak group " + s.fingerprint() + " (" + dev.heapload.queries.SafeText.visible(s.headType())
            + " heads): " + (s.appeared() == null ? "gained no objects in any snapshot"
                : "appeared in " + dev.heapload.queries.SafeText.visible(s.appeared())) + "; "
            + (s.growing() ? "GROWING: gained objects in each of the last " + growingNights + " snapshots"
                : "not growing (did not gain objects in each of the last " + growingNights + " snapshots)");
        (fmt == ResultWriter.Format.TABLE ? out : Streams.err(spec)).println(line);
        return 0;
    }

    /**
     * {@code --steps}: the groups that grew at every step of the chosen snapshots and, from the stored models (not over
     * Bolt, not for pruned snapshots), the survivors of the second in the last.
     *
     * @param last   only the last {@code --growing-nights}+1 snapshots
     * @param models the embedded store's files, or {@code null} over Bolt
     */
    private int printSteps(List<dev.heapload.store.SnapshotHistory> history, boolean last, dev.heapload.store.SnapshotStore models, String where)
        throws IOException {
        List<String> ids = new ArrayList<>();
        for (var h : history) {
            ids.add(h.snapshot().id());
        }
        if (last && ids.size() > growingNights + 1) {
            ids = new ArrayList<>(ids.subList(ids.size() - growingNights - 1, ids.size()));
        }
        if (ids.size() < 2) {
            throw new IOException("the store " + where + " holds " + ids.size() + " snapshot(s): --steps needs at least two");
        }
        PrintStream out = Streams.out(spec);
        dev.heapload.report.text.StepsText.printGrowing(dev.heapload.report.text.StepsText.steps(history, ids), out);
        if (ids.size() < 3) {
            return 0;
        }
        String first = ids.get(0);
        String second = ids.get(1);
        String third = ids.get(ids.size() - 1);
        if (models == null) {
            out.println("survivors: not available over Bolt (they need the heap models of the embedded store)");
        } else if (models.isPruned(first) || models.isPruned(second) || models.isPruned(third)) {
            out.println("survivors: not available, a snapshot of " + SafeText.visible(first) + ", "
                + SafeText.visible(second) + ", " + SafeText.visible(third) + " was pruned (its model is gone)");
        } else {
            dev.heapload.report.text.StepsText.printSurvivors(dev.heapload.analysis.SurvivorView.compute(
                models.model(first), models.model(second), models.model(third)), out);
        }
        return 0;
    }

    private static String empty(String where) {
        return "no snapshots in the store " + where + " (load dumps first: heapload FILE...)";
    }

    private int print(ResultWriter.Format fmt, SavedQueryRunner runner, String where) throws Exception {
        QueryLibrary library = QueryLibrary.builtIn();
        SavedQuery trendQuery = library.get("trend");
        SavedQuery categoriesQuery = library.get("trend-categories");
        QueryResult trend = runner.run(trendQuery, Map.of("category", category == null ? -1L : category));
        if (trend.rows().isEmpty()) {
            throw new IOException(empty(where));
        }
        if (category != null && !categoryExists(trend)) {
            throw new IOException("no memory category " + category + " in any snapshot of the store " + where
                + " (heapload trend --by-category lists them)");
        }
        QueryResult categories = category == null && (byCategory || svg != null)
            ? runner.run(categoriesQuery, Map.of()) : null;
        if (svg != null) {
            String title = category == null ? "heapload trend: " + trend.rows().size() + " snapshots"
                : "heapload trend: memory category " + category + categoryName(trend);
            String text = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                + TrendChartSvg.render(trend, categories, title);
            Files.writeString(svg, text, StandardCharsets.UTF_8);
        }
        PrintStream out = Streams.out(spec);
        ResultWriter.write(byCategory ? categories : category == null ? withoutCategoryColumns(trend) : trend, fmt, csvRaw, out);
        return 0;
    }

    /** Whether some snapshot has the category: objects in it, or the VM's byte count for it. */
    private static boolean categoryExists(QueryResult trend) {
        int objects = trend.columns().indexOf("objects");
        int vmBytes = trend.columns().indexOf("vmBytes");
        for (List<Object> row : trend.rows()) {
            if (row.get(vmBytes) != null || ((Number) row.get(objects)).longValue() > 0) {
                return true;
            }
        }
        return false;
    }

    /** {@code " (NAME)"} from the first row naming the category, or nothing. */
    private static String categoryName(QueryResult trend) {
        int c = trend.columns().indexOf("name");
        for (List<Object> row : trend.rows()) {
            if (c >= 0 && row.get(c) != null) {
                return " (" + row.get(c) + ")";
            }
        }
        return "";
    }

    /** The whole-snapshot rows without the {@code category} and {@code name} columns (null there). */
    static QueryResult withoutCategoryColumns(QueryResult r) {
        List<Integer> keep = new ArrayList<>();
        List<String> columns = new ArrayList<>();
        for (int i = 0; i < r.columns().size(); i++) {
            String c = r.columns().get(i);
            if (!c.equals("category") && !c.equals("name")) {
                keep.add(i);
                columns.add(c);
            }
        }
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> row : r.rows()) {
            List<Object> kept = new ArrayList<>(keep.size());
            for (int i : keep) {
                kept.add(row.get(i));
            }
            rows.add(kept);
        }
        return new QueryResult(columns, rows, r.truncated());
    }
}
