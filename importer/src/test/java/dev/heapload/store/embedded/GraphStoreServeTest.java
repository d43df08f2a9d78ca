package dev.heapload.store.embedded;

import dev.heapload.store.TestSnapshots;
import dev.heapload.store.embedded.GraphStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import dev.heapload.store.StoreInUseException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.graphdb.Transaction;

import dev.heapload.model.Progress;

/** {@link GraphStore#serve}: Bolt on loopback without authentication, taken ports, the lock held while serving. */
@Tag("server")
public class GraphStoreServeTest {

    @TempDir
    Path tmp;

    /** A port that was free a moment ago (the OS hands out a fresh ephemeral port each time). */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }

    @Test
    void servesTheGraphOverBoltWithoutAuthAndKeepsTheStoreLocked() throws IOException {
        Path dir = tmp.resolve("db");
        int bolt = freePort();
        int http = freePort();
        try (GraphStore store = GraphStore.open(dir)) {
            store.load(TestSnapshots.analysed("a"), false, Progress.NONE);
            store.serve(bolt, http);
            try (Driver driver = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, AuthTokens.none());
                 Session session = driver.session()) {
                assertEquals(TestSnapshots.OBJECTS,
                    session.run("MATCH (o:Object {snapshot: 'a'}) RETURN count(o) AS n").single().get("n").asLong());
            }
            // embedded queries go to the same served database
            try (Transaction tx = store.database().beginTx()) {
                assertEquals((long) TestSnapshots.OBJECTS,
                    tx.execute("MATCH (o:Object) RETURN count(o) AS n").next().get("n"));
            }
            // another open finds the lock and, in serving.properties, this live process and its Bolt port
            StoreInUseException inUse = assertThrows(StoreInUseException.class, () -> GraphStore.open(dir));
            assertEquals("store " + dir.toAbsolutePath().normalize() + " is being served by heapload serve (pid "
                + ProcessHandle.current().pid() + ", bolt://localhost:" + bolt + ")", inUse.getMessage());
            assertEquals(java.util.Optional.of("bolt://localhost:" + bolt), inUse.servedBoltUri());
            assertEquals(ProcessHandle.current().pid(), inUse.servingPid());
        }
        assertFalse(Files.exists(dir.resolve(GraphStore.SERVING)), "serving.properties left after close");
        // closed: the ports and the store are free again
        try (ServerSocket again = new ServerSocket()) {
            again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), bolt));
        }
        try (GraphStore store = GraphStore.open(dir)) {
            assertEquals(1, store.snapshots().size());
        }
    }

    /** A serving.properties left by a killed server names a dead process: the plain in-use message, no URI. */
    @Test
    void aServingFileOfADeadProcessIsIgnored() throws Exception {
        Path dir = tmp.resolve("db");
        Process gone = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        gone.waitFor();
        try (GraphStore store = GraphStore.open(dir)) {
            store.load(TestSnapshots.analysed("a"), false, Progress.NONE);
            Files.writeString(dir.resolve(GraphStore.SERVING), "pid=" + gone.pid() + "\nbolt=7687\nhttp=7474\n");
            StoreInUseException inUse = assertThrows(StoreInUseException.class, () -> GraphStore.open(dir));
            assertEquals("store " + dir.toAbsolutePath().normalize() + " is in use by another heapload process (a load, "
                + "pid " + ProcessHandle.current().pid() + ")", inUse.getMessage());
            assertEquals(java.util.Optional.empty(), inUse.servedBoltUri());
        }
        // the next process that gets the lock removes the dead server's file
        try (GraphStore store = GraphStore.open(dir)) {
            assertFalse(Files.exists(dir.resolve(GraphStore.SERVING)));
        }
    }

    @Test
    void aTakenPortIsReportedByNumberAndTheStoreStaysUsable() throws IOException {
        Path dir = tmp.resolve("db");
        try (GraphStore store = GraphStore.open(dir);
             ServerSocket taken = new ServerSocket()) {
            store.load(TestSnapshots.analysed("a"), false, Progress.NONE);
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int http = taken.getLocalPort();
            PortInUseException e = assertThrows(PortInUseException.class, () -> store.serve(freePort(), http));
            assertEquals(http, e.port());
            assertEquals("port " + http + " on 127.0.0.1 is already in use", e.getMessage());
            try (Transaction tx = store.database().beginTx()) {
                assertEquals((long) TestSnapshots.OBJECTS,
                    tx.execute("MATCH (o:Object) RETURN count(o) AS n").next().get("n"));
            }
        }
    }
}
