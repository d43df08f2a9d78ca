package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The fragmentation lines' text: counts, buckets and the plural of "run". */
class FreeRunsTest {

    @Test
    void oneRunIsSingularAndEmptyBucketsAreLeftOut() {
        // one free run of 20,000 blocks (bucket 14: 16384-32767), no other free block
        long[] buckets = new long[15];
        buckets[14] = 1;
        assertEquals("fragmentation 0.00 (1 - largest free run 20,000 / 20,000 free blocks, 320,000 bytes); 1-block "
                + "allocations between free runs: 0\nfree runs by length in blocks: 16384-32767: 1 (1 run)\n",
            new FreeRuns(buckets, 1, 20_000, 20_000, 0).text(16).replace(System.lineSeparator(), "\n"));
        assertEquals("fragmentation 0.40 (1 - largest free run 3 / 5 free blocks, 80 bytes); 1-block allocations "
                + "between free runs: 2\nfree runs by length in blocks: 1: 2, 2-3: 1 (3 runs)\n",
            new FreeRuns(new long[] {2, 1}, 3, 5, 3, 2).text(16).replace(System.lineSeparator(), "\n"));
    }
}
