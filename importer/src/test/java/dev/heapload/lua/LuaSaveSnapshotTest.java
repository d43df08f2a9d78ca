package dev.heapload.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * The function for saving lua-snapshot's raw table ({@code dumpers/lua/save_snapshot.lua}) writes
 * a file the raw reader loads byte-exactly, on each interpreter ({@code %q} differs: 5.1 writes NUL as
 * {@code \000}, 5.4 as {@code \0}).
 */
@Tag("process")
class LuaSaveSnapshotTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"lua5.1", "lua5.2", "lua5.3", "lua5.4", "luajit"})
    void savedTableLoads(String exe) throws IOException {
        LuaRuns.requireInterpreter(exe);
        Path program = tmp.resolve("save.lua");
        Files.writeString(program, String.join("\n",
            "local save = require 'save_snapshot'",
            "save({ ['0x10'] = 'table\\n(nil) : [registry]\\n',",
            "       ['0x20'] = 'table\\n0x10 : a\\nkey\\0with NUL\\n',",
            "       ['0x30'] = 'func: program.lua:3\\n0x20 : [metatable]\\n' }, 'raw.lua')", ""));
        LuaRuns.run(exe, program, tmp);
        HeapSnapshot s = new LuaSnapshotRawReader().read(tmp.resolve("raw.lua"), "raw", Progress.NONE);
        assertEquals(3, s.objectCount());
        List<String> refs = new ArrayList<>();
        for (int r = 0; r < s.referenceCount(); r++) {
            refs.add(s.referenceKind(r) + " " + s.referenceName(r) + " -> " + s.address(s.referenceTarget(r)));
        }
        assertEquals(List.of("value a\nkey\0with NUL -> 0x20", "metatable [metatable] -> 0x30"), refs);
        assertEquals("program.lua:3", s.label(2));
    }
}
