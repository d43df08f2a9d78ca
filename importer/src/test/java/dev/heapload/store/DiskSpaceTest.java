package dev.heapload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The disk-space estimate (factors measured on the shared dumps, see {@link DiskSpace}) and the ENOSPC test. */
class DiskSpaceTest {

    private static Catalog.Entry entry(String id, long objects, long references) {
        return new Catalog.Entry(new SnapshotSummary(id, "luau", "x", "0", Instant.EPOCH, objects, references, 0, 0,
            true), id + ".hsnap", 1);
    }

    @Test
    void estimateMatchesTheMeasuredLargeDump() {
        // entity-system-large before: 1,200,622 objects, 4,400,974 references; measured 697.6 MB graph, 107.9 MB file
        Catalog.Entry large = entry("large", 1_200_622, 4_400_974);
        assertEquals((4L << 20) + 1_200_622L * 300 + 4_400_974L * 75, DiskSpace.needed(List.of(large), List.of()));
        assertEquals(694_453_954L + 107_245_112L, DiskSpace.needed(List.of(large), List.of(large)));
        // a rebuild of two snapshots needs both graphs, and a file only for the new one
        Catalog.Entry small = entry("small", 871, 2_016);
        assertEquals(694_453_954L + 871L * 300 + 2_016L * 75 + 871L * 60 + 2_016L * 8,
            DiskSpace.needed(List.of(large, small), List.of(small)));
        assertEquals(Long.MAX_VALUE, DiskSpace.needed(List.of(entry("huge", Long.MAX_VALUE / 2, 1)), List.of()));
    }

    @Test
    void recognisesDiskFullFailures() {
        assertTrue(DiskSpace.isDiskFull(new IOException("Neo4j import failed",
            new UncheckedIOException(new IOException("No space left on device")))));
        assertFalse(DiskSpace.isDiskFull(new IOException("Permission denied")));
        assertEquals("764.6 MiB", DiskSpace.bytes(801_699_066L));
        assertEquals("0 bytes", DiskSpace.bytes(0));
    }
}
