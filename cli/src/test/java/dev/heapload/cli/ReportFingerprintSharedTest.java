package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The same leak in two runs of a program gets the same fingerprint: event-listeners (8 dialogs, 16 leaked widgets) and
 * event-listeners-medium (2000 dialogs, 4000 widgets; another process, other addresses) of ../shared/testdata/luau.
 * Skipped with a message when ../shared is absent.
 */
class ReportFingerprintSharedTest {

    @TempDir
    Path tmp;

    static Path shared(String name) {
        String s = System.getProperty("heapload.shared");
        Path dir = s == null ? null : Path.of(s, "testdata", "luau", name);
        Assumptions.assumeTrue(dir != null && Files.isDirectory(dir),
            "shared test data not found (heapload.shared = " + s + "): report fingerprint test on " + name + " skipped");
        return dir;
    }

    JsonNode report(String name, String after) throws Exception {
        Path dir = shared(name);
        Path out = tmp.resolve(name);
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("report", "--db", tmp.resolve("db-" + name).toString(), "--out",
            out.toString(), "--format", "json", dir.resolve("before.json").toString(), dir.resolve(after).toString());
        assertEquals(0, r.code(), r.err());
        return new ObjectMapper().readTree(out.resolve("report.json").toFile());
    }

    @Test
    void themeChangedGroupHasTheSameFingerprintInBothRuns() throws Exception {
        shared("event-listeners");
        shared("event-listeners-medium");
        JsonNode small = report("event-listeners", "after.json");
        JsonNode medium = report("event-listeners-medium", "after.json.gz");
        JsonNode a = small.at("/leakGroups/0");
        JsonNode b = medium.at("/leakGroups/0");
        assertEquals("registry/_MODULES/EventBus/ThemeChanged/handlers/[array]", a.get("name").asText());
        assertEquals(a.get("name"), b.get("name"));
        assertEquals(16, a.get("heads").asLong());
        assertEquals(4000, b.get("heads").asLong());
        assertEquals(38000, b.get("objects").asLong());
        assertNotEquals(small.at("/target/sha256"), medium.at("/target/sha256"));
        assertEquals(ReportCommandTest.THEME, a.get("fingerprint").asText());
        assertEquals(a.get("fingerprint"), b.get("fingerprint"));
        // the other two groups match too
        assertEquals(small.at("/leakGroups/1/fingerprint"), medium.at("/leakGroups/1/fingerprint"));
        assertEquals(small.at("/leakGroups/2/fingerprint"), medium.at("/leakGroups/2/fingerprint"));
        assertEquals(46002, medium.at("/headline/newObjects").asLong(), "per the case README");
    }
}
