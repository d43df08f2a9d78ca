package dev.heapload.report.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.SnapshotComparison;

/**
 * The leak answer's {@code heads:} line ({@link LeakAnswer#headsText}): one class, several classes with heads that have
 * none, and a class name from the dump (a metatable's {@code __name}) shown escaped and cut; at most five named.
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
        // the five classes with most heads are named, the rest counted; a long name is cut with its length
        List<Map.Entry<String, Long>> seven = List.of(Map.entry("A", 7L), Map.entry("B", 6L), Map.entry("C", 5L),
            Map.entry("D", 4L), Map.entry("E", 3L), Map.entry("F", 2L), Map.entry("G", 1L));
        assertEquals("classes A ×7, B ×6, C ×5, D ×4, E ×3, \u2026 2 more", LeakAnswer.headsText(group(28, seven), null));
        assertEquals("class " + "x".repeat(25) + "\u2026 (1,000 chars)",
            LeakAnswer.headsText(group(2, List.of(Map.entry("x".repeat(1000), 2L))), null));
    }
}
