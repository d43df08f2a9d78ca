package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.analysis.SnapshotDiff;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * dump2 against dump1 of the same process (addresses are stable): the growth the case READMEs describe —
 * 1000 new {@code _cache} entries ({@code ("result-%d" % k, bytearray(8))} tuples), 300 {@code [i]*4} lists
 * appended to {@code leaked_lists}, one {@code bytearray(4000)} — is new and reachable, retained through the
 * main module's globals; the garbage temporaries are not reachable.
 */
class MicroPythonLeakTest {

    static HeapSnapshot analysed(String name, int n) {
        HeapSnapshot s = MicroPythonCases.dump(name, n).snapshot();
        if (s.analysis() == null) {
            HeapAnalyzer.analyze(s, Progress.NONE);
        }
        return s;
    }

    /** New reachable objects of dump2 by type: "type=count". */
    static Map<String, Integer> newReachable(String name) {
        HeapSnapshot before = analysed(name, 1);
        HeapSnapshot after = analysed(name, 2);
        SnapshotDiff diff = SnapshotDiff.compare(before, after);
        HeapAnalysis a = after.analysis();
        Map<String, Integer> out = new TreeMap<>();
        for (int o = 0; o < after.objectCount(); o++) {
            if (diff.isNew()[o] && a.reachable()[o]) {
                out.merge(after.type(o), 1, Integer::sum);
            }
        }
        return out;
    }

    /** The retention path of {@code object}: root name, then per hop the reference name or [kind] and type. */
    static List<String> path(HeapSnapshot s, int object) {
        HeapAnalysis a = s.analysis();
        int[] first = s.firstReferenceColumn();
        List<String> hops = new ArrayList<>();
        int o = object;
        while (a.retainedBy()[o] >= 0) {
            int r = a.retainedBy()[o];
            int source = Arrays.binarySearch(first, r);
            if (source < 0) {
                source = -source - 2;
            } else {
                while (source + 1 < first.length && first[source + 1] == r) {
                    source++;
                }
            }
            String name = s.referenceName(r);
            hops.add(0, (name != null ? name : "[" + s.referenceKind(r) + "]") + " in " + s.type(source));
            o = source;
        }
        hops.add(0, s.roots().get(a.rootOf()[object]).name());
        return hops;
    }

    @ParameterizedTest
    @ValueSource(strings = {"unix-x64-standard", "unix-x64-splitheap-weakref", "qemu-arm-mps2-an385",
        "qemu-arm-mps2-an385-v1.18"})
    void growthIsNewAndReachable(String name) {
        // 1000 _cache tuples ("result-%d" str + bytearray(8)), the 300 lists and the new leaked_lists list with
        // the items array it grew into, bytearray(4000) (its data is the 1001st array_data), _cache's regrown table
        Map<String, Integer> expected = new TreeMap<>(Map.of("array_data", 1001, "bytearray", 1001, "list", 301,
            "list_items", 301, "map_table", 1, "str", 1000, "str_data", 1000, "tuple", 1000));
        if (name.equals("unix-x64-splitheap-weakref")) {
            expected.put("map_table", 2); // the weakref map's table grew as well
        }
        assertEquals(expected, newReachable(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"unix-x64-standard", "unix-x64-splitheap-weakref", "qemu-arm-mps2-an385",
        "qemu-arm-mps2-an385-v1.18"})
    void leakedObjectsAreRetainedThroughTheMainModuleGlobals(String name) {
        HeapSnapshot before = analysed(name, 1);
        HeapSnapshot after = analysed(name, 2);
        SnapshotDiff diff = SnapshotDiff.compare(before, after);
        HeapAnalysis a = after.analysis();
        List<String> main = List.of("mp_state_ctx.vm.dict_main.map.table");
        Map<String, Integer> lists = new TreeMap<>();
        int blobs = 0;
        for (int o = 0; o < after.objectCount(); o++) {
            if (diff.isNew()[o] && after.type(o).equals("list")) {
                String how = !a.reachable()[o] ? "unreachable" : path(after, o).get(0).equals(main.get(0)) ? "main" : "stack";
                lists.merge(after.label(o) + " " + how, 1, Integer::sum);
            }
            if (after.type(o).equals("array_data") && after.shallowSize(o) == 4000) {
                blobs++;
                assertEquals(List.of(main.get(0), "_cache in map_table", "[ref] in dict", "big-blob in map_table",
                    "[ref] in bytearray"), path(after, o));
            }
            if ("300 items".equals(after.label(o))) {
                assertEquals(List.of(main.get(0), "leaked_lists in map_table"), path(after, o));
            }
        }
        assertEquals(1, blobs);
        // the 300 [i]*4 lists (one is also held by a word of the C stack: the loop's last value), leaked_lists
        // itself, and the 300 garbage [i] temporaries
        assertEquals(Map.of("1 items unreachable", 300, "300 items main", 1, "4 items main", 299, "4 items stack", 1),
            lists);
    }

    @ParameterizedTest
    @ValueSource(strings = {"unix-x64-standard", "unix-x64-splitheap-weakref", "qemu-arm-mps2-an385",
        "qemu-arm-mps2-an385-v1.18"})
    void garbageTemporariesAreNotReachable(String name) {
        for (int n = 1; n <= 2; n++) {
            HeapSnapshot s = analysed(name, n);
            int garbage = 0;
            for (int o = 0; o < s.objectCount(); o++) {
                String l = s.label(o);
                if (s.type(o).equals("str") && l != null && l.startsWith("garbage-")) {
                    garbage++;
                    assertEquals(false, s.<HeapAnalysis>analysis().reachable()[o], l);
                }
            }
            assertEquals(50, garbage, "garbage-%d strings still in the heap");
        }
    }
}
