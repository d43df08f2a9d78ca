package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Implausible sizes. A generated Luau pair: the target adds a userdata printed with size
 * -2147483648 (corrected to 2 GiB) and a buffer of 200,000 bytes, both larger than the VM's total of 100,000 bytes.
 * They are listed in the summary, weigh nothing in leak groups, rankings and gates, unless {@code --trust-sizes}.
 * The trusted load also records {@code --producer} and {@code --vm-version}.
 */
class SuspectSizesTest {

    @TempDir
    static Path tmp;

    static Path before;
    static Path after;

    static final String WARNING = "    warning: suspect sizes: 2 object(s) larger than the VM's own total (100,000 bytes)"
        + " or printed negative: counted as 0 bytes in retained sizes, rankings, leak groups and gates (--trust-sizes keeps"
        + " them): 0x5 userdata 2,147,483,648 bytes; 0x6 buffer 200,000 bytes";

    @BeforeAll
    static void dumps() throws Exception {
        before = tmp.resolve("before.json");
        after = tmp.resolve("after.json");
        Files.writeString(before, dump(false), StandardCharsets.UTF_8);
        Files.writeString(after, dump(true), StandardCharsets.UTF_8);
    }

    static String dump(boolean after) {
        return "{\"objects\":{\n"
            + "\"0x1\":{\"type\":\"table\",\"cat\":0,\"size\":56,\"pairs\":[\"0x2\",\"0x3\"]},\n"
            + "\"0x2\":{\"type\":\"string\",\"cat\":0,\"size\":32,\"data\":\"handles\"},\n"
            + "\"0x3\":{\"type\":\"table\",\"cat\":0,\"size\":" + (after ? 88 : 56)
            + (after ? ",\"array\":[\"0x5\",\"0x6\"]" : "") + "},\n"
            + (after ? "\"0x5\":{\"type\":\"userdata\",\"cat\":0,\"size\":-2147483648,\"tag\":0},\n"
                + "\"0x6\":{\"type\":\"buffer\",\"cat\":0,\"size\":200000},\n" : "")
            + "\"0\":{\"type\":\"userdata\",\"cat\":0,\"size\":0}},\n"
            + "\"roots\":{\"registry\":\"0x1\"},\n"
            + "\"stats\":{\"size\":100000,\"categories\":{}}}\n";
    }

    @Test
    void excludedUnlessTrusted() throws Exception {
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress", before.toString(),
            after.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\n" + WARNING + "\n"), r.out());
        assertTrue(r.out().startsWith("leaks: after relative to before: 2 new reachable objects, 0 bytes, in 2 leak group(s)\n"),
            r.out());
        HeapLoadCommandTest.Run top = HeapLoadCommandTest.run("query", "largest-retainers", "-p", "snapshot=after", "-p",
            "top=1", "--format", "csv", "--db", db.toString());
        assertEquals(0, top.code(), top.err());
        assertEquals("address,type,label,size,retainedSize,path\n0x1,table,,56,176,registry\n", top.out());
        HeapLoadCommandTest.Run gate = HeapLoadCommandTest.run("report", "--baseline-id", "before", "--target-id", "after",
            "--db", db.toString(), "--out", tmp.resolve("r1").toString(), "--format", "json", "--fail-on", "new-bytes>1MiB");
        assertEquals(0, gate.code(), gate.out() + gate.err());

        Path trusted = tmp.resolve("trusted");
        HeapLoadCommandTest.Run t = HeapLoadCommandTest.run("--db", trusted.toString(), "--no-progress", "--trust-sizes",
            "--producer", "Studio 0.650", "--vm-version", "luau 0.650", before.toString(), after.toString());
        assertEquals(0, t.code(), t.err());
        // --producer and --vm-version on the Snapshot node and in the catalog
        try (dev.heapload.store.embedded.GraphStore store = dev.heapload.store.embedded.GraphStore.open(trusted)) {
            var summary = store.snapshot("after").orElseThrow();
            assertEquals("Studio 0.650", summary.producer());
            assertEquals("luau 0.650", summary.vmVersion());
        }
        Path query = tmp.resolve("producer.cypher");
        Files.writeString(query, "// name: producer\n// description: the producer of a snapshot\n"
            + "// param: snapshot string\n// columns: producer, vmVersion\n"
            + "MATCH (s:Snapshot {id: $snapshot}) RETURN s.producer AS producer, s.vmVersion AS vmVersion\n");
        HeapLoadCommandTest.Run p = HeapLoadCommandTest.run("query", query.toString(), "-p", "snapshot=before", "--format",
            "csv", "--db", trusted.toString());
        assertEquals("producer,vmVersion\nStudio 0.650,luau 0.650\n", p.out(), p.err());
        assertTrue(!t.out().contains("suspect sizes"), t.out());
        assertTrue(t.out().startsWith("leaks: after relative to before: 2 new reachable objects, 2,147,683,648 bytes, in 2 "
            + "leak group(s)\n"), t.out());
        HeapLoadCommandTest.Run failed = HeapLoadCommandTest.run("report", "--baseline-id", "before", "--target-id", "after",
            "--db", trusted.toString(), "--out", tmp.resolve("r2").toString(), "--format", "json", "--fail-on",
            "new-bytes>1MiB");
        assertEquals(3, failed.code(), failed.out() + failed.err());
    }
}
