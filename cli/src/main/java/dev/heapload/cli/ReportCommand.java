package dev.heapload.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.ReachabilityTree;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.ReportDefinition;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.SavedQuery;
import dev.heapload.store.GraphStore;
import dev.heapload.store.RemoteGraphStore;
import dev.heapload.store.SnapshotSummary;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload report}: a leak report on a baseline and a target snapshot, as HTML, Markdown, JSON and JUnit XML,
 * with CI gates and known leaks. The snapshots come from two dump files (loaded into the store unless a snapshot with
 * the same SHA-256 is already there, which is then reused) or from ids already in the store ({@code --baseline-id},
 * {@code --target-id}), also on a Neo4j server ({@code --uri}; no icicle graph there, it needs the heap models). What
 * the report shows is data: a report definition ({@link ReportDefinition}, default {@code nightly}). Exit codes: 0 ok,
 * 1 bad input, 2 usage, 3 a gate failed.
 */
@Command(name = "report", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Leak report on a baseline and a target snapshot: HTML, Markdown, JSON, JUnit XML; gates; known leaks.",
        "Example: heapload report before.json after.json --out report --fail-on 'new-retained-bytes>100KiB'"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:ok (no gate failed)", "1:bad input", "2:usage error", "3:a --fail-on gate failed"})
final class ReportCommand implements Callable<Integer> {

    /** Exit code when a gate fails. */
    static final int GATE_FAILED = 3;

    /** At most this many boxes in the report's icicle graph (narrow ones are left out first). */
    static final long ICICLE_BOXES = 6000;

    /** Rows of a query section kept in the report (the JSON says how many there were). */
    static final int MAX_ROWS = 100;

    /** Formats and their file names in {@code --out}. */
    static final Map<String, String> FILES = Map.of("html", "report.html", "md", "report.md", "json", "report.json",
        "junit", "report.junit.xml");

    @Parameters(arity = "0..2", paramLabel = "DUMP", description = "BASELINE and TARGET dump files (or use --baseline-id/--target-id).")
    List<Path> files = List.of();

    @Option(names = "--baseline-id", paramLabel = "ID", description = "Baseline snapshot already in the store.")
    String baselineId;

    @Option(names = "--target-id", paramLabel = "ID", description = "Target snapshot already in the store.")
    String targetId;

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db", description = "Store directory (default: ${DEFAULT-VALUE}).")
    Path db;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "heapload-report",
        description = "Folder for report.html, report.md, report.json, report.junit.xml (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--format", paramLabel = "LIST", defaultValue = "html,md,json,junit", split = ",",
        description = "Formats to write: html, md, json, junit (default: ${DEFAULT-VALUE}).")
    List<String> formats;

    @Option(names = "--trust-sizes",
        description = "For dumps loaded here: keep object sizes that cannot be true (larger than the VM's own total, or "
            + "a Luau size printed negative) in rankings and gates; by default they count as 0 bytes.")
    boolean trustSizes;

    @Option(names = "--report", paramLabel = "FILE", description = "Report definition file (default: the built-in nightly report).")
    Path reportFile;

    @Option(names = "--fail-on", paramLabel = "GATE",
        description = "Exit 3 when METRIC OP NUMBER[UNIT] holds (repeatable): new-retained-bytes, new-bytes, new-objects, "
            + "leak-groups; > >= < <= ==; B KiB MiB GiB. Example: 'new-retained-bytes>100KiB'.")
    List<String> failOn = new ArrayList<>();

    @Option(names = "--known", paramLabel = "FILE", description = "Known leaks: fingerprints or retention-path patterns, one a line.")
    Path knownFile;

    @Option(names = "--previous", paramLabel = "REPORT.json", description = "An earlier report.json: mark groups new, persisting, resolved.")
    Path previous;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120", description = "Per-query timeout (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @CommandLine.Mixin
    BoltOptions bolt = new BoltOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        boolean byIds = baselineId != null || targetId != null;
        if (byIds && (baselineId == null || targetId == null)) {
            throw new CommandLine.ParameterException(cl, "--baseline-id and --target-id go together");
        }
        if (byIds == !files.isEmpty() || (!byIds && files.size() != 2)) {
            throw new CommandLine.ParameterException(cl, "give BASELINE and TARGET dump files, or --baseline-id ID --target-id ID");
        }
        for (String f : formats) {
            if (!FILES.containsKey(f)) {
                throw new CommandLine.ParameterException(cl, "unknown --format '" + f + "' (html, md, json, junit)");
            }
        }
        if (timeoutSeconds <= 0) {
            throw new CommandLine.ParameterException(cl, "--timeout must be > 0");
        }
        List<Gate> gates = new ArrayList<>();
        for (String g : failOn) {
            try {
                gates.add(Gate.parse(g));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, e.getMessage());
            }
        }
        bolt.check(spec);
        if (bolt.remote() && !byIds) {
            throw new CommandLine.ParameterException(cl, "with --uri give --baseline-id and --target-id (dump files load "
                + "with: heapload --uri URI BASELINE TARGET)");
        }
        // every input file and the output directory are checked before anything is read or loaded
        for (Path input : files) {
            requireFile(input, null);
        }
        requireFile(reportFile, "--report");
        requireFile(knownFile, "--known");
        requireFile(previous, "--previous");
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw new CommandLine.ParameterException(cl, "--out " + out + ": exists and is not a directory");
        }
        try {
            Files.createDirectories(out);
        } catch (IOException e) {
            throw new IOException("--out " + out + ": cannot create the directory (" + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        QueryLibrary library = QueryLibrary.builtIn();
        ReportDefinition definition = reportFile == null ? ReportDefinition.builtIn("nightly", library)
            : ReportDefinition.read(reportFile, library);
        KnownLeaks known = knownFile == null ? KnownLeaks.none() : KnownLeaks.read(knownFile);
        List<LeakReport.Resolved> previousGroups = previous == null ? null : ReportJson.previousGroups(previous);
        Duration timeout = Duration.ofSeconds(timeoutSeconds);

        LeakReport report;
        if (bolt.remote()) {
            try (RemoteGraphStore remote = bolt.connect()) {
                SavedQueryRunner runner = SavedQueryRunner.on(remote, timeout);
                report = build(definition, library, runner, baselineId, targetId, known, previousGroups, gates, null,
                    "the icicle graph needs the heap models of the embedded store (--db); not available over --uri", false);
            }
        } else {
            if (byIds && !GraphStore.isStore(db)) {
                throw new IOException("no store at " + db.toAbsolutePath().normalize() + " (load the dumps first, or give the dump files)");
            }
            try (GraphStore store = GraphStore.open(db)) {
                String b;
                String t;
                if (byIds) {
                    b = baselineId;
                    t = targetId;
                    for (String id : List.of(b, t)) {
                        if (store.snapshot(id).isEmpty()) {
                            throw new IOException("no snapshot '" + id + "' in " + db + " (heapload snapshots lists them)");
                        }
                    }
                } else {
                    List<String> ids = ensureLoaded(store, files);
                    b = ids.get(0);
                    t = ids.get(1);
                }
                Icicle icicle = icicle(store, b, t);
                SavedQueryRunner runner = SavedQueryRunner.on(store, timeout);
                report = build(definition, library, runner, b, t, known, previousGroups, gates, icicle.svg(),
                    "no new reachable objects: nothing to draw", icicle.crossProcess());
            }
        }
        Files.createDirectories(out);
        PrintStream stdout = System.out;
        for (String f : new LinkedHashSet<>(formats)) {
            Path file = out.resolve(FILES.get(f));
            switch (f) {
                case "json" -> {
                    try (OutputStream os = Files.newOutputStream(file)) {
                        ReportJson.write(report, os);
                    }
                }
                case "html" -> Files.writeString(file, ReportHtml.render(report), StandardCharsets.UTF_8);
                case "md" -> Files.writeString(file, ReportMarkdown.render(report), StandardCharsets.UTF_8);
                default -> Files.writeString(file, ReportJunit.render(report), StandardCharsets.UTF_8);
            }
            stdout.println(f + ": " + file.toAbsolutePath().normalize());
        }
        LeakReport.Headline hl = report.headline();
        stdout.printf(Locale.ROOT, "report: %s relative to %s: %,d new objects, %,d new bytes; %,d leak group(s) "
                + "(%,d objects, %,d bytes, %,d retained bytes), %,d known%n", SafeText.visible(report.target().id()),
            SafeText.visible(report.baseline().id()),
            hl.newObjects(), hl.newBytes(), hl.leakGroups(), hl.leakObjects(), hl.leakBytes(), hl.newRetainedBytes(),
            hl.knownLeakGroups());
        for (LeakReport.GateResult g : report.gates()) {
            stdout.printf(Locale.ROOT, "gate %s: %s (%s = %,d)%n", g.failed() ? "FAILED" : "passed", SafeText.visible(g.expression()), g.metric(),
                g.actual());
        }
        return report.passed() ? 0 : GATE_FAILED;
    }

    /**
     * Refuses an input that is a directory or missing, with one line naming it (and the option that gave it).
     *
     * @throws DumpFormatException bad input (exit 1)
     */
    private static void requireFile(Path file, String option) throws DumpFormatException {
        if (file == null) {
            return;
        }
        String name = (option == null ? "" : option + " ") + file;
        if (Files.isDirectory(file)) {
            throw new DumpFormatException(name, -1, "is a directory, not a file");
        }
        if (!Files.exists(file)) {
            throw new DumpFormatException(name, -1, "no such file");
        }
    }

    /**
     * The ids of the two dump files in the store: a stored snapshot with the file's SHA-256 is reused; the others are
     * read, analysed and loaded together under their default id (with {@code -2}, {@code -3}... when the id is taken).
     */
    private List<String> ensureLoaded(GraphStore store, List<Path> dumps) throws IOException {
        List<String> ids = new ArrayList<>();
        List<HeapSnapshot> toLoad = new ArrayList<>();
        Set<String> taken = new LinkedHashSet<>();
        store.snapshots().forEach(s -> taken.add(s.id()));
        List<String> shas = new ArrayList<>();
        for (Path dump : dumps) {
            String sha = sha256(dump);
            if (shas.contains(sha)) {
                throw new IOException(dump + ": BASELINE and TARGET are the same dump (SHA-256 " + sha.substring(0, 12) + "…)");
            }
            shas.add(sha);
        }
        for (int i = 0; i < dumps.size(); i++) {
            Path dump = dumps.get(i);
            String sha = shas.get(i);
            String existing = null;
            for (SnapshotSummary s : store.snapshots()) {
                if (sha.equals(s.sha256())) {
                    existing = s.id();
                    break;
                }
            }
            if (existing != null) {
                ids.add(existing);
                System.err.println("heapload: " + SafeText.visible(dump.toString()) + " is snapshot '" + SafeText.visible(existing)
                    + "' in the store (same SHA-256): reused");
                continue;
            }
            String base = DumpReaders.defaultSnapshotId(dump);
            String id = base;
            for (int n = 2; taken.contains(id); n++) {
                id = base + "-" + n;
            }
            taken.add(id);
            TerminalProgress bars = TerminalProgress.forOption(null);
            HeapSnapshot snapshot = DumpReaders.read(dump, id, bars);
            if (!trustSizes) {
                snapshot = dev.heapload.model.SuspectSizes.exclude(snapshot);
            }
            HeapAnalyzer.analyze(snapshot, bars);
            bars.end();
            toLoad.add(snapshot);
            ids.add(id);
        }
        if (!toLoad.isEmpty()) {
            TerminalProgress bars = TerminalProgress.forOption(null);
            store.load(toLoad, false, bars);
            bars.end();
            for (HeapSnapshot s : toLoad) {
                System.err.println("heapload: loaded " + SafeText.visible(s.info().source()) + " as snapshot '"
                    + SafeText.visible(s.info().id()) + "' into " + db);
            }
        }
        return ids;
    }

    /**
     * The SHA-256 a loaded snapshot of {@code file} records: of the file's bytes, or for a MicroPython regions.json
     * of its memory images (as {@code MicroPythonReader} computes it; two dumps can have identical regions.json files).
     */
    private static String sha256(Path file) throws IOException {
        if (dev.heapload.micropython.MicroPythonFiles.isRegionsJson(file)) {
            return dev.heapload.micropython.MemoryImage.fromRegionsJson(file).sha256();
        }
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The icicle graph of a pair, and whether the pair looked like two processes.
     *
     * @param svg          the SVG element, or {@code null} when nothing is new and reachable
     * @param crossProcess {@link SnapshotComparison#isCrossProcess}: "new" was decided by retention path
     */
    record Icicle(String svg, boolean crossProcess) {
    }

    /**
     * The icicle graph ({@link ReachabilityTree}, {@link IcicleSvg}) of the target's objects that are new relative to
     * the baseline ({@link SnapshotComparison#novelty}: by retention path for a cross-process pair), from the
     * stored heap models.
     */
    static Icicle icicle(GraphStore store, String baseline, String target) throws IOException {
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
        IcicleSvg.write(root, "new in " + target + " relative to " + baseline + (crossProcess ? " (by retention path)" : ""),
            w, false, IcicleSvg.minWidthFor(root, ICICLE_BOXES));
        return new Icicle(w.toString(), crossProcess);
    }

    /** Runs the queries and assembles the report. */
    static LeakReport build(ReportDefinition def, QueryLibrary library, SavedQueryRunner runner, String baseline, String target,
                            KnownLeaks known, List<LeakReport.Resolved> previousGroups, List<Gate> gates, String icicleSvg,
                            String icicleNote, boolean crossProcess) throws QueryFailedException, IOException {
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
        int unknown = 0;
        for (LeakReport.Group g : groups) {
            if (!g.known()) {
                unknown++;
                lo += g.objects();
                lb += g.newBytes();
                lr += g.retainedBytes();
            }
        }
        LeakReport.Headline headline = new LeakReport.Headline(t.vm(), newCount, newBytes, reused, lo, lb, lr, unknown,
            groups.size() - unknown, crossProcess);
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
        String tool = new HeapLoad.Version().getVersion()[0];
        return new LeakReport(def.name(), def.title(), Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(), tool, b, t,
            headline, groups, resolved, gateResults, sections, icicleSvg, icicleSvg == null ? icicleNote : null);
    }

    /**
     * The {@code @micropython-heap} section of a MicroPython target: the fragmentation figures (as {@code gc_info}
     * computes them) as rows of one column {@code fragmentation}, and the heap layout picture ({@link HeapLayoutSvg}).
     * Both need the RAM image, which the store does not keep: they are read again from the target's dump
     * ({@code source}, a regions.json with its symbols beside it); when it is not at hand the section says so.
     */
    static LeakReport.Section microPythonHeap(ReportDefinition.Section s, LeakReport.Snapshot target) {
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
                for (String line : MicroPythonCommand.figuresText(dump.heapMap().figures()).split("\n")) {
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
