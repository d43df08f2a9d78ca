package dev.heapload.queries;

import static dev.heapload.queries.Golden.column;
import static dev.heapload.queries.Golden.params;
import static dev.heapload.queries.Golden.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;
import dev.heapload.store.embedded.GraphStore;

/**
 * {@code why-alive} on an object 100,000 hops from its root. Neo4j reads a variable-length match's relationship
 * list, and a list grown by {@code list + element}, recursively, one stack frame per element: the saved query
 * must build neither, or it ends in a {@code StackOverflowError} on such paths (seen from about 10,000 hops,
 * depending on what the JIT compiled).
 *
 * <p>The heap (built in the test): root {@code registry} (table {@code 0x1000}) → {@code n0} → {@code n1} → … →
 * {@code n99999}, each by a reference named {@code next}; besides, {@code registry} → {@code b0} → … → {@code b9}
 * → {@code n5}, a longer way round the first five chain nodes. So the retention path of {@code n99999} is the
 * chain itself (registry plus 100,000 nodes: 100,001 steps), but {@code n0}…{@code n4} do not dominate it: its
 * dominator chain is {@code n99999} … {@code n5} (99,995 objects) and then {@code registry}, 99,996 steps.
 */
class DeepRetentionPathTest {

    static final int CHAIN = 100_000;

    @TempDir
    static Path tmp;

    static GraphStore store;

    static String chainAddress(int i) {
        return "0x" + Long.toHexString(0x100000L + 64L * i);
    }

    static String bypassAddress(int i) {
        return "0x" + Long.toHexString(0x10000L + 64L * i);
    }

    @BeforeAll
    static void load() throws Exception {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int kind = b.kind("value");
        int next = b.name("next");
        int registry = b.defineObject("0x1000", "table", 80, 0, null);
        b.addReference(b.objectId(chainAddress(0)), kind, next, 0);
        b.addReference(b.objectId(bypassAddress(0)), kind, b.name("bypass"), 0);
        for (int i = 0; i < 10; i++) {
            b.defineObject(bypassAddress(i), "table", 48, 0, null);
            b.addReference(b.objectId(i < 9 ? bypassAddress(i + 1) : chainAddress(5)), kind, next, 0);
        }
        for (int i = 0; i < CHAIN; i++) {
            b.defineObject(chainAddress(i), "table", 64, 0, null);
            if (i + 1 < CHAIN) {
                b.addReference(b.objectId(chainAddress(i + 1)), kind, next, 0);
            }
        }
        b.addRoot("registry", registry);
        long total = 80 + 48 * 10 + 64L * CHAIN;
        HeapSnapshot s = b.build(new SnapshotInfo("deep", "luau", "deep.json", null, total,
            Map.of(0, new MemoryCategory(0, "main", total)), List.of()));
        HeapAnalyzer.analyze(s, Progress.NONE);
        store = GraphStore.open(tmp.resolve("db"));
        store.load(s, false, Progress.NONE);
    }

    @AfterAll
    static void close() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void whyAliveWalksTheWholeRetentionPathAndDominatorChain() throws Exception {
        QueryResult r = run(store, "why-alive", params("snapshot", "deep", "address", chainAddress(CHAIN - 1)));
        List<Object> chains = column(r, "chain");
        List<Object> addresses = column(r, "address");
        List<Object> vias = column(r, "via");
        int retention = (int) chains.stream().filter("retention"::equals).count();
        assertEquals(CHAIN + 1, retention);
        assertEquals(CHAIN + 1 + 99_996, r.rows().size());
        // retention: registry first (via its root name), then every chain node in order, each via `next`
        assertEquals("0x1000", addresses.get(0));
        assertEquals("root registry", vias.get(0));
        for (int i = 0; i < CHAIN; i++) {
            assertEquals(chainAddress(i), addresses.get(1 + i), "retention step " + (1 + i));
            assertEquals("next", vias.get(1 + i));
        }
        // dominator chain: the object, back to n5, then registry (n0..n4 are bypassed by b0..b9)
        for (int k = 0; k < 99_995; k++) {
            assertEquals(chainAddress(CHAIN - 1 - k), addresses.get(retention + k), "dominator step " + k);
        }
        assertEquals("0x1000", addresses.get(retention + 99_995));
        assertEquals(64L * 99_995, column(r, "retainedSize").get(retention + 99_994));
    }
}
