package dev.heapload.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
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
        GraphStore.setDaemonStopper(null); // a daemon never stops another: the store is simply in use
        Path dir = db.toAbsolutePath().normalize();
        if (!GraphStore.isStore(dir)) {
            throw new IOException("no heapload store at " + dir + "; load a dump first: heapload --db " + db + " FILE");
        }
        QueryDaemon daemon = new QueryDaemon(dir, Duration.ofSeconds(idleSeconds), QueryWatchdog.GRACE,
            line -> Runtime.getRuntime().halt(1), System.err, HeapLoad::oneLine);
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
}
