package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A leak 100,000 hops deep (DeepChainCommandTest's leak is one group two hops from its
 * root, 100,000 objects below it): the baseline holds DeepChainCommandTest's chain of 100,000 tables under
 * {@code registry.head}, each the next's {@code prev}; the target adds one table of 64 bytes at the chain's end. The
 * leak answer and the report name one group of one object whose path is the root, {@code head} and 100,000
 * {@code prev} hops, printed and stored whole.
 */
class DeepLeakPathCommandTest {

    @TempDir
    Path tmp;

    /** DeepChainCommandTest's chain of {@code length} tables. */
    static String chain(int length) {
        StringBuilder b = new StringBuilder(length * 96);
        String a = DeepChainCommandTest.address(0);
        b.append("{\"objects\":{\n");
        b.append(a).append(":{\"type\":\"string\",\"cat\":0,\"size\":20,\"data\":\"prev\"},\n");
        b.append(DeepChainCommandTest.address(1)).append(":{\"type\":\"string\",\"cat\":0,\"size\":20,\"data\":\"head\"},\n");
        b.append(DeepChainCommandTest.address(2)).append(":{\"type\":\"thread\",\"cat\":0,\"size\":100,\"env\":")
            .append(DeepChainCommandTest.address(3)).append(",\"stack\":[],\"stacknames\":[]},\n");
        b.append(DeepChainCommandTest.address(3)).append(":{\"type\":\"table\",\"cat\":0,\"size\":80,\"pairs\":[")
            .append(DeepChainCommandTest.address(1)).append(',').append(DeepChainCommandTest.address(10)).append("]}");
        for (int i = 0; i < length; i++) {
            b.append(",\n").append(DeepChainCommandTest.address(10 + i)).append(":{\"type\":\"table\",\"cat\":0,\"size\":64");
            if (i + 1 < length) {
                b.append(",\"pairs\":[").append(a).append(',').append(DeepChainCommandTest.address(11 + i)).append(']');
            }
            b.append('}');
        }
        long total = 300 + 64L * length;
        b.append("\n},\"roots\":{\"mainthread\":").append(DeepChainCommandTest.address(2)).append(",\"registry\":")
            .append(DeepChainCommandTest.address(3)).append("},\"stats\":{\"size\":").append(total)
            .append(",\"categories\":{\"0\":{\"name\":\"main\",\"size\":").append(total).append("}}}}\n");
        return b.toString();
    }

    @Test
    void theLeakAnswerAndTheReportPrintTheWholeDeepPath() throws Exception {
        int n = DeepChainCommandTest.CHAIN;
        Path before = Files.writeString(tmp.resolve("before.json"), chain(n), StandardCharsets.UTF_8);
        Path after = Files.writeString(tmp.resolve("after.json"), chain(n + 1), StandardCharsets.UTF_8);
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--no-progress", "--db", db.toString(), before.toString(),
            after.toString());
        assertEquals(0, load.code(), load.err());
        String out = load.out();
        String head = "leaks: after relative to before: 1 new reachable objects, 64 bytes, in 1 leak group(s)\n"
            + "  group 1: 1 objects, 64 new bytes, 64 retained bytes, 1 table head(s), path:\n"
            + "      root registry (table)\n      head in table\n";
        int at = out.indexOf(head);
        assertTrue(at >= 0, out.length() > 4000 ? out.substring(0, 4000) : out);
        List<String> lines = List.of(out.substring(at + head.length()).split("\n"));
        for (int i = 0; i < n; i++) {
            assertEquals("      prev in table", lines.get(i), "hop " + (i + 2));
        }
        assertEquals("    heads: memory category 0 (main)", lines.get(n));
        assertTrue(lines.get(n + 1).startsWith("    example head 0x"), lines.get(n + 1));

        Path report = tmp.resolve("report");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("report", "--db", db.toString(), "--out", report.toString(),
            "--baseline-id", "before", "--target-id", "after", "--format", "md,json");
        assertEquals(0, r.code(), r.err());
        JsonNode group = new ObjectMapper().readTree(report.resolve("report.json").toFile()).get("leakGroups").get(0);
        assertEquals(1, group.get("objects").asLong());
        assertEquals(n + 2, group.get("path").size());
        assertEquals("root registry (table)", group.get("path").get(0).asText());
        assertEquals("prev in table", group.get("path").get(n + 1).asText());
        String md = Files.readString(report.resolve("report.md"), StandardCharsets.UTF_8);
        assertTrue(md.contains("head in table\n" + "prev in table\n".repeat(n) + "```"), "the Markdown path, whole");
    }
}
