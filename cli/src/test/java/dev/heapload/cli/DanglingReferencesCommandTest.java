package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.store.embedded.GraphStore;

/**
 * References to nothing, on the hand-written Luau dump {@code testdata/luau/hand-written/dangling-references.json}, whose one table refers to three addresses with no
 * record: {@code (nil)} (a sentinel), {@code 0x90000000} (outside the span of the dump's objects) and {@code 0x1250}
 * (inside it, no object). Of the dump's 10 references 3 (30 %) point to nothing: the load is refused unless
 * {@code --allow-dangling}; the summary counts them per reason; with {@code --keep-dangling} the graph has 3
 * {@code Missing} nodes and as many reference relationships as the dump (10).
 */
class DanglingReferencesCommandTest {

    @TempDir
    Path tmp;


    private Path dump() throws Exception {
        Path file = tmp.resolve("dangling.json");
        Files.copy(Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "hand-written",
            "dangling-references.json"), file);
        return file;
    }

    @Test
    void aShareAboveTheLimitIsRefusedInOneLine() throws Exception {
        Path file = dump();
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), file.toString());
        assertEquals(1, r.code(), r.out());
        assertEquals("heapload: " + file + ": 3 of its 10 references (30.0 %, over the 10 % limit) point to addresses with "
            + "no object record (1 sentinel, 1 outside every heap area, 1 inside the heap but no object): a dump taken "
            + "without a full GC, damaged, or read as the wrong format? Load it anyway with --allow-dangling\n", r.err());
        assertFalse(Files.exists(db.resolve("catalog.properties")), "nothing loaded");
        // a higher limit lets it through
        r = HeapLoadCommandTest.run("--db", db.toString(), "--max-dangling", "50", file.toString());
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void countedPerReasonAndDroppedByDefault() throws Exception {
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), "--allow-dangling", dump().toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\n  references  7 (7 strong, 0 weak)\n  references to nothing: 3 of 10 (30.0 %): "
            + "1 sentinel, 1 outside every heap area, 1 inside the heap but no object; dropped (--keep-dangling keeps them "
            + "as Missing nodes)\n"), r.out());
        assertEquals(List.of(), query(db, "MATCH (m:Missing) RETURN m.address AS a"));
    }

    @Test
    void keptAsMissingNodesWithTheProducersEdgeCount() throws Exception {
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), "--allow-dangling", "--keep-dangling",
            dump().toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("references to nothing: 3 of 10 (30.0 %): 1 sentinel, 1 outside every heap area, "
            + "1 inside the heap but no object; kept as Missing nodes\n"), r.out());
        assertEquals(List.of(
                "(nil) sentinel <-[key]- 0x1100",
                "0x1250 inside the heap but no object <-[key]- 0x1100",
                "0x90000000 outside every heap area <-[value]- 0x1100"),
            query(db, "MATCH (o:Object {snapshot:'dangling'})-[r:REF]->(m:Missing {snapshot:'dangling'}) "
                + "RETURN m.address + ' ' + m.reason + ' <-[' + r.kind + ']- ' + o.address AS a ORDER BY a"));
        assertEquals(List.of("10"), query(db, "MATCH (:Object {snapshot:'dangling'})-[r:REF|WEAK_REF]->() RETURN toString(count(r)) AS a"));
        // a second load builds a graph of its own (docs/design/store.md); the snapshot's graph keeps its Missing nodes
        r = HeapLoadCommandTest.run("--db", db.toString(), "--name", "again", Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", "after.json").toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("3"), query(db, "MATCH (m:Missing {snapshot:'dangling'}) RETURN toString(count(m)) AS a",
            "dangling"));
        assertEquals(List.of("0"), query(db, "MATCH (m:Missing) RETURN toString(count(m)) AS a", "again"));
    }

    private static List<String> query(Path db, String cypher) throws Exception {
        return query(db, cypher, null);
    }

    /** The column {@code a} of {@code cypher} on the graph of snapshot {@code id} (null: the newest). */
    private static List<String> query(Path db, String cypher, String id) throws Exception {
        List<String> out = new ArrayList<>();
        try (GraphStore store = GraphStore.open(db)) {
            try (Transaction tx = (id == null ? store.database() : store.database(id)).beginTx();
                 Result res = tx.execute(cypher)) {
                while (res.hasNext()) {
                    out.add(String.valueOf(res.next().get("a")));
                }
            }
        }
        return out;
    }
}
