package dev.heapload.cli;

import java.nio.file.Path;
import java.time.Duration;

import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The store a reading command runs its saved queries on, and their timeout: {@code --db DIR} (default
 * {@code heapload-db}, or {@code $HEAPLOAD_DB}: {@link HeapLoad}'s environment defaults), the Bolt options
 * ({@link BoltOptions}: {@code --uri} and the rest, instead of {@code --db}) and {@code --timeout SECONDS} (default
 * 120, the transaction timeout of each query). A picocli mixin of {@link QueryOptions} ({@code heapload query},
 * {@code heapload cypher}) and {@link TrendCommand}.
 */
final class StoreOptions {

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
        description = "Stop a query after this many seconds (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db",
        description = "Store directory (default: ${DEFAULT-VALUE}; $HEAPLOAD_DB when set).")
    Path db;

    @CommandLine.Mixin
    BoltOptions bolt = new BoltOptions();

    /**
     * The timeout, after checking it and the Bolt options.
     *
     * @throws CommandLine.ParameterException (exit 2) when {@code --timeout} is not above 0 or the Bolt options are
     *                                        wrong ({@link BoltOptions#check})
     */
    Duration checked(CommandLine.Model.CommandSpec spec) {
        if (timeoutSeconds <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--timeout must be > 0");
        }
        bolt.check(spec);
        return Duration.ofSeconds(timeoutSeconds);
    }
}
