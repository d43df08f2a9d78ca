package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.ClassHistogram;
import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.ObjectClasses;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The class histogram on a real MicroPython dump (shared unix-x64-standard, heapdemo.py): instances by their class,
 * 5000 {@code Point}s (32 bytes each, with their 32-byte attribute table: 64 retained), 20 {@code Sensor}s, one
 * {@code LoggingSensor}; builtin objects have no class.
 */
class ClassHistogramMicroPythonTest {

    @Test
    void heapdemoClasses() {
        for (int n = 1; n <= 2; n++) {
            HeapSnapshot s = MicroPythonCases.dump("unix-x64-standard", n).snapshot();
            HeapAnalysis a = HeapAnalyzer.analyze(s, Progress.NONE);
            assertEquals(List.of(
                new ClassHistogram.Row("Point", "Point", 5000, 160000, 5000, 160000, 320000),
                new ClassHistogram.Row("Sensor", "Sensor", 20, 640, 20, 640, 7680),
                new ClassHistogram.Row("LoggingSensor", "LoggingSensor", 1, 32, 1, 32, 288)),
                ClassHistogram.compute(s, a, ObjectClasses.compute(s, a)).rows(), "dump" + n);
        }
    }
}
