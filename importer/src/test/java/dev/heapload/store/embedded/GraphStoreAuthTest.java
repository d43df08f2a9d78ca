package dev.heapload.store.embedded;

import dev.heapload.store.TestSnapshots;
import dev.heapload.store.StoreInUseException;
import dev.heapload.store.embedded.GraphStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.exceptions.ClientException;

import dev.heapload.model.Progress;

/** {@link GraphStore#serve(int, int, String)}: user neo4j with the given password, the 0600 password file. */
@Tag("server")
class GraphStoreAuthTest {

    @TempDir
    Path tmp;

    @Test
    void servesWithThePasswordOnlyAndLeavesItInAPrivateFileWhileServing() throws Exception {
        Path dir = tmp.resolve("db");
        int bolt = GraphStoreServeTest.freePort();
        int http = GraphStoreServeTest.freePort();
        String password = "t0ken-for-this-serve";
        try (GraphStore store = GraphStore.open(dir)) {
            store.load(TestSnapshots.analysed("a"), false, Progress.NONE);
            store.serve(bolt, http, password);
            Path file = dir.resolve(GraphStore.SERVE_PASSWORD);
            assertEquals(password + "\n", Files.readString(file));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            for (var wrong : new org.neo4j.driver.AuthToken[] {AuthTokens.none(), AuthTokens.basic("neo4j", "neo4j"),
                AuthTokens.basic("neo4j", "wrong")}) {
                try (Driver driver = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, wrong);
                     Session session = driver.session()) {
                    assertThrows(ClientException.class, () -> session.run("RETURN 1").consume(), wrong.toString());
                }
            }
            try (Driver driver = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, AuthTokens.basic("neo4j", password));
                 Session session = driver.session()) {
                assertEquals(TestSnapshots.OBJECTS,
                    session.run("MATCH (o:Object {snapshot: 'a'}) RETURN count(o) AS n").single().get("n").asLong());
            }
            StoreInUseException inUse = assertThrows(StoreInUseException.class, () -> GraphStore.open(dir));
            assertEquals(Optional.of(password), inUse.servedPassword());
        }
        assertFalse(Files.exists(dir.resolve(GraphStore.SERVE_PASSWORD)), "password file left after close");
    }
}
