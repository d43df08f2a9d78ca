package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 item 9 end to end: {@code heapload query why-alive} on a local of a stack frame says which frame holds it
 * (the dump of importer's StackFrameTest: the table {@code 0x1400} is the local {@code session} of
 * {@code handleRequest}, defined at {@code @main.luau:5}).
 */
class StackFrameCommandTest {

    @TempDir
    Path tmp;

    /** The generated dump, as in importer's StackFrameTest. */
    static final String DUMP = "{\"objects\":{\n"
        + "\"0x1000\":{\"type\":\"thread\",\"cat\":0,\"size\":1232,\"env\":\"0x1100\",\"stack\":[\"0x1300\",\"0x1400\",\"0x1500\","
        + "\"0x1600\"],\"stacknames\":[\"frame:@main.luau:5:handleRequest\",\"session\",\"frame:pcall\",null]},\n"
        + "\"0x1100\":{\"type\":\"table\",\"cat\":0,\"size\":80},\n"
        + "\"0x1300\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x1100\",\"name\":\"handleRequest\"},\n"
        + "\"0x1400\":{\"type\":\"table\",\"cat\":0,\"size\":64},\n"
        + "\"0x1500\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x1100\",\"name\":\"pcall\"},\n"
        + "\"0x1600\":{\"type\":\"table\",\"cat\":0,\"size\":64},\n"
        + "\"0\":{\"type\":\"userdata\",\"cat\":0,\"size\":0}\n"
        + "},\"roots\":{\n"
        + "\"mainthread\":\"0x1000\",\"registry\":\"0x1100\"},\"stats\":{\n"
        + "\"size\":2000,\n"
        + "\"categories\":{\n"
        + "\"0\":{\"name\":\"main\", \"size\":2000},\n"
        + "\"none\":{}\n"
        + "}\n"
        + "}}\n";

    @Test
    void whyAliveNamesTheFrame() throws Exception {
        Path file = tmp.resolve("frames.json");
        Files.writeString(file, DUMP, StandardCharsets.UTF_8);
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", db.toString(), file.toString());
        assertEquals(0, r.code(), r.err());
        r = HeapLoadCommandTest.run("query", "why-alive", "-p", "snapshot=frames", "-p", "address=0x1400", "--format", "csv",
            "--db", db.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\nretention,1,0x1400,table,,session in frame handleRequest (@main.luau:5),64,64\n"), r.out());
    }
}
