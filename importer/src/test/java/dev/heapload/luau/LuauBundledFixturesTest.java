package dev.heapload.luau;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Real dumps bundled in the repository (testdata/luau, copies of shared/testdata/luau cases), found
 * through the system property {@code heapload.testdata} set by the parent pom, so these run without
 * the shared directory. Expected numbers are from the cases' README files.
 */
class LuauBundledFixturesTest {

    private static HeapSnapshot read(String file) throws IOException {
        Path p = LuauBadInputTest.bundled(file);
        return new LuauDumpReader().read(p, "fixture", Progress.NONE);
    }

    @Test
    void eventListenersLeakPath() throws IOException {
        HeapSnapshot s = read("event-listeners/after.json");
        Nav n = new Nav(s);
        assertEquals(871, s.objectCount());
        assertEquals(102286, s.info().vmTotalBytes());

        // registry -> _MODULES -> EventBus -> ThemeChanged -> handlers, each step a named table value
        int at = n.root("registry");
        for (String name : new String[] {"_MODULES", "EventBus", "ThemeChanged", "handlers"}) {
            int r = n.ref(at, name);
            assertEquals("value", s.referenceKind(r), name);
            assertEquals(false, s.isWeak(r), name);
            int key = s.referenceTarget(r - 1);
            assertEquals("key", s.referenceKind(r - 1));
            assertEquals(name, s.label(key), "named by the key string's data");
            at = s.referenceTarget(r);
            assertEquals("table", s.type(at), name);
        }
        List<Integer> connections = n.refs(at, "array");
        assertEquals(20, connections.size(), "4 connections of before.json + 16 leaked");
        // connection -> fn (a Lua closure of @Widget.luau) -> upvalue `self`: the widget
        int last = s.referenceTarget(connections.get(19));
        int fn = n.path(last, "fn");
        assertEquals("function", s.type(fn));
        List<Integer> upvalues = n.refs(fn, "upvalue");
        assertEquals(1, upvalues.size());
        assertEquals("@Widget.luau", s.referenceName(upvalues.get(0)));
        int widget = s.referenceTarget(upvalues.get(0));
        assertEquals("0x560138339db0", s.address(widget));
        assertEquals("Dark mode", s.label(n.path(widget, "title")));
        assertEquals("@Widget.luau:36", s.label(s.referenceTarget(n.refs(fn, "proto").get(0))));
    }

    @Test
    void eventListenersGrowth() throws IOException {
        HeapSnapshot before = read("event-listeners/before.json");
        HeapSnapshot after = read("event-listeners/after.json");
        assertEquals(685, before.objectCount());
        Set<String> old = new HashSet<>();
        for (int i = 0; i < before.objectCount(); i++) {
            old.add(before.address(i));
        }
        int tables = 0;
        int functions = 0;
        int strings = 0;
        int others = 0;
        for (int i = 0; i < after.objectCount(); i++) {
            if (!old.contains(after.address(i))) {
                switch (after.type(i)) {
                    case "table" -> tables++;
                    case "function" -> functions++;
                    case "string" -> strings++;
                    default -> others++;
                }
            }
        }
        // README: 128 tables + 32 functions + 26 strings = 186 new objects, nothing freed
        assertEquals(List.of(128, 32, 26, 0), List.of(tables, functions, strings, others));
        Nav b = new Nav(before);
        int handlers = b.path(b.root("registry"), "_MODULES", "EventBus", "ThemeChanged", "handlers");
        assertEquals(4, b.refs(handlers, "array").size());
    }

    @Test
    void progressCountsBytesOfTheFileAsStored(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        byte[] json = java.nio.file.Files.readAllBytes(LuauBadInputTest.bundled("event-listeners/after.json"));
        java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gz)) {
            out.write(json);
        }
        Path file = java.nio.file.Files.write(dir.resolve("after.json.gz"), gz.toByteArray());
        List<String> calls = new ArrayList<>();
        List<Long> steps = new ArrayList<>();
        new LuauDumpReader().read(file, "p", new Progress() {
            @Override
            public void start(String phase, long total, String unit) {
                calls.add("start " + phase + " " + total + " " + unit);
            }

            @Override
            public void step(long done) {
                steps.add(done);
            }

            @Override
            public void end() {
                calls.add("end");
            }
        });
        long size = gz.size();
        assertEquals(List.of("start read after.json.gz " + size + " B", "end"), calls);
        assertTrue(steps.size() >= 2, steps.toString());
        for (int i = 1; i < steps.size(); i++) {
            assertTrue(steps.get(i) >= steps.get(i - 1), steps.toString());
        }
        assertTrue(steps.get(0) > 0 && steps.get(0) <= size, steps.toString());
        assertEquals(size, steps.get(steps.size() - 1));
    }

    @Test
    void unescapedNamesFixture() throws IOException {
        HeapSnapshot s = read("edge-unescaped-names/after.json");
        assertEquals(544, s.objectCount());
        List<String> cFunctionNames = new ArrayList<>();
        Nav n = new Nav(s);
        for (String address : new String[] {"0x55578d583bc0", "0x55578d583bf8", "0x55578d583c30", "0x55578d583c68",
            "0x55578d583ca0"}) {
            cFunctionNames.add(s.label(n.byAddress(address)));
        }
        assertEquals(List.of("caf\u00e9", "Gr\u00f6\u00dfe\u2192Breite", "tab\there", "C:\\engine\\bindings\\io",
            "Instance:WaitForChild(\"Handle\")"), cFunctionNames);
        assertEquals("Plugin \"Inspector\"", s.info().categories().get(130).name());
        assertEquals("Packages\\Roact", s.info().categories().get(131).name());
        assertEquals(4, s.info().warnings().size());
        assertTrue(s.info().warnings().get(3).endsWith("first at byte 1104"));
    }
}
