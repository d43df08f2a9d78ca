package dev.heapload.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

import dev.heapload.store.bolt.RemoteGraphStore;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options that point a command at a Neo4j server over Bolt instead of the embedded store ({@code --db}):
 * {@code --uri}, {@code --user}, {@code --password-file}, {@code --database}. The password comes only from the
 * environment variable {@code NEO4J_PASSWORD} or the first line of {@code --password-file}; {@code --password} is
 * recognised only to refuse it with a usage error (a password on the command line is visible to every user of the
 * machine in the process list).
 */
final class BoltOptions {

    /** The environment; package-private so tests can replace it. */
    static Map<String, String> environment = System.getenv();

    @Option(names = "--uri", paramLabel = "URI",
        description = "Use the Neo4j server at this bolt:// or neo4j:// URI instead of the embedded store (--db) "
            + "(default: $NEO4J_URI when set, unless --db is given).")
    String uri;

    @Option(names = "--user", paramLabel = "NAME",
        description = "User name for --uri (default: $NEO4J_USERNAME, else neo4j).")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE",
        description = "File whose first line is the password for --uri (default: $NEO4J_PASSWORD; never on the command line).")
    Path passwordFile;

    @Option(names = "--database", paramLabel = "NAME",
        description = "Database on the server (default: $NEO4J_DATABASE, else the server's default database).")
    String database;

    /** Only to refuse it: see the class comment. */
    @Option(names = "--password", hidden = true, arity = "0..1", fallbackValue = "")
    String password;

    /** True when {@code --uri} was given. */
    boolean remote() {
        return uri != null;
    }

    /**
     * Rejects a password on the command line, Bolt options without {@code --uri}, {@code --db} with {@code --uri} and
     * a URI of another scheme (usage errors, exit 2).
     */
    void check(CommandLine.Model.CommandSpec spec) {
        CommandLine cl = spec.commandLine();
        CommandLine.ParseResult parsed = cl.getParseResult();
        // NEO4J_URI and NEO4J_DATABASE are defaults (HeapLoad.environmentDefaults): a --db on the command line wins
        // over the environment's server, and a database name without a server means nothing
        if (parsed != null && uri != null && !HeapLoad.given(cl, "--uri") && HeapLoad.given(cl, "--db")) {
            uri = null;
        }
        if (parsed != null && uri == null && database != null && !HeapLoad.given(cl, "--database")) {
            database = null;
        }
        if (password != null) {
            throw new CommandLine.ParameterException(cl, "--password is not accepted: a password on the command line is "
                + "visible to other users; set NEO4J_PASSWORD or use --password-file FILE");
        }
        if (uri == null) {
            if (user != null || passwordFile != null || database != null) {
                throw new CommandLine.ParameterException(cl, "--user, --password-file and --database need --uri");
            }
            return;
        }
        if (cl.getParseResult() != null && HeapLoad.given(cl, "--db")) {
            throw new CommandLine.ParameterException(cl, "--db and --uri exclude each other (the store is either a "
                + "directory or a Neo4j server)");
        }
        String scheme = uri.contains("://") ? uri.substring(0, uri.indexOf("://")) : "";
        if (!scheme.matches("(bolt|neo4j)(\\+s|\\+ssc)?")) {
            throw new CommandLine.ParameterException(cl, "--uri must start with bolt:// or neo4j:// (or bolt+s://, "
                + "neo4j+s://, ...), not '" + uri + "'");
        }
        if (database != null && !database.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new CommandLine.ParameterException(cl, "--database must be a database name (letters, digits, . _ -)");
        }
    }

    /**
     * The store the command reads: the server of {@code --uri}, else the store directory {@code db} (which must hold a
     * store; opened without Neo4j). While another process holds the directory for a query, waits for it at most
     * {@code wait} (one line on {@code err}).
     *
     * @throws IOException one line: no store, in use, unreachable server (as {@link #connect})
     */
    dev.heapload.store.SnapshotStore open(java.nio.file.Path db, java.io.PrintStream err, java.time.Duration wait)
        throws IOException {
        if (remote()) {
            return connect(err);
        }
        OutputFiles.requireStore(db);
        return dev.heapload.store.StoreDirectory.openWaiting(db, wait, inUse -> err.println("heapload: "
            + dev.heapload.queries.SafeText.visible(inUse) + "; waiting for it to finish"));
    }

    /**
     * Connects to {@code --uri} with the user and password described in the class comment.
     *
     * @param err where one-line notices go (a pair compared on first request)
     * @throws IOException (one line naming the URI) when the password file cannot be read, the server is
     *                     unreachable or refuses the login
     */
    RemoteGraphStore connect(java.io.PrintStream err) throws IOException {
        String name = user != null ? user : environment.getOrDefault("NEO4J_USERNAME", "neo4j");
        String secret = environment.get("NEO4J_PASSWORD");
        if (passwordFile != null) {
            String text;
            try {
                text = Files.readString(passwordFile, StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw new IOException("--password-file " + passwordFile + ": no such file");
            } catch (IOException e) {
                throw new IOException("--password-file " + passwordFile + ": cannot read it (" + e.getMessage() + ")");
            }
            int nl = text.indexOf('\n');
            secret = (nl >= 0 ? text.substring(0, nl) : text).replaceFirst("\r$", "");
        }
        // a comparison on first request over --uri says so in one line, as the embedded store's does
        RemoteGraphStore.setNotices(line -> err.println("heapload: " + dev.heapload.queries.SafeText.visible(line)));
        return RemoteGraphStore.connect(uri, name, secret, database);
    }
}
