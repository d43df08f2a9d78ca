package dev.heapload.queries;

import static dev.heapload.queries.Golden.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.cli.AdminTool;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;

import dev.heapload.model.Progress;
import dev.heapload.store.offline.DatabaseDump;
import dev.heapload.store.embedded.GraphStore;

/**
 * {@code heapload export --neo4j-dump} round trip: the event-listeners pair loaded into the embedded store,
 * dumped with {@link DatabaseDump}, loaded by Neo4j's own {@code neo4j-admin database load} (its {@code AdminTool},
 * in process) into a fresh Neo4j home, a DBMS started on it, and every saved query run there: the rows equal the
 * embedded store's, and the dump carries the store's indexes and constraints.
 */
class Neo4jDumpRoundTripTest {

    @TempDir
    Path tmp;

    @Test
    void theDumpLoadedByNeo4jAdminAnswersEverySavedQueryAsTheStore() throws Exception {
        Path caseDir = Golden.testdata().resolve("luau").resolve("event-listeners");
        Path db = tmp.resolve("db");
        try (GraphStore embedded = Golden.loadPair(db, caseDir)) {
            Path dumps = tmp.resolve("dumps");
            Files.createDirectories(dumps);
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            List<String> ids = DatabaseDump.write(db, List.of(), dumps.resolve("heapload.dump"),
                new PrintStream(log, true, StandardCharsets.UTF_8), Progress.NONE);
            assertEquals(List.of("before", "after"), ids);

            // neo4j-admin database load --from-path=dumps heapload --overwrite-destination, into a fresh home
            Path home = tmp.resolve("home");
            Path conf = home.resolve("conf");
            Files.createDirectories(conf);
            Files.writeString(conf.resolve("neo4j.conf"), "initial.dbms.default_database=heapload\n");
            ByteArrayOutputStream messages = new ByteArrayOutputStream();
            int exit;
            try (PrintStream out = new PrintStream(messages, true, StandardCharsets.UTF_8);
                 DefaultFileSystemAbstraction fs = new DefaultFileSystemAbstraction()) {
                exit = AdminTool.execute(new ExecutionContext(home, conf, out, out, fs),
                    "database", "load", "--from-path=" + dumps, "heapload", "--overwrite-destination");
            }
            assertEquals(0, exit, messages.toString(StandardCharsets.UTF_8));

            DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .loadPropertiesFromFile(conf.resolve("neo4j.conf")).build();
            try {
                GraphDatabaseService loaded = dbms.database("heapload");
                QueryLibrary library = QueryLibrary.fromDirectory(Golden.cypherDir());
                TreeSet<String> covered = new TreeSet<>();
                for (Object[] c : CASES) {
                    String name = (String) c[0];
                    @SuppressWarnings("unchecked")
                    Map<String, String> p = (Map<String, String>) c[1];
                    SavedQuery q = library.get(name);
                    Map<String, Object> bound = QueryRunner.bind(q, p);
                    QueryResult fromDump = QueryRunner.run(loaded, q, bound, 0, Golden.HANG_BOUND);
                    QueryResult local = Golden.run(embedded, name, p);
                    assertEquals(local.columns(), fromDump.columns(), name);
                    assertEquals(local.rows(), fromDump.rows(), name + " " + p);
                    assertTrue(!fromDump.rows().isEmpty() || name.equals("weak-only"), name + " returned rows");
                    covered.add(name);
                }
                TreeSet<String> all = new TreeSet<>();
                library.queries().forEach(q -> all.add(q.name()));
                assertEquals(all, covered, "every saved query is run on the loaded dump");
                // the store's schema came along: the snapshot id constraint and the object address index, online
                TreeSet<String> schema = new TreeSet<>();
                try (var tx = loaded.beginTx()) {
                    tx.execute("SHOW INDEXES YIELD name, state WHERE state = 'ONLINE' RETURN name")
                        .forEachRemaining(r -> schema.add((String) r.get("name")));
                    tx.execute("SHOW CONSTRAINTS YIELD name RETURN name")
                        .forEachRemaining(r -> schema.add("constraint " + r.get("name")));
                }
                assertTrue(schema.contains(dev.heapload.store.GraphSchema.OBJECT_ADDRESS_INDEX), schema.toString());
                assertTrue(schema.contains("constraint " + dev.heapload.store.GraphSchema.SNAPSHOT_ID_CONSTRAINT),
                    schema.toString());
            } finally {
                dbms.shutdown();
            }
        }
    }

    /** The parameters of {@link EventListenersGoldenTest}, query by query (as {@code BoltQueriesTest}). */
    private static final List<Object[]> CASES = List.of(
        new Object[] {"summary", params("snapshot", "after")},
        new Object[] {"snapshot", params("snapshot", "after")},
        new Object[] {"type-histogram", params("snapshot", "after")},
        new Object[] {"type-histogram-diff", params("baseline", "before", "target", "after")},
        new Object[] {"new-objects", params("baseline", "before", "target", "after")},
        new Object[] {"leak-groups", params("baseline", "before", "target", "after")},
        new Object[] {"growth", params("baseline", "before", "target", "after")},
        new Object[] {"why-alive", params("snapshot", "after", "address", "0x56013833b340")},
        new Object[] {"referrers", params("snapshot", "after", "address", "56013833B190")},
        new Object[] {"weak-only", params("snapshot", "after")},
        new Object[] {"unreachable", params("snapshot", "after")},
        new Object[] {"categories", params("snapshot", "after", "baseline", "before")},
        new Object[] {"categories", params("snapshot", "after")},
        new Object[] {"largest-retainers", params("snapshot", "after", "top", "5")},
        new Object[] {"trend", params()},
        new Object[] {"trend", params("category", "0")},
        new Object[] {"trend-categories", params()},
        new Object[] {"allocation-sites", params("snapshot", "after")});
}
