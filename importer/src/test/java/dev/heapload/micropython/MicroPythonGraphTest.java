package dev.heapload.micropython;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.model.HeapSnapshot;

/** Object graph, types, names and roots of the real dumps. */
class MicroPythonGraphTest {

    static Map<String, Integer> types(HeapSnapshot s) {
        Map<String, Integer> out = new TreeMap<>();
        for (int o = 0; o < s.objectCount(); o++) {
            out.merge(s.type(o), 1, Integer::sum);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"unix-x64-standard", "unix-x64-splitheap-weakref", "qemu-arm-mps2-an385",
        "qemu-arm-mps2-an385-v1.18"})
    void builtinTypesResolveViaSymbolsAndUserClassesAreNamed(String name) {
        HeapSnapshot s = MicroPythonCases.dump(name, 1).snapshot();
        Map<String, Integer> t = types(s);
        assertEquals(5000, t.get("Point"));
        assertEquals(20, t.get("Sensor"));
        assertEquals(1, t.get("LoggingSensor"));
        assertEquals(1, t.get("ValueError"));
        assertEquals(1, t.get("generator"));
        assertEquals(1, t.get("int"), "2**100+12345 is an mpz int");
        assertEquals(66, t.get("float"));
        assertEquals(101, t.get("bytearray"));
        List<String> classes = new ArrayList<>();
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals("type")) {
                classes.add(s.label(o));
            }
        }
        assertEquals(name.contains("weakref") ? List.of("Point", "Sensor", "LoggingSensor", "Node")
            : List.of("Point", "Sensor", "LoggingSensor"), classes);
    }

    @Test
    void exactCountsOfUnixStandardDump1() {
        MicroPythonDump d = MicroPythonCases.dump("unix-x64-standard", 1);
        HeapSnapshot s = d.snapshot();
        assertEquals(11099, s.objectCount());
        assertEquals(16103, s.referenceCount());
        assertEquals(40, d.interiorPointers().size());
        assertEquals(List.of("mp_state_ctx.vm.qstr_last_chunk=0x7ffff7aeb4a0",
            "mp_state_ctx.mem.area.gc_pool_start=0x7ffff7ae8f00"), d.staticNonRootRefs());
        assertEquals("micropython", s.info().vm());
        assertEquals(429184, s.info().vmTotalBytes());
        assertEquals(Map.of("tuple", 112, "dict", 27, "list", 88, "map_table", 5050, "str", 175, "function", 14,
            "qstr_pool", 3, "qstr_chunk", 4), Map.of("tuple", types(s).get("tuple"), "dict", types(s).get("dict"),
            "list", types(s).get("list"), "map_table", types(s).get("map_table"), "str", types(s).get("str"),
            "function", types(s).get("function"), "qstr_pool", types(s).get("qstr_pool"),
            "qstr_chunk", types(s).get("qstr_chunk")));
        List<String> roots = new ArrayList<>();
        s.roots().forEach(r -> roots.add(r.name()));
        assertEquals(List.of("mp_state_ctx.vm.last_pool", "mp_state_ctx.vm.mp_loaded_modules_dict.map.table",
            "mp_state_ctx.vm.dict_main.map.table", "mp_state_ctx+912", "mp_state_ctx+936", "mp_state_ctx+1024",
            "frame <module> (/tmp/work/heapdemo.py:123) (code_state, stack+96)", "stack+152", "stack+224", "stack+336",
            "stack+440"), roots);
        // the non-ASCII string of the script, decoded from its heap data
        boolean found = false;
        for (int o = 0; o < s.objectCount(); o++) {
            found |= "Grüße, 世界! ñandú – π≈3.14159 ✓".equals(s.label(o));
        }
        assertTrue(found);
    }

    @Test
    void qemuDump1HasTheGcEdgeCountOfTheNotes() {
        // shared/docs/formats/micropython-gc-heap.md §5: qemu dump1 has 16101 GC edges
        assertEquals(16101, MicroPythonCases.dump("qemu-arm-mps2-an385", 1).snapshot().referenceCount());
    }

    @Test
    void splitHeapHasThreeAreasAndWeakReferences() {
        MicroPythonDump d = MicroPythonCases.dump("unix-x64-splitheap-weakref", 1);
        assertEquals(3, d.areas().size());
        assertEquals(List.of(0x7ffff7c8f560L, 0x7ffff7c39560L, 0x7ffff7be3560L),
            d.areas().stream().map(GcHeapArea::poolStart).toList());
        assertEquals(11, d.weakTableBlocks());
        HeapSnapshot s = d.snapshot();
        int weak = 0;
        for (int r = 0; r < s.referenceCount(); r++) {
            if (s.isWeak(r)) {
                weak++;
            }
        }
        // the 11 weakref.ref objects' targets, and the 11 keys (targets) and 11 values (the refs) of vm.mp_weakref_map
        assertEquals(33, weak);
    }

    @Test
    void v118UsesTheOldLayoutAndQstrFormat() {
        MicroPythonDump d = MicroPythonCases.dump("qemu-arm-mps2-an385-v1.18", 1);
        assertTrue(d.qstrs().legacyFormat());
        GcHeapArea a = d.areas().get(0);
        assertEquals(0x25c50, a.atbStart());
        assertEquals(8065, a.atbLength());
        assertEquals(-1, a.ftbStart());
        assertEquals(0x27c10, a.poolStart());
        assertEquals(0xa5c50, a.poolEnd());
        assertEquals(false, d.heapMap().eightDigitOffsets());
    }

    @Test
    void weakDeadNodeIsUnreachableButWeaklyReferenced() {
        // heapdemo_weakref.py: 10 Nodes kept in weak_targets, and Node(-1) only behind weakref.ref (weak_dead),
        // kept in the heap by a stale conservative stack word during gc.collect() but unreachable in the dump
        HeapSnapshot s = MicroPythonLeakTest.analysed("unix-x64-splitheap-weakref", 1);
        dev.heapload.analysis.HeapAnalysis a = s.analysis();
        int[] weakIn = new int[s.objectCount()];
        for (int o = 0; o < s.objectCount(); o++) {
            for (int r = s.firstReference(o); r < s.firstReference(o + 1); r++) {
                if (s.isWeak(r)) {
                    weakIn[s.referenceTarget(r)]++;
                }
            }
        }
        int reachable = 0;
        List<Integer> deadWeakIn = new ArrayList<>();
        for (int o = 0; o < s.objectCount(); o++) {
            if (s.type(o).equals("Node")) {
                if (a.reachable()[o]) {
                    reachable++;
                } else {
                    deadWeakIn.add(weakIn[o]);
                }
            }
        }
        assertEquals(10, reachable);
        // one dead Node, weakly referenced by its weakref.ref (obj_weak_ref) and by its key in vm.mp_weakref_map
        // (the entry's value is the weakref.ref itself, also stored as ptr|1)
        assertEquals(List.of(2), deadWeakIn);
    }
}
