package dev.heapload.store;

import java.util.List;
import java.util.Map;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.SnapshotInfo;

/**
 * Small hand-made snapshots with known shape, for store tests.
 *
 * <pre>
 * id addr    type     size cat label     references (reference id: target, kind, name, flags)
 *  0 0x1000  table      64  0  -         r0 -> 1 value "player";  r1 -> 5 value "cache"
 *  1 0x1008  table      48  1  Player    r2 -> 2 key (name = text of object 2, "name");  r3 -> 3 value "update"
 *  2 0x1010  string     24  0  name
 *  3 0x1018  function   40  1  update    r4 -> 7 upvalue -;  r5 -> 8 proto -
 *  4 0x1020  userdata  100  2  -
 *  5 0x1028  table      32  0  -         r6 -> 6 key - WEAK;  r7 -> 4 value - EPHEMERON_VALUE
 *  6 0x1030  string     30  0  leaked
 *  7 0x1038  upvalue    16  1  -         r8 -> 4 value -
 *  8 0x1040  proto     200  1  update
 *  9 0x1048  table      10  0  -         r9 -> 1 value "stale"
 * roots: "registry" -> 0, "stack" -> 3
 * </pre>
 * 10 references: 9 REF (one with ephemeron), 1 WEAK_REF. Analysis (by hand): 6 and 9 unreachable;
 * retention path's last hop (REF retention: true, child->parent) 1->0, 5->0, 2->1, 3 none (root), 7->3, 8->3, 4->7;
 * dominator the same pairs.
 */
public final class TestSnapshots {

    public static final int OBJECTS = 10;
    public static final int REFERENCES = 10;
    public static final long OBJECT_BYTES = 64 + 48 + 24 + 40 + 100 + 32 + 30 + 16 + 200 + 10;

    private TestSnapshots() {
    }

    /** The snapshot above with id {@code id}, three categories, VM total 5000 bytes, and its analysis attached. */
    public static HeapSnapshot analysed(String id) {
        HeapSnapshot s = build(id, true, 0);
        s.attachAnalysis(new HeapAnalysis(
            new boolean[] {true, true, true, true, true, true, false, true, true, false},
            new int[] {0, 1, 2, 0, 2, 1, -1, 1, 1, -1},
            new int[] {-1, 0, 2, -1, 8, 1, -1, 4, 5, -1},
            new int[] {0, 0, 0, 1, 1, 0, -1, 1, 1, -1},
            new int[] {-1, 0, 1, -1, 7, 0, -1, 3, 3, -1},
            new long[] {168, 72, 24, 356, 100, 32, 0, 116, 200, 0}));
        return s;
    }

    /**
     * The same shape without categories (category -1), without VM total and without analysis, plus
     * {@code extra} more strings referenced from object 0 (kind "value", no name).
     */
    public static HeapSnapshot plain(String id, int extra) {
        return build(id, false, extra);
    }

    private static HeapSnapshot build(String id, boolean categories, int extra) {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        String[] types = {"table", "table", "string", "function", "userdata", "table", "string", "upvalue", "proto", "table"};
        long[] sizes = {64, 48, 24, 40, 100, 32, 30, 16, 200, 10};
        int[] cats = {0, 1, 0, 1, 2, 0, 0, 1, 1, 0};
        String[] labels = {null, "Player", "name", "update", null, null, "leaked", null, "update", null};
        int[] ids = new int[OBJECTS + extra];
        for (int i = 0; i < OBJECTS + extra; i++) {
            ids[i] = b.objectId(address(i));
        }
        int value = b.kind("value");
        int key = b.kind("key");
        int upvalue = b.kind("upvalue");
        int proto = b.kind("proto");
        for (int i = 0; i < OBJECTS; i++) {
            b.defineObject(address(i), types[i], sizes[i], categories ? cats[i] : -1, labels[i]);
            switch (i) {
                case 0 -> {
                    b.addReference(ids[1], value, b.name("player"), 0);
                    b.addReference(ids[5], value, b.name("cache"), 0);
                    for (int e = 0; e < extra; e++) {
                        b.addReference(ids[OBJECTS + e], value, HeapSnapshot.NO_NAME, 0);
                    }
                }
                case 1 -> {
                    b.addReference(ids[2], key, HeapSnapshotBuilder.nameFromObject(ids[2]), 0);
                    b.addReference(ids[3], value, b.name("update"), 0);
                }
                case 3 -> {
                    b.addReference(ids[7], upvalue, HeapSnapshot.NO_NAME, 0);
                    b.addReference(ids[8], proto, HeapSnapshot.NO_NAME, 0);
                }
                case 5 -> {
                    b.addReference(ids[6], key, HeapSnapshot.NO_NAME, HeapSnapshot.WEAK);
                    b.addReference(ids[4], value, HeapSnapshot.NO_NAME, HeapSnapshot.EPHEMERON_VALUE);
                }
                case 7 -> b.addReference(ids[4], value, HeapSnapshot.NO_NAME, 0);
                case 9 -> b.addReference(ids[1], value, b.name("stale"), 0);
                default -> {
                }
            }
        }
        for (int e = 0; e < extra; e++) {
            b.defineObject(address(OBJECTS + e), "string", 20 + e, categories ? 0 : -1, "extra" + e);
        }
        b.addRoot("registry", ids[0]);
        b.addRoot("stack", ids[3]);
        Map<Integer, MemoryCategory> cat = categories
            ? Map.of(0, new MemoryCategory(0, "default", 1000), 1, new MemoryCategory(1, "game", 2000),
                2, new MemoryCategory(2, null, 300))
            : Map.of();
        return b.build(new SnapshotInfo(id, categories ? "luau" : "lua5.4", id + ".json", "ab".repeat(32),
            categories ? 5000 : -1, cat, List.of()));
    }

    /** Address text of object {@code i}. */
    public static String address(int i) {
        return "0x" + Long.toHexString(0x1000 + 8L * i);
    }
}
