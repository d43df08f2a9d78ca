package dev.heapload.cli;

import java.nio.file.Files;
import java.nio.file.Path;

import picocli.CommandLine;

/** Checks on the files and the store directory a command will write, made before it spends time reading dumps. */
final class OutputFiles {

    private OutputFiles() {
    }

    /**
     * Refuses {@code file} (given with {@code option}) when the directory it would be written in does not exist;
     * {@code null} and {@code "-"} (standard output) pass.
     *
     * @throws CommandLine.ParameterException a usage error (exit 2), one line naming the option and the directory
     */
    static void requireDirectoryOf(CommandLine cl, String option, String file) {
        if (file == null || file.equals("-")) {
            return;
        }
        Path parent = Path.of(file).toAbsolutePath().normalize().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new CommandLine.ParameterException(cl, option + " " + file + ": no directory " + parent);
        }
    }

    /**
     * Refuses a {@code --db} that exists but is not a directory (before the command reads or loads anything).
     *
     * @throws java.io.IOException one line naming the path (exit 1)
     */
    static void requireStoreDirectory(Path db) throws java.io.IOException {
        if (Files.exists(db) && !Files.isDirectory(db)) {
            throw new java.io.IOException(db + " is not a directory (give the store directory with --db)");
        }
    }

    /**
     * Refuses a {@code --db} that is not a store for commands that only read one: a file (as
     * {@link #requireStoreDirectory}), a missing directory, or a directory without a store catalog (an empty one
     * included: reading must not create a store there).
     *
     * @throws java.io.IOException one line naming the path (exit 1)
     */
    /** What follows "no store at DIR": how to name another store, or make one. */
    static final String NO_STORE_HINT = " (name the store with --db DIR or HEAPLOAD_DB; or load a dump first: heapload FILE)";

    static void requireStore(Path db) throws java.io.IOException {
        requireStoreDirectory(db);
        if (!dev.heapload.store.StoreDirectory.isStore(db)) {
            throw new java.io.IOException("no store at " + db.toAbsolutePath().normalize() + NO_STORE_HINT);
        }
    }
}
