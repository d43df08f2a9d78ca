package dev.heapload.micropython;

import java.util.Map;
import java.util.TreeMap;

/**
 * Block-by-block difference of two heap maps of the same device (areas matched by pool start; blocks by
 * index): how many blocks went from free to used and back, how many used blocks hold another allocation
 * (other letter or other head/tail), and the change of allocations per heap-map letter.
 *
 * @param newlyUsedBlocks free in the first map, used (head or tail) in the second
 * @param freedBlocks     used in the first, free in the second
 * @param changedBlocks   used in both but with another letter
 * @param unmatchedAreas  areas of the second map with no area of the same pool start and size in the first
 * @param allocationDelta per letter: allocations in the second map minus the first
 */
public record HeapMapDiff(long newlyUsedBlocks, long freedBlocks, long changedBlocks, int unmatchedAreas,
                          Map<Character, Long> allocationDelta) {

    /** Compares {@code after} against {@code before}. */
    public static HeapMapDiff compare(HeapMap before, HeapMap after) {
        long used = 0;
        long freed = 0;
        long changed = 0;
        int unmatched = 0;
        for (HeapMap.Area b : after.areas()) {
            HeapMap.Area a = null;
            for (HeapMap.Area x : before.areas()) {
                if (x.poolStart() == b.poolStart() && x.blocks() == b.blocks()) {
                    a = x;
                }
            }
            if (a == null) {
                unmatched++;
                continue;
            }
            for (int i = 0; i < b.blocks(); i++) {
                byte x = a.letters()[i];
                byte y = b.letters()[i];
                if (x == '.' && y != '.') {
                    used++;
                } else if (x != '.' && y == '.') {
                    freed++;
                } else if (x != y) {
                    changed++;
                }
            }
        }
        Map<Character, Long> delta = new TreeMap<>();
        after.kindCounts().forEach((k, v) -> delta.merge(k, v[0], Long::sum));
        before.kindCounts().forEach((k, v) -> delta.merge(k, -v[0], Long::sum));
        delta.values().removeIf(v -> v == 0);
        return new HeapMapDiff(used, freed, changed, unmatched, delta);
    }
}
