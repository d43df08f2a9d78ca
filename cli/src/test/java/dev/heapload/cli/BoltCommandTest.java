package dev.heapload.cli;

import static dev.heapload.cli.HeapLoadCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/** The commands with {@code --uri}: against an in-process Neo4j server, and the usage and connection errors. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("server")
class BoltCommandTest {

    @TempDir
    static Path tmp;

    private Neo4j server;
    private String uri;
    private Path caseDir;

    @BeforeAll
    void start() {
        server = Neo4jBuilders.newInProcessBuilder()
            .withDisabledServer()
            .withConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ZERO)
            .withConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ZERO)
            .build();
        uri = server.boltURI().toString();
        caseDir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
    }

    @AfterAll
    void stop() {
        BoltOptions.environment = System.getenv();
        server.close();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }

    @Test
    void twoFilesOverBoltPrintTheLeakAnswerAndTheQueriesAndListingWork() throws Exception {
        Path password = tmp.resolve("password");
        Files.writeString(password, "not-checked\n", StandardCharsets.UTF_8);
        BoltOptions.environment = Map.of("NEO4J_USERNAME", "someone");
        Run load = run("--uri", uri, "--password-file", password.toString(),
            caseDir.resolve("before.json").toString(), caseDir.resolve("after.json").toString());
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("  store: " + uri + "\n"), load.out());
        // the event-listeners leak (case README): 186 new objects, 22,099 bytes; the ThemeChanged handlers group first
        assertTrue(load.out().contains("leaks: after relative to before: 186 new reachable objects, 22,099 bytes, in 3 leak group(s)"),
            load.out());
        assertTrue(load.out().contains("  group 1: 152 objects, 19,608 new bytes, 19,608 retained bytes, 16 table head(s), path:\n"
            + "      root registry (table)\n      _MODULES in table\n      EventBus in table\n      ThemeChanged in table\n"
            + "      handlers in table\n      [array] in table\n"), load.out());
        assertTrue(load.out().contains("  heapload query leak-groups -p baseline=before -p target=after --uri " + uri + "\n"),
            load.out());

        Run again = run("--uri", uri, caseDir.resolve("after.json").toString());
        assertEquals(1, again.code());
        assertEquals("heapload: snapshot 'after' is already in the store; add --replace to overwrite it, or --name ID to "
            + "load it under another id\n", again.err());

        Run query = run("query", "type-histogram", "-p", "snapshot=after", "--format", "csv", "--uri", uri);
        assertEquals(0, query.code(), query.err());
        assertEquals(Files.readString(Path.of(System.getProperty("heapload.testdata", "../testdata"), "golden",
            "type-histogram.event-listeners.csv")), query.out());

        // heapload report over Bolt: the same groups and fingerprints as on the embedded store, no icicle graph
        Path reportDir = tmp.resolve("bolt-report");
        Run report = run("report", "--uri", uri, "--baseline-id", "before", "--target-id", "after", "--out",
            reportDir.toString(), "--format", "json,html", "--fail-on", "leak-groups>0");
        assertEquals(ReportCommand.GATE_FAILED, report.code(), report.err());
        String json = Files.readString(reportDir.resolve("report.json"));
        assertTrue(json.contains("\"fingerprint\" : \"" + ReportCommandTest.THEME + "\""), json);
        assertTrue(json.contains("\"newRetainedBytes\" : 22011"), json);
        assertTrue(Files.readString(reportDir.resolve("report.html")).contains("the icicle graph needs the heap models"));
        assertEquals(2, run("report", "--uri", uri, caseDir.resolve("before.json").toString(),
            caseDir.resolve("after.json").toString()).code(), "dump files with --uri: usage error");

        Run list = run("snapshots", "--uri", uri);
        assertEquals(0, list.code(), list.err());
        List<String> lines = list.out().lines().toList();
        assertEquals(4, lines.size(), list.out());
        // one load: both snapshots may have the same loadedAt, and ties are listed by id
        List<String> rows = lines.subList(2, 4).stream().sorted().toList();
        assertTrue(rows.get(0).matches(" after +\\| luau \\| +871 \\| +2,016 \\| +102,286 \\| .*after\\.json"), rows.get(0));
        assertTrue(rows.get(1).matches(" before \\| luau \\| +685 \\| +1,200 \\| +78,315 \\| .*before\\.json"), rows.get(1));

        Run delete = run("snapshots", "--uri", uri, "--delete", "before");
        assertEquals(0, delete.code(), delete.err());
        assertTrue(delete.out().startsWith("deleted snapshot before\n"), delete.out());
        List<String> left = delete.out().lines().toList();
        assertEquals(4, left.size(), delete.out());
        assertTrue(left.get(3).startsWith(" after "), delete.out());
        Run gone = run("query", "summary", "-p", "snapshot=before", "--uri", uri);
        assertEquals(1, gone.code());
        assertEquals("heapload: no snapshot 'before' in the store (heapload snapshots lists them)\n", gone.err());
    }

    @Test
    void aPasswordOnTheCommandLineIsRefused() {
        for (String[] args : List.of(
            new String[] {"--uri", "bolt://127.0.0.1:7687", "--password", "s3cret", "x.json"},
            new String[] {"snapshots", "--uri", "bolt://127.0.0.1:7687", "--password=s3cret"},
            new String[] {"query", "summary", "-p", "snapshot=a", "--uri", "bolt://127.0.0.1:7687", "--password", "s3cret"})) {
            Run r = run(args);
            assertEquals(2, r.code(), String.join(" ", args));
            assertTrue(r.err().startsWith("heapload: --password is not accepted: a password on the command line is visible "
                + "to other users; set NEO4J_PASSWORD or use --password-file FILE\n"), r.err());
            assertFalse(r.err().contains("s3cret"), r.err());
        }
    }

    @Test
    void anUnreachableServerIsOneLineAndExitOne() throws Exception {
        String dead = "bolt://127.0.0.1:" + freePort();
        String expected = "heapload: cannot reach Neo4j at " + dead + ": ";
        // the load connects before it reads the (missing) file
        for (String[] args : List.of(new String[] {"--uri", dead, tmp.resolve("missing.json").toString()},
            new String[] {"snapshots", "--uri", dead},
            new String[] {"query", "summary", "-p", "snapshot=a", "--uri", dead})) {
            Run r = run(args);
            assertEquals(1, r.code(), r.err());
            assertTrue(r.err().startsWith(expected), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertEquals("", r.out());
        }
    }

    @Test
    void boltOptionsInTheWrongPlaceAreUsageErrors() {
        Run serve = run("serve", "--uri", uri);
        assertEquals(2, serve.code());
        assertTrue(serve.err().startsWith("heapload: serve does not take --uri"), serve.err());
        Run user = run("snapshots", "--user", "neo4j");
        assertEquals(2, user.code());
        assertTrue(user.err().startsWith("heapload: --user, --password-file and --database need --uri\n"), user.err());
        Run both = run("snapshots", "--uri", uri, "--db", tmp.resolve("db").toString());
        assertEquals(2, both.code());
        assertTrue(both.err().startsWith("heapload: --db and --uri exclude each other"), both.err());
        Run scheme = run("snapshots", "--uri", "http://127.0.0.1:7474");
        assertEquals(2, scheme.code());
        assertTrue(scheme.err().startsWith("heapload: --uri must start with bolt:// or neo4j://"), scheme.err());
    }
}
