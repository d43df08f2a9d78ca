package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What the tests compare before and after each refused or failed command: the store's snapshot list
 * ({@code heapload snapshots}, without its load times), a summary query's rows ({@code heapload query summary} in CSV
 * on the newest snapshot) and the SHA-256 of every file in its {@code snapshots/} folder and of its catalog (its
 * comments stripped). Read with the commands a user runs, so a store the failure broke fails here too.
 */
final class StoreState {

    private StoreState() {
    }

    /**
     * The state of the store {@code db} whose newest snapshot is {@code snapshot}; fails the test when listing or
     * querying it fails.
     */
    static String of(Path db, String snapshot) throws IOException {
        HeapLoadCommandTest.Run list = HeapLoadCommandTest.run("snapshots", "--db", db.toString());
        assertEquals(0, list.code(), list.err());
        HeapLoadCommandTest.Run summary = HeapLoadCommandTest.run("query", "--db", db.toString(), "--format", "csv",
            "summary", "-p", "snapshot=" + snapshot);
        assertEquals(0, summary.code(), summary.err());
        TreeMap<String, String> sums = new TreeMap<>();
        try (Stream<Path> files = Files.list(db.resolve("snapshots"))) {
            for (Path f : files.toList()) {
                sums.put(f.getFileName().toString(), sha256(f));
            }
        }
        // the loaded-at column differs per load; ids, counts and bytes must not
        return "snapshots:\n" + list.out().replaceAll("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z", "T")
            + "summary:\n" + summary.out() + "files: " + sums + "\ncatalog:\n"
            + Files.readString(db.resolve("catalog.properties")).replaceAll("(?m)^#.*\\R", "");
    }

    static String sha256(Path f) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
