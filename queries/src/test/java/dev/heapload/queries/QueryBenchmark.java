package dev.heapload.queries;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.heapload.store.embedded.GraphStore;

/**
 * Not a test: times every saved query on a store holding snapshots 'before' and 'after' (README: the 2.4M-object
 * entity-system-large pair). Usage: {@code QueryBenchmark DIR [ADDRESS] [--only NAME] [--warm-up CYPHER]}; prints
 * the start of the embedded DBMS, then per query the cold and the warm run time and the row count. With
 * {@code --only NAME} just that query runs (for its time in a fresh JVM); with {@code --warm-up CYPHER} that
 * statement runs once after the start, before the saved queries, and its time is printed. Runs with the DBMS
 * settings of the CLI.
 */
public final class QueryBenchmark {

    private QueryBenchmark() {
    }

    /** Entry point: {@code DIR [ADDRESS] [--only NAME] [--warm-up CYPHER]}. */
    public static void main(String[] args) throws Exception {
        String address = null;
        String only = null;
        String warmUp = null;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--only" -> only = args[++i];
                case "--warm-up" -> warmUp = args[++i];
                default -> address = args[i];
            }
        }
        try (GraphStore store = GraphStore.open(Path.of(args[0]))) {
            long t0 = System.nanoTime();
            var db = store.database();
            System.out.printf("%-20s %8.2f s%n", "DBMS start", (System.nanoTime() - t0) / 1e9);
            if (warmUp != null) {
                t0 = System.nanoTime();
                try (var tx = db.beginTx()) {
                    tx.execute(warmUp, Map.of("snapshot", "after")).accept(row -> true);
                }
                System.out.printf("%-20s %8.2f s  %s%n", "warm-up", (System.nanoTime() - t0) / 1e9, warmUp);
            }
            QueryLibrary lib = QueryLibrary.builtIn();
            Map<String, Map<String, String>> runs = runs(address);
            for (var e : runs.entrySet()) {
                if (only != null && !only.equals(e.getKey())) {
                    continue;
                }
                SavedQuery q = lib.get(e.getKey());
                StringBuilder line = new StringBuilder(String.format("%-20s", e.getKey()));
                for (int i = 0; i < 2; i++) {
                    t0 = System.nanoTime();
                    try {
                        QueryResult r = QueryRunner.run(db, q, QueryRunner.bind(q, e.getValue()), 0, Duration.ofSeconds(300));
                        line.append(String.format(" %8.2f s (%d rows)", (System.nanoTime() - t0) / 1e9, r.rows().size()));
                    } catch (QueryFailedException ex) {
                        line.append(String.format(" %8.2f s FAILED %s", (System.nanoTime() - t0) / 1e9, ex.getMessage()));
                    }
                }
                System.out.println(line);
            }
        }
    }

    /**
     * The saved queries timed on the large pair, in order, with their parameters (snapshot ids 'before' and
     * 'after'); {@code why-alive} only with an {@code address} (else {@code null}).
     */
    static Map<String, Map<String, String>> runs(String address) {
        Map<String, Map<String, String>> runs = new LinkedHashMap<>();
        runs.put("summary", Map.of("snapshot", "after"));
        runs.put("type-histogram", Map.of("snapshot", "after"));
        runs.put("type-histogram-diff", Map.of("baseline", "before", "target", "after"));
        runs.put("unreachable", Map.of("snapshot", "after"));
        runs.put("weak-only", Map.of("snapshot", "after"));
        runs.put("largest-retainers", Map.of("snapshot", "after"));
        runs.put("categories", Map.of("snapshot", "after", "baseline", "before"));
        runs.put("new-objects", Map.of("baseline", "before", "target", "after"));
        runs.put("growth", Map.of("baseline", "before", "target", "after"));
        runs.put("leak-groups", Map.of("baseline", "before", "target", "after"));
        runs.put("trend", Map.of());
        runs.put("trend-categories", Map.of());
        if (address != null) {
            runs.put("why-alive", Map.of("snapshot", "after", "address", address));
        }
        return runs;
    }
}
