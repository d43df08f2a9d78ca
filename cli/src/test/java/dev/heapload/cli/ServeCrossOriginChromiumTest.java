package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.Transaction;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;

import dev.heapload.store.embedded.GraphStore;

/**
 * A web page from another origin ({@code http://127.0.0.1:OTHER}, served by this test), opened in headless Chromium
 * while the store is served, can neither read through Neo4j's HTTP API (CORS allows only Browser's own origin
 * {@code http://localhost:HTTP}, so Chromium refuses the preflighted JSON request) nor write (a simple
 * {@code text/plain} POST, which needs no preflight, reaches no write: the database is read-only). The store's
 * snapshot list and object count are the same after serve stops. Served without authentication (the worst case;
 * with it, the page has no credentials besides). Skipped without Chromium, as {@link ReportChromiumTest}.
 */
@Tag("process")
@Tag("server")
class ServeCrossOriginChromiumTest {

    @TempDir
    Path tmp;

    private static final String PAGE = """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>other origin</title></head><body><script>
        function post(type, statement) {
          var x = new XMLHttpRequest();
          try {
            x.open('POST', 'http://127.0.0.1:HTTP/db/neo4j/tx/commit', false);
            x.setRequestHeader('Content-Type', type);
            x.send(JSON.stringify({statements: [{statement: statement}]}));
            return 'status ' + x.status + ': ' + x.responseText;
          } catch (e) {
            return 'refused: ' + e.name;
          }
        }
        var r = {};
        r.read = post('application/json', 'MATCH (s:Snapshot) RETURN s.id');
        r.write = post('text/plain', "CREATE (:Object {snapshot: 'after', address: 'evil'})");
        r.set = post('application/json', 'MATCH (s:Snapshot) SET s.objectCount = 999999');
        var pre = document.createElement('pre');
        pre.id = 'result';
        pre.textContent = JSON.stringify(r);
        document.body.appendChild(pre);
        </script></body></html>
        """;

    @Test
    void aPageFromAnotherOriginCanNeitherReadNorWrite() throws Exception {
        Path browser = ReportChromiumTest.chromium();
        Path dump = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners",
            "after.json");
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", dump.toString());
        assertEquals(0, load.code(), load.err());
        String state = StoreState.of(db, "after");
        int[] ports = ServeCommandTest.freePorts();
        HttpServer other = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] page = PAGE.replace("HTTP", String.valueOf(ports[1])).getBytes(StandardCharsets.UTF_8);
        other.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, page.length);
            exchange.getResponseBody().write(page);
            exchange.close();
        });
        other.start();
        JsonNode result;
        try (GraphStore store = GraphStore.open(db)) {
            store.serve(ports[0], ports[1]);
            Path profile = Files.createDirectories(tmp.resolve("profile"));
            Path stdout = tmp.resolve("dom.html");
            Path stderr = tmp.resolve("chromium.log");
            Process p = new ProcessBuilder(browser.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--dump-dom",
                "http://127.0.0.1:" + other.getAddress().getPort() + "/page.html")
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) { // a hang guard
                p.destroyForcibly();
                throw new AssertionError("chromium did not finish in 180 s");
            }
            String dom = Files.readString(stdout, StandardCharsets.UTF_8);
            int a = dom.indexOf("<pre id=\"result\">");
            int b = dom.indexOf("</pre>", a);
            assertTrue(a >= 0 && b > a, "the page wrote no result:\n" + dom + Files.readString(stderr));
            result = ReportChromiumTest.JSON.readTree(dom.substring(a + "<pre id=\"result\">".length(), b)
                .replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"));
        } finally {
            other.stop(0);
        }
        assertEquals("refused: NetworkError", result.get("read").asText(), result.toString());
        assertEquals("refused: NetworkError", result.get("set").asText(), result.toString());
        assertTrue(result.get("write").asText().startsWith("refused: "), result.toString());
        // after serve stopped: the same snapshot list, summary rows and snapshot files, and objects
        assertEquals(state, StoreState.of(db, "after"));
        try (GraphStore store = GraphStore.open(db)) {
            assertEquals(List.of("after"), store.snapshots().stream().map(s -> s.id()).toList());
            try (Transaction tx = store.database().beginTx()) {
                assertEquals(871L, tx.execute("MATCH (o:Object) RETURN count(o) AS n").next().get("n"));
                assertEquals(871L, tx.execute("MATCH (s:Snapshot) RETURN s.objectCount AS n").next().get("n"));
            }
        }
    }
}
