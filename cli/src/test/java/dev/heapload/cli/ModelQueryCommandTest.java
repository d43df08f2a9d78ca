package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * {@code heapload query} on the embedded store answers the saved queries of {@code explore.ModelQueries} from the
 * stored files: with the store held by another {@link GraphStore} (as a load, a query or serve would hold it), the
 * questions still answer at once with the golden rows, so they neither open the store nor start its Neo4j; a pruned
 * baseline makes {@code leak-groups} fall back to the Cypher, which reads the comparison the load stored in the
 * target's graph.
 */
class ModelQueryCommandTest {

    @TempDir
    Path tmp;

    static final Path GOLDEN = Path.of(System.getProperty("heapload.testdata", "../testdata"), "golden");

    @Test
    void questionsAnswerFromTheFilesWhileTheStoreIsHeld() throws Exception {
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.loadEventListenersPair(db);
        List<String[]> golden = List.of(
            new String[] {"why-alive.event-listeners.csv", "why-alive", "snapshot=after", "address=0x56013833B340"},
            new String[] {"referrers.event-listeners.csv", "referrers", "snapshot=after", "address=56013833b190"},
            new String[] {"leak-groups.event-listeners.csv", "leak-groups", "baseline=before", "target=after"},
            new String[] {"new-objects.event-listeners.csv", "new-objects", "baseline=before", "target=after"},
            new String[] {"summary.event-listeners.csv", "summary", "snapshot=after"},
            new String[] {"type-histogram.event-listeners.csv", "type-histogram", "snapshot=after"},
            new String[] {"largest-retainers.event-listeners.csv", "largest-retainers", "snapshot=after", "top=5"});
        try (GraphStore held = GraphStore.open(db)) {
            for (String[] g : golden) {
                HeapLoadCommandTest.Run r = query(db, g, "--format", "csv");
                assertEquals(0, r.code(), g[1] + ": " + r.err());
                assertEquals("", r.err(), g[1]);
                assertEquals(Files.readString(GOLDEN.resolve(g[0])), r.out(), g[1]);
            }
            HeapLoadCommandTest.Run limited = query(db, new String[] {"", "why-alive", "snapshot=after",
                "address=0x56013833b340"}, "--limit", "2");
            assertEquals("""
                 chain     | step | address        | type  | label | via           | size | retainedSize
                -----------+------+----------------+-------+-------+---------------+------+--------------
                 retention |    0 | 0x56013833cff0 | table |       | root registry |  176 |         4226
                 retention |    1 | 0x56013833ca80 | table |       | _MODULES      |  176 |          271
                (2 rows, more cut off by --limit)
                """, limited.out());
            HeapLoadCommandTest.Run unknown = query(db, new String[] {"", "referrers", "snapshot=nope", "address=0x1"});
            assertEquals(1, unknown.code());
            assertEquals("heapload: no snapshot 'nope' in the store (heapload snapshots lists them)\n", unknown.err());
        }
        // 'before' pruned: no model to compare with; the Cypher reads the comparison the load stored
        HeapLoadCommandTest.Run prune = HeapLoadCommandTest.run("prune", "--keep-last", "1", "--db", db.toString());
        assertEquals(0, prune.code(), prune.err());
        HeapLoadCommandTest.Run groups = query(db, new String[] {"", "leak-groups", "baseline=before", "target=after"},
            "--format", "csv");
        assertEquals(0, groups.code(), groups.err());
        assertEquals(Files.readString(GOLDEN.resolve("leak-groups.event-listeners.csv")), groups.out());
    }

    /** {@code heapload query NAME -p P… EXTRA… --db DB} for {@code {golden, NAME, P…}}. */
    private static HeapLoadCommandTest.Run query(Path db, String[] q, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("query", q[1]));
        for (int i = 2; i < q.length; i++) {
            args.add("-p");
            args.add(q[i]);
        }
        args.addAll(List.of(extra));
        args.addAll(List.of("--db", db.toString()));
        return HeapLoadCommandTest.run(args.toArray(String[]::new));
    }
}
