package dev.heapload.micropython;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.heapload.model.DumpFormatException;

/**
 * The layouts of MicroPython's C structs that heapload names references by: field byte offsets and names, from the
 * firmware's debug info ({@code layouts.json}, written by heapload_gdb.py from DWARF) where present, else the
 * built-in layouts of the structs whose shape no build option changes (per MicroPython py/obj.h, py/bc.h,
 * py/objfun.h, py/objgenerator.c, py/objboundmeth.c, py/objclosure.c, py/objexcept.h, py/emitglue.h,
 * extmod/modasyncio.c, extmod/moductypes.c, py/objtemplate.c; v1.19 and later, and v1.18 where it differs).
 *
 * <p>Which struct an object has: {@link #structOf(String, String)} maps the type object's symbol ({@code mp_type_…},
 * asyncio's {@code task_type}, uctypes' {@code uctypes_struct_type}) or the raw kinds the reader types by owner
 * ({@code code_state}, {@code raw_code}, {@code module_context}) to the C struct name.
 */
public final class ObjectLayouts {

    /**
     * One leaf field.
     *
     * @param offset   byte offset in the struct
     * @param name     dotted name ({@code pairheap.next}, {@code code_state.fun_bc}); a flexible array member ends in
     *                 {@code []} ({@code closed[]})
     * @param size     bytes (the element size for a flexible array)
     */
    public record Field(int offset, String name, int size) {
        /** True for a flexible array member. */
        public boolean flexible() {
            return name.endsWith("[]");
        }
    }

    /** One struct: its size in bytes and its fields by offset. */
    public record Struct(String name, int size, TreeMap<Integer, Field> fields) {

        /** The word-sized field at {@code offset} (or the element of the flexible array there), or {@code null}. */
        public String wordName(long offset, int wordSize) {
            Field f = fields.get((int) offset);
            if (f != null && !f.flexible() && f.size() == wordSize) {
                return f.name();
            }
            Map.Entry<Integer, Field> e = fields.floorEntry((int) offset);
            if (e != null && e.getValue().flexible() && e.getValue().size() > 0) {
                long i = (offset - e.getKey()) / e.getValue().size();
                String base = e.getValue().name();
                return base.substring(0, base.length() - 2) + "[" + i + "]";
            }
            return null;
        }

        /** The byte offset of {@code field}, or -1. */
        public int offsetOf(String field) {
            for (Field f : fields.values()) {
                if (f.name().equals(field)) {
                    return f.offset();
                }
            }
            return -1;
        }
    }

    private final Map<String, Struct> structs;
    private final boolean fromDebugInfo;

    private ObjectLayouts(Map<String, Struct> structs, boolean fromDebugInfo) {
        this.structs = structs;
        this.fromDebugInfo = fromDebugInfo;
    }

    /** The struct called {@code name}, or {@code null}. */
    public Struct struct(String name) {
        return structs.get(name);
    }

    /** True when the layouts came from the firmware's debug info. */
    public boolean fromDebugInfo() {
        return fromDebugInfo;
    }

    /** These layouts, with {@code fallback}'s for the structs they lack. */
    public ObjectLayouts orElse(ObjectLayouts fallback) {
        Map<String, Struct> all = new HashMap<>(fallback.structs);
        all.putAll(structs);
        return new ObjectLayouts(all, fromDebugInfo);
    }

    /**
     * The C struct of an object: by the symbol of its type object, or by the raw kind the reader gave it; {@code null}
     * when heapload knows none.
     *
     * @param typeSymbol the type object's symbol ({@code mp_type_bound_meth}), or {@code null}
     * @param heapType   the type in the heap model ({@code code_state}, {@code Foo} for a user instance)
     */
    public static String structOf(String typeSymbol, String heapType) {
        if (heapType != null) {
            switch (heapType) {
                case "code_state" -> {
                    return "mp_code_state_t";
                }
                case "raw_code" -> {
                    return "mp_raw_code_t";
                }
                case "module_context" -> {
                    return "mp_module_context_t";
                }
                default -> {
                }
            }
        }
        if (typeSymbol == null) {
            return null;
        }
        return switch (typeSymbol) {
            case "mp_type_bound_meth" -> "mp_obj_bound_meth_t";
            case "mp_type_gen_instance" -> "mp_obj_gen_instance_t";
            case "mp_type_fun_bc", "mp_type_gen_wrap" -> "mp_obj_fun_bc_t";
            case "mp_type_closure" -> "mp_obj_closure_t";
            case "mp_type_cell" -> "mp_obj_cell_t";
            case "mp_type_module" -> "mp_obj_module_t";
            case "mp_type_property" -> "mp_obj_property_t";
            case "mp_type_staticmethod", "mp_type_classmethod" -> "mp_obj_static_class_method_t";
            case "task_type", "mp_type_task" -> "mp_obj_task_t";
            case "task_queue_type", "mp_type_task_queue" -> "mp_obj_task_queue_t";
            case "uctypes_struct_type" -> "mp_obj_uctypes_struct_t";
            case "mp_type_template" -> "mp_obj_template_t";
            case "mp_type_interpolation" -> "mp_obj_interpolation_t";
            case "mp_type_deque" -> "mp_obj_deque_t";
            case "mp_type_stringio", "mp_type_bytesio" -> "mp_obj_stringio_t";
            case "mp_type_enumerate" -> "mp_obj_enumerate_t";
            case "mp_type_filter" -> "mp_obj_filter_t";
            case "mp_type_map" -> "mp_obj_map_t";
            case "mp_type_zip" -> "mp_obj_zip_t";
            case "mp_type_reversed" -> "mp_obj_reversed_t";
            case "mp_type_ref" -> "mp_obj_weakref_t";
            case "mp_type_slice" -> "mp_obj_slice_t";
            default -> isException(typeSymbol) ? "mp_obj_exception_t" : null;
        };
    }

    /** True for the symbol of a built-in exception type ({@code mp_type_ValueError}, {@code mp_type_StopIteration} …). */
    public static boolean isException(String typeSymbol) {
        if (!typeSymbol.startsWith("mp_type_")) {
            return false;
        }
        String t = typeSymbol.substring("mp_type_".length());
        return !t.isEmpty() && Character.isUpperCase(t.charAt(0)) && (t.endsWith("Error") || t.endsWith("Exception")
            || t.endsWith("Exit") || t.endsWith("Interrupt") || t.endsWith("Iteration") || t.equals("GeneratorExit"));
    }

    /**
     * The built-in layouts for word size {@code w}: the structs whose fields every build of the version family has in
     * the same place. {@code legacy} selects v1.18's {@code mp_obj_fun_bc_t} and {@code mp_raw_code_t}.
     */
    public static ObjectLayouts builtin(int w, boolean legacy) {
        Map<String, Struct> s = new HashMap<>();
        put(s, w, "mp_obj_bound_meth_t", "base.type", "meth", "self");
        put(s, w, "mp_obj_closure_t", "base.type", "fun", "n_closed", "closed[]");
        put(s, w, "mp_obj_cell_t", "base.type", "obj");
        put(s, w, "mp_obj_module_t", "base.type", "globals");
        put(s, w, "mp_obj_static_class_method_t", "base.type", "fun");
        put(s, w, "mp_obj_property_t", "base.type", "proxy[0]", "proxy[1]", "proxy[2]");
        put(s, w, "mp_obj_exception_t", "base.type", null, "traceback_data", "args");
        put(s, w, "mp_obj_task_queue_t", "base.type", "heap");
        put(s, w, "mp_obj_task_t", "pairheap.base.type", "pairheap.child", "pairheap.child_last", "pairheap.next",
            "coro", "data", "state", "ph_key");
        put(s, w, "mp_obj_uctypes_struct_t", "base.type", "desc", "addr");
        put(s, w, "mp_obj_template_t", "base.type", "strings", "interpolations");
        put(s, w, "mp_obj_interpolation_t", "base.type", "value", "expression", "conversion", "format_spec");
        put(s, w, "mp_obj_enumerate_t", "base.type", "iter", "cur");
        put(s, w, "mp_obj_instance_t", "base.type", "members.used", "members.alloc", "members.table", "subobj[]");
        if (legacy) {
            put(s, w, "mp_obj_fun_bc_t", "base.type", "globals", "bytecode", "const_table", "extra_args[]");
            put(s, w, "mp_raw_code_t", null, "fun_data", "const_table");
        } else {
            put(s, w, "mp_obj_fun_bc_t", "base.type", "context", "child_table", "bytecode", "extra_args[]");
            put(s, w, "mp_raw_code_t", null, "fun_data", "children");
            put(s, w, "mp_module_context_t", "module.base.type", "module.globals", "constants.qstr_table",
                "constants.obj_table");
        }
        // fun_bc, ip, sp, {n_state, exc_sp_idx}, old_globals, state[] (without MICROPY_STACKLESS / SETTRACE)
        put(s, w, "mp_code_state_t", "fun_bc", "ip", "sp", null, "old_globals", "state[]");
        s.get("mp_code_state_t").fields().put(3 * w, new Field(3 * w, "n_state", 2));
        s.get("mp_code_state_t").fields().put(3 * w + 2, new Field(3 * w + 2, "exc_sp_idx", 2));
        put(s, w, "mp_obj_gen_instance_t", "base.type", "pend_exc", "code_state.fun_bc", "code_state.ip",
            "code_state.sp", null, "code_state.old_globals", "code_state.state[]");
        s.get("mp_obj_gen_instance_t").fields().put(5 * w, new Field(5 * w, "code_state.n_state", 2));
        s.get("mp_obj_gen_instance_t").fields().put(5 * w + 2, new Field(5 * w + 2, "code_state.exc_sp_idx", 2));
        put(s, w, "mp_exc_stack_t", "handler", "val_sp", "prev_exc");
        return new ObjectLayouts(s, false);
    }

    /** A struct of consecutive words named {@code names} ({@code null}: a word not named). */
    private static void put(Map<String, Struct> s, int w, String struct, String... names) {
        TreeMap<Integer, Field> fields = new TreeMap<>();
        int size = 0;
        for (int i = 0; i < names.length; i++) {
            if (names[i] != null) {
                fields.put(i * w, new Field(i * w, names[i], w));
            }
            if (names[i] == null || !names[i].endsWith("[]")) {
                size = (i + 1) * w;
            }
        }
        s.put(struct, new Struct(struct, size, fields));
    }

    /**
     * Reads a {@code layouts.json} ({@code {"word_size": W, "structs": {NAME: {"size": N, "fields": [[offset, name,
     * size], ...]}}}}).
     *
     * @throws DumpFormatException one line naming the file and place when it is not such a file
     */
    public static ObjectLayouts read(Path file) throws IOException {
        String name = file.toString();
        Map<String, Struct> out = new HashMap<>();
        try (JsonParser p = JsonFactory.builder().streamReadConstraints(dev.heapload.io.InputLimits.jsonConstraints())
            .build().createParser(Files.newInputStream(file))) {
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new DumpFormatException(name, 0, "not a layouts.json (expected a JSON object)");
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken t = p.nextToken();
                    if (!field.equals("structs") || t != JsonToken.START_OBJECT) {
                        p.skipChildren();
                        continue;
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String struct = p.currentName();
                        p.nextToken();
                        int size = 0;
                        TreeMap<Integer, Field> fields = new TreeMap<>();
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String f = p.currentName();
                            p.nextToken();
                            if (f.equals("size")) {
                                size = p.getIntValue();
                            } else if (f.equals("fields")) {
                                while (p.nextToken() == JsonToken.START_ARRAY) {
                                    p.nextToken();
                                    int offset = p.getIntValue();
                                    p.nextToken();
                                    String fieldName = p.getText();
                                    p.nextToken();
                                    int fieldSize = p.getIntValue();
                                    p.nextToken(); // END_ARRAY
                                    // a union's first member, a nested struct's first leaf: the first listed wins
                                    fields.putIfAbsent(offset, new Field(offset, fieldName, fieldSize));
                                }
                            } else {
                                p.skipChildren();
                            }
                        }
                        out.put(struct, new Struct(struct, size, fields));
                    }
                }
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new DumpFormatException(name, p.currentTokenLocation().getByteOffset(),
                    "not a layouts.json: " + e.getOriginalMessage());
            }
        }
        return new ObjectLayouts(out, true);
    }

    /** The {@code layouts.json} beside {@code regionsJson}, or {@code null} when there is none. */
    public static ObjectLayouts beside(Path regionsJson) throws IOException {
        Path dir = regionsJson.toAbsolutePath().getParent();
        Path f = dir == null ? null : dir.resolve("layouts.json");
        return f != null && Files.isRegularFile(f) ? read(f) : null;
    }

    /** Names of the structs held, sorted (for messages and tests). */
    public List<String> names() {
        List<String> n = new ArrayList<>(structs.keySet());
        n.sort(null);
        return n;
    }
}
