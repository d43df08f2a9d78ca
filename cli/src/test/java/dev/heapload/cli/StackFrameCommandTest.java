package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stack frames end to end: {@code heapload query why-alive} on a local of a stack frame says which frame holds it
 * (the bundled {@code testdata/luau/hand-written/stack-frames.json} that importer's StackFrameTest reads: the table
 * {@code 0x1400} is the local {@code session} of {@code handleRequest}, defined at {@code @main.luau:5}); on a Lua 5.4
 * dump of heapload's dumper ({@code testdata/lua/stack-frames}), which frame of which thread holds a local.
 */
class StackFrameCommandTest {

    @TempDir
    Path tmp;

    static final Path TESTDATA = Path.of(System.getProperty("heapload.testdata", "../testdata"));

    @Test
    void whyAliveNamesTheFrame() throws Exception {
        Path file = tmp.resolve("frames.json");
        Files.copy(TESTDATA.resolve("luau").resolve("hand-written").resolve("stack-frames.json"), file);
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), file.toString());
        assertEquals(0, r.code(), r.err());
        r = HeapLoadCommandTest.run("query", "why-alive", "-p", "snapshot=frames", "-p", "address=0x1400", "--format", "csv",
            "--db", db.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\nretention,1,0x1400,table,,session in frame handleRequest (@main.luau:5),64,64\n"), r.out());
    }

    @Test
    void whyAliveNamesTheLuaFrame() throws Exception {
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), "--name", "lua",
            TESTDATA.resolve("lua").resolve("stack-frames").resolve("after.json").toString());
        assertEquals(0, r.code(), r.err());
        r = HeapLoadCommandTest.run("query", "why-alive", "-p", "snapshot=lua", "-p", "address=0x55ae0b307c40", "--format",
            "csv", "--db", db.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\nretention,1,0x55ae0b307c40,table,,session in frame handle (program.lua:11),80,"), r.out());
        r = HeapLoadCommandTest.run("query", "why-alive", "-p", "snapshot=lua", "-p", "address=0x55ae0b307ba0", "--format",
            "csv", "--db", db.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains(",table,,job in frame function <program.lua:2> (program.lua:4),80,"), r.out());
    }
}
