package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.cli.HeapLoadCommandTest.Run;

/**
 * The input limits end to end: each refused input is one line on stderr with its exit code, and the store's snapshot
 * list and the checksums of its snapshot files are what they were before.
 */
class InputLimitsCommandTest {

    @TempDir
    static Path tmp;

    static Path db;
    static Path example;
    static TreeMap<String, String> before;
    static String beforeState;

    static Run run(String... args) {
        return HeapLoadCommandTest.run(args);
    }

    /** SHA-256 of every file of the store's catalog and snapshot files (not its Neo4j logs), by relative path. */
    static TreeMap<String, String> storeChecksums() throws Exception {
        TreeMap<String, String> sums = new TreeMap<>();
        try (Stream<Path> files = Files.walk(db)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String rel = db.relativize(f).toString();
                if (rel.startsWith("graph") || rel.startsWith("logs") || rel.endsWith(".log") || rel.endsWith(".lock")) {
                    continue;
                }
                sums.put(rel, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f))));
            }
        }
        return sums;
    }

    @BeforeAll
    static void load() throws Exception {
        example = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners", "after.json");
        db = tmp.resolve("db");
        assertEquals(0, run("--db", db.toString(), example.toString()).code());
        before = storeChecksums();
        beforeState = StoreState.of(db, "after");
        assertTrue(before.keySet().stream().anyMatch(k -> k.endsWith("after.hsnap")), before.toString());
    }

    private static void assertStoreUnchanged() throws Exception {
        assertEquals(before, storeChecksums());
        assertEquals(beforeState, StoreState.of(db, "after"));
        Run list = run("snapshots", "--db", db.toString());
        assertEquals(0, list.code(), list.err());
        assertEquals(1, list.out().lines().filter(l -> l.contains("after")).count(), list.out());
    }

    @Test
    void refusedInputsAreOneLineAndLeaveTheStoreAsItWas() throws Exception {
        Path two = Files.write(tmp.resolve("two.json.gz"), new byte[] {0x1f, (byte) 0x8b});
        Path deep = Files.writeString(tmp.resolve("deep.json"),
            "{\"objects\":{\"0x1\":{\"type\":\"table\",\"x\":" + "[".repeat(10_001) + "]".repeat(10_001) + "}}}");
        Path dup = Files.writeString(tmp.resolve("dup.json"), "{\"objects\":{},\"roots\":{},\"objects\":{}}");
        String record = "{\"objects\":{\"0x1\":{\"type\":\"table\",\"cat\":0,\"size\":40,";
        Path dupField = Files.writeString(tmp.resolve("dup-field.json"), record + "\"size\":80}},\"roots\":{}}");
        // a gzip bomb: a 16 MiB string of one letter packs over 1000:1
        Path bomb = tmp.resolve("bomb.json.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(bomb))) {
            out.write("{\"objects\":{\"0x1\":{\"type\":\"string\",\"data\":\"".getBytes(StandardCharsets.US_ASCII));
            byte[] block = new byte[1 << 20];
            java.util.Arrays.fill(block, (byte) 'a');
            for (int i = 0; i < 16; i++) {
                out.write(block);
            }
            out.write("\"}},\"roots\":{}}".getBytes(StandardCharsets.US_ASCII));
        }
        long gz = Files.size(bomb);
        long content = "{\"objects\":{\"0x1\":{\"type\":\"string\",\"data\":\"".length() + (16L << 20)
            + "\"}},\"roots\":{}}".length();
        long limit = dev.heapload.io.InputLimits.gzipContentLimit(gz, content);
        assertTrue(limit < content, "the ratio limit, not the stated size, stops it: " + gz);
        List<String> problems = new ArrayList<>();
        for (String[] c : new String[][] {
            {two.toString(), two + ": byte 0: not a complete gzip file (it ends inside the gzip header; truncated?)"},
            {deep.toString(), deep + ": byte 10036: nesting deeper than 10,000 levels (limit of heapload's readers)"},
            {dup.toString(), dup + ": byte 25: not a Luau heap dump: a second top-level \"objects\" member"},
            {dupField.toString(), dupField + ": byte " + record.length() + ": the record of \"0x1\" has a second \"size\" field"},
            {bomb.toString(), bomb + ": byte " + limit + ": gzip content larger than " + String.format("%,d", limit)
                + " bytes, the most a " + String.format("%,d", gz) + "-byte file may expand to (1000:1 and its stated size;"
                + " limit of heapload's readers)"},
        }) {
            long start = System.nanoTime();
            Run r = run("--db", db.toString(), c[0]);
            System.out.printf("InputLimitsCommandTest: %s refused after %.2f s%n", Path.of(c[0]).getFileName(),
                (System.nanoTime() - start) / 1e9);
            if (r.code() != 1 || !r.err().equals("heapload: " + c[1] + System.lineSeparator()) || !r.out().isEmpty()) {
                problems.add(c[0] + ": exit " + r.code() + ", stderr " + r.err() + ", stdout " + r.out());
            }
        }
        assertEquals(List.of(), problems);
        assertStoreUnchanged();
    }

    @Test
    void inputTooLargeForTheMachineIsRefusedBeforeReading() throws Exception {
        // as the launcher (lib/heap.sh) passes them for dumps estimated at 9 GiB alive on a machine that allows 6 GiB
        System.setProperty(dev.heapload.io.HeapBudget.NEED_PROPERTY, Long.toString(9L << 30));
        System.setProperty(dev.heapload.io.HeapBudget.LIMIT_PROPERTY, Long.toString(6L << 30));
        Run r;
        Run fits;
        Path fresh = tmp.resolve("no-store-for-too-large");
        try {
            r = run("--db", db.toString(), "--name", "too-large", example.toString());
            Run missing = run("--db", db.toString(), tmp.resolve("no-such.json").toString());
            assertEquals("heapload: " + tmp.resolve("no-such.json") + ": no such file" + System.lineSeparator(), missing.err(),
                "a missing file is named first");
            assertEquals(1, run("--db", fresh.toString(), example.toString()).code());
            System.setProperty(dev.heapload.io.HeapBudget.NEED_PROPERTY, Long.toString(6L << 30));
            fits = run("tree", example.toString());
        } finally {
            System.clearProperty(dev.heapload.io.HeapBudget.NEED_PROPERTY);
            System.clearProperty(dev.heapload.io.HeapBudget.LIMIT_PROPERTY);
        }
        assertEquals(1, r.code(), r.err());
        assertEquals("heapload: not enough memory for these dumps: they need about 9.0 GiB of Java heap (estimated from "
            + "their size), more than the 6.0 GiB this machine gives heapload (3/4 of its memory or cgroup limit, less 1 GiB "
            + "kept off the heap); nothing was read and the store is as it was; HEAPLOAD_XMX=14g heapload … tries anyway"
            + System.lineSeparator(), r.err());
        assertEquals("", r.out());
        assertFalse(Files.exists(fresh), "a refused load made the store directory");
        assertEquals(0, fits.code(), "a need equal to the limit is read: " + fits.err());
        assertStoreUnchanged();
    }

    @Test
    void aFifoIsRefusedBeforeItIsOpened() throws Exception {
        Path fifo = tmp.resolve("pipe.json");
        Process mk;
        try {
            mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        } catch (IOException e) {
            Assumptions.abort("mkfifo not available: " + e.getMessage());
            return;
        }
        Assumptions.assumeTrue(mk.waitFor() == 0, "mkfifo failed");
        Run r = run("--db", db.toString(), fifo.toString());
        assertEquals(1, r.code());
        assertEquals("heapload: " + fifo + ": not a regular file (a pipe, FIFO or device); heapload reads a dump more "
            + "than once: save it to a file first" + System.lineSeparator(), r.err());
        assertStoreUnchanged();
    }

    @Test
    void aNameTooLongForAFileNameIsAUsageErrorBeforeReading() throws Exception {
        // 100 'é' = 200 UTF-8 bytes = 600 bytes as %XX, + ".hsnap"; the file does not even exist: nothing is read
        Run r = run("--db", db.toString(), "--name", "é".repeat(100), tmp.resolve("no-such.json").toString());
        assertEquals(2, r.code());
        assertEquals("heapload: --name is too long for a file name: its snapshot file name would be 606 bytes, at most 227 "
            + "(letters, digits, '-', '_' and '.' take 1 byte, every other UTF-8 byte 3, as %XX)", r.err().lines().findFirst().orElse(""));
        // 75 'é' = 456 bytes: still too long although 75 characters are under the 120-character limit
        assertEquals(2, run("--db", db.toString(), "--name", "é".repeat(75), example.toString()).code());
        Run mp = run("micropython", "--db", db.toString(), "--name", "é".repeat(100), "--regions",
            tmp.resolve("no-such").resolve("regions.json").toString());
        assertEquals(2, mp.code(), mp.err());
        assertTrue(mp.err().startsWith("heapload: --name is too long for a file name: its snapshot file name would be 606 bytes"),
            mp.err());
        // 37 'é' + 'a' = 222 + 1 + 6 = 229 bytes
        assertEquals(2, run("--db", db.toString(), "--name", "é".repeat(37) + "a", example.toString()).code());
        // blank or blank-edged names would show as an empty cell or as another id
        for (String blank : List.of(" ", "a ", "\u3000a")) {
            Run b = run("--db", db.toString(), "--name", blank, example.toString());
            assertEquals(2, b.code(), b.err());
            assertEquals("heapload: --name must not start or end with a blank (it would not show in listings)",
                b.err().lines().findFirst().orElse(""));
        }
        assertStoreUnchanged();
    }

    @Test
    void anUnknownBaselineIsRefusedBeforeReadingAndMakesNoStore() throws Exception {
        Path fresh = tmp.resolve("no-store-yet");
        Run r = run("--db", fresh.toString(), "--baseline", "nosuch", example.toString());
        assertEquals(1, r.code(), r.err());
        assertEquals("heapload: no snapshot 'nosuch' in " + fresh + System.lineSeparator(), r.err());
        assertFalse(Files.exists(fresh), "a refused load made the store directory");
        Run existing = run("--db", db.toString(), "--name", "other", "--baseline", "nosuch", example.toString());
        assertEquals(1, existing.code(), existing.err());
        assertEquals("heapload: no snapshot 'nosuch' in " + db + System.lineSeparator(), existing.err());
        assertStoreUnchanged();
    }

    @Test
    @Tag("process")
    void outOfMemoryIsOneLineWithThePhaseAndHeaploadXmx() throws Exception {
        // a 48 Mi-character string (under the 64 Mi limit): Jackson's buffer for it needs over 96 MiB of a 64 MiB heap
        Path big = tmp.resolve("big.json");
        try (var out = Files.newOutputStream(big)) {
            out.write("{\"objects\":{\"0x1\":{\"type\":\"string\",\"cat\":0,\"size\":40,\"data\":\"".getBytes(StandardCharsets.US_ASCII));
            byte[] block = "abcdefgh".repeat(1 << 17).getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < 48; i++) {
                out.write(block);
            }
            out.write("\"}},\"roots\":{}}".getBytes(StandardCharsets.US_ASCII));
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx64m", ChildHeapLoad.FAST_START, "-cp", System.getProperty("java.class.path"),
            "dev.heapload.cli.HeapLoad", "--db", db.toString(), "--no-progress", big.toString());
        pb.environment().put("HEAPLOAD_XMX", "64m");
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        long start = System.nanoTime();
        Process p = pb.start();
        String err;
        try (InputStream e = p.getErrorStream()) {
            err = new String(e.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "exits"); // a hang bound
        System.out.printf("InputLimitsCommandTest: out of memory reported %.1f s after the start (JVM start included)%n",
            (System.nanoTime() - start) / 1e9);
        assertEquals(1, p.exitValue(), err);
        assertTrue(err.matches("heapload: out of memory in phase 'read big\\.json' \\(Java heap \\d+ MiB, HEAPLOAD_XMX=64m\\); "
            + "the store is as it was; raise the heap with HEAPLOAD_XMX, e\\.g\\. HEAPLOAD_XMX=2048m heapload …\\R"), err);
        assertStoreUnchanged();
    }
}
