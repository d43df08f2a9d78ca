package dev.heapload.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;
import dev.heapload.store.embedded.GraphStore;

/** Shared helpers of the golden tests: loading a dump pair, running a saved query, comparing with a golden CSV. */
final class Golden {

    /**
     * The transaction timeout of the queries the tests run: a bound for a hung query only, long enough for a busy
     * machine (a query's speed is never a test's verdict).
     */
    static final Duration HANG_BOUND = Duration.ofMinutes(10);

    private Golden() {
    }

    /** The repository's testdata/ folder (system property {@code heapload.testdata}, set by the parent pom). */
    static Path testdata() {
        return Path.of(System.getProperty("heapload.testdata", "../testdata"));
    }

    /** The repository's cypher/ folder (system property {@code heapload.cypher}). */
    static Path cypherDir() {
        return Path.of(System.getProperty("heapload.cypher", "../cypher"));
    }

    /** A case folder of the shared Luau test data; skips the calling test class when the shared data is absent. */
    static Path sharedCase(String name) {
        String shared = System.getProperty("heapload.shared");
        Path dir = shared == null ? null : Path.of(shared, "testdata", "luau", name);
        Assumptions.assumeTrue(dir != null && Files.isDirectory(dir), "shared test data not found (system property "
            + "heapload.shared = " + shared + " has no testdata/luau/" + name + "): golden queries on " + name + " skipped");
        return dir;
    }

    /** The file {@code name} or {@code name.gz} in {@code dir}. */
    static Path dump(Path dir, String name) {
        Path p = dir.resolve(name);
        return Files.exists(p) ? p : dir.resolve(name + ".gz");
    }

    /** Opens a store in {@code db} holding {@code before.json} as 'before' and {@code after.json} as 'after' of {@code caseDir}. */
    static GraphStore loadPair(Path db, Path caseDir) throws Exception {
        GraphStore store = GraphStore.open(db);
        for (String id : List.of("before", "after")) {
            HeapSnapshot s = DumpReaders.read(dump(caseDir, id + ".json"), id, Progress.NONE);
            HeapAnalyzer.analyze(s, Progress.NONE);
            store.load(s, false, Progress.NONE);
        }
        return store;
    }

    /** Parameters from alternating names and values. */
    static Map<String, String> params(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Runs the saved query {@code name} of the repository's cypher/ folder; checks its columns match its header. */
    static QueryResult run(GraphStore store, String name, Map<String, String> params) throws Exception {
        SavedQuery q = QueryLibrary.fromDirectory(cypherDir()).get(name);
        Map<String, Object> bound = QueryRunner.bind(q, params);
        QueryResult r = QueryRunner.run(store.databaseFor(name, bound), q, bound, 0, HANG_BOUND);
        assertEquals(q.columns(), r.columns(), name + ": returned columns differ from the header's");
        return r;
    }

    /**
     * Asserts that {@code result} as CSV equals testdata/golden/{@code file}; with
     * {@code -Dheapload.golden.update=true} the file is first written from {@code result} (then review the change with {@code git diff testdata/golden}).
     */
    static void assertGolden(QueryResult result, String file) throws IOException {
        if (Boolean.getBoolean("heapload.golden.update")) {
            Files.writeString(testdata().resolve("golden").resolve(file), ResultWriter.csv(result),
                StandardCharsets.UTF_8);
        }
        String expected = Files.readString(testdata().resolve("golden").resolve(file), StandardCharsets.UTF_8);
        assertEquals(expected, ResultWriter.csv(result), "golden file testdata/golden/" + file);
    }

    /** The values of column {@code column} of every row. */
    static List<Object> column(QueryResult r, String column) {
        int c = r.columns().indexOf(column);
        List<Object> out = new ArrayList<>();
        for (List<Object> row : r.rows()) {
            out.add(row.get(c));
        }
        return out;
    }

    /** The first row whose column {@code column} equals {@code value}, as column → value. */
    static Map<String, Object> row(QueryResult r, String column, Object value) {
        int c = r.columns().indexOf(column);
        for (List<Object> row : r.rows()) {
            if (value.equals(row.get(c))) {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = 0; i < r.columns().size(); i++) {
                    m.put(r.columns().get(i), row.get(i));
                }
                return m;
            }
        }
        throw new AssertionError("no row with " + column + " = " + value + " in " + r.rows());
    }
}
