package dev.heapload.queries;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.heapload.store.GraphStore;

/**
 * Not a test: times every saved query on a store holding snapshots 'before' and 'after' (README: the 2.4M-object
 * entity-system-large pair). Usage: {@code QueryBenchmark DIR [ADDRESS]}; prints per query the cold and the warm
 * run time and the row count. Runs with the DBMS settings of the CLI.
 */
public final class QueryBenchmark {

    private QueryBenchmark() {
    }

    /** Entry point: {@code DIR [ADDRESS]}. */
    public static void main(String[] args) throws Exception {
        try (GraphStore store = GraphStore.open(Path.of(args[0]))) {
            var db = store.database();
            QueryLibrary lib = QueryLibrary.builtIn();
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
            if (args.length > 1) {
                runs.put("why-alive", Map.of("snapshot", "after", "address", args[1]));
            }
            for (var e : runs.entrySet()) {
                SavedQuery q = lib.get(e.getKey());
                StringBuilder line = new StringBuilder(String.format("%-20s", e.getKey()));
                for (int i = 0; i < 2; i++) {
                    long t0 = System.nanoTime();
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
}
