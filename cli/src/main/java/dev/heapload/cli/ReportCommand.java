package dev.heapload.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.ReportDefinition;
import dev.heapload.queries.SafeText;
import dev.heapload.report.Gate;
import dev.heapload.report.KnownLeaks;
import dev.heapload.report.LeakReport;
import dev.heapload.report.ReportHtml;
import dev.heapload.report.ReportJson;
import dev.heapload.report.ReportJunit;
import dev.heapload.report.ReportBuilder;
import dev.heapload.report.ReportMarkdown;
import dev.heapload.report.SavedQueryRunner;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.bolt.RemoteGraphStore;
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
            + "net-bytes, net-objects (new minus freed at the groups' paths), leak-groups; > >= < <= ==; B KiB MiB GiB. "
            + "Over the leak groups that are not known and not replaced (churn). Example: 'net-bytes>100KiB'.")
    List<String> failOn = new ArrayList<>();

    @Option(names = "--known", paramLabel = "FILE", description = "Known leaks: fingerprints or retention-path patterns, one a line.")
    Path knownFile;

    @Option(names = "--previous", paramLabel = "REPORT.json", description = "An earlier report.json: mark groups new, persisting, resolved.")
    Path previous;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120", description = "Per-query timeout (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--growing-nights", paramLabel = "N", defaultValue = "3",
        description = "Flag a leak group growing when it gained objects in each of the last N snapshots up to the target "
            + "(the store's leak history; default: ${DEFAULT-VALUE}).")
    int growingNights;

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
        if (growingNights < 1) {
            throw new CommandLine.ParameterException(cl, "--growing-nights must be at least 1");
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
            try (RemoteGraphStore remote = bolt.connect(Streams.err(spec))) {
                // a pair no load compared is compared on first request (one line on stderr), then kept
                SavedQueryRunner runner = SavedQueryRunner.comparingOn(remote, timeout);
                report = ReportBuilder.build(definition, library, runner, baselineId, targetId, known, previousGroups, gates, null,
                    "the icicle graph needs the heap models of the embedded store (--db); not available over --uri", false,
                    tool(), remote.history(), growingNights, remote::model);
            }
        } else {
            if (byIds && !dev.heapload.store.StoreDirectory.isStore(db)) {
                throw new IOException("no store at " + db.toAbsolutePath().normalize() + " (name the store with --db DIR or HEAPLOAD_DB; or give the dump files)");
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
                ReportBuilder.Icicle icicle = ReportBuilder.icicle(store, b, t);
                SavedQueryRunner runner = SavedQueryRunner.on(store, timeout);
                report = ReportBuilder.build(definition, library, runner, b, t, known, previousGroups, gates, icicle.svg(),
                    "no new reachable objects: nothing to draw", icicle.crossProcess(), tool(), store.history(),
                    growingNights, store::model);
            }
        }
        Files.createDirectories(out);
        PrintStream stdout = Streams.out(spec);
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
        if (hl.replacedGroups() > 0 || hl.netObjects() != hl.leakObjects() || hl.netBytes() != hl.leakBytes()) {
            stdout.printf(Locale.ROOT, "growth: net %+,d objects, %+,d bytes in the leak groups; %,d replaced group(s) "
                + "(churn, not leaks)%n", hl.netObjects(), hl.netBytes(), hl.replacedGroups());
        }
        for (LeakReport.GateResult g : report.gates()) {
            stdout.printf(Locale.ROOT, "gate %s: %s (%s = %,d)%n", g.failed() ? "FAILED" : "passed", SafeText.visible(g.expression()), g.metric(),
                g.actual());
        }
        return report.passed() ? 0 : GATE_FAILED;
    }

    /** heapload's version line, as the reports show it. */
    private static String tool() {
        return new HeapLoad.Version().getVersion()[0];
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
        dev.heapload.io.DumpInput.refuseStandardInput(file, name);
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
                Streams.err(spec).println("heapload: " + SafeText.visible(dump.toString()) + " is snapshot '" + SafeText.visible(existing)
                    + "' in the store (same SHA-256): reused");
                continue;
            }
            String base = DumpReaders.defaultSnapshotId(dump);
            String id = base;
            for (int n = 2; taken.contains(id); n++) {
                id = base + "-" + n;
            }
            taken.add(id);
            TerminalProgress bars = TerminalProgress.forOption(null, Streams.err(spec));
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
            TerminalProgress bars = TerminalProgress.forOption(null, Streams.err(spec));
            store.load(toLoad, false, bars);
            bars.end();
            for (HeapSnapshot s : toLoad) {
                Streams.err(spec).println("heapload: loaded " + SafeText.visible(s.info().source()) + " as snapshot '"
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
}
