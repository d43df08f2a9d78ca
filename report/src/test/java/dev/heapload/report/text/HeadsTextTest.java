package dev.heapload.report.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.SnapshotComparison;

/**
 * The leak answer's {@code heads:} line ({@link LeakAnswer#headsText}): one class, several classes with heads that have
 * none, and a class name from the dump (a metatable's {@code __name}) shown escaped.
 */
class HeadsTextTest {

    private static SnapshotComparison.LeakGroup group(long heads, List<Map.Entry<String, Long>> classes) {
        return new SnapshotComparison.LeakGroup(heads, 0, 0, heads, "table", List.of(), -1, classes, List.of());
    }

    @Test
    void classesOfTheHeads() {
        assertEquals("class Enemy", LeakAnswer.headsText(group(16, List.of(Map.entry("Enemy", 16L))), null));
        assertEquals("classes Enemy ×10, Entity ×4, ×2 without a class", LeakAnswer.headsText(
            group(16, List.of(Map.entry("Enemy", 10L), Map.entry("Entity", 4L))), null));
        assertEquals("class Enemy ×3, ×1 without a class",
            LeakAnswer.headsText(group(4, List.of(Map.entry("Enemy", 3L))), null));
        assertEquals("class Evil\\nName\\x1b[31m",
            LeakAnswer.headsText(group(1, List.of(Map.entry("Evil\nName\u001b[31m", 1L))), null));
        assertNull(LeakAnswer.headsText(group(1, List.of()), null));
    }
}
