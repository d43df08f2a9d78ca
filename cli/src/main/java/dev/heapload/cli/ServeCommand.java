package dev.heapload.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.neo4j.graphdb.GraphDatabaseService;

import dev.heapload.browser.BrowserSetup;
import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.QueryRunner;
import dev.heapload.queries.SavedQuery;
import dev.heapload.queries.QueryWatchdog;
import dev.heapload.queries.ServerTransactionBackstop;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.embedded.PortInUseException;
import dev.heapload.store.SnapshotSummary;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code heapload serve}: opens a store and serves its graph over Bolt and HTTP on 127.0.0.1, with Neo4j Browser
 * on {@code http://localhost:HTTP-PORT/browser/}, until Ctrl-C (or SIGTERM), which shuts Neo4j down and releases
 * the store. The graph is read-only, without LOAD CSV or dbms.* configuration procedures; authentication is on
 * with a random password per serve (user neo4j; printed once and kept in the store's 0600 serve.password file while
 * serving), off with {@code --no-auth}; the server listens on the loopback address only. The store stays locked
 * while serving, so a concurrent load into the same store fails with "in use by another heapload process".
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Serves the store's graph on 127.0.0.1 (Neo4j Browser, Bolt, HTTP) until Ctrl-C.",
        "Neo4j Browser on http://localhost:7474/browser/, Bolt on bolt://localhost:7687 for",
        "cypher-shell and drivers. Listens on 127.0.0.1 only; read-only; user neo4j with a",
        "random password per serve (printed, and in DIR/serve.password), unless --no-auth.",
        "",
        "Example: heapload serve --db heapload-db"})
final class ServeCommand implements Callable<Integer> {

    /** Printed once Bolt, HTTP and Browser accept connections; tests wait for this line. */
    static final String READY = "Press Ctrl-C to stop.";

    @Option(names = "--db", paramLabel = "DIR", defaultValue = "heapload-db",
        description = "Store directory (default: ${DEFAULT-VALUE}).")
    Path db;

    @Option(names = "--bolt-port", paramLabel = "PORT", defaultValue = "7687",
        description = "Bolt port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
    int boltPort;

    @Option(names = "--http-port", paramLabel = "PORT", defaultValue = "7474",
        description = "HTTP port on 127.0.0.1, for Neo4j Browser (default: ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120",
        description = "Stop any transaction (Browser, Bolt, HTTP) after this many seconds (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Option(names = "--no-auth",
        description = "Serve without authentication (any local user or program can read the graph).")
    boolean noAuth;

    /** Only to refuse it with a clear usage error: serve runs its own server on the embedded store. */
    @Option(names = "--uri", hidden = true, paramLabel = "URI")
    String uri;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (uri != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "serve does not take --uri: it serves the "
                + "embedded store (--db); open Neo4j Browser on your server directly");
        }
        for (int port : new int[] {boltPort, httpPort}) {
            if (port < 1 || port > 65535) {
                throw new CommandLine.ParameterException(spec.commandLine(), "port " + port + " is not in 1..65535");
            }
        }
        if (timeoutSeconds <= 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--timeout must be > 0");
        }
        if (boltPort == httpPort) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "--bolt-port and --http-port must differ (both " + boltPort + ")");
        }
        Path dir = db.toAbsolutePath().normalize();
        if (!dev.heapload.store.StoreDirectory.isStore(dir)) {
            throw new IOException("no heapload store at " + dir + "; load a dump first: heapload --db " + db + " FILE");
        }
        PrintStream out = Streams.out(spec);
        GraphStore store = GraphStore.open(dir);
        StopSignal signal = null;
        ServerTransactionBackstop backstop = null;
        try {
            List<SnapshotSummary> snapshots = store.snapshots();
            if (snapshots.isEmpty()) {
                throw new IOException("store " + dir + " holds no snapshots; load a dump first: heapload --db " + db + " FILE");
            }
            signal = new StopSignal(); // before Neo4j starts: Ctrl-C during the start also closes the store cleanly
            out.println("Starting Neo4j on store " + dir + " ...");
            out.flush();
            GraphDatabaseService database;
            String password;
            try {
                password = noAuth ? null : newPassword();
                Path webDir = dir.resolve("logs").resolve("browser");
                BrowserSetup.writeBrowserArchive(webDir);
                Map<String, String> settings = new LinkedHashMap<>(BrowserSetup.neo4jSettings(httpPort, webDir));
                // the watchdog of heapload query, on the server's side: every Bolt and HTTP transaction ends at
                // the timeout (the memory limit per transaction, db.memory.transaction.max, is set for every DBMS
                // the store starts)
                settings.put("db.transaction.timeout", timeoutSeconds + "s");
                database = store.serve(boltPort, httpPort, password, settings);
            } catch (PortInUseException e) {
                String option = e.port() == boltPort ? "--bolt-port" : e.port() == httpPort ? "--http-port"
                    : "--bolt-port or --http-port";
                throw new IOException(e.getMessage() + "; is Neo4j or another heapload serve running? choose another with "
                    + option, e);
            }
            // the watchdog of heapload query, on the server's side: a transaction the timeout did not stop (CPU- or
            // GC-bound) ends the server 10 s later
            backstop = ServerTransactionBackstop.start(database, java.time.Duration.ofSeconds(timeoutSeconds),
                QueryWatchdog.EXIT);
            if (!signal.requested()) {
                BrowserSetup.install(database, dir, snapshots, QueryLibrary.builtIn().queries(), httpPort, boltPort,
                    password != null);
                printWelcome(out, dir, snapshots, password);
                out.flush();
                Planner.planSavedQueries(database, out);
            }
            if (signal.await()) {
                out.println("Stopping Neo4j ...");
            }
            backstop.close();
            store.close();
            out.println("Stopped; store released.");
            out.flush();
        } finally {
            if (backstop != null) {
                backstop.close();
            }
            BrowserSetup.uninstall();
            try {
                store.close();
            } finally {
                if (signal != null) {
                    signal.done();
                }
            }
        }
        return 0;
    }

    /**
     * The serve's planning of saved queries, in a class of its own: picocli reads the command class's methods, and a
     * method taking a Neo4j type there would load Neo4j's classes for every command line, {@code --help} included.
     */
    static final class Planner {
        private Planner() {
        }

        /**
         * Plans every saved query on a daemon thread ({@link QueryRunner#plan}), so the first saved queries over Bolt
         * and the first statements in Browser do not wait for the Cypher planner's one-time warm-up (measured on the
         * 2.4M-object pair: a saved query's first run in a fresh JVM 1.3–3.7 s, planned 0.01–0.02 s). Prints one line
         * when done; stops quietly when the server stops first.
         */
        static void planSavedQueries(GraphDatabaseService database, PrintStream out) {
            Thread planner = new Thread(() -> {
                long start = System.nanoTime();
                int planned = 0;
                try {
                    for (SavedQuery q : QueryLibrary.builtIn().queries()) {
                        QueryRunner.plan(database, q);
                        planned++;
                    }
                } catch (Exception | LinkageError e) {
                    return; // the server is stopping (or a query does not plan: running it says why)
                }
                synchronized (out) {
                    out.printf(Locale.ROOT, "(planned the %d saved queries in %.1f s: their first runs skip the planner)%n",
                        planned, (System.nanoTime() - start) / 1e9);
                    out.flush();
                }
            }, "heapload-serve-planner");
            planner.setDaemon(true);
            planner.start();
        }
    }

    /** A fresh random password for one serve: 24 bytes of {@link SecureRandom}, base64url (32 characters). */
    static String newPassword() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private void printWelcome(PrintStream out, Path dir, List<SnapshotSummary> snapshots, String password) {
        String bolt = "bolt://localhost:" + boltPort;
        out.println("Serving " + dir + ": " + snapshots.stream()
            .map(s -> String.format(Locale.ROOT, "%s (%,d objects)", s.id(), s.objectCount()))
            .collect(Collectors.joining(", ")));
        out.println();
        if (password == null) {
            out.println("  Neo4j Browser  " + BrowserSetup.openUrl(httpPort, null));
            out.println("                 (connects by itself; else connect URL " + bolt + ", authentication \"No authentication\")");
            out.println("  Bolt           " + bolt + "   (cypher-shell -a " + bolt + ", or any Neo4j 5 driver)");
        } else {
            out.println("  Neo4j Browser  " + BrowserSetup.openUrl(httpPort, password));
            out.println("                 (opens Browser logged in: this address holds the password made for this serve)");
            out.println("  Bolt           " + bolt + "   (cypher-shell -a " + bolt + " -u neo4j -p \"$(cat "
                + dir.resolve(dev.heapload.store.StoreDirectory.SERVE_PASSWORD) + ")\")");
            out.println("  Password       in " + dir.resolve(dev.heapload.store.StoreDirectory.SERVE_PASSWORD)
                + " (user neo4j; readable by you only, deleted when serve stops)");
        }
        out.println("  HTTP API       http://localhost:" + httpPort + "/db/neo4j/tx/commit");
        out.println();
        if (password == null) {
            out.println("WARNING: authentication is disabled (--no-auth): the server listens on 127.0.0.1 only, but every");
            out.println("local user and program, and any web page open in a browser here, can read the graph while it runs");
            out.println("(it is read-only; LOAD CSV is off).");
        } else {
            out.println("The server listens on 127.0.0.1 only and asks for the password; the graph is read-only;");
            out.println("LOAD CSV and the dbms.* configuration procedures are off.");
        }
        out.println();
        out.println("Starter queries:");
        for (String line : starterQueries(snapshots.get(snapshots.size() - 1).id())) {
            out.println(line.isEmpty() ? "" : "  " + line);
        }
        out.println();
        out.println(READY);
    }

    /** Starter queries for snapshot {@code id}: two example queries of the schema doc and a graph. */
    static List<String> starterQueries(String id) {
        String s = "'" + id.replace("\\", "\\\\").replace("'", "\\'") + "'";
        return List.of(
            "// bytes and counts by type",
            "MATCH (o:Object {snapshot: " + s + "})",
            "RETURN o.type AS type, count(*) AS objects, sum(o.size) AS bytes ORDER BY bytes DESC",
            "",
            "// the ten largest retainers, each with its retention path back to its root",
            "MATCH (:Snapshot {id: " + s + "})-[t:TOP_RETAINER]->(o) WHERE t.rank <= 10",
            "MATCH p = (r)-[:REF*0.. {retention: true}]->(o) WHERE r.rootName IS NOT NULL",
            "RETURN o.type, o.address, o.retainedSize,",
            "       r.rootName, [rel IN relationships(p) | coalesce(rel.name, rel.kind)] AS pathFromRoot",
            "",
            "// the snapshot's objects as a picture: its roots and what they reference directly",
            "MATCH p = (:Snapshot {id: " + s + "})-[:ROOT]->()-[:REF]->() RETURN p LIMIT 50");
    }

    /**
     * Ctrl-C (SIGINT) and SIGTERM make the JVM run its shutdown hooks and then halt. This hook only tells the
     * command thread to stop and waits (at most a minute) until that thread has closed the store, so Neo4j shuts
     * down cleanly and the store lock is released before the JVM halts; the store is used from one thread only.
     */
    private static final class StopSignal {
        private final CountDownLatch stop = new CountDownLatch(1);
        private final CountDownLatch stopped = new CountDownLatch(1);
        private final Thread hook = new Thread(this::stopAndWait, "heapload-serve-shutdown");

        StopSignal() {
            Runtime.getRuntime().addShutdownHook(hook);
        }

        private void stopAndWait() {
            stop.countDown();
            try {
                stopped.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** True once Ctrl-C or SIGTERM arrived. */
        boolean requested() {
            return stop.getCount() == 0;
        }

        /** Waits for Ctrl-C or SIGTERM; false when this thread was interrupted instead. */
        boolean await() {
            try {
                stop.await();
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** The store is closed: lets a running hook return, or removes the hook when the JVM is not stopping. */
        void done() {
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running and returns now
            }
        }
    }
}
