package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.daemon.QueryDaemon;
import dev.heapload.queries.QueryWatchdog;

/**
 * The thin client: a command line forwarded to the store's running query daemon
 * ({@link ForwardingMain#forward}, run there by {@link DaemonCommand#runForwarded}) prints byte for byte what the
 * in-process run prints, with its exit code: saved queries on both snapshots, {@code paths}, ad-hoc Cypher,
 * {@code trend}, one-line errors; a relative {@code --db} resolves in the client's directory. What the daemon does not
 * run (other commands, usage errors, {@code --no-daemon}, a store without a daemon) is not forwarded and prints
 * nothing. The daemon runs on a thread of the test JVM. Before it starts: a store keeping two graphs started switches
 * between the pair's snapshots without starting either again.
 */
class ForwardedCommandTest {

    @TempDir
    Path tmp;

    @Test
    void forwardedCommandsPrintWhatTheInProcessRunPrints() throws Exception {
        Path db = tmp.resolve("db");
        Path abs = db.toAbsolutePath().normalize();
        String address = HeapLoadCommandTest.loadEventListenersPair(db);
        List<List<String>> commands = List.of(
            List.of("query", "leak-groups", "-p", "baseline=before", "-p", "target=after", "--format", "csv"),
            List.of("query", "why-alive", "-p", "snapshot=after", "-p", "address=" + address.toUpperCase()),
            List.of("query", "largest-retainers", "-p", "snapshot=before", "--limit", "3"),
            List.of("query", "paths", "-p", "snapshot=after", "-p", "address=" + address, "--format", "json"),
            List.of("query", "referrers", "-p", "snapshot=after", "-p", "address=" + address, "--format", "csv"),
            List.of("cypher", "MATCH (s:Snapshot) RETURN s.id AS id ORDER BY id"),
            List.of("trend"),
            List.of("trend", "--by-category", "--format", "csv"),
            List.of("query", "why-alive", "-p", "snapshot=nope", "-p", "address=0x1"),
            List.of("cypher", "CREATE (:X)"));
        List<HeapLoadCommandTest.Run> inProcess = new ArrayList<>();
        for (List<String> c : commands) {
            List<String> args = new ArrayList<>(c);
            args.addAll(List.of("--db", db.toString()));
            if (!c.get(0).equals("trend")) {
                args.add("--no-daemon");
            }
            inProcess.add(HeapLoadCommandTest.run(args.toArray(String[]::new)));
        }
        assertEquals(0, inProcess.get(6).code(), inProcess.get(6).err());
        assertEquals(1, inProcess.get(8).code());
        assertEquals(1, inProcess.get(9).code());

        // the daemon's store keeps both graphs of the pair started (GraphStore.keepGraphs): switching back finds the
        // same started database; with one kept (every other command) it is started again
        try (dev.heapload.store.embedded.GraphStore store = dev.heapload.store.embedded.GraphStore.open(db)) {
            store.keepGraphs(2);
            var before = store.database("before");
            var after = store.database("after");
            assertSame(before, store.database("before"));
            assertSame(after, store.database("after"));
            store.keepGraphs(1);
            store.database("before");
            assertNotSame(after, store.database("after"));
        }

        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> halts = new CopyOnWriteArrayList<>();
        QueryDaemon daemon = QueryDaemonTest.startOnThread(abs, Duration.ofMinutes(10), QueryWatchdog.GRACE, halts::add,
            log, d -> DaemonCommand.runsCommands(d, abs));
        try {
            for (int i = 0; i < commands.size(); i++) {
                List<String> args = new ArrayList<>(commands.get(i));
                args.addAll(List.of("--db", "db")); // relative: the client's directory
                assertEquals(inProcess.get(i), forward(args), "forwarded " + commands.get(i));
            }
            // HEAPLOAD_DB names the store as well
            assertEquals(inProcess.get(5), forward(commands.get(5), Map.of("HEAPLOAD_DB", abs.toString())));

            // usage errors the command finds (a query's name or parameter): the same lines, exit 2
            for (List<String> c : List.of(List.of("query", "leak-group"), List.of("query", "summary", "-p", "nope=1"))) {
                List<String> args = new ArrayList<>(c);
                args.addAll(List.of("--db", db.toString(), "--no-daemon"));
                HeapLoadCommandTest.Run expected = HeapLoadCommandTest.run(args.toArray(String[]::new));
                assertEquals(2, expected.code());
                args = new ArrayList<>(c);
                args.addAll(List.of("--db", "db"));
                assertEquals(expected, forward(args), "forwarded " + c);
            }

            // not forwarded, nothing printed: other commands, what picocli refuses (the client prints it),
            // --no-daemon, the daemon turned off, a store without a daemon
            assertNull(forward(List.of("snapshots", "--db", "db")));
            assertNull(forward(List.of("query", "summary", "--nope", "--db", "db")));
            assertNull(forward(List.of("query", "summary", "--db", "db", "--no-daemon")));
            assertNull(forward(List.of("query", "summary", "--db", "db"), Map.of("HEAPLOAD_DAEMON", "off")));
            assertNull(forward(List.of("trend", "--leak", "0123456789abcdef", "--db", "db")));
            assertNull(forward(List.of("query", "summary", "--db", "other")));
        } finally {
            daemon.stop();
            daemon.awaitStopped(Duration.ofSeconds(60));
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
        assertEquals(List.of(), halts);
    }

    private HeapLoadCommandTest.Run forward(List<String> args) {
        return forward(args, Map.of());
    }

    /** The forwarded run, or null when it was not forwarded (then it printed nothing). */
    private HeapLoadCommandTest.Run forward(List<String> args, Map<String, String> env) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ForwardingMain.forward(args.toArray(String[]::new), tmp.toAbsolutePath(), env, "UTF-8", "UTF-8",
            out, new PrintStream(err, true, StandardCharsets.UTF_8));
        if (code == ForwardingMain.NOT_FORWARDED) {
            assertEquals(0, out.size() + err.size());
            return null;
        }
        return new HeapLoadCommandTest.Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
