package dev.heapload.report;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.ReportDefinition;
import dev.heapload.queries.SavedQuery;
import dev.heapload.report.svg.HeapLayoutSvg;
import dev.heapload.report.svg.IcicleSvg;
import dev.heapload.report.svg.TrendChartSvg;
import dev.heapload.report.text.MicroPythonText;
import dev.heapload.store.embedded.GraphStore;

/**
 * Assembles a {@link LeakReport} from the saved queries of a report definition ({@link ReportDefinition}), run
 * through a {@link SavedQueryRunner} (embedded store or server), plus the icicle graph of the new objects from the
 * stored heap models and, for a MicroPython target, its heap layout read again from the dump.
 */
public final class ReportBuilder {

    /** At most this many boxes in the report's icicle graph (narrow ones are left out first). */
    public static final long ICICLE_BOXES = 6000;

    /** Rows of a query section kept in the report (the JSON says how many there were). */
    public static final int MAX_ROWS = 100;

    private ReportBuilder() {
    }

    /**
     * The icicle graph of a pair, and whether the pair looked like two processes.
     *
     * @param svg          the SVG element, or {@code null} when nothing is new and reachable
     * @param crossProcess {@link SnapshotComparison#isCrossProcess}: "new" was decided by retention path
     */
    public record Icicle(String svg, boolean crossProcess) {
    }

    /**
     * The icicle graph ({@link ReachabilityTree}, {@link IcicleSvg}) of the target's objects that are new relative to
     * the baseline ({@link SnapshotComparison#novelty}: by retention path for a cross-process pair), from the
     * stored heap models.
     */
    public static Icicle icicle(GraphStore store, String baseline, String target) throws IOException {
        HeapSnapshot b = store.model(baseline);
        HeapSnapshot t = store.model(target);
        SnapshotComparison.Novelty novelty = SnapshotComparison.novelty(b, t);
        boolean crossProcess = novelty.crossProcess();
        boolean[] isNew = novelty.isNew();
        b = null;
        ReachabilityTree.Node root = ReachabilityTree.build(t, o -> isNew[o], ReachabilityTree.Split.NONE);
        if (root.total() == 0) {
            return new Icicle(null, crossProcess);
        }
        StringWriter w = new StringWriter();
        // at most ICICLE_BOXES boxes (about 300 bytes each), so the page stays small on large heaps
        IcicleSvg.writeElement(root, "new in " + target + " relative to " + baseline
            + (crossProcess ? " (by retention path)" : ""), w, ICICLE_BOXES);
        return new Icicle(w.toString(), crossProcess);
    }

    /**
     * Runs the queries of the report definition through {@code runner} and assembles the report.
     *
     * @param tool           heapload's version line, shown in every format
     * @param previousGroups the groups of a previous report ({@code --previous}), or {@code null}
     * @param icicleSvg      the icicle graph ({@link #icicle}) as an SVG element, or {@code null}
     * @param icicleNote     why there is no icicle graph (used when {@code icicleSvg} is {@code null})
     * @param crossProcess   the pair was compared by retention path ({@link Icicle#crossProcess})
     * @throws QueryFailedException when a query fails or times out, or a snapshot id is not in the store
     * @throws IOException          when the store cannot be read
     */
    public static LeakReport build(ReportDefinition def, QueryLibrary library, SavedQueryRunner runner, String baseline,
                                   String target, KnownLeaks known, List<LeakReport.Resolved> previousGroups,
                                   List<Gate> gates, String icicleSvg, String icicleNote, boolean crossProcess,
                                   String tool) throws QueryFailedException, IOException {
        return build(def, library, runner, baseline, target, known, previousGroups, gates, icicleSvg, icicleNote,
            crossProcess, tool, null, LeakHistory.DEFAULT_NIGHTS);
    }

    /**
     * {@link #build(ReportDefinition, QueryLibrary, SavedQueryRunner, String, String, KnownLeaks, List, List, String,
     * String, boolean, String)} with the store's leak history: each group is flagged growing when it gained objects in
     * each of the last {@code growingNights} snapshots up to the target, and the report's leak-history section shows
     * the report's groups and the growing ones night by night.
     *
     * @param history       the store's history ({@code GraphStore#history}), or {@code null} (none at hand)
     * @param growingNights at least 1
     */
    public static LeakReport build(ReportDefinition def, QueryLibrary library, SavedQueryRunner runner, String baseline,
                                   String target, KnownLeaks known, List<LeakReport.Resolved> previousGroups,
                                   List<Gate> gates, String icicleSvg, String icicleNote, boolean crossProcess,
                                   String tool, List<dev.heapload.store.SnapshotHistory> history, int growingNights)
        throws QueryFailedException, IOException {
        return build(def, library, runner, baseline, target, known, previousGroups, gates, icicleSvg, icicleNote,
            crossProcess, tool, history, growingNights, null);
    }

    /** The stored heap models of a store, by snapshot id, with their analyses (embedded or read back over Bolt). */
    @FunctionalInterface
    public interface Models {
        /** The model of snapshot {@code id}, analysis attached. */
        HeapSnapshot model(String id) throws IOException;
    }

    /**
     * {@link #build(ReportDefinition, QueryLibrary, SavedQueryRunner, String, String, KnownLeaks, List, List, String,
     * String, boolean, String, List, int)} with the store's heap models, from which the {@code @class-histogram}
     * section is computed ({@link #classHistogram}).
     *
     * @param models the models, or {@code null}: the {@code @class-histogram} section then says it needs them
     */
    public static LeakReport build(ReportDefinition def, QueryLibrary library, SavedQueryRunner runner, String baseline,
                                   String target, KnownLeaks known, List<LeakReport.Resolved> previousGroups,
                                   List<Gate> gates, String icicleSvg, String icicleNote, boolean crossProcess,
                                   String tool, List<dev.heapload.store.SnapshotHistory> history, int growingNights,
                                   Models models)
        throws QueryFailedException, IOException {
        LeakReport.Snapshot b = snapshot(library, runner, baseline);
        LeakReport.Snapshot t = snapshot(library, runner, target);
        QueryResult newObjects = runner.run(library.get("new-objects"), Map.of("baseline", baseline, "target", target));
        QueryResult leakRows = runner.run(library.get("leak-groups"), Map.of("baseline", baseline, "target", target));
        Set<String> previousPrints = null;
        if (previousGroups != null) {
            previousPrints = new LinkedHashSet<>();
            for (LeakReport.Resolved r : previousGroups) {
                previousPrints.add(r.fingerprint());
            }
        }
        List<LeakReport.GateResult> gateResults = new ArrayList<>();
        List<LeakReport.Group> groups = LeakReport.groups(leakRows, known, previousPrints, gates, gateResults);
        LeakHistory leakHistory = null;
        if (history != null) {
            LeakHistory all = LeakHistory.of(history, target, growingNights);
            Set<String> shown = new LinkedHashSet<>();
            List<LeakReport.Group> flagged = new ArrayList<>();
            for (LeakReport.Group g : groups) {
                LeakHistory.Series s = all.group(g.fingerprint());
                flagged.add(g.withGrowing(s != null && s.growing()));
                shown.add(g.fingerprint());
            }
            groups = flagged;
            leakHistory = new LeakHistory(all.snapshots(), all.groups().stream()
                .filter(s -> s.growing() || shown.contains(s.fingerprint())).toList());
        }
        List<LeakReport.Resolved> resolved = null;
        if (previousGroups != null) {
            Set<String> now = LeakReport.fingerprints(groups);
            resolved = previousGroups.stream().filter(r -> !now.contains(r.fingerprint())).toList();
        }
        long newCount = 0;
        long newBytes = 0;
        long reused = 0;
        if (!newObjects.rows().isEmpty()) {
            List<String> c = newObjects.columns();
            List<Object> all = newObjects.rows().get(0);
            newCount = LeakReport.num(all.get(c.indexOf("objects")));
            newBytes = LeakReport.num(all.get(c.indexOf("bytes")));
            reused = LeakReport.num(all.get(c.indexOf("reusedAddresses")));
        }
        long lo = 0;
        long lb = 0;
        long lr = 0;
        long no = 0;
        long nb = 0;
        int unknown = 0;
        int knownGroups = 0;
        int replaced = 0;
        for (LeakReport.Group g : groups) {
            if (g.replaced()) {
                replaced++;
            } else if (g.known()) {
                knownGroups++;
            } else {
                unknown++;
                lo += g.objects();
                lb += g.newBytes();
                lr += g.retainedBytes();
                no += g.netObjects();
                nb += g.netBytes();
            }
        }
        LeakReport.Headline headline = new LeakReport.Headline(t.vm(), newCount, newBytes, reused, lo, lb, lr, unknown,
            knownGroups, crossProcess, no, nb, replaced);
        List<LeakReport.Section> sections = new ArrayList<>();
        for (ReportDefinition.Section s : def.sections()) {
            if (s.what().equals("@history")) {
                // every snapshot of the store in load order, with the per-category series of the chart
                QueryResult trend = runner.run(library.get("trend"), Map.of("category", -1L));
                QueryResult byCategory = runner.run(library.get("trend-categories"), Map.of());
                String chart = TrendChartSvg.render(trend, byCategory, "Snapshots of the store in load order");
                sections.add(new LeakReport.Section(s.what(), s.title(), Map.of(), trend, trend.rows().size(), chart));
                continue;
            }
            if (s.what().equals("@micropython-heap")) {
                if ("micropython".equals(t.vm())) {
                    sections.add(microPythonHeap(s, t));
                }
                continue; // only for MicroPython targets
            }
            if (s.what().equals("@class-histogram")) {
                sections.add(classHistogram(s, models, baseline, target));
                continue;
            }
            if (s.figure()) {
                sections.add(new LeakReport.Section(s.what(), s.title(), Map.of(), null, 0, null));
                continue;
            }
            SavedQuery q = library.get(s.what());
            Map<String, Object> params = QueryRunner.bind(q, s.bind(q, baseline, target));
            QueryResult r = runner.run(q, params);
            int total = r.rows().size();
            if (total > MAX_ROWS) {
                r = new QueryResult(r.columns(), List.copyOf(r.rows().subList(0, MAX_ROWS)), true);
            }
            sections.add(new LeakReport.Section(s.what(), s.title(), new LinkedHashMap<>(params), r, total, null));
        }
        return new LeakReport(def.name(), def.title(), Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), tool, b, t,
            headline, groups, resolved, gateResults, sections, icicleSvg, icicleSvg == null ? icicleNote : null,
            leakHistory, growingNights);
    }

    /**
     * The {@code @class-histogram} section: the target's classes with their change from the baseline
     * ({@link dev.heapload.explore.ClassHistogramQuery}, columns {@code DIFF_COLUMNS}), the largest growth first, at most
     * {@link #MAX_ROWS} rows; computed from the stored models. Without models, or for a snapshot stored without its
     * analysis, one row saying why.
     */
    public static LeakReport.Section classHistogram(ReportDefinition.Section s, Models models, String baseline,
                                                    String target) throws IOException {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("snapshot", target);
        params.put("baseline", baseline);
        String why;
        if (models == null) {
            why = "the class histogram needs the heap models of the store; not at hand";
        } else {
            try {
                QueryResult r = dev.heapload.explore.ClassHistogramQuery.run(models.model(target), models.model(baseline), 0);
                int total = r.rows().size();
                if (total > MAX_ROWS) {
                    r = new QueryResult(r.columns(), List.copyOf(r.rows().subList(0, MAX_ROWS)), true);
                }
                return new LeakReport.Section(s.what(), s.title(), params, r, total, null);
            } catch (QueryFailedException e) {
                why = e.getMessage();
            }
        }
        return new LeakReport.Section(s.what(), s.title(), params,
            new QueryResult(List.of("note"), List.of(List.of(why)), false), 1, null);
    }

    /**
     * The {@code @micropython-heap} section of a MicroPython target: the fragmentation figures (as {@code gc_info}
     * computes them) as rows of one column {@code fragmentation}, and the heap layout picture ({@link HeapLayoutSvg}).
     * Both need the RAM image, which the store does not keep: they are read again from the target's dump
     * ({@code source}, a regions.json with its symbols beside it); when it is not at hand the section says so.
     */
    public static LeakReport.Section microPythonHeap(ReportDefinition.Section s, LeakReport.Snapshot target) {
        Path source = target.source() == null ? null : Path.of(target.source());
        String why;
        if (source == null || !Files.isRegularFile(source)) {
            why = "the heap layout needs the target's dump (" + target.source() + "), which is not at hand";
        } else if (!dev.heapload.micropython.MicroPythonFiles.isRegionsJson(source)) {
            why = "the heap layout needs a regions.json dump; the target came from " + source;
        } else {
            try {
                dev.heapload.micropython.MicroPythonDump dump = dev.heapload.micropython.MicroPythonFiles.read(source, target.id());
                List<List<Object>> rows = new ArrayList<>();
                for (String line : MicroPythonText.figuresText(dump.figures()).split("\n")) {
                    rows.add(List.of(line));
                }
                java.io.StringWriter w = new java.io.StringWriter();
                HeapLayoutSvg.write(dump.heapMap(), dump.allocations(), "MicroPython heap of " + target.id(), w);
                String svg = w.toString();
                svg = svg.startsWith("<?xml") ? svg.substring(svg.indexOf('\n') + 1) : svg;
                return new LeakReport.Section(s.what(), s.title(), Map.of(),
                    new QueryResult(List.of("fragmentation"), rows, false), rows.size(), svg);
            } catch (IOException | RuntimeException e) {
                why = "the heap layout could not be read from " + source + ": " + e.getMessage();
            }
        }
        return new LeakReport.Section(s.what(), s.title(), Map.of(),
            new QueryResult(List.of("fragmentation"), List.of(List.of(why)), false), 1, null);
    }

    private static LeakReport.Snapshot snapshot(QueryLibrary library, SavedQueryRunner runner, String id) throws QueryFailedException, IOException {
        QueryResult r = runner.run(library.get("snapshot"), Map.of("snapshot", id));
        if (r.rows().isEmpty()) {
            throw new QueryFailedException("no snapshot '" + id + "' in the store (heapload snapshots lists them)");
        }
        List<String> c = r.columns();
        List<Object> row = r.rows().get(0);
        return new LeakReport.Snapshot(id, String.valueOf(row.get(c.indexOf("vm"))), String.valueOf(row.get(c.indexOf("source"))),
            String.valueOf(row.get(c.indexOf("sha256"))), LeakReport.num(row.get(c.indexOf("objectCount"))),
            LeakReport.num(row.get(c.indexOf("totalBytes"))));
    }
}
