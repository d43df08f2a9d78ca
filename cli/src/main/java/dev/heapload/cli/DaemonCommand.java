package dev.heapload.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.heapload.daemon.DaemonProtocol;
import dev.heapload.daemon.QueryDaemon;
import dev.heapload.queries.QueryWatchdog;
import dev.heapload.store.embedded.GraphStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code heapload daemon --db DIR [--idle-seconds N]} (hidden): runs the store's {@link QueryDaemon} in this process
 * until it is idle for N seconds, asked to stop, or sent SIGTERM. {@code heapload query} starts it by itself
 * ({@link DaemonClient}); run by hand it shows its log on stderr.
 */
@Command(name = "daemon", hidden = true, mixinStandardHelpOptions = true,
    description = "Runs the store's query daemon (heapload query starts it by itself; see docs/daemon.md).")
final class DaemonCommand implements Callable<Integer> {

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db",
        description = "Store directory (default: ${DEFAULT-VALUE}; $HEAPLOAD_DB when set).")
    Path db;

    @Option(names = "--idle-seconds", paramLabel = "N", defaultValue = "600",
        description = "Stop after N seconds without queries (default: ${DEFAULT-VALUE}).")
    long idleSeconds;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (idleSeconds <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--idle-seconds must be > 0");
        }
        dev.heapload.store.StoreDirectory.setDaemonStopper(null); // a daemon never stops another: the store is simply in use
        Path dir = db.toAbsolutePath().normalize();
        if (!dev.heapload.store.StoreDirectory.isStore(dir)) {
            throw new IOException("no heapload store at " + dir + "; load a dump first: heapload --db " + db + " FILE");
        }
        QueryDaemon daemon = new QueryDaemon(dir, Duration.ofSeconds(idleSeconds), QueryWatchdog.GRACE,
            line -> Runtime.getRuntime().halt(1), System.err, HeapLoad::oneLine);
        runsCommands(daemon, dir);
        Thread onTerm = new Thread(() -> {
            daemon.stop();
            try {
                daemon.awaitStopped(Duration.ofSeconds(9));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "heapload-daemon-sigterm");
        Runtime.getRuntime().addShutdownHook(onTerm);
        daemon.run();
        try {
            Runtime.getRuntime().removeShutdownHook(onTerm);
        } catch (IllegalStateException e) {
            // already shutting down
        }
        return 0;
    }

    /**
     * Lets {@code daemon} (of store {@code dir}) run the command lines thin clients forward ({@link #runForwarded}):
     * replaces {@code System.out} and {@code System.err} by {@link RoutedPrintStream}s over them, since commands print
     * there, each to its own client.
     */
    static void runsCommands(QueryDaemon daemon, Path dir) {
        RoutedPrintStream routedOut = new RoutedPrintStream(System.out);
        RoutedPrintStream routedErr = new RoutedPrintStream(System.err);
        System.setOut(routedOut);
        System.setErr(routedErr);
        daemon.setCommandRunner((args, cwd, env, out, err, accepted) ->
            runForwarded(daemon, dir, routedOut, routedErr, args, cwd, env, out, err, accepted));
    }

    /**
     * Runs a command line a thin client forwarded ({@link ForwardingMain}) in this daemon, as {@link HeapLoad#run}
     * would in the client: {@code query}, {@code cypher} and {@code trend} (not {@code --leak}) on this daemon's
     * store, their queries run here ({@link DaemonClient#runningIn}); every other command line is declined (the
     * client runs it itself), as is one that does not parse (the client prints the usage error itself).
     *
     * @return the exit code, or {@link QueryDaemon.CommandRunner#DECLINED}
     */
    static int runForwarded(QueryDaemon daemon, Path dir, RoutedPrintStream routedOut, RoutedPrintStream routedErr,
                            List<String> args, Path cwd, Map<String, String> env, PrintStream out, PrintStream err,
                            Runnable accepted) {
        String[] argv = args.toArray(String[]::new);
        CommandLine.ParseResult parsed;
        try {
            parsed = HeapLoad.commandLine(out, err, env, cwd).parseArgs(argv);
        } catch (CommandLine.ParameterException e) {
            return QueryDaemon.CommandRunner.DECLINED;
        } catch (RuntimeException e) {
            return QueryDaemon.CommandRunner.DECLINED;
        }
        if (!runsHere(parsed, dir)) {
            return QueryDaemon.CommandRunner.DECLINED;
        }
        accepted.run();
        routedOut.route(out);
        routedErr.route(err);
        DaemonClient.runningIn(daemon, dir);
        try {
            return HeapLoad.commandLine(out, err, env, cwd).execute(argv);
        } catch (OutOfMemoryError e) {
            err.println("heapload: " + dev.heapload.queries.SafeText.visible(HeapLoad.oneLine(e)));
            return HeapLoad.BAD_INPUT;
        } finally {
            DaemonClient.runningIn(null, null);
            out.flush();
            err.flush();
            routedOut.route(null);
            routedErr.route(null);
        }
    }

    /** Whether the parsed command line is one the daemon of store {@code dir} runs (see {@link #runForwarded}). */
    static boolean runsHere(CommandLine.ParseResult parsed, Path dir) {
        if (!parsed.matchedArgs().isEmpty() || parsed.isUsageHelpRequested() || parsed.isVersionHelpRequested()
            || !parsed.hasSubcommand()) {
            return false;
        }
        CommandLine.ParseResult leaf = parsed.subcommand();
        if (leaf.hasSubcommand() || leaf.isUsageHelpRequested() || leaf.isVersionHelpRequested()) {
            return false;
        }
        Object command = leaf.commandSpec().userObject();
        QueryOptions options;
        if (command instanceof QueryCommand q) {
            if (q.name != null && q.name.endsWith(".cypher") || "-".equals(q.statement)) {
                return false; // files and standard input are the client's
            }
            options = q.options;
        } else if (command instanceof CypherCommand c) {
            if ("-".equals(c.statement)) {
                return false;
            }
            options = c.options;
        } else if (command instanceof TrendCommand t) {
            return t.leak == null && !t.store.bolt.remote() && t.store.db != null
                && t.store.db.toAbsolutePath().normalize().equals(dir);
        } else {
            return false;
        }
        if (Boolean.FALSE.equals(options.daemon) || options.store.bolt.remote() || options.store.db == null) {
            return false;
        }
        return options.store.db.toAbsolutePath().normalize().equals(dir);
    }
}
