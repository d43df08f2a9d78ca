package dev.heapload.store.embedded;

import dev.heapload.store.TestSnapshots;
import dev.heapload.store.embedded.GraphStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Transaction;

import dev.heapload.model.Progress;

/**
 * The DBMS of {@link GraphStore#database()} and {@link GraphStore#serve}: read-only, no file or URL access from
 * Cypher, no {@code dbms.*} configuration procedures, CORS only for Browser's own origin
 * ({@link EmbeddedDbms#readOnlySettings}, {@link EmbeddedDbms#serverSettings}). The same rules on the embedded DBMS
 * of {@code heapload query} (no connectors): QueryCommandTest#errorsAreOneLineWithExitOne.
 */
@Tag("server")
class GraphStoreReadOnlyTest {

    @TempDir
    Path tmp;

    /** A file only the serving user may read, the target of the LOAD CSV attempts. */
    private Path secret() throws Exception {
        Path secret = tmp.resolve("secret.csv");
        Files.writeString(secret, "the secret\n");
        return secret;
    }

    private static final String SUMMARY = "MATCH (s:Snapshot) OPTIONAL MATCH (o:Object {snapshot: s.id}) "
        + "RETURN s.id AS id, s.objectCount AS objectCount, count(o) AS objects";

    @Test
    void servedStoreRefusesWritesFileAndUrlAccessConfigProceduresAndOtherOrigins() throws Exception {
        Path dir = tmp.resolve("db");
        Path secret = secret();
        int bolt = GraphStoreServeTest.freePort();
        int http = GraphStoreServeTest.freePort();
        List<Object> before;
        try (GraphStore store = GraphStore.open(dir)) {
            store.load(TestSnapshots.analysed("a"), false, Progress.NONE);
            before = summary(store.database());
            assertEquals(List.of("a", (long) TestSnapshots.OBJECTS, (long) TestSnapshots.OBJECTS), before);
            store.serve(bolt, http);
            try (Driver driver = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, AuthTokens.none());
                 Session session = driver.session()) {
                for (String write : List.of("CREATE (:Object {snapshot: 'a', address: 'x'})",
                    "MATCH (s:Snapshot) SET s.objectCount = 1", "MATCH (o:Object) DETACH DELETE o",
                    "CREATE INDEX evil FOR (n:Evil) ON (n.x)")) {
                    ClientException e = assertThrows(ClientException.class, () -> session.run(write).consume(), write);
                    assertTrue(e.getMessage().contains("read-only") || e.getMessage().contains("read only"),
                        write + ": " + e.getMessage());
                }
                ClientException file = assertThrows(ClientException.class, () -> session.run(
                    "LOAD CSV FROM $url AS row RETURN row", Map.of("url", secret.toUri().toString())).list());
                assertEquals("Cannot load from URL '" + secret.toUri() + "': configuration property "
                    + "'dbms.security.allow_csv_import_from_file_urls' is false ()", file.getMessage());
                ClientException url = assertThrows(ClientException.class, () -> session.run(
                    "LOAD CSV FROM 'http://127.0.0.1:" + http + "/' AS row RETURN row").list());
                assertTrue(url.getMessage().contains("blocked via the configuration property "
                    + "internal.dbms.cypher_ip_blocklist"), url.getMessage());
                ClientException config = assertThrows(ClientException.class,
                    () -> session.run("CALL dbms.listConfig()").list());
                assertTrue(config.getMessage().startsWith("There is no procedure with the name `dbms.listConfig` "
                    + "registered"), config.getMessage());
                // what Browser and drivers call still works
                assertEquals("Neo4j Kernel", session.run("CALL dbms.components() YIELD name RETURN name")
                    .single().get(0).asString());
                assertEquals(List.of("Object", "Snapshot"), session.run(
                    "CALL db.labels() YIELD label WITH label WHERE label IN ['Object', 'Snapshot'] "
                        + "RETURN label ORDER BY label").list(r -> r.get(0).asString()));
            }
            // HTTP API: the answer carries no Access-Control-Allow-Origin for another origin's page
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/db/neo4j/tx/commit"))
                .header("Origin", "http://evil.example").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                    "{\"statements\":[{\"statement\":\"MATCH (s:Snapshot) SET s.objectCount = 999999\"}]}"))
                .build();
            HttpResponse<String> answer = client.send(post, HttpResponse.BodyHandlers.ofString());
            assertEquals(Optional.of("http://localhost:" + http),
                answer.headers().firstValue("Access-Control-Allow-Origin"));
            assertTrue(answer.body().contains("read-only") || answer.body().contains("read only"), answer.body());
            HttpRequest preflight = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/db/neo4j/tx/commit"))
                .header("Origin", "http://evil.example").header("Access-Control-Request-Method", "POST")
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build();
            HttpResponse<String> pre = client.send(preflight, HttpResponse.BodyHandlers.ofString());
            assertNotEquals(Optional.of("*"), pre.headers().firstValue("Access-Control-Allow-Origin"));
            assertNotEquals(Optional.of("http://evil.example"), pre.headers().firstValue("Access-Control-Allow-Origin"));
        }
        try (GraphStore store = GraphStore.open(dir)) {
            assertEquals(before, summary(store.database()), "the graph changed while served");
        }
    }

    private static List<Object> summary(GraphDatabaseService db) {
        try (Transaction tx = db.beginTx(); var r = tx.execute(SUMMARY)) {
            Map<String, Object> row = r.next();
            return List.of(row.get("id"), row.get("objectCount"), row.get("objects"));
        }
    }
}
