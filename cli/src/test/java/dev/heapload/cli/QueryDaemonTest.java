package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.daemon.DaemonProtocol;
import dev.heapload.daemon.QueryDaemon;
import dev.heapload.queries.QueryWatchdog;
import dev.heapload.store.embedded.GraphStore;
import dev.heapload.store.embedded.StoreInUseException;

/**
 * The per-store query daemon (issue 20 item 6, issue 16 item 5, issue 16 item 4's backstop): a query routed to it
 * prints byte for byte what the in-process run prints (rows, one-line errors, exit codes, {@code paths}); two queries
 * at once both finish with their exact rows; the "in use" message names it with its pid; a load while it runs asks it
 * to stop, commits, and the next daemon sees the new snapshot; it stops when idle; a query outliving its timeout plus
 * the grace sends its one line to the client and calls the halt action. The daemon runs on a thread of the test JVM
 * (its halt action recorded instead of halting), except in the last step, where {@code query --daemon} starts a real
 * daemon process.
 */
class QueryDaemonTest {

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    @Test
    void queriesOnTheDaemonAreTheInProcessRuns() throws Exception {
        Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"));
        Path cases = testdata.resolve("luau").resolve("event-listeners");
        Path db = tmp.resolve("db");
        Path abs = db.toAbsolutePath().normalize();
        String address = HeapLoadCommandTest.loadEventListenersPair(db);
        List<List<String>> queries = List.of(
            List.of("query", "leak-groups", "-p", "baseline=before", "-p", "target=after", "--format", "csv"),
            List.of("query", "why-alive", "-p", "snapshot=after", "-p", "address=" + address.toUpperCase()),
            List.of("query", "paths", "-p", "snapshot=after", "-p", "address=" + address, "--format", "json"),
            List.of("query", "referrers", "-p", "snapshot=after", "-p", "address=" + address, "--format", "csv"),
            List.of("query", "largest-retainers", "-p", "snapshot=before", "--limit", "3"),
            List.of("cypher", "MATCH (s:Snapshot) RETURN s.id AS id ORDER BY id"),
            List.of("query", "why-alive", "-p", "snapshot=nope", "-p", "address=0x1"),
            List.of("query", "paths", "-p", "snapshot=after", "-p", "address=0x1"),
            List.of("cypher", "CREATE (:X)"),
            List.of("cypher", "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l"));
        HeapLoadCommandTest.Run[] inProcess = new HeapLoadCommandTest.Run[queries.size()];
        for (int i = 0; i < queries.size(); i++) {
            inProcess[i] = run(queries.get(i), db, "--no-daemon");
        }
        assertEquals(Files.readString(testdata.resolve("golden").resolve("leak-groups.event-listeners.csv")),
            inProcess[0].out());
        assertEquals(1, inProcess[6].code());
        assertEquals(1, inProcess[8].code());

        QueryDaemon daemon = start(abs, Duration.ofMinutes(10), QueryWatchdog.GRACE, line -> { });
        long pid = ProcessHandle.current().pid();
        for (int i = 0; i < queries.size(); i++) {
            assertEquals(inProcess[i], run(queries.get(i), db, "--daemon"), "routed " + queries.get(i));
        }

        // two queries at once, on two snapshots' graphs: both finish, with their exact rows (called directly:
        // HeapLoad.run redirects System.out, so two of them cannot run at once in one JVM)
        CompletableFuture<String> a = CompletableFuture.supplyAsync(() -> direct("leak-groups", db, "csv", 0,
            "baseline", "before", "target", "after"));
        CompletableFuture<String> b = CompletableFuture.supplyAsync(() -> direct("largest-retainers", db, "table", 3,
            "snapshot", "before"));
        CompletableFuture<String> c = CompletableFuture.supplyAsync(() -> direct("referrers", db, "csv", 0,
            "snapshot", "after", "address", address));
        assertEquals(inProcess[0].out(), a.get(300, TimeUnit.SECONDS));
        assertEquals(inProcess[4].out(), b.get(300, TimeUnit.SECONDS));
        assertEquals(inProcess[3].out(), c.get(300, TimeUnit.SECONDS));

        // another process finds the store held by the daemon, named with its pid
        GraphStore.setDaemonStopper(null);
        StoreInUseException inUse = assertThrows(StoreInUseException.class, () -> GraphStore.open(db));
        assertEquals("store " + abs + " is in use by another heapload process (heapload daemon, pid " + pid + ")",
            inUse.getMessage());

        // a load asks the daemon to stop, commits; the next daemon sees the new snapshot
        HeapLoadCommandTest.Run third = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", "--name",
            "third", cases.resolve("after.json").toString());
        assertEquals(0, third.code(), third.err());
        assertTrue(daemon.awaitStopped(Duration.ofSeconds(60)));
        assertFalse(Files.exists(QueryDaemon.infoFile(abs)));
        QueryDaemon second = start(abs, Duration.ofMinutes(10), QueryWatchdog.GRACE, line -> { });
        HeapLoadCommandTest.Run ids = run(queries.get(5), db, "--daemon");
        assertEquals(0, ids.code(), ids.err());
        assertEquals(" id\n--------\n after\n before\n third\n(3 rows)\n", ids.out());

        assertTrue(DaemonClient.stop(abs));
        assertTrue(second.awaitStopped(Duration.ofSeconds(60)));

        // idle: a daemon without queries for its idle time stops and releases the store
        QueryDaemon idle = start(abs, Duration.ofSeconds(1), QueryWatchdog.GRACE, line -> { });
        assertTrue(idle.awaitStopped(Duration.ofSeconds(60)), log.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(QueryDaemon.infoFile(abs)));
        try (GraphStore store = GraphStore.open(db)) {
            // the serve backstop's list of running transactions: none but its own, which it leaves out
            assertEquals(List.of(), dev.heapload.queries.ServerTransactionBackstop.running(store.database("after")));
        }

        // the real thing: query --daemon starts a daemon process (with a Cypher query: the saved queries answered from
        // the stored models start none), which a later command asks to stop
        HeapLoadCommandTest.Run started = run(queries.get(5), db, "--daemon");
        assertEquals(ids.out(), started.out());
        assertTrue(started.err().startsWith("heapload: starting the query daemon of store " + abs), started.err());
        long child = DaemonClient.running(abs).orElseThrow().pid();
        assertTrue(child != pid);
        assertEquals(inProcess[2], run(queries.get(2), db, "--daemon"));
        HeapLoadCommandTest.Run list = HeapLoadCommandTest.run("snapshots", "--db", db.toString());
        assertEquals(0, list.code(), list.err());
        // the snapshots command got the store: the daemon process had stopped
        ProcessHandle.of(child).ifPresent(p -> p.onExit().orTimeout(60, TimeUnit.SECONDS).join());
        assertTrue(DaemonClient.running(abs).isEmpty());

        // the halt backstop: a query still running its grace (here 0 s) after its timeout sends the watchdog's line
        // to its client and calls the halt action (the real daemon halts the JVM: exit 1)
        List<String> halts = new CopyOnWriteArrayList<>();
        QueryDaemon halting = start(abs, Duration.ofMinutes(10), Duration.ZERO, halts::add);
        HeapLoadCommandTest.Run spin = run(List.of("cypher", "RETURN size([x IN range(1, 40000000000) WHERE x < 0]) "
            + "AS n", "--timeout", "1"), db, "--daemon");
        assertEquals(1, spin.code(), spin.err());
        String haltLine = "query 'ad-hoc' did not stop within 0 s after its timeout of 1 s (CPU- or GC-bound); exiting";
        // the watchdog's line (it fired and halted), or the timeout's when Neo4j's own transaction timeout ended the
        // query first (the deterministic halt path: QueryWatchdogUnitTest, ServerTransactionBackstopTest)
        if (spin.err().equals("heapload: " + haltLine + "\n")) {
            // the line goes to the client first, then to the halt action
            for (int i = 0; i < 500 && halts.isEmpty(); i++) {
                Thread.sleep(20);
            }
            assertEquals(List.of(haltLine), List.copyOf(halts));
        } else {
            assertEquals("heapload: query 'ad-hoc' stopped after the transaction timeout of 1 s (raise it with "
                + "--timeout)\n", spin.err());
        }
        // the spinning query ignores termination: this daemon cannot stop until it halts (the test JVM ends)
        halting.stop();
    }

    /** Runs saved query {@code name} on the daemon through {@link DaemonClient} and renders it as the command does. */
    private static String direct(String name, Path db, String format, long limit, String... params) {
        try {
            dev.heapload.queries.SavedQuery q = dev.heapload.queries.QueryLibrary.builtIn().resolve(name);
            java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
            for (int i = 0; i < params.length; i += 2) {
                values.put(params[i], params[i + 1]);
            }
            dev.heapload.queries.QueryResult r = DaemonClient.query(db, q, dev.heapload.queries.QueryRunner.bind(q,
                values), limit, Duration.ofSeconds(120)).orElseThrow();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            dev.heapload.queries.ResultWriter.write(r, dev.heapload.queries.ResultWriter.Format.of(format), false, out);
            return out.toString(StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static HeapLoadCommandTest.Run run(List<String> args, Path db, String daemon) {
        String[] all = new String[args.size() + 3];
        for (int i = 0; i < args.size(); i++) {
            all[i] = args.get(i);
        }
        all[args.size()] = "--db";
        all[args.size() + 1] = db.toString();
        all[args.size() + 2] = daemon;
        return HeapLoadCommandTest.run(all);
    }

    /** Starts an in-process daemon on a thread and waits until it accepts connections. */
    private QueryDaemon start(Path abs, Duration idle, Duration grace, java.util.function.Consumer<String> halt)
        throws Exception {
        return startOnThread(abs, idle, grace, halt, log, d -> { });
    }

    /**
     * Starts an in-process daemon of store {@code abs} on a daemon thread ({@code before} runs first, e.g. to let it
     * run forwarded commands) and waits until it accepts connections; its log and any failure go to {@code log}.
     */
    static QueryDaemon startOnThread(Path abs, Duration idle, Duration grace, java.util.function.Consumer<String> halt,
                                     ByteArrayOutputStream log, java.util.function.Consumer<QueryDaemon> before)
        throws Exception {
        QueryDaemon daemon = new QueryDaemon(abs, idle, grace, halt, new PrintStream(log, true, StandardCharsets.UTF_8),
            HeapLoad::oneLine);
        before.accept(daemon);
        Thread t = new Thread(() -> {
            try {
                daemon.run();
            } catch (Exception e) {
                e.printStackTrace(new PrintStream(log, true, StandardCharsets.UTF_8));
            }
        }, "test-daemon");
        t.setDaemon(true);
        t.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (DaemonClient.running(abs).isEmpty()) {
            assertTrue(System.nanoTime() < deadline && t.isAlive(), log.toString(StandardCharsets.UTF_8));
            Thread.sleep(20);
        }
        return daemon;
    }
}
