package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launchers' heap sizing ({@code src/dist/lib/heap.sh}, sourced by {@code bin/heapload} and {@code ./heapload}):
 * its arithmetic, the decoded size of a gzip file and the input it counts, run by bash.
 */
@Tag("process")
class HeapSizeScriptTest {

    static final Path SCRIPT = Path.of("src/dist/lib/heap.sh").toAbsolutePath();

    @TempDir
    Path tmp;

    /**
     * Runs {@code body} in bash after sourcing the script (with {@code set -euo pipefail}, as the launchers do), on a
     * machine of 24,683,748 KiB (the project machine's MemTotal) whatever this one has.
     */
    static String bash(Path dir, String body) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "set -euo pipefail; . '" + SCRIPT + "'; "
            + "heapload_machine_memory() { HEAPLOAD_MACHINE_MEMORY=" + MACHINE_24 + "; }; " + body);
        pb.directory(dir.toFile());
        pb.environment().remove("HEAPLOAD_XMX");
        pb.environment().remove("HEAPLOAD_DB");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(5, TimeUnit.MINUTES);
        assertEquals(0, p.exitValue(), out);
        return out.strip();
    }

    static final long MACHINE_24 = 24_683_748L * 1024;

    static final String SIZE = "heapload_heap_size %d %d; echo $HEAPLOAD_HEAP_XMX_MIB $HEAPLOAD_HEAP_NEED $HEAPLOAD_HEAP_LIMIT_MIB";

    @Test
    void heapFromInputAndMachine() throws Exception {
        long machine24 = MACHINE_24;
        // nothing to read: the floor; limit 3/4 of 24,105 MiB less 1 GiB
        assertEquals("1200 0 17054", bash(tmp, String.format(SIZE, 0, machine24)));
        // the large pair (481 MB of JSON): just above the floor
        assertEquals("1246 481478196 17054", bash(tmp, String.format(SIZE, 481_478_196L, machine24)));
        // the 10x pair (4.8 GB of JSON): 512 MiB + 1.6 x 4,593 MiB
        assertEquals("7861 4816658221 17054", bash(tmp, String.format(SIZE, 4_816_658_221L, machine24)));
        // on an 8 GiB machine: the limit, 3/4 of 8 GiB less 1 GiB
        assertEquals("5120 4816658221 5120", bash(tmp, String.format(SIZE, 4_816_658_221L, 8L << 30)));
        // a 1 GiB container: never below the floor
        assertEquals("1200 4816658221 1200", bash(tmp, String.format(SIZE, 4_816_658_221L, 1L << 30)));
        // machine memory unknown: no limit
        assertEquals("7861 4816658221 0", bash(tmp, String.format(SIZE, 4_816_658_221L, 0)));
    }

    @Test
    void decodedSizeOfPlainAndGzipFiles() throws Exception {
        Files.writeString(tmp.resolve("a.json"), "{\"objects\":{}}");
        Path gz = tmp.resolve("b.json.gz");
        try (var out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write(new byte[1_000_000]);
        }
        assertEquals("14", bash(tmp, "heapload_decoded_size a.json 14; echo $HEAPLOAD_DECODED_SIZE"));
        assertEquals("1000000", bash(tmp, "heapload_decoded_size b.json.gz $(stat -c %s b.json.gz); echo $HEAPLOAD_DECODED_SIZE"));
        // a 400 MB gzip file whose trailer says 100 bytes: its content is 100 + 4 GiB (the wrap nearest 14:1)
        Path big = tmp.resolve("c.json.gz");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(400_000_000L);
            f.write(new byte[] {0x1f, (byte) 0x8b});
            f.seek(400_000_000L - 4);
            f.write(new byte[] {100, 0, 0, 0});
        }
        assertEquals(Long.toString(100 + (1L << 32)), bash(tmp, "heapload_decoded_size c.json.gz 400000000; echo $HEAPLOAD_DECODED_SIZE"));
        assertEquals("-Xmx1200m", bash(tmp, "heapload_heap --db x a.json b.json.gz no-such.json; echo ${HEAPLOAD_HEAP_OPTS[@]}"));
    }

    @Test
    void countsTheFilesAmongTheArgumentsAndTheStoresTwoLargestModels() throws Exception {
        Path snapshots = Files.createDirectories(tmp.resolve("db").resolve("snapshots"));
        for (String[] f : new String[][] {{"a.hsnap", "300000000"}, {"b.hsnap", "200000000"}, {"c.hsnap", "100000000"},
            {"d.hsnap.pending-1", "900000000"}}) {
            try (RandomAccessFile r = new RandomAccessFile(snapshots.resolve(f[0]).toFile(), "rw")) {
                r.setLength(Long.parseLong(f[1]));
            }
        }
        try (RandomAccessFile r = new RandomAccessFile(tmp.resolve("after.json").toFile(), "rw")) {
            r.setLength(1_000_000_000L);
        }
        // 9 x (300 + 200) MB of models + 1,000 MB of dump = 5.5 GB alive: 512 MiB + 1.6 x 5,245 MiB
        String need = "echo ${HEAPLOAD_HEAP_OPTS[@]} ${HEAPLOAD_HEAP_CHECK[0]}";
        String expected = "-Xmx8904m -Xms8904m -XX:MaxNewSize=1g -Dheapload.heap.need=5500000000";
        assertEquals(expected, bash(tmp, "heapload_heap --db db --name x after.json; " + need));
        assertEquals("-Dheapload.heap.limit=" + (17054L << 20), bash(tmp, "heapload_heap after.json; echo ${HEAPLOAD_HEAP_CHECK[1]}"));
        assertEquals(expected, bash(tmp, "heapload_heap --db=db after.json; " + need));
        assertEquals(expected, bash(tmp, "HEAPLOAD_DB=db heapload_heap after.json; " + need));
        // only the models, for a command that names no file (a report by ids); options are not files
        assertEquals("-Xmx7378m -Xms7378m -XX:MaxNewSize=1g -Dheapload.heap.need=4500000000", bash(tmp, "heapload_heap report --db db --baseline-id a"
            + " --target-id b -after.json; " + need));
        assertEquals("-Xmx3g", bash(tmp, "HEAPLOAD_XMX=3g heapload_heap --db db after.json; echo ${HEAPLOAD_HEAP_OPTS[@]}"
            + " ${HEAPLOAD_HEAP_CHECK[@]}"));
    }
}
