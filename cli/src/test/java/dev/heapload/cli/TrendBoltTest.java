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
    }
}
