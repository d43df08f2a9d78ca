package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.heapload.model.HeapSnapshot;

/**
 * The class of each object of one snapshot, computed from the heap model (never by the readers), for the class
 * histogram ({@link ClassHistogram}) and the leak groups' heads.
 *
 * <h2>What the class is, per VM</h2>
 * <ul>
 *   <li><b>Lua and Luau tables and userdata with a metatable</b>: the metatable's name, the first of
 *       <ol>
 *         <li>its string-keyed field {@code __type} (Luau's {@code typeof}) or {@code __name} (Lua 5.3+
 *             {@code luaL_newmetatable}, {@code luaL_setmetatable}), a string;</li>
 *         <li>the name it is known by: the string key (or, on Lua and LuaJIT, the local or upvalue) that holds it:
 *             the last hop of its retention path when that hop has such a name, else the first such reference to it
 *             in dump order; names starting with {@code __} ({@code __index}, {@code __metatable}) do not count;</li>
 *         <li>the name its {@code __index} table is known by (the same rule), for {@code setmetatable(obj, {__index =
 *             Player})};</li>
 *         <li>otherwise {@code metatable {Connect, Disconnect, …}}: its string keys (methods, fields), sorted, at
 *             most three, those starting with {@code __} only when there are no others, else those of its
 *             {@code __index} table; {@code metatable 0x…} (its address) when neither has a string key. Anonymous metatables with the same
 *             keys are one class (the weak tables' {@code metatable {__mode}}); unlike an address, the keys name the
 *             class alike in two runs of a program.</li>
 *       </ol></li>
 *   <li><b>Luau userdata</b>: by tag (the reader's label {@code tag N}) and metatable: {@code Instance (tag 1)} when
 *       the metatable has a name, {@code tag 2} without one.</li>
 *   <li><b>Luau objects</b> of user-defined classes (the experimental {@code class} syntax): the name of the
 *       {@code class} record their {@code class} reference points at.</li>
 *   <li><b>LuaJIT cdata</b>: the ctype, from the dumper's {@code repr} label: {@code cdata<struct point>: 0x…} →
 *       {@code struct point}; a 64-bit integer, which prints its value ({@code 5LL}, {@code 5ULL}), →
 *       {@code int64_t} / {@code uint64_t}.</li>
 *   <li><b>MicroPython</b>: objects whose type is a user class (the reader types instances by their class's name;
 *       a {@code type} object with that name as its label exists in the snapshot): that name.</li>
 *   <li>Every other object (strings, functions, tables without a metatable, builtin MicroPython objects): none.</li>
 * </ul>
 * Two classes of the same name and different VM types (a table class {@code Vec} and a userdata {@code Vec}) are apart.
 *
 * @param classOf per object id, index into {@code names}/{@code types}, {@code -1} when the object has no class
 * @param names   per class, its name
 * @param types   per class, the VM type of its objects ({@code table}, {@code userdata}, {@code cdata}, a
 *                MicroPython class's type name)
 */
public record ObjectClasses(int[] classOf, String[] names, String[] types) {

    /** Reference kind of a metatable reference (Lua and Luau readers). */
    private static final String METATABLE = "metatable";
    private static final Pattern CDATA = Pattern.compile("(?s)^cdata<(.*)>: [^>]*$");
    private static final Pattern INT64 = Pattern.compile("^-?[0-9]+(U?)LL$");

    /** Number of classes. */
    public int classCount() {
        return names.length;
    }

    /** The class name of {@code object}, or {@code null}. */
    public String className(int object) {
        int c = classOf[object];
        return c < 0 ? null : names[c];
    }

    /**
     * Computes the classes of {@code snapshot}'s objects.
     *
     * @param snapshot the heap model
     * @param analysis its analysis (for the retention paths' last hops), or {@code null}: names then come from the
     *                 first naming reference in dump order
     * @return the classes; O(objects + references) time, one int per object
     */
    public static ObjectClasses compute(HeapSnapshot snapshot, HeapAnalysis analysis) {
        int n = snapshot.objectCount();
        int[] classOf = new int[n];
        java.util.Arrays.fill(classOf, -1);
        List<String> names = new ArrayList<>();
        List<String> types = new ArrayList<>();
        Map<String, Integer> ids = new HashMap<>();
        String vm = snapshot.info().vm();
        boolean luau = "luau".equals(vm);
        boolean lua = luau || (vm != null && (vm.startsWith("lua")));
        if (lua) {
            luaClasses(snapshot, analysis, luau, classOf, names, types, ids);
        } else if ("micropython".equals(vm)) {
            microPythonClasses(snapshot, classOf, names, types, ids);
        }
        return new ObjectClasses(classOf, names.toArray(String[]::new), types.toArray(String[]::new));
    }

    private static int id(String type, String name, List<String> names, List<String> types, Map<String, Integer> ids) {
        return ids.computeIfAbsent(type + '\0' + name, k -> {
            names.add(name);
            types.add(type);
            return names.size() - 1;
        });
    }

    private static void microPythonClasses(HeapSnapshot s, int[] classOf, List<String> names, List<String> types,
                                           Map<String, Integer> ids) {
        java.util.Set<String> classNames = new java.util.HashSet<>();
        for (int o = 0, n = s.objectCount(); o < n; o++) {
            if ("type".equals(s.type(o)) && s.label(o) != null) {
                classNames.add(s.label(o));
            }
        }
        int[] byType = new int[s.typeNames().size()];
        for (int t = 0; t < byType.length; t++) {
            String type = s.typeNames().get(t);
            byType[t] = classNames.contains(type) ? id(type, type, names, types, ids) : -1;
        }
        for (int o = 0, n = s.objectCount(); o < n; o++) {
            classOf[o] = byType[s.typeId(o)];
        }
    }

    private static void luaClasses(HeapSnapshot s, HeapAnalysis a, boolean luau, int[] classOf, List<String> names,
                                   List<String> types, Map<String, Integer> ids) {
        int n = s.objectCount();
        int metatableKind = s.referenceKinds().indexOf(METATABLE);
        int tableType = s.typeNames().indexOf("table");
        int userdataType = s.typeNames().indexOf("userdata");
        int cdataType = s.typeNames().indexOf("cdata");
        int stringType = s.typeNames().indexOf("string");
        int[] first = s.firstReferenceColumn();
        int[] targets = s.referenceTargetColumn();

        // each object's metatable (-1: none), and which objects are metatables or a metatable's __index table
        int[] metatable = new int[n];
        java.util.Arrays.fill(metatable, -1);
        boolean[] wanted = new boolean[n];
        if (metatableKind >= 0) {
            for (int o = 0; o < n; o++) {
                int t = s.typeId(o);
                if (t != tableType && t != userdataType) {
                    continue;
                }
                for (int r = first[o]; r < first[o + 1]; r++) {
                    if (s.referenceKindId(r) == metatableKind) {
                        metatable[o] = targets[r];
                        wanted[targets[r]] = true;
                        break;
                    }
                }
            }
        }
        // per metatable: its __type/__name string, its __index table
        Map<Integer, String> ownName = new HashMap<>();
        Map<Integer, Integer> index = new HashMap<>();
        for (int mt = 0; mt < n; mt++) {
            if (!wanted[mt] || s.typeId(mt) != tableType) {
                continue;
            }
            String type = null;
            String name = null;
            for (int r = first[mt]; r < first[mt + 1]; r++) {
                if (!stringKey(s, r)) {
                    continue;
                }
                String key = s.referenceName(r);
                int target = targets[r];
                if ("__type".equals(key) && s.typeId(target) == stringType && luau) {
                    type = s.label(target);
                } else if ("__name".equals(key) && s.typeId(target) == stringType) {
                    name = s.label(target);
                } else if ("__index".equals(key) && s.typeId(target) == tableType && target != mt) {
                    index.put(mt, target);
                }
            }
            String own = type != null ? type : name;
            if (own != null) {
                ownName.put(mt, own);
            }
        }
        boolean[] named = new boolean[n];
        for (int mt = 0; mt < n; mt++) {
            if (wanted[mt] && !ownName.containsKey(mt)) {
                named[mt] = true;
            }
        }
        index.forEach((mt, t) -> {
            if (!ownName.containsKey(mt)) {
                named[t] = true;
            }
        });
        String[] knownName = knownNames(s, a, named, luau);

        Map<Integer, String> metatableName = new HashMap<>();
        int objectType = luau ? s.typeNames().indexOf("object") : -1;
        int classKind = s.referenceKinds().indexOf("class");
        for (int o = 0; o < n; o++) {
            int t = s.typeId(o);
            String name = null;
            if (t == objectType && objectType >= 0 && classKind >= 0) {
                // a Luau user-defined class's instance: the class record's name (its label)
                for (int r = first[o]; r < first[o + 1]; r++) {
                    if (s.referenceKindId(r) == classKind) {
                        name = s.label(targets[r]);
                        break;
                    }
                }
            } else if (t == cdataType && cdataType >= 0) {
                name = ctype(s.label(o));
            } else if (t == tableType || t == userdataType) {
                int mt = metatable[o];
                String mtName = mt < 0 ? null : metatableName.computeIfAbsent(mt, m -> {
                    String own = ownName.get(m);
                    if (own != null) {
                        return own;
                    }
                    if (knownName[m] != null) {
                        return knownName[m];
                    }
                    Integer i = index.get(m);
                    if (i != null && knownName[i] != null) {
                        return knownName[i];
                    }
                    return anonymous(s, m, i == null ? -1 : i);
                });
                if (luau && t == userdataType && s.label(o) != null && s.label(o).startsWith("tag ")) {
                    name = mtName == null ? s.label(o) : mtName + " (" + s.label(o) + ")";
                } else {
                    name = mtName;
                }
            }
            if (name != null) {
                classOf[o] = id(s.typeNames().get(t), name, names, types, ids);
            }
        }
    }

    /**
     * For each object with {@code wanted[o]}: the name it is known by (see the class comment), or {@code null}.
     * One pass over the references.
     */
    private static String[] knownNames(HeapSnapshot s, HeapAnalysis a, boolean[] wanted, boolean luau) {
        int n = s.objectCount();
        String[] known = new String[n];
        if (a != null) {
            int[] retainedBy = a.retainedBy();
            for (int o = 0; o < n; o++) {
                if (wanted[o] && retainedBy[o] >= 0) {
                    known[o] = usableName(s, retainedBy[o], luau);
                }
            }
        }
        int[] targets = s.referenceTargetColumn();
        for (int r = 0, m = s.referenceCount(); r < m; r++) {
            int t = targets[r];
            if (wanted[t] && known[t] == null) {
                known[t] = usableName(s, r, luau);
            }
        }
        return known;
    }

    /** The reference's name when it names what it holds: a string key, or a Lua local or upvalue; else null. */
    private static String usableName(HeapSnapshot s, int r, boolean luau) {
        String name = s.referenceName(r);
        if (name == null || name.isEmpty() || name.startsWith("__")) {
            return null;
        }
        if (stringKey(s, r)) {
            return name;
        }
        if (!luau && s.keyTypeId(r) == HeapSnapshot.KEY_NONE && !name.startsWith("(")) {
            String kind = s.referenceKind(r);
            if (kind.equals("local") || kind.equals("upvalue")) {
                return name;
            }
        }
        return null;
    }

    /**
     * Whether reference {@code r} is a table value under a string key: key type {@link HeapSnapshot#KEY_STRING}, or, in
     * a snapshot read from lua-snapshot's raw table (whose edges carry no key type), a named {@code value} reference
     * whose name is not in brackets (the raw reader's spelling of other keys).
     */
    private static boolean stringKey(HeapSnapshot s, int r) {
        int keyType = s.keyTypeId(r);
        if (keyType == HeapSnapshot.KEY_STRING) {
            return true;
        }
        if (keyType != HeapSnapshot.KEY_NONE || !"value".equals(s.referenceKind(r))) {
            return false;
        }
        String name = s.referenceName(r);
        return name != null && !name.startsWith("[");
    }

    /** How many keys name an anonymous metatable. */
    private static final int KEYS_SHOWN = 3;

    /**
     * The name of a metatable that has no name of its own and is known by none: {@code metatable {Connect, Fire, …}}
     * with its string keys (methods, fields) sorted, at most {@link #KEYS_SHOWN}, those starting with {@code __} only
     * when there are no others; those of its {@code __index} table {@code index} when it has none; its address when
     * neither has a string key. Keys, unlike addresses, name the same class in two runs of a program.
     */
    private static String anonymous(HeapSnapshot s, int mt, int index) {
        java.util.TreeSet<String> keys = stringKeys(s, mt, false);
        if (keys.isEmpty() && index >= 0) {
            keys = stringKeys(s, index, false);
        }
        if (keys.isEmpty()) {
            keys = stringKeys(s, mt, true);
        }
        if (keys.isEmpty()) {
            return "metatable " + s.address(mt);
        }
        StringBuilder sb = new StringBuilder("metatable {");
        int shown = 0;
        for (String k : keys) {
            if (shown == KEYS_SHOWN) {
                sb.append(", …");
                break;
            }
            sb.append(shown++ == 0 ? "" : ", ").append(k);
        }
        return sb.append('}').toString();
    }

    private static java.util.TreeSet<String> stringKeys(HeapSnapshot s, int table, boolean meta) {
        java.util.TreeSet<String> keys = new java.util.TreeSet<>();
        for (int r = s.firstReference(table); r < s.firstReference(table + 1); r++) {
            if (stringKey(s, r)) {
                String k = s.referenceName(r);
                if (k != null && k.startsWith("__") == meta) {
                    keys.add(k);
                }
            }
        }
        return keys;
    }

    /** A LuaJIT cdata's ctype from its {@code repr}; {@code null} when the repr says none. */
    static String ctype(String repr) {
        if (repr == null) {
            return null;
        }
        Matcher m = CDATA.matcher(repr);
        if (m.matches()) {
            return m.group(1);
        }
        Matcher i = INT64.matcher(repr);
        if (i.matches()) {
            return i.group(1).isEmpty() ? "int64_t" : "uint64_t";
        }
        return null;
    }
}
