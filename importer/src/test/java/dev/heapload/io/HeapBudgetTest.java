package dev.heapload.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class HeapBudgetTest {

    @Test
    void refusesOnlyANeedAboveAKnownLimit() {
        long gib = 1L << 30;
        assertNull(HeapBudget.refusal(6 * gib, 6 * gib), "equal fits");
        assertNull(HeapBudget.refusal(100 * gib, 0), "no limit known");
        assertNull(HeapBudget.refusal(-1, 6 * gib), "no estimate");
        assertEquals("not enough memory for these dumps: they need about 7.5 GiB of Java heap (estimated from their size),"
            + " more than the 4.2 GiB this machine gives heapload (3/4 of its memory or cgroup limit, less 1 GiB kept off"
            + " the heap); nothing was read and the store is as it was; HEAPLOAD_XMX=12g heapload … tries anyway",
            HeapBudget.refusal(15 * gib / 2, 4300L << 20));
    }
}
