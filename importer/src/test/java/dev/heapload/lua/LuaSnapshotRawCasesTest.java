package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;
import dev.heapload.testsupport.SharedTestData;

/**
 * Acceptance of the lua-snapshot raw-table reader on every raw file of shared/testdata/lua (cloudwu's tool
 * on Lua 5.1, 5.4 and LuaJIT, lvzixun's lsnapshot on Lua 5.4; JSON and Lua-literal forms): the new objects
 * a root reaches, by type, equal the case README's expected leak as each tool saw it. What the READMEs say
 * each tool adds or misses:
 * <ul>
 *   <li>+1 table in every raw diff: the tool's own "before" table, held by the harness ({@code S1}, cloudwu)
 *       or by lsnapshot ({@code begin_s});</li>
 *   <li>cloudwu records no strings; lsnapshot (built with {@code -DDUMP_STRING}) does;</li>
 *   <li>coroutines: the 2 generator-body Lua closures are missed (only a coroutine frame's function reaches
 *       them, which the tools never mark);</li>
 *   <li>weak_tables_nogc: values of weak-key tables are followed as strong, so all 30 meta tables and the 5
 *       ephemeron pairs count (40 false tables), plus the {@code {nogc = true}} table the program passes
 *       to {@code H.snap} (a named local of the harness frame: {@code opts});</li>
 *   <li>cycles_linked_list on 5.1 and LuaJIT: cloudwu overflowed the C stack, only raw-before exists.</li>
 * </ul>
 */
class LuaSnapshotRawCasesTest {

    private static final String[] CASES = {"classes_userdata", "coroutines", "cycles_linked_list", "event_listeners",
        "module_cache", "string_keys", "weak_tables", "weak_tables_nogc"};

    static Stream<Arguments> files() {
        Stream.Builder<Arguments> b = Stream.builder();
        for (String c : CASES) {
            for (String tool : new String[] {"cloudwu-lua51", "cloudwu-lua54", "cloudwu-luajit", "lsnapshot-lua54"}) {
                if (c.equals("cycles_linked_list") && !tool.equals("cloudwu-lua54") && !tool.equals("lsnapshot-lua54")) {
                    continue;
                }
                for (String form : new String[] {"json", "lua"}) {
                    b.add(Arguments.of(c, tool, form));
                }
            }
        }
        return b.build();
    }

    static HeapSnapshot read(Path file) {
        try {
            return new LuaSnapshotRawReader().read(file, file.getFileName().toString(), Progress.NONE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Integer> counts(Object... kv) {
        Map<String, Integer> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Integer) kv[i + 1]);
        }
        return m;
    }

    /** README leak + the tool's own table (and the opts table for nogc), minus the tool's blind spots. */
    static Map<String, Integer> expected(String name, String tool) {
        boolean lsnapshot = tool.startsWith("lsnapshot");
        boolean noEphemerons = tool.endsWith("lua51") || tool.endsWith("luajit");
        Map<String, Integer> m = switch (name) {
            case "classes_userdata" -> counts("table", 125 + 1, "userdata", 25, "string", 33);
            case "coroutines" -> counts("thread", 17, "table", 32 + 1, "cfunction", 2, "string", 18);
            case "cycles_linked_list" -> counts("table", 10004 + 1, "string", 9);
            case "event_listeners" -> counts("table", 80 + 1, "function", 40, "string", 40);
            case "module_cache" -> counts("table", 400 + 1, "string", 400);
            case "string_keys" -> counts("table", 14 + 1, "string", 11);
            case "weak_tables" -> counts("table", (noEphemerons ? 16 : 6) + 1, "string", 10);
            case "weak_tables_nogc" -> counts("table", 3 + 30 + 5 + 5 + 1 + 1, "string", 40);
            default -> throw new IllegalArgumentException(name);
        };
        if (!lsnapshot) {
            m.remove("string");
        }
        return m;
    }

    @ParameterizedTest(name = "{0} {1} .{2}")
    @MethodSource("files")
    void newObjectsAsTheToolSawThem(String name, String tool, String form) {
        Path dir = SharedTestData.require("lua", "lua-snapshot raw table tests").resolve(name).resolve(tool);
        LuaRuns.Pair pair = new LuaRuns.Pair(read(dir.resolve("raw-before." + form)), read(dir.resolve("raw-after." + form)));
        assertEquals(expected(name, tool), pair.newReachableByType(true), name + " " + tool);
        assertEquals(pair.diff.newCount(), pair.newReachable().size(), "the tools record reachable objects only");
        // the tool's own "before" table is among the new tables
        String own = tool.startsWith("lsnapshot") ? "begin_s" : "S1";
        java.util.Set<Integer> ownRefs = referencedAs(pair.after, own);
        long ownTables = pair.newReachable().stream().filter(ownRefs::contains).count();
        assertEquals(1, ownTables, "the tool's own before table, referenced as " + own);
        if (name.equals("weak_tables_nogc")) {
            java.util.Set<Integer> opts = referencedAs(pair.after, "opts");
            assertEquals(1, pair.newReachable().stream().filter(opts::contains).count(), "the harness's opts table");
        }
        if (name.equals("string_keys")) {
            // the forged parent 0xdeadbeef has no record: its line is the rest of the key, whole
            assertTrue(pair.after.info().warnings().contains("3 record line(s) were read as the rest of the previous edge "
                    + "name (keys holding a newline), 1 of them shaped like a parent line that does not fit the record (no "
                    + "record at that address, a string, or a parent named twice)"),
                () -> "continuation lines: " + pair.after.info().warnings());
            assertTrue(hasReferenceNamed(pair.after, "line1\nline2\n0xdeadbeef : injected"), "the key with newlines, whole");
            assertEquals(0, pair.after.danglingReferences().total(), "no reference to nothing");
        }
        assertFalse(pair.after.info().warnings().isEmpty(), "what the raw format lacks is stated");
    }

    /** cloudwu overflowed the C stack on the 10,000-node list on Lua 5.1 and LuaJIT: only raw-before exists. */
    @Test
    void cyclesRawBeforeOnly() {
        Path dir = SharedTestData.require("lua", "lua-snapshot raw table tests").resolve("cycles_linked_list");
        // record counts as the harness logged them in stderr.txt ("cloudwu raw before 182" / "208")
        assertEquals(182, read(dir.resolve("cloudwu-lua51/raw-before.lua")).objectCount());
        assertEquals(182, read(dir.resolve("cloudwu-lua51/raw-before.json")).objectCount());
        assertEquals(208, read(dir.resolve("cloudwu-luajit/raw-before.lua")).objectCount());
        assertEquals(208, read(dir.resolve("cloudwu-luajit/raw-before.json")).objectCount());
    }

    /** Targets of references named {@code name}, or a local of that name ({@code name : src:line}, {@code name{#src:line}}). */
    private static java.util.Set<Integer> referencedAs(HeapSnapshot s, String name) {
        java.util.Set<Integer> out = new java.util.HashSet<>();
        for (int r = 0; r < s.referenceCount(); r++) {
            String n = s.referenceName(r);
            if (n != null && (n.equals(name) || n.startsWith(name + " : ") || n.startsWith(name + "{#"))) {
                out.add(s.referenceTarget(r));
            }
        }
        return out;
    }

    private static boolean hasReferenceNamed(HeapSnapshot s, String name) {
        for (int r = 0; r < s.referenceCount(); r++) {
            if (name.equals(s.referenceName(r))) {
                return true;
            }
        }
        return false;
    }
}
