package dev.heapload.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.ExploreCommands;
import dev.heapload.queries.SafeText;
import dev.heapload.report.text.LeakAnswer;
import dev.heapload.report.text.LoadReport;
import dev.heapload.store.StoreDirectory;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.bolt.RemoteGraphStore;
import dev.heapload.store.SnapshotExistsException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload}: loads heap snapshots into a Neo4j store (the default command) and hosts the other
 * commands. Exit codes: 0 ok, 1 bad input (unreadable dump, existing snapshot id), 2 usage (every usage error:
 * an unknown command, option, saved query or query parameter, a missing or malformed value; mistyped names get a
 * "did you mean"). {@code HEAPLOAD_DB}, {@code NEO4J_URI} and {@code NEO4J_DATABASE} are the defaults of
 * {@code --db}, {@code --uri} and {@code --database} ({@link #environmentDefaults}).
 */
@Command(name = "heapload", mixinStandardHelpOptions = true, versionProvider = HeapLoad.Version.class,
    sortOptions = false,
    description = {
        "Loads heap snapshots of embedded script VMs (Luau lua_memorydump JSON; Lua 5.1-5.5/LuaJIT JSON of "
            + "heapload's dumper or lua-snapshot; .json or .json.gz; MicroPython: see the micropython command) into a "
            + "Neo4j store, computing what the VM's GC would keep (weak-aware reachability, retention paths, "
            + "dominators, retained size), and prints a summary of each.",
        "",
        "Two files (before after): the leak answer, what grew from one to the other; a cache or bounded history that "
            + "only replaced its entries is listed apart as replaced. Three or more files of one process (s1 s2 s3 ...): "
            + "also the groups that grew at every step (rules out one-off growth such as a cache filling up) and the "
            + "survivors (new in s2, still alive in the last: repeat or undo the action between the last two).",
        "",
        "Example: heapload testdata/luau/event-listeners/after.json"},
    subcommands = {SnapshotsCommand.class, MicroPythonCommand.class, TreeCommand.class, ExportCommand.class, QueriesCommand.class, QueryCommand.class,
        CypherCommand.class, TrendCommand.class, ReportCommand.class, ServeCommand.class, PruneCommand.class, CommandLine.HelpCommand.class,
        CompletionCommand.class},
    footerHeading = "%nEnvironment:%n",
    footer = {"HEAPLOAD_DB      default of --db (else ./heapload-db)",
        "NEO4J_URI        default of --uri; NEO4J_DATABASE of --database; NEO4J_USERNAME, NEO4J_PASSWORD the login",
        "HEAPLOAD_XMX     Java heap (default: sized from the input files and the machine); HEAPLOAD_JAVA_OPTS more",
        "                 JVM options",
        "", "More: heapload help COMMAND; shell completion: heapload completion bash|zsh;",
        "installing from the checkout: ./heapload install [--prefix DIR] (default ~/.local)"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:ok", "1:bad input (unreadable dump, snapshot id exists, store error)",
        "2:usage error (unknown command, option, query or parameter; bad value)"})
public final class HeapLoad implements Callable<Integer> {

    /** Exit code for bad input. */
    static final int BAD_INPUT = 1;

    @Parameters(paramLabel = "FILE", arity = "0..*", description = "Dump files to load, in order: the baseline (oldest) "
        + "first, the target last.")
    List<Path> files = List.of();

    @Option(names = "--db", paramLabel = "DIR", description = "Store directory (default: ${DEFAULT-VALUE}).",
        defaultValue = "heapload-db")
    Path db;

    @Option(names = "--name", paramLabel = "ID",
        description = "Snapshot id (default: the file name without extension). Only with one FILE.")
    String name;

    @Option(names = "--replace", description = "Replace a snapshot with the same id instead of refusing.")
    boolean replace;

    @Option(names = "--baseline", paramLabel = "ID",
        description = "Set the store's baseline: this and every later load also compares with snapshot ID (besides the "
            + "previous one); prune keeps it. With --uri: this load also compares with snapshot ID on the server.")
    String baseline;

    @Option(names = "--keep", paramLabel = "N",
        description = "After the load, keep the graphs and models of the newest N snapshots only (heapload prune "
            + "--keep-last N); the others' figures stay for trend. Default: keep everything.")
    Integer keep;

    @Option(names = "--graph", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Write each loaded snapshot's Neo4j graph in this command, after the answer (default). With "
            + "--no-graph the load ends after the answer; each graph is built from the stored model when a query, "
            + "report or serve first needs it (one line says so). Interrupting the graph write loses nothing either.")
    boolean graph = true;

    @Option(names = "--progress", negatable = true,
        description = "Draw progress bars on stderr for phases longer than a second (--progress: always; --no-progress: "
            + "never; default: when stderr is a terminal).")
    Boolean progress;

    @Option(names = "--format", paramLabel = "FORMAT",
        description = "Dump format: luau, lua (heapload's Lua dumper), lua-snapshot (lua-snapshot's raw table, JSON or "
            + "Lua literal), micropython (a regions.json of RAM images). Default: detected per file.")
    String format;

    @Option(names = "--keep-dangling",
        description = "Keep references to addresses with no object record as (:Missing {address, reason}) nodes, so the "
            + "graph has as many references as the dump (default: counted in the summary and left out).")
    boolean keepDangling;

    @Option(names = "--allow-dangling",
        description = "Load a dump even when more than --max-dangling of its references point to addresses with no record.")
    boolean allowDangling;

    @Option(names = "--max-dangling", paramLabel = "PERCENT", defaultValue = "10",
        description = "The share of references to nothing above which a load fails (default: ${DEFAULT-VALUE} %%).")
    double maxDangling;

    @Option(names = "--producer", paramLabel = "NAME",
        description = "The program that wrote the dumps, recorded on their Snapshot nodes (replaces what a dump says).")
    String producer;

    @Option(names = "--vm-version", paramLabel = "VERSION",
        description = "The VM's version, recorded on the Snapshot nodes (Luau dumps do not say it).")
    String vmVersion;

    @Option(names = "--trust-sizes",
        description = "Keep object sizes that cannot be true (larger than the VM's own total, or a Luau size printed "
            + "negative) in retained sizes, rankings, leak groups and gates; by default they count as 0 bytes and are "
            + "listed in the summary.")
    boolean trustSizes;

    @CommandLine.Mixin
    BoltOptions bolt = new BoltOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Standard output of the command line ({@link Streams}); set by {@link #commandLine}. */
    PrintStream out = System.out;
    /** Standard error of the command line ({@link Streams}); set by {@link #commandLine}. */
    PrintStream err = System.err;

    @Override
    public Integer call() throws Exception {
        if (files.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing FILE: give at least one dump file to load");
        }
        refuseMistypedCommand(spec, files.get(0));
        if (name != null && files.size() > 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--name needs exactly one FILE");
        }
        if (name != null) {
            checkSnapshotId(name);
        }
        if (!(maxDangling >= 0 && maxDangling <= 100)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max-dangling must be a percentage from 0 to 100");
        }
        if (format != null && !DumpReaders.FORMATS.contains(format)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "unknown --format " + format
                + " (known: " + String.join(", ", DumpReaders.FORMATS) + ")");
        }
        bolt.check(spec);
        if (bolt.remote() && !graph) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--no-graph needs the embedded store"
                + " (--db): a load over --uri writes its graph to the server");
        }
        if (bolt.remote() && keep != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keep needs the embedded store"
                + " (--db), not --uri");
        }
        if (keep != null && keep < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--keep must be at least 1");
        }
        if (bolt.remote()) {
            return loadRemote();
        }
        PrintStream out = this.out;
        PrintStream err = this.err;
        TerminalProgress bars = TerminalProgress.forOption(progress, err);
        StoreDirectory store = null;
        String[] interrupted = {"heapload: interrupted; the store is as it was before this command"};
        Thread interruptNotice = new Thread(() -> err.println(interrupted[0]));
        Runtime.getRuntime().addShutdownHook(interruptNotice);
        try {
            // refuse existing ids before spending time on reading; the store is created only once the
            // dumps were read successfully. Nothing before the leak answer loads Neo4j: the snapshots are committed
            // without their graphs (StoreDirectory), which are written after the answer
            if (java.nio.file.Files.isDirectory(db)) {
                store = StoreDirectory.open(db);
            }
            StoreDirectory existing = store;
            List<String> ids = snapshotIds(id -> existing != null && existing.snapshot(id).isPresent(), db.toString());
            // an unknown --baseline is refused before reading, and before a new store's directory is made
            if (baseline != null && !ids.contains(baseline) && (existing == null || existing.snapshot(baseline).isEmpty())) {
                throw new dev.heapload.store.SnapshotNotFoundException(baseline, db.toString());
            }
            // every file is read and analysed before the store changes, so a bad file anywhere in the list
            // leaves the store as it was; then all of them are committed at once
            List<HeapSnapshot> snapshots = readAll(ids, bars);
            Map<String, Long> readTimes = new java.util.LinkedHashMap<>(bars.phaseNanos());
            if (store == null) {
                store = StoreDirectory.open(db);
            }
            bars.reset();
            StoreDirectory.Load load = store.prepare(snapshots, replace, baseline, bars);
            // one all-or-nothing commit for all files and the --baseline setting: models, summaries, catalog
            store.commitFiles(load, bars);
            bars.end();
            interrupted[0] = "heapload: interrupted while writing the graph; the snapshots are stored, and a graph not"
                + " written is built when it is next queried";
            if (keep != null) {
                List<String> pruned = new java.util.ArrayList<>();
                dev.heapload.store.Catalog next = store.pruned(keep, List.of(), pruned);
                if (next != null) {
                    store.commit(next, "prune");
                    err.println("heapload: pruned " + pruned.size() + " older snapshot(s) (--keep " + keep
                        + "): their figures stay for heapload trend");
                }
            }
            String storeOptions = db.toString().equals("heapload-db") ? "" : " --db " + shellWord(db.toString());
            String where = db.toAbsolutePath().normalize().toString();
            if (snapshots.size() >= 2) {
                // several files: the answer first, then a short summary of each
                printAnswer(snapshots, ids, load.comparisons(ids.get(ids.size() - 1)), storeOptions, true, out);
                if (snapshots.size() >= 3) {
                    printSteps(store.history(), ids, snapshots, out);
                }
                out.println();
                printLoaded(snapshots, where, readTimes, bars, out);
            } else {
                printLoaded(snapshots, where, readTimes, bars, out);
                printAnswer(snapshots, ids, load.comparisons(ids.get(ids.size() - 1)), storeOptions, true, out);
            }
            out.flush();
            if (graph) {
                StoreDirectory files = store;
                store = null;
                writeGraphs(files, load, bars, out);
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interruptNotice);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already exiting: the notice runs
            }
            if (store != null) {
                store.close();
            }
        }
        return 0;
    }

    /**
     * The leak answer of a load, from the comparisons it made in memory with its last snapshot as the target
     * ({@code compared}): for several files the last against the first; for one file loaded into a store that holds
     * earlier snapshots, against {@code --baseline} when given, else the previous analysed snapshot. Nothing when the
     * load compared nothing.
     */
    private void printAnswer(List<HeapSnapshot> snapshots, List<String> ids, List<StoreDirectory.Compared> compared,
                             String storeOptions, boolean served, PrintStream out) {
        HeapSnapshot target = snapshots.get(snapshots.size() - 1);
        String targetId = ids.get(ids.size() - 1);
        StoreDirectory.Compared pair = null;
        for (StoreDirectory.Compared c : compared) {
            boolean wanted = snapshots.size() >= 2 ? c.baseline().equals(ids.get(0))
                : baseline != null ? c.baseline().equals(baseline) : pair == null;
            if (wanted) {
                pair = c;
            }
        }
        if (pair == null) {
            return;
        }
        LeakAnswer.printCrossProcess(pair.comparison(), pair.baseline(), pair.baselineObjects(), targetId, out);
        if (snapshots.size() >= 2) {
            printOrder(snapshots.get(0), target, storeOptions, out);
        }
        LeakAnswer.print(pair.baseline(), targetId, LeakAnswer.groups(pair.comparison(), target), storeOptions,
            commandName(), served, out);
    }

    /**
     * After the leak answer of three or more files: the groups that grew at every step (each file compared with the
     * one before it) and the survivor view (new in the second file, alive in the last).
     */
    private static void printSteps(List<dev.heapload.store.SnapshotHistory> history, List<String> ids,
                                   List<HeapSnapshot> snapshots, PrintStream out) {
        dev.heapload.report.text.StepsText.printGrowing(dev.heapload.report.text.StepsText.steps(history, ids), out);
        dev.heapload.report.text.StepsText.printSurvivors(dev.heapload.analysis.SurvivorView.compute(snapshots.get(0),
            snapshots.get(1), snapshots.get(snapshots.size() - 1)), out);
    }

    /**
     * One line before the leak answer when the pair looks swapped ({@link dev.heapload.analysis.PairOrder}): the
     * stored comparison the other way round is one query away.
     */
    private static void printOrder(HeapSnapshot baseline, HeapSnapshot target, String storeOptions, PrintStream out) {
        String reason = dev.heapload.analysis.PairOrder.swapped(baseline, target);
        if (reason != null) {
            out.println(dev.heapload.report.text.GrowthText.swapped(reason, commandName() + " query leak-groups -p "
                + ExploreCommands.shellWord("baseline=" + target.info().id()) + " -p "
                + ExploreCommands.shellWord("target=" + baseline.info().id()) + storeOptions));
        }
    }

    /**
     * After the answer: the graph of the newest snapshot {@code load} committed (the one the answer and its next
     * commands name, and {@code serve} serves), with its own line ({@code graph of 'ID': import S s, index S s; ready
     * for queries}) and progress bars; closes {@code files}. The other snapshots' graphs, and this one after an
     * interrupt or a failure here, are built when first queried: the snapshots themselves are stored already.
     */
    static void writeGraphs(StoreDirectory files, StoreDirectory.Load load, TerminalProgress bars, PrintStream out)
        throws java.io.IOException {
        bars.reset();
        String newest = null;
        for (dev.heapload.store.Catalog.Entry e : load.added().keySet()) {
            newest = e.id();
        }
        try (GraphStore store = GraphStore.on(files)) {
            store.writeGraphs(load, List.of(newest), bars);
            bars.end();
        }
        out.println(graphLine(bars, "graph of '" + SafeText.visible(newest) + "':", "; ready for queries, cypher and serve"));
    }

    /** {@code HEAD PHASE S s, ...READY}: the times of the graph write's phases; {@code HEAD none written} for none. */
    private static String graphLine(TerminalProgress bars, String head, String ready) {
        StringBuilder line = new StringBuilder(head);
        bars.phaseNanos().forEach((p, ns) -> line.append(String.format(java.util.Locale.ROOT, " %s %.2f s,", p, ns / 1e9)));
        line.setLength(line.length() - 1);
        return line.append(bars.phaseNanos().isEmpty() ? " none written" : ready).toString();
    }

    /**
     * The leak answer of a load over Bolt, computed in memory before anything is sent: for several files the last
     * against the first (a single file is compared on the server, whose snapshots are not read back for it).
     */
    private static List<StoreDirectory.Compared> comparedInMemory(List<HeapSnapshot> snapshots, List<String> ids) {
        if (snapshots.size() < 2) {
            return List.of();
        }
        HeapSnapshot first = snapshots.get(0);
        HeapSnapshot last = snapshots.get(snapshots.size() - 1);
        if (first.analysis() == null || last.analysis() == null) {
            return List.of();
        }
        return List.of(new StoreDirectory.Compared(ids.get(0), first.objectCount(),
            dev.heapload.analysis.SnapshotComparison.compute(first, last, last.analysis())));
    }

    /** How many replaced groups the leak answer lists, one line each (leak-groups has them all). */
    static final int REPLACED_SHOWN = 10;

    /** The verdict line of a {@code leak-groups} row ({@code GrowthText#verdict}), or null without a verdict. */
    private static String verdictLine(List<String> columns, List<Object> row, String baseline) {
        int v = columns.indexOf("verdict");
        int before = columns.indexOf("baselineHeads");
        if (v < 0 || !(row.get(v) instanceof String verdict)) {
            return null;
        }
        return dev.heapload.report.text.GrowthText.verdict(verdict, number(columns, row, "netObjects"),
            number(columns, row, "netBytes"), before >= 0 && row.get(before) instanceof Number n ? n.longValue() : null,
            number(columns, row, "freedHeads"), number(columns, row, "freedObjects"), number(columns, row, "freedBytes"),
            String.valueOf(row.get(columns.indexOf("headType"))), baseline);
    }

    /** A number column of a row, 0 when absent or null. */
    private static long number(List<String> columns, List<Object> row, String column) {
        int i = columns.indexOf(column);
        return i >= 0 && row.get(i) instanceof Number n ? n.longValue() : 0;
    }

    /**
     * The snapshot id of each file ({@code --name} or the file name), refusing two files with one id (usage error)
     * and, unless {@code --replace}, an id for which {@code exists} is true.
     *
     * @param place the store's directory or URI, for the message
     */
    private List<String> snapshotIds(SnapshotLookup exists, String place) throws java.io.IOException {
        List<String> ids = new java.util.ArrayList<>();
        for (Path file : files) {
            String id = name != null ? name : DumpReaders.defaultSnapshotId(file);
            if (ids.contains(id)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "two files would get the snapshot id '"
                    + id + "'; load them one at a time with --name");
            }
            requireFileNameFits(spec.commandLine(), id,
                name != null ? "--name" : "the snapshot id of " + file.getFileName() + " (give a shorter one with --name)");
            ids.add(id);
            if (!replace && exists.exists(id)) {
                throw new SnapshotExistsException(id, place);
            }
        }
        return ids;
    }

    /**
     * Refuses (usage error, exit 2) a snapshot id whose file name in the store would be longer than
     * {@link GraphStore#MAX_SNAPSHOT_FILE_NAME_BYTES}, before anything is read.
     *
     * @param what how the message names the id, e.g. {@code --name}
     */
    static void requireFileNameFits(CommandLine commandLine, String id, String what) {
        int bytes = dev.heapload.store.StoreDirectory.snapshotFileNameBytes(id);
        if (bytes > dev.heapload.store.StoreDirectory.MAX_SNAPSHOT_FILE_NAME_BYTES) {
            throw new CommandLine.ParameterException(commandLine, String.format(java.util.Locale.ROOT,
                "%s is too long for a file name: its snapshot file name would be %,d bytes, at most %d (letters, "
                    + "digits, '-', '_' and '.' take 1 byte, every other UTF-8 byte 3, as %%XX)",
                what, bytes, dev.heapload.store.StoreDirectory.MAX_SNAPSHOT_FILE_NAME_BYTES));
        }
    }

    /** Whether a store already holds a snapshot id. */
    private interface SnapshotLookup {
        boolean exists(String id) throws java.io.IOException;
    }

    /** Reads and analyses every file, in order, with the ids of {@link #snapshotIds}. */
    private List<HeapSnapshot> readAll(List<String> ids, TerminalProgress bars) throws java.io.IOException {
        List<HeapSnapshot> snapshots = new java.util.ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            HeapSnapshot snapshot = DumpReaders.read(files.get(i), ids.get(i), bars, format, keepDangling);
            requireFewDangling(snapshot, files.get(i));
            if (!trustSizes) {
                snapshot = dev.heapload.model.SuspectSizes.exclude(snapshot);
            }
            if (producer != null || vmVersion != null) {
                snapshot = snapshot.withInfo(snapshot.info().withProducer(producer, vmVersion));
            }
            HeapAnalyzer.analyze(snapshot, bars);
            snapshots.add(snapshot);
        }
        return snapshots;
    }

    /**
     * Refuses (one line, exit 1, the store untouched) a dump whose references to nothing are more than
     * {@code --max-dangling} percent of all its references, unless {@code --allow-dangling}: such a dump was taken
     * mid-collection, is damaged, or is read with the wrong format, and its leak answer would be false.
     */
    private void requireFewDangling(HeapSnapshot snapshot, Path file) throws DumpFormatException {
        var d = snapshot.danglingReferences();
        if (allowDangling || d.total() == 0 || d.share() * 100 <= maxDangling) {
            return;
        }
        StringBuilder why = new StringBuilder();
        for (var reason : dev.heapload.model.DanglingReferences.Reason.values()) {
            why.append(why.length() == 0 ? "" : ", ").append(String.format(java.util.Locale.ROOT, "%,d ", d.count(reason)))
                .append(reason.text());
        }
        throw new DumpFormatException(file.toString(), -1, String.format(java.util.Locale.ROOT,
            "%,d of its %,d references (%.1f %%, over the %s %% limit) point to addresses with no object record (%s): a dump "
                + "taken without a full GC, damaged, or read as the wrong format? Load it anyway with --allow-dangling",
            d.total(), d.producerReferences(), d.share() * 100,
            new java.math.BigDecimal(Double.toString(maxDangling)).stripTrailingZeros().toPlainString(), why));
    }

    /**
     * The summary of each loaded snapshot with the store it went to, then the time per phase. A load of several files
     * prints them after the leak answer, brief (no tables: {@code heapload query summary} has them) under the heading
     * {@code loaded:}.
     */
    private static void printLoaded(List<HeapSnapshot> snapshots, String store, Map<String, Long> readTimes,
                                    TerminalProgress bars, PrintStream out) {
        boolean brief = snapshots.size() >= 2;
        if (brief) {
            out.println("loaded:");
        }
        for (HeapSnapshot snapshot : snapshots) {
            LoadReport.print(snapshot, brief, out);
            out.println("  store: " + store);
            out.println();
        }
        Map<String, Long> times = new java.util.LinkedHashMap<>(readTimes);
        times.putAll(bars.phaseNanos());
        TerminalProgress.printTimes(out, times);
        out.println();
    }

    /**
     * The command the user runs heapload by, for the hints heapload prints ({@code next:}, {@code Try … --help}):
     * the launcher passes it as the system property {@code heapload.command} ({@code heapload} when a heapload is on
     * the {@code PATH}, else the path it was started by, e.g. {@code ./heapload}); {@code heapload} without it.
     */
    static String commandName() {
        String name = System.getProperty("heapload.command", "");
        return name.isBlank() ? "heapload" : shellWord(name);
    }

    /** The names of {@code spec}'s subcommands a user is offered: hidden ones left out. */
    private static java.util.Set<String> visibleCommands(CommandLine.Model.CommandSpec spec) {
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        spec.subcommands().forEach((name, sub) -> {
            if (!sub.getCommandSpec().usageMessage().hidden()) {
                names.add(name);
            }
        });
        return names;
    }

    /**
     * A mistyped command ({@code heapload reprot}) reaches the default command as a file name: when the first FILE
     * does not exist and looks like a word rather than a path (letters, digits and {@code -} only), it is a usage
     * error naming the closest commands instead of a missing file.
     */
    private static void refuseMistypedCommand(CommandLine.Model.CommandSpec spec, Path first) {
        String word = first.toString();
        if (!word.matches("[A-Za-z][A-Za-z0-9-]*") || java.nio.file.Files.exists(first)) {
            return;
        }
        java.util.Set<String> commands = visibleCommands(spec);
        String suggestion = Suggestions.didYouMean(word, commands);
        throw new CommandLine.ParameterException(spec.commandLine(), "'" + word + "' is neither a command nor a file"
            + (suggestion.isEmpty() ? " (commands: " + String.join(", ", commands) + ")" : suggestion));
    }

    /**
     * Defaults from the environment, for every command: {@code --db} from {@code HEAPLOAD_DB}, {@code --uri} from
     * {@code NEO4J_URI}, {@code --database} from {@code NEO4J_DATABASE} (blank values count as unset). A default
     * {@code --uri} gives way to a {@code --db} given on the command line ({@link BoltOptions#check}).
     *
     * @param environment the environment (tests pass their own)
     */
    static CommandLine.IDefaultValueProvider environmentDefaults(Map<String, String> environment) {
        return argument -> {
            if (!(argument instanceof CommandLine.Model.OptionSpec option)) {
                return null;
            }
            String variable = switch (option.longestName()) {
                case "--db" -> "HEAPLOAD_DB";
                case "--uri" -> "NEO4J_URI";
                case "--database" -> "NEO4J_DATABASE";
                default -> null;
            };
            String value = variable == null ? null : environment.get(variable);
            return value == null || value.isBlank() ? null : value;
        };
    }

    /**
     * The usage-error line for an unknown option or subcommand, with picocli's suggestions (options of the command,
     * subcommands) as "did you mean".
     */
    private static String usageLine(CommandLine.ParameterException ex) {
        String line = oneLine(ex);
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            String typed = unmatched.getUnmatched().get(0);
            CommandLine.Model.CommandSpec command = ex.getCommandLine().getCommandSpec();
            java.util.List<String> names = new java.util.ArrayList<>(visibleCommands(command));
            for (CommandLine.Model.OptionSpec o : command.options()) {
                if (!o.hidden()) {
                    names.addAll(java.util.Arrays.asList(o.names()));
                }
            }
            String key = typed.contains("=") && typed.startsWith("-") ? typed.substring(0, typed.indexOf('=')) : typed;
            line = line + Suggestions.didYouMean(key, names);
        }
        return line;
    }

    /** {@code word} as one shell word: as is when it has only safe characters, else in single quotes. */
    static String shellWord(String word) {
        return word.matches("[A-Za-z0-9_./:=@%+-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
    }

    /**
     * The load over Bolt ({@code --uri}): connects first (an unreachable server fails before any file is read),
     * refuses existing ids, reads and analyses every file, then loads each with {@link RemoteGraphStore}.
     */
    private int loadRemote() throws Exception {
        PrintStream out = this.out;
        TerminalProgress bars = TerminalProgress.forOption(progress, err);
        Thread interruptNotice = new Thread(() -> err.println("heapload: interrupted; the snapshot being loaded "
            + "stays invisible on the server and the next load removes what it wrote"));
        Runtime.getRuntime().addShutdownHook(interruptNotice);
        try (RemoteGraphStore remote = bolt.connect(err)) {
            List<String> ids = snapshotIds(id -> remote.snapshot(id).isPresent(), remote.uri());
            List<HeapSnapshot> snapshots = readAll(ids, bars);
            Map<String, Long> readTimes = new java.util.LinkedHashMap<>(bars.phaseNanos());
            // the answer first, from the models in memory; then the load, which writes to the server
            bars.reset();
            bars.start("compare", 1, "pairs");
            List<StoreDirectory.Compared> compared = comparedInMemory(snapshots, ids);
            bars.end();
            String storeOptions = " --uri " + remote.uri() + (remote.database() == null ? "" : " --database " + remote.database());
            String where = remote.uri() + (remote.database() == null ? "" : " database " + remote.database());
            if (snapshots.size() >= 2) {
                // several files: the answer first, then a short summary of each
                printAnswer(snapshots, ids, compared, storeOptions, false, out);
                out.println();
                printLoaded(snapshots, where, readTimes, bars, out);
            } else {
                printLoaded(snapshots, where, readTimes, bars, out);
                printAnswer(snapshots, ids, compared, storeOptions, false, out);
            }
            out.flush();
            // all files in one load: one all-or-nothing step, with the comparisons between them
            bars.reset();
            // over Bolt --baseline is not kept on the server: it names the extra stored snapshot of this load's pairs
            remote.load(snapshots, replace, baseline, bars);
            bars.end();
            out.println(graphLine(bars, "graph:", "; ready for queries and cypher"));
            if (snapshots.size() >= 3) {
                printSteps(remote.history(), ids, snapshots, out);
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interruptNotice);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already exiting: the notice runs
            }
        }
        return 0;
    }

    /**
     * Rejects snapshot ids that cannot be shown on one line or stored as a file name (usage error, exit 2).
     */
    private void checkSnapshotId(String id) {
        if (id.isEmpty() || id.length() > 120 || id.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--name must be 1 to 120 characters without control characters (newlines, tabs)");
        }
        // ' ' or 'a ' would show as an empty cell or as 'a' in listings and tables
        if (!id.strip().equals(id)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--name must not start or end with a blank (it would not show in listings)");
        }
    }

    /**
     * Runs the command line and returns the exit code (without calling {@link System#exit}).
     *
     * @param args command-line arguments
     * @param out  standard output
     * @param err  standard error
     * @return 0 ok, 1 bad input, 2 usage
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            return commandLine(out, err, BoltOptions.environment).execute(args);
        } catch (OutOfMemoryError e) {
            err.println("heapload: " + dev.heapload.queries.SafeText.visible(oneLine(e)));
            return BAD_INPUT;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /**
     * The command line of {@code heapload} as {@link #run} executes it: output and errors to {@code out} and
     * {@code err}, usage errors as one line (exit 2), failures as one line (exit 1), defaults of {@code --db},
     * {@code --uri} and {@code --database} from {@code environment}. Every command prints to {@code out} and
     * {@code err} ({@link Streams}).
     */
    static CommandLine commandLine(PrintStream out, PrintStream err, Map<String, String> environment) {
        HeapLoad root = new HeapLoad();
        root.out = out;
        root.err = err;
        CommandLine cl = new CommandLine(root);
        // "--format micropython": the value names a subcommand too
        cl.setAllowSubcommandsAsOptionParameters(true);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setDefaultValueProvider(environmentDefaults(environment));
        cl.setExecutionStrategy(parsed -> {
            applyOptionsBeforeCommand(parsed);
            return new CommandLine.RunLast().execute(parsed);
        });
        cl.setParameterExceptionHandler((ex, arguments) -> {
            CommandLine c = ex.getCommandLine();
            err.println("heapload: " + dev.heapload.queries.SafeText.visible(usageLine(ex)));
            String qualified = c.getCommandSpec().qualifiedName();
            err.println("Try '" + commandName() + qualified.substring("heapload".length())
                + " --help' for more information.");
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            err.println("heapload: " + dev.heapload.queries.SafeText.visible(withSnapshotSuggestion(oneLine(ex), commandLine)));
            return BAD_INPUT;
        });
        return cl;
    }

    /**
     * Options of the store and the server that every command taking them reads the same way; given before a
     * subcommand ({@code heapload --db DIR query ...}) they apply to it as if given after it.
     */
    static final java.util.Set<String> SHARED_OPTIONS = java.util.Set.of("--db", "--uri", "--user", "--password-file",
        "--database", "--name", "--replace", "--trust-sizes");

    /**
     * Options and files given before a subcommand, which picocli parses as the enclosing command's (the load's) and
     * the subcommand would never see: a {@link #SHARED_OPTIONS shared option} the subcommand also has is copied into
     * it (a usage error when it is given after the subcommand too, with another value); anything else (a shared option
     * the subcommand does not take, a load option such as {@code --keep}, a FILE) is a usage error naming where it
     * belongs. Nothing given on the command line is ignored.
     *
     * @param parsed the parse result of the whole command line (root first)
     * @throws CommandLine.ParameterException (exit 2) as described
     */
    static void applyOptionsBeforeCommand(CommandLine.ParseResult parsed) {
        List<CommandLine> chain = parsed.asCommandLineList();
        if (chain.size() < 2) {
            return;
        }
        CommandLine leaf = chain.get(chain.size() - 1);
        CommandLine.ParseResult leafParsed = leaf.getParseResult();
        String leafName = leaf.getCommandSpec().qualifiedName().substring("heapload ".length());
        for (CommandLine outer : chain.subList(0, chain.size() - 1)) {
            CommandLine.ParseResult outerParsed = outer.getParseResult();
            String outerName = outer.getCommandSpec().qualifiedName();
            if (!outerParsed.matchedPositionals().isEmpty()) {
                String first = String.valueOf(outerParsed.matchedPositionals().get(0).getValue() instanceof List<?> l
                    && !l.isEmpty() ? l.get(0) : outerParsed.matchedPositionals().get(0).getValue());
                throw new CommandLine.ParameterException(leaf, "'" + first + "' comes before '" + leafName
                    + "': a command takes no files before its name (to load dumps: " + outerName + " FILE...)");
            }
            for (CommandLine.Model.OptionSpec option : outerParsed.matchedOptions()) {
                String name = option.longestName();
                if (option.usageHelp() || option.versionHelp()) {
                    continue;
                }
                CommandLine.Model.OptionSpec inner = leaf.getCommandSpec().findOption(name);
                if (!SHARED_OPTIONS.contains(name)) {
                    throw new CommandLine.ParameterException(leaf, name + " before '" + leafName + "' is an option of "
                        + (outer.getParent() == null ? "the load (" + outerName + " FILE...)" : "'" + outerName + "'")
                        + (inner != null ? "; for " + leafName + "'s own " + name + " give it after '" + leafName + "'"
                            : ", not of " + leafName));
                }
                if (inner == null) {
                    throw new CommandLine.ParameterException(leaf, name + " does not apply to " + leafName);
                }
                if (leafParsed.hasMatchedOption(name)) {
                    if (!java.util.Objects.equals(leafParsed.matchedOption(name).getValue(), option.getValue())) {
                        throw new CommandLine.ParameterException(leaf, name + " is given both before and after '"
                            + leafName + "' with different values; give it once");
                    }
                    continue;
                }
                inner.setValue(option.getValue());
            }
        }
    }

    /**
     * True when {@code option} was given on the command line for {@code cl}: after its name, or before it (on an
     * enclosing command, {@link #applyOptionsBeforeCommand}).
     */
    static boolean given(CommandLine cl, String option) {
        for (CommandLine c = cl; c != null; c = c.getParent()) {
            if (c.getParseResult() != null && c.getParseResult().hasMatchedOption(option)) {
                return true;
            }
        }
        return false;
    }

    private static final java.util.regex.Pattern NO_SNAPSHOT = java.util.regex.Pattern.compile("(no snapshot '(.*?)' in .*?)"
        + "( \\(heapload snapshots lists them\\))?");

    /**
     * A "no snapshot 'ID' in …" line (from any route: the model, saved queries, report) with "did you mean" naming the
     * stored ids close to {@code ID} ({@link Suggestions}), read from the catalog of the command's {@code --db}; the
     * line as it was when the command has no store directory, it holds no store, or no id is close.
     */
    static String withSnapshotSuggestion(String line, CommandLine command) {
        java.util.regex.Matcher m = NO_SNAPSHOT.matcher(line);
        CommandLine.Model.OptionSpec db = command.getCommandSpec().findOption("--db");
        if (!m.matches() || db == null || !(db.getValue() instanceof Path dir)
            || !dev.heapload.store.StoreDirectory.isStore(dir)) {
            return line;
        }
        try {
            List<String> ids = dev.heapload.store.Catalog.read(dir.toAbsolutePath().normalize()).entries.stream()
                .map(dev.heapload.store.Catalog.Entry::id).toList();
            String suggestion = Suggestions.didYouMean(m.group(2), ids);
            return suggestion.isEmpty() ? line : m.group(1) + suggestion + (m.group(3) == null ? "" : m.group(3));
        } catch (java.io.IOException | RuntimeException unreadable) {
            return line;
        }
    }

    /** One-line message for an exception, never a stack trace. */
    static String oneLine(Throwable ex) {
        if (ex instanceof SnapshotExistsException exists) {
            return "snapshot '" + exists.id() + "' is already in the store; add --replace to overwrite it, or --name ID to load it under another id";
        }
        if (ex instanceof DumpFormatException) {
            return ex.getMessage();
        }
        String msg = ex.getMessage();
        if (ex instanceof java.nio.file.NoSuchFileException) {
            return msg + ": no such file";
        }
        if (ex instanceof java.nio.file.AccessDeniedException) {
            return msg + ": permission denied";
        }
        if (ex instanceof OutOfMemoryError) {
            return outOfMemory();
        }
        if (msg == null || msg.isBlank()) {
            msg = ex.getClass().getSimpleName();
        }
        int nl = msg.indexOf('\n');
        return nl >= 0 ? msg.substring(0, nl) : msg;
    }

    /**
     * The one line for an {@link OutOfMemoryError}: the phase it happened in ({@link TerminalProgress#lastPhase()}),
     * the heap it had, that the store is unchanged (every store change is all-or-nothing) and how to give more.
     */
    static String outOfMemory() {
        String phase = TerminalProgress.lastPhase();
        long max = Runtime.getRuntime().maxMemory();
        String xmx = System.getenv("HEAPLOAD_XMX");
        return String.format(java.util.Locale.ROOT, "out of memory%s (Java heap %,d MiB%s); the store is as it was; "
                + "raise the heap with HEAPLOAD_XMX, e.g. HEAPLOAD_XMX=%dm heapload …",
            phase == null ? "" : " in phase '" + phase + "'", max >> 20,
            xmx != null && !xmx.isBlank() ? ", HEAPLOAD_XMX=" + xmx.strip()
                : dev.heapload.io.HeapBudget.sizedFromInput() ? ", sized from the input" : ", HEAPLOAD_XMX unset",
            Math.max(2048, (max >> 20) * 2));
    }

    /** Entry point of the {@code heapload} launcher. */
    public static void main(String[] args) {
        StoreDirectory.setNotices(line -> System.err.println("heapload: " + dev.heapload.queries.SafeText.visible(line)));
        dev.heapload.store.embedded.DiskWatchdog.setHaltOnDiskFullHang(true);
        int code = run(args, System.out, System.err);
        System.exit(code);
    }

    /** Version from the jar manifest, else the build's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = HeapLoad.class.getPackage().getImplementationVersion();
            return new String[] {"heapload " + (v != null ? v : "0.1.0-SNAPSHOT") + " (Neo4j 5.26, Java "
                + System.getProperty("java.version") + ")"};
        }
    }

}
