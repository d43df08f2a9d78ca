package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.ByteSums;

/**
 * Issue 16 item 4 end to end: a Luau dump whose three objects of 2^62 bytes each sum past 2^63-1 loads (with
 * {@code --trust-sizes}, since they are larger than the VM's own total), the load summary carries the saturation
 * warning, and the byte totals in the store are capped at 2^63-1, never negative.
 */
class SizeOverflowCommandTest {

    @TempDir
    Path tmp;

    @Test
    void byteTotalsSaturateWithAWarning() throws Exception {
        long big = 1L << 62;
        Path dump = Files.writeString(tmp.resolve("huge.json"), "{\"objects\":{\n"
            + "\"0x1\":{\"type\":\"table\",\"cat\":0,\"size\":" + big + ",\"array\":[\"0x2\",\"0x3\"]},\n"
            + "\"0x2\":{\"type\":\"buffer\",\"cat\":0,\"size\":" + big + "},\n"
            + "\"0x3\":{\"type\":\"buffer\",\"cat\":0,\"size\":" + big + "}},\n"
            + "\"roots\":{\"registry\":\"0x1\"},\n"
            + "\"stats\":{\"size\":100000,\"categories\":{}}}\n", StandardCharsets.UTF_8);
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", "--trust-sizes",
            dump.toString());
        assertEquals(0, load.code(), load.err());
        assertTrue(load.out().contains("    warning: " + ByteSums.SATURATED_WARNING + "\n"), load.out());
        HeapLoadCommandTest.Run totals = HeapLoadCommandTest.run("cypher", "MATCH (s:Snapshot {id: 'huge'}) "
            + "RETURN s.totalBytes AS total", "--format", "csv", "--db", db.toString());
        assertEquals(0, totals.code(), totals.err());
        assertEquals("total\n" + Long.MAX_VALUE + "\n", totals.out());
        HeapLoadCommandTest.Run summary = HeapLoadCommandTest.run("query", "summary", "-p", "snapshot=huge", "--format",
            "csv", "--db", db.toString());
        assertEquals(0, summary.code(), summary.err());
        assertTrue(summary.out().contains("\nall,,3," + Long.MAX_VALUE + ","), summary.out());
        assertTrue(!summary.out().contains(",-"), "a negative byte count: " + summary.out());
    }
}
