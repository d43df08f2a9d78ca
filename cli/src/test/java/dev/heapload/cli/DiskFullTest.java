package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.heapload.store.Catalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk, simulated by a 20 MiB tmpfs (needs root to mount; skipped with one line otherwise): load, --replace,
 * snapshots --delete and query each end in one line and exit code 1, and afterwards, with space again, the store's
 * snapshot list, a summary query's rows and the snapshot files' checksums are those of before, with no leftovers.
 * The timeouts bound a hang (Neo4j's page cache retries a failed flush forever), they do not measure time.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("process")
class DiskFullTest {

    @TempDir
    static Path tmp;
    static Path disk;
    static Path db;
    static Path testdata = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
    static boolean mounted;
    /** {@link #state} once the delete of 'before' ran: each later test leaves it as it was, so it is read once. */
    private static String stateAfterTheDelete;

    @BeforeAll
    static void mountSmallDisk() throws Exception {
        disk = tmp.resolve("disk");
        Files.createDirectories(disk);
        boolean root = "root".equals(System.getProperty("user.name"));
        if (root) {
            Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", disk.toString())
                .redirectErrorStream(true).start();
            mounted = p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0;
        }
        if (!mounted) {
            System.out.println("DiskFullTest skipped: cannot mount a small tmpfs (needs root and mount)");
        }
        Assumptions.assumeTrue(mounted, "cannot mount a small tmpfs (needs root and mount)");
        db = disk.resolve("db");
        assertEquals(0, HeapLoadCommandTest.run("--db", db.toString(), testdata.resolve("before.json").toString(),
            testdata.resolve("after.json").toString()).code());
    }

    @AfterAll
    static void unmount() throws Exception {
        if (mounted) {
            new ProcessBuilder("umount", "-l", disk.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** {@link #state} before the first test that needs it (each test asserts that it leaves the store so). */
    private static String stateBefore() throws IOException {
        if (stateAfterTheDelete == null) {
            stateAfterTheDelete = state();
        }
        return stateAfterTheDelete;
    }

    /** Snapshot list, summary rows and file checksums of the store (with free space: a query may start Neo4j). */
    private static String state() throws IOException {
        HeapLoadCommandTest.Run list = HeapLoadCommandTest.run("snapshots", "--db", db.toString());
        assertEquals(0, list.code(), list.err());
        HeapLoadCommandTest.Run summary = HeapLoadCommandTest.run("query", "--db", db.toString(), "--format", "csv",
            "categories", "-p", "snapshot=after");
        assertEquals(0, summary.code(), summary.err());
        TreeMap<String, String> sums = new TreeMap<>();
        try (Stream<Path> files = Files.list(db.resolve("snapshots"))) {
            for (Path f : files.toList()) {
                sums.put(f.getFileName().toString(), sha256(f));
            }
        }
        // the loaded-at column differs per load; ids, counts and bytes must not
        return list.out().replaceAll("\\d{4}-\\d\\d-\\d\\dT[0-9:]+Z", "T") + summary.out() + sums
            + Files.readString(db.resolve("catalog.properties")).replaceAll("(?m)^#.*$", "");
    }

    private static String sha256(Path f) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Top-level entries of the store and its snapshots folder: no graph.building-*, no *.pending-*. */
    private static List<String> leftovers() throws IOException {
        List<String> bad = new ArrayList<>();
        try (Stream<Path> all = Stream.concat(Files.list(db), Files.list(db.resolve("snapshots")))) {
            all.map(p -> p.getFileName().toString())
                .filter(n -> n.startsWith("graph.building-") || n.contains(".pending-") || n.endsWith(".tmp"))
                .forEach(bad::add);
        }
        return bad;
    }

    /** Fills the disk until at most {@code leave} bytes are free; returns the filler file. */
    private static Path fill(long leave) throws IOException {
        Path filler = disk.resolve("filler");
        byte[] block = new byte[64 << 10];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (Files.getFileStore(disk).getUsableSpace() > leave + block.length) {
                out.write(block);
            }
        } catch (IOException full) {
            // ENOSPC: full, which is what we want
        }
        return filler;
    }

    /** Runs heapload in this JVM and prints how long it took to end (for the reader of the test log). */
    private static HeapLoadCommandTest.Run timed(String what, String... args) {
        long start = System.nanoTime();
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run(args);
        System.out.printf("DiskFullTest: %s ended after %.1f s with exit %d%n", what, (System.nanoTime() - start) / 1e9,
            r.code());
        return r;
    }

    private static void assertOneLine(HeapLoadCommandTest.Run r, String regex) {
        assertEquals(1, r.code(), r.err());
        assertEquals("", r.out());
        assertTrue(Pattern.compile(regex).matcher(r.err()).matches(), "not one line matching " + regex + ":\n"
            + r.err());
    }

    @Test
    @Order(2)
    void loadReplaceAndDeleteAreRefusedBeforeWritingAndTheStoreIsUnchanged() throws Exception {
        String before = stateBefore();
        Path filler = fill(1L << 20);
        try {
            String dir = Pattern.quote(db.toAbsolutePath().normalize().toString());
            String tail = ": \\d+\\.\\d [KM]iB free, about \\d\\.\\d MiB needed; nothing was changed\n";
            assertOneLine(timed("a load on a full disk", "--db", db.toString(), "--name", "third",
                testdata.resolve("after.json").toString()),
                "heapload: not enough disk space in " + dir + " for loading 'third'" + tail);
            assertOneLine(timed("a --replace on a full disk", "--db", db.toString(), "--replace",
                testdata.resolve("after.json").toString()),
                "heapload: not enough disk space in " + dir + " for loading \\(or replacing\\) 'after'" + tail);
            // a delete is a catalog commit and the removal of the snapshot's files (docs/design/store.md): it needs no free
            // space, so it is not refused here (and would change the state this test checks)
            assertEquals(List.of(), leftovers());
        } finally {
            Files.delete(filler);
        }
        assertEquals(before, state());
    }

    @Test
    @Order(3)
    void queryOnAFullDiskFailsInOneLineAndBreaksNothing() throws Exception {
        String before = stateBefore();
        Path filler = fill(128L << 10);
        try {
            String dir = Pattern.quote(db.toAbsolutePath().normalize().toString());
            assertOneLine(timed("a query on a full disk", "query", "--db", db.toString(), "categories", "-p", "snapshot=after"),
                "heapload: not enough disk space in " + dir + " to start the graph's database: \\d+\\.\\d KiB free,"
                    + " about 1\\.0 MiB needed; the store is unchanged\n");
        } finally {
            Files.delete(filler);
        }
        assertEquals(before, state());
    }

    /**
     * The estimate passes, then the disk fills while Neo4j writes the graph (another program filling it, here a
     * thread): the snapshot was committed before its answer, so it stays; its graph is built when it is next queried.
     */
    @Test
    @Order(4)
    void aDiskThatFillsDuringTheGraphWriteEndsTheLoadInOneLineAndKeepsTheSnapshot() throws Exception {
        String before = stateBefore();
        List<String> cmd = ChildHeapLoad.command("--db", db.toString(), "--name", "third",
            testdata.resolve("after.json").toString());
        Path childLog = tmp.resolve("child.log");
        Process p = new ProcessBuilder(cmd).redirectOutput(tmp.resolve("child.out").toFile())
            .redirectError(childLog.toFile()).start();
        Path filler = null;
        try {
            boolean sawBuild = ChildHeapLoad.awaitGraphBuild(p, db, 600);
            assertTrue(sawBuild, "the child never started building: " + Files.readString(childLog));
            filler = fill(0);
            long full = System.nanoTime();
            assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the load hung on the full disk");
            System.out.printf("DiskFullTest: a load whose disk filled during the graph write ended %.1f s after the "
                + "disk was full%n", (System.nanoTime() - full) / 1e9);
            String err = Files.readString(childLog);
            assertEquals(1, p.exitValue(), err);
            String dir = Pattern.quote(db.toAbsolutePath().normalize().toString());
            assertTrue(Pattern.compile("heapload: disk full in " + dir + " while writing the graph of 'third': \\d+\\.\\d"
                + " MiB free at the start, about \\d\\.\\d MiB needed; the snapshot is stored, its graph is built when it is"
                + " next queried\n").matcher(err).matches(), err);
            assertTrue(Files.readString(tmp.resolve("child.out")).contains("leaks: third relative to after: "),
                "the answer came first");
        } finally {
            p.destroyForcibly();
            if (filler != null) {
                Files.delete(filler);
            }
        }
        // a half-built graph is deleted by the failed load itself; the next command would remove one too
        assertEquals(List.of(), leftovers());
        assertEquals(List.of("after", "third"), Catalog.read(db).entries.stream().map(Catalog.Entry::id).toList());
        assertEquals(null, Catalog.read(db).find("third").graph());
        // the snapshot that was there keeps its model file; listing and querying the store work (state() checks)
        String after = state();
        assertTrue(after.contains("after.hsnap=" + before.replaceAll("(?s).*after\\.hsnap=([0-9a-f]+).*", "$1")), after);
    }

    /**
     * A delete is a catalog commit and the removal of the snapshot's files (docs/design/store.md): on a disk with no byte
     * free it still works, and the other snapshot's summary rows and file stay as they were, with no leftovers.
     */
    @Test
    @Order(1)
    void aDeleteOnAFullDiskWorksAndLeavesTheOtherSnapshotAsItWas() throws Exception {
        Assumptions.assumeTrue(Files.exists(db.resolve("snapshots").resolve("before.hsnap")), "'before' was deleted already");
        String summary = afterSummaryAndFile();
        Path filler = fill(0);
        try {
            HeapLoadCommandTest.Run r = timed("a delete on a full disk", "snapshots", "--db", db.toString(), "--delete",
                "before");
            assertEquals(0, r.code(), r.err());
        } finally {
            Files.delete(filler);
        }
        assertEquals(List.of(), leftovers());
        assertEquals(summary, afterSummaryAndFile());
        HeapLoadCommandTest.Run list = HeapLoadCommandTest.run("snapshots", "--db", db.toString());
        assertEquals(0, list.code(), list.err());
        assertTrue(list.out().contains("after") && !list.out().contains("before"), list.out());
        assertTrue(Files.notExists(db.resolve("snapshots").resolve("before.hsnap")));
    }

    /** The summary query's rows for 'after' and the checksum of its snapshot file. */
    private static String afterSummaryAndFile() throws IOException {
        HeapLoadCommandTest.Run summary = HeapLoadCommandTest.run("query", "--db", db.toString(), "--format", "csv",
            "categories", "-p", "snapshot=after");
        assertEquals(0, summary.code(), summary.err());
        return summary.out() + sha256(db.resolve("snapshots").resolve("after.hsnap"));
    }
}
