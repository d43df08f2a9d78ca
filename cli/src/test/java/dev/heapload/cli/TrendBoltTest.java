package dev.heapload.cli;

import static dev.heapload.cli.HeapLoadCommandTest.run;
import static dev.heapload.cli.TrendCommandTest.bundled;
import static dev.heapload.cli.TrendCommandTest.byClass;
import static dev.heapload.cli.TrendCommandTest.parse;
import static dev.heapload.cli.TrendCommandTest.withoutLoadedAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;
import org.w3c.dom.Document;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/**
 * {@code heapload trend --uri} against an in-process Neo4j server of its own (the server of {@link BoltCommandTest}
 * holds that test's snapshots): the rows in load order across two loads, the empty server, and the chart. Expected
 * values as in {@link TrendCommandTest} (event-listeners README: 685 and 871 objects, 78,315 and 102,286 VM bytes).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("server")
class TrendBoltTest {

    @TempDir
    static Path tmp;

    private Neo4j server;
    private String uri;

    @BeforeAll
    void start() {
        server = Neo4jBuilders.newInProcessBuilder()
            .withDisabledServer()
            .withConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ZERO)
            .withConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ZERO)
            .build();
        uri = server.boltURI().toString();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void trendOverBoltInLoadOrder() throws Exception {
        Run empty = run("trend", "--uri", uri);
        assertEquals(1, empty.code());
        assertEquals("heapload: no snapshots in the store " + uri + " (load dumps first: heapload FILE...)\n", empty.err());

        // the later load first in the file list, so load order differs from id order and from file order
        Run load = run("--uri", uri, "--no-progress", bundled("after.json").toString(), bundled("before.json").toString());
        assertEquals(0, load.code(), load.err());
        Run odd = run("--uri", uri, "--no-progress", "--name", TrendCommandTest.ODD_ID, bundled("before.json").toString());
        assertEquals(0, odd.code(), odd.err());

        Run csv = run("trend", "--uri", uri, "--format", "csv");
        assertEquals(0, csv.code(), csv.err());
        assertEquals(List.of(
            "snapshot,vm,objects,bytes,vmBytes,reachableObjects,reachableBytes,deltaObjects,deltaBytes",
            "after,luau,871,79118,102286,806,76674,,",
            "before,luau,685,55147,78315,620,52703,-186,-23971",
            "\"a<b&\"\"c\",luau,685,55147,78315,620,52703,0,0"), withoutLoadedAt(csv.out()));
        Run category = run("trend", "--uri", uri, "--category", "0", "--format", "csv");
        assertEquals(0, category.code(), category.err());
        assertEquals(List.of(
            "snapshot,vm,category,name,objects,bytes,vmBytes,reachableObjects,reachableBytes,deltaObjects,deltaBytes",
            "after,luau,0,main,871,79118,102286,806,76674,,",
            "before,luau,0,main,685,55147,78315,620,52703,-186,-23971",
            "\"a<b&\"\"c\",luau,0,main,685,55147,78315,620,52703,0,0"), withoutLoadedAt(category.out()));
        // the listing follows the same load order
        Run list = run("snapshots", "--uri", uri);
        List<String> lines = list.out().lines().toList();
        assertTrue(lines.get(2).startsWith(" after ") && lines.get(3).startsWith(" before ")
            && lines.get(4).startsWith(" " + TrendCommandTest.ODD_ID + " "), list.out());

        Path svg = tmp.resolve("bolt.svg");
        Run chart = run("trend", "--uri", uri, "--svg", svg.toString());
        assertEquals(0, chart.code(), chart.err());
        Document d = parse(svg);
        assertEquals(3, byClass(d, "circle", "snapshot-point").size());
        assertEquals(3, byClass(d, "rect", "snapshot-bar").size());
        assertTrue(Files.readString(svg).contains("a&lt;b&amp;&quot;c"));

        // leak history over Bolt. A fourth night, the after dump as 'n4': its load compares it with the snapshot before it
        // (the odd id: the before dump), so the ThemeChanged group (event-listeners README: 152 objects, 19,608 bytes,
        // 16 handler tables) appears in n4; the other nights' comparisons have no such group
        Run n4 = run("--uri", uri, "--no-progress", "--name", "n4", bundled("after.json").toString());
        assertEquals(0, n4.code(), n4.err());
        Run leak = run("trend", "--uri", uri, "--leak", ReportCommandTest.THEME, "--growing-nights", "1", "--format", "csv");
        assertEquals(0, leak.code(), leak.err());
        assertEquals(List.of(
            "snapshot,pruned,comparedWith,objects,newBytes,retainedBytes,heads",
            "after,false,,,,,",
            "before,false,after,0,0,0,0",
            "\"a<b&\"\"c\",false,before,0,0,0,0",
            "n4,false,\"a<b&\"\"c\",152,19608,19608,16"), leak.out().lines().toList());
        assertEquals("leak group " + ReportCommandTest.THEME + " (table heads): appeared in n4; GROWING: gained objects in "
            + "each of the last 1 snapshots\n", leak.err());
        Run steady = run("trend", "--uri", uri, "--leak", ReportCommandTest.THEME, "--format", "csv");
        assertTrue(steady.err().endsWith("; not growing (did not gain objects in each of the last 3 snapshots)\n"),
            steady.err());
        // the report's leak history and growing flags over Bolt
        Path reportDir = tmp.resolve("history-report");
        Run report = run("report", "--uri", uri, "--baseline-id", TrendCommandTest.ODD_ID, "--target-id", "n4", "--out",
            reportDir.toString(), "--format", "json", "--growing-nights", "1");
        assertEquals(0, report.code(), report.err());
        assertEquals("", report.err(), "a pair its load compared: no comparison now");
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(reportDir.resolve("report.json").toFile());
        assertEquals(ReportCommandTest.THEME, json.at("/leakGroups/0/fingerprint").asText());
        assertTrue(json.at("/leakGroups/0/growing").asBoolean(), json.toString());
        assertEquals(List.of("after", "before", TrendCommandTest.ODD_ID, "n4"),
            new com.fasterxml.jackson.databind.ObjectMapper().convertValue(json.at("/leakHistory/snapshots"), List.class));
        assertEquals("n4", json.at("/leakHistory/groups/0/appeared").asText());
        assertEquals(152, json.at("/leakHistory/groups/0/nights/3/objects").asLong());
        assertEquals(3, json.at("/leakHistory/groups").size(), "the report's three groups, each appearing in n4");

        // a pair no load compared (before, n4): compared on first request with one line, the golden rows; then kept
        String golden = Files.readString(Path.of(System.getProperty("heapload.testdata", "../testdata"), "golden",
            "leak-groups.event-listeners.csv"));
        Run first = run("query", "leak-groups", "--uri", uri, "-p", "baseline=before", "-p", "target=n4", "--format", "csv");
        assertEquals(0, first.code(), first.err());
        assertEquals(golden, first.out());
        assertEquals("heapload: comparing 'n4' with 'before' (first request for this pair; kept for later)\n", first.err());
        Run second = run("query", "leak-groups", "--uri", uri, "-p", "baseline=before", "-p", "target=n4", "--format", "csv");
        assertEquals(golden, second.out());
        assertEquals("", second.err(), "kept: not compared again");

        // paths and referrers over --uri: the golden rows of the embedded store
        Path goldenDir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "golden");
        Run paths = run("query", "paths", "--uri", uri, "-p", "snapshot=n4", "-p", "address=0X56013833B190", "--format", "csv");
        assertEquals(0, paths.code(), paths.err());
        assertEquals(Files.readString(goldenDir.resolve("paths.event-listeners.csv")), paths.out());
        Run referrers = run("query", "referrers", "--uri", uri, "-p", "snapshot=n4", "-p", "address=56013833B190",
            "--format", "csv");
        assertEquals(0, referrers.code(), referrers.err());
        assertEquals(Files.readString(goldenDir.resolve("referrers.event-listeners.csv")), referrers.out());
        Run nowhere = run("query", "paths", "--uri", uri, "-p", "snapshot=nope", "-p", "address=0x1");
        assertEquals(1, nowhere.code());
        assertEquals("heapload: no snapshot 'nope' in the store (heapload snapshots lists them)\n", nowhere.err());
    }
}
