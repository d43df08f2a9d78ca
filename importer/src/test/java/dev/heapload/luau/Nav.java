package dev.heapload.luau;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;

import dev.heapload.model.HeapSnapshot;

/** Test helper: walks a snapshot by root names, reference names and addresses. */
final class Nav {

    final HeapSnapshot s;

    Nav(HeapSnapshot s) {
        this.s = s;
    }

    int root(String name) {
        for (HeapSnapshot.GcRoot r : s.roots()) {
            if (r.name().equals(name)) {
                return r.object();
            }
        }
        return fail("no root " + name);
    }

    /** Reference ids of an object, in order. */
    List<Integer> refs(int object) {
        List<Integer> out = new ArrayList<>();
        for (int r = s.firstReference(object); r < s.firstReference(object + 1); r++) {
            out.add(r);
        }
        return out;
    }

    /** The references of an object with this kind. */
    List<Integer> refs(int object, String kind) {
        List<Integer> out = new ArrayList<>();
        for (int r : refs(object)) {
            if (s.referenceKind(r).equals(kind)) {
                out.add(r);
            }
        }
        return out;
    }

    /** The single reference of {@code object} named {@code name}. */
    int ref(int object, String name) {
        List<Integer> found = new ArrayList<>();
        for (int r : refs(object)) {
            if (name.equals(s.referenceName(r))) {
                found.add(r);
            }
        }
        assertEquals(1, found.size(), () -> "references named " + name + " from " + s.address(object));
        return found.get(0);
    }

    /** Follows the references named {@code names} from {@code object}. */
    int path(int object, String... names) {
        int at = object;
        for (String n : names) {
            at = s.referenceTarget(ref(at, n));
        }
        return at;
    }

    int byAddress(String address) {
        for (int i = 0; i < s.objectCount(); i++) {
            if (s.address(i).equals(address)) {
                return i;
            }
        }
        return fail("no object " + address);
    }

    List<Integer> byType(String type) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < s.objectCount(); i++) {
            if (s.type(i).equals(type)) {
                out.add(i);
            }
        }
        return out;
    }

    int weakCount(int object) {
        int n = 0;
        for (int r : refs(object)) {
            if (s.isWeak(r)) {
                n++;
            }
        }
        return n;
    }

    int weakCount() {
        int n = 0;
        for (int r = 0; r < s.referenceCount(); r++) {
            if (s.isWeak(r)) {
                n++;
            }
        }
        return n;
    }
}
