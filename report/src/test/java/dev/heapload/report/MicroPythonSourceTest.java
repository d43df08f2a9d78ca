package dev.heapload.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;
import dev.heapload.queries.ReportDefinition;

/**
 * A MicroPython snapshot loaded by a relative path keeps its dump's absolute path as its source, so the report's
 * {@code @micropython-heap} section finds the memory images from any working directory.
 */
class MicroPythonSourceTest {

    @Test
    void theSourceIsAbsoluteAndTheHeapSectionReadsItAgain() throws Exception {
        Path regions = Path.of(System.getProperty("heapload.shared", "../../shared"), "testdata", "micropython",
            "unix-x64-standard", "dump2", "regions.json").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isRegularFile(regions), "no ../shared/testdata (fresh clone): MicroPython source test skipped");
        Path relative = Path.of("").toAbsolutePath().relativize(regions);
        HeapSnapshot s = DumpReaders.read(relative, "dump2", Progress.NONE, null);
        assertEquals(regions.toString(), s.info().source());
        LeakReport.Snapshot target = new LeakReport.Snapshot("dump2", "micropython", s.info().source(), s.info().sha256(),
            s.objectCount(), s.totalShallowBytes());
        LeakReport.Section section = ReportBuilder.microPythonHeap(
            new ReportDefinition.Section("@micropython-heap", "MicroPython heap", Map.of()), target);
        assertNotNull(section.svg(), String.valueOf(section.result().rows()));
        assertTrue(section.result().rows().toString().contains("largest free run"), section.result().rows().toString());
    }
}
