package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Help, usage errors, a mistyped command, a missing file and a missing store answer without Neo4j: a child JVM for
 * each ({@code -Xlog:class+load}) loads no class of it, and gives the one line and exit code of the case.
 */
@Tag("process")
class UsageWithoutNeo4jTest {

    @TempDir
    Path tmp;

    @Test
    void helpUsageErrorsAndMissingFilesLoadNoNeo4jClass() throws Exception {
        List<String> wrong = new ArrayList<>();
        String missing = tmp.resolve("missing.json").toString();
        String noStore = tmp.resolve("no-store").toString();
        Object[][] cases = {
            {0, "Usage: heapload", new String[] {"--help"}},
            {2, "heapload: 'reprot' is neither a command nor a file; did you mean report?", new String[] {"reprot"}},
            {1, "heapload: " + missing + ": no such file", new String[] {"--db", noStore, missing}},
            {2, "heapload: Unknown option: '--bogus'", new String[] {"--bogus"}},
            {2, "heapload: no saved query 'leak-group'", new String[] {"query", "leak-group"}},
            {1, "heapload: no store at ", new String[] {"query", "--db", noStore, "summary", "-p", "snapshot=x"}},
        };
        for (int i = 0; i < cases.length; i++) {
            Path classes = tmp.resolve("classes-" + i + ".txt");
            List<String> cmd = new ArrayList<>(ChildHeapLoad.command((String[]) cases[i][2]));
            cmd.add(1, "-Xlog:class+load=info:file=" + classes);
            Path out = tmp.resolve("out-" + i + ".txt");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "child did not end");
            String text = Files.readString(out);
            String args = String.join(" ", (String[]) cases[i][2]);
            if (p.exitValue() != (int) cases[i][0] || !text.startsWith((String) cases[i][1])) {
                wrong.add(args + ": exit " + p.exitValue() + ": " + text);
            }
            long neo4j = Files.readAllLines(classes).stream().filter(l -> l.contains(" org.neo4j.")).count();
            if (neo4j > 0) {
                wrong.add(args + ": loaded " + neo4j + " Neo4j classes");
            }
        }
        assertEquals(List.of(), wrong);
    }

    /** Listing a store, deleting from it and a leak history read only its files: no Neo4j class either. */
    @Test
    void listingDeletingAndLeakHistoryLoadNoNeo4jClass() throws Exception {
        Path dir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--no-progress", "--no-graph", "--db", db.toString(),
            dir.resolve("before.json").toString(), dir.resolve("after.json").toString());
        assertEquals(0, load.code(), load.err());
        String fingerprint;
        try (dev.heapload.store.StoreDirectory store = dev.heapload.store.StoreDirectory.open(db)) {
            var group = store.history().get(1).comparisons().get(0).leakGroups().get(0);
            fingerprint = dev.heapload.report.LeakFingerprint.of(group.headType(), group.path());
        }
        List<String[]> commands = List.of(new String[] {"snapshots", "--db", db.toString()},
            new String[] {"trend", "--db", db.toString(), "--leak", fingerprint},
            new String[] {"snapshots", "--db", db.toString(), "--delete", "before"});
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < commands.size(); i++) {
            Path classes = tmp.resolve("store-classes-" + i + ".txt");
            List<String> cmd = new ArrayList<>(ChildHeapLoad.command(commands.get(i)));
            cmd.add(1, "-Xlog:class+load=info:file=" + classes);
            Path out = tmp.resolve("store-out-" + i + ".txt");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "child did not end");
            String args = String.join(" ", commands.get(i));
            if (p.exitValue() != 0) {
                wrong.add(args + ": exit " + p.exitValue() + ": " + Files.readString(out));
            }
            if (Files.readAllLines(classes).stream().anyMatch(l -> l.contains(" org.neo4j."))) {
                wrong.add(args + ": loaded Neo4j classes");
            }
        }
        assertEquals(List.of(), wrong);
        assertEquals(List.of("after"), dev.heapload.store.Catalog.read(db).entries.stream()
            .map(dev.heapload.store.Catalog.Entry::id).toList());
    }
}
