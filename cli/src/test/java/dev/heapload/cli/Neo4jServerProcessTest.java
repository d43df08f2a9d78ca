package dev.heapload.cli;

import static dev.heapload.cli.HeapLoadCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/**
 * The commands with {@code --uri} against a Neo4j server in a process of its own: authentication on, a
 * free localhost port ({@link Neo4jServerProcess}). Load, query, report, a heapload process killed midway through a
 * load (invisible, then removed by the next command), listing and delete over the {@code neo4j://} routing scheme.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("process")
@Tag("server")
class Neo4jServerProcessTest {

    @TempDir
    static Path tmp;

    private Neo4jServerProcess server;
    private Driver driver;
    private Path caseDir;

    @BeforeAll
    void start() throws Exception {
        server = Neo4jServerProcess.start(tmp.resolve("neo4j-home"));
        driver = GraphDatabase.driver(server.boltUri(), AuthTokens.basic("neo4j", server.password));
        BoltOptions.environment = Map.of("NEO4J_PASSWORD", server.password, "NEO4J_USERNAME", "neo4j");
        caseDir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
    }

    @AfterAll
    void stop() throws Exception {
        BoltOptions.environment = System.getenv();
        if (driver != null) {
            driver.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private long count(String cypher) {
        try (Session s = driver.session()) {
            return s.run(cypher).single().get(0).asLong();
        }
    }

    @Test
    void loadQueryReportAKilledLoadAndDeleteOverRouting() throws Exception {
        String uri = server.boltUri();
        Run load = run("--uri", uri, caseDir.resolve("before.json").toString(), caseDir.resolve("after.json").toString());
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("leaks: after relative to before: 186 new reachable objects, 22,099 bytes, in 3 leak group(s)"),
            load.out());

        Run query = run("query", "type-histogram", "-p", "snapshot=after", "--format", "csv", "--uri", uri);
        assertEquals(0, query.code(), query.err());
        assertEquals(Files.readString(Path.of(System.getProperty("heapload.testdata", "../testdata"), "golden",
            "type-histogram.event-listeners.csv")), query.out());

        Path reportDir = tmp.resolve("report");
        Run report = run("report", "--uri", uri, "--baseline-id", "before", "--target-id", "after", "--out",
            reportDir.toString(), "--format", "json", "--fail-on", "leak-groups>0");
        assertEquals(ReportCommand.GATE_FAILED, report.code(), report.err());
        assertTrue(Files.readString(reportDir.resolve("report.json")).contains("\"fingerprint\" : \"" + ReportCommandTest.THEME + "\""));

        // a heapload process killed while it writes the batches of snapshot 'cut' (20 rows per transaction)
        List<String> command = new ArrayList<>(ChildHeapLoad.command("--uri", uri, "--name", "cut", "--no-progress",
            caseDir.resolve("after.json").toString()));
        command.addAll(1, List.of("-Dheapload.bolt.batch=20", "-Dheapload.bolt.writers=1"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(tmp.resolve("killed.out").toFile());
        pb.environment().put("NEO4J_PASSWORD", server.password);
        Process child = pb.start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10); // a hang bound
        while (count("MATCH (o:Object {snapshot: 'cut'}) RETURN count(o)") == 0) {
            assertTrue(child.isAlive() && System.nanoTime() < deadline, "the child wrote no batch: "
                + Files.readString(tmp.resolve("killed.out")));
            Thread.sleep(20);
        }
        child.destroyForcibly();
        assertTrue(child.waitFor(5, TimeUnit.MINUTES)); // a hang bound
        // what it wrote is there but invisible to every saved query (no Snapshot node)
        assertTrue(count("MATCH (o:Object {snapshot: 'cut'}) RETURN count(o)") > 0);
        assertEquals(0L, count("MATCH (s:Snapshot {id: 'cut'}) RETURN count(s)"));
        Run cutQuery = run("query", "summary", "-p", "snapshot=cut", "--uri", uri);
        assertEquals(1, cutQuery.code(), cutQuery.out());

        // over neo4j:// (routing driver): the listing removes the leftovers, delete works
        String routing = server.routingUri();
        Run list = run("snapshots", "--uri", routing);
        assertEquals(0, list.code(), list.err());
        // a header, its rule and one row per snapshot
        assertEquals(List.of("before", "after"), list.out().lines().skip(2).map(l -> l.trim().split(" ")[0]).toList(),
            list.out());
        assertEquals(0L, count("MATCH (o:Object {snapshot: 'cut'}) RETURN count(o)"));
        assertEquals(0L, count("MATCH (m:LoadInProgress) RETURN count(m)"));
        Run delete = run("snapshots", "--uri", routing, "--delete", "before");
        assertEquals(0, delete.code(), delete.err());
        assertEquals(0L, count("MATCH (o:Object {snapshot: 'before'}) RETURN count(o)"));
        assertEquals(871L, count("MATCH (o:Object {snapshot: 'after'}) RETURN count(o)"));
        Run after = run("snapshots", "--uri", routing);
        assertEquals(List.of("after"), after.out().lines().skip(2).map(l -> l.trim().split(" ")[0]).toList(),
            after.out());
    }

    private static String write(String text) throws Exception {
        Path file = Files.createTempFile(tmp, "pw", ".txt");
        Files.writeString(file, text + "\n");
        return file.toString();
    }
}
