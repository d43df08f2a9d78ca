package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 0-byte {@code server_id} (what a first start of Neo4j on a full disk left, after which every start failed with
 * {@code EOFException}) is replaced on the next start; a load writes a complete one into the new graph.
 */
class ServerIdRepairTest {

    @TempDir
    Path tmp;

    @Test
    void aZeroByteServerIdIsRepairedAndQueriesRun() throws Exception {
        Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        Path db = tmp.resolve("db");
        assertEquals(0, HeapLoadCommandTest.run("--db", db.toString(), testdata.resolve("after.json").toString())
            .code());
        Path serverId;
        try (Stream<Path> graphs = Files.list(db.resolve("graphs"))) {
            // one graph per snapshot: graphs/<id>-<generation> (docs/design/store.md)
            List<Path> g = graphs.filter(p -> p.getFileName().toString().startsWith("after-")).toList();
            assertEquals(1, g.size());
            serverId = g.get(0).resolve("data").resolve("server_id");
        }
        // written by the load, atomically: Neo4j's own 17 bytes (a UUID through ServerIdMarshal)
        assertEquals(17, Files.size(serverId));
        Files.write(serverId, new byte[0]);
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("query", "--db", db.toString(), "--format", "csv",
            "categories", "-p", "snapshot=after");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("871"), r.out());
        assertEquals(17, Files.size(serverId));
        assertTrue(Files.readString(db.resolve("neo4j.log")).contains("server_id is damaged (EOFException: null), "
            + "writing a new one"));
    }
}
