package dev.heapload.luau;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The repairing byte filter on its own: exact output bytes, offsets, buffer boundaries. */
class LuauJsonRepairTest {

    private static final String HEAD = "{\"objects\":{\n";
    private static final String HEAD_OUT = "{\"objects\":[\n";
    private static final String TAIL = "\"0\":{\"type\":\"userdata\",\"cat\":0,\"size\":0}\n},\"roots\":{\n";
    private static final String TAIL_OUT = "\"0\",{\"type\":\"userdata\",\"cat\":0,\"size\":0}\n],\"roots\":{\n";

    /** Delivers at most {@code step} bytes per read, to move buffer boundaries around. */
    private static InputStream slow(byte[] data, int step) {
        return new ByteArrayInputStream(data) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, step));
            }
        };
    }

    private static byte[] bulk(LuauJsonRepair r) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = r.read(buf, 0, buf.length)) >= 0) {
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    /** Repairs {@code in} in several ways and checks they agree; returns the output as ISO-8859-1 text. */
    private static String repair(byte[] in) throws IOException {
        byte[] expected = bulk(new LuauJsonRepair(new ByteArrayInputStream(in)));
        for (int step : new int[] {1, 7, 63, 64, 65, 4096}) {
            assertEquals(new String(expected, StandardCharsets.ISO_8859_1),
                new String(bulk(new LuauJsonRepair(slow(in, step))), StandardCharsets.ISO_8859_1), "source step " + step);
        }
        LuauJsonRepair oneByOne = new LuauJsonRepair(new ByteArrayInputStream(in));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int b;
        while ((b = oneByOne.read()) >= 0) {
            out.write(b);
        }
        assertEquals(new String(expected, StandardCharsets.ISO_8859_1), out.toString(StandardCharsets.ISO_8859_1),
            "single-byte reads");
        return new String(expected, StandardCharsets.ISO_8859_1);
    }

    private static String repair(String in) throws IOException {
        return repair(in.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void validDumpOnlyChangesTheShapeOfObjects() throws IOException {
        String in = HEAD + "\"0x1\":{\"type\":\"string\",\"cat\":0,\"size\":30,\"data\":\"a?b~\u007f\"},\n" + TAIL
            + "\"mainthread\":\"0x1\"}}\n";
        String out = HEAD_OUT + "\"0x1\",{\"type\":\"string\",\"cat\":0,\"size\":30,\"data\":\"a?b~\u007f\"},\n" + TAIL_OUT
            + "\"mainthread\":\"0x1\"}}\n";
        assertEquals(out, repair(in));
        assertEquals(in.length(), out.length());
    }

    @Test
    void rawFunctionNames() throws IOException {
        String in = HEAD
            + "\"0x1\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"W(\"H\")\"},\n"
            + "\"0x2\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"C:\\e\\b\"},\n"
            + "\"0x3\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"t\tn\u0000\u001f\"},\n"
            + "\"0x4\":{\"type\":\"function\",\"cat\":0,\"size\":32,\"env\":\"0x2\",\"name\":\"a\",\"b\"}x\",\"proto\":\"0x5\"},\n"
            + "\"0x5\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"q\"\",\"upvalues\":[\"0x1\"]},\n"
            + TAIL;
        String out = HEAD_OUT
            + "\"0x1\",{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"W(\\\"H\\\")\"},\n"
            + "\"0x2\",{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"C:\\\\e\\\\b\"},\n"
            + "\"0x3\",{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"t\\u0009n\\u0000\\u001f\"},\n"
            + "\"0x4\",{\"type\":\"function\",\"cat\":0,\"size\":32,\"env\":\"0x2\",\"name\":\"a\\\",\\\"b\\\"}x\",\"proto\":\"0x5\"},\n"
            + "\"0x5\",{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x2\",\"name\":\"q\\\"\",\"upvalues\":[\"0x1\"]},\n"
            + TAIL_OUT;
        assertEquals(out, repair(in));
        LuauJsonRepair r = new LuauJsonRepair(new ByteArrayInputStream(in.getBytes(StandardCharsets.ISO_8859_1)));
        bulk(r);
        assertEquals(6, r.count(LuauJsonRepair.Repair.UNESCAPED_QUOTE));
        assertEquals(in.indexOf("\"H"), r.firstOffset(LuauJsonRepair.Repair.UNESCAPED_QUOTE));
        assertEquals(2, r.count(LuauJsonRepair.Repair.LITERAL_BACKSLASH));
        assertEquals(in.indexOf("\\e"), r.firstOffset(LuauJsonRepair.Repair.LITERAL_BACKSLASH));
        assertEquals(3, r.count(LuauJsonRepair.Repair.CONTROL_CHARACTER));
        assertEquals(in.indexOf('\t'), r.firstOffset(LuauJsonRepair.Repair.CONTROL_CHARACTER));
        assertEquals(0, r.count(LuauJsonRepair.Repair.INVALID_UTF8));
    }

    @Test
    void utf8IsKeptWhenWellFormedAndReadAsLatin1Otherwise() throws IOException {
        byte[] name = {
            'G', 'r', (byte) 0xC3, (byte) 0xB6, // ö
            (byte) 0xE2, (byte) 0x86, (byte) 0x92, // →
            (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80, // U+1F600
            (byte) 0xE9, // lone Latin-1 é
            (byte) 0xC0, (byte) 0x80, // overlong NUL
            (byte) 0xED, (byte) 0xA0, (byte) 0x80, // UTF-16 surrogate
            (byte) 0xFF, (byte) 0xC3, // invalid byte, truncated sequence before the closing quote
        };
        String before = HEAD + "\"0x1\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x1\",\"name\":\"";
        String after = "\"},\n" + TAIL;
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.write(before.getBytes(StandardCharsets.ISO_8859_1));
        in.write(name);
        in.write(after.getBytes(StandardCharsets.ISO_8859_1));
        String expectedName = "Gr\u00c3\u00b6\u00e2\u0086\u0092\u00f0\u009f\u0098\u0080" // UTF-8 bytes kept
            + "\\u00e9\\u00c0\\u0080\\u00ed\\u00a0\\u0080\\u00ff\\u00c3";
        assertEquals(HEAD_OUT + "\"0x1\",{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x1\",\"name\":\""
            + expectedName + after.replace(TAIL, TAIL_OUT), repair(in.toByteArray()));
        LuauJsonRepair r = new LuauJsonRepair(new ByteArrayInputStream(in.toByteArray()));
        bulk(r);
        assertEquals(8, r.count(LuauJsonRepair.Repair.INVALID_UTF8));
        assertEquals(before.length() + 11, r.firstOffset(LuauJsonRepair.Repair.INVALID_UTF8));
    }

    @Test
    void stackNamesUseTheStackLength() throws IOException {
        // 3 slots; the last name is a C function named a","b (quote, comma, quote inside)
        String in = HEAD + "\"0x1\":{\"type\":\"thread\",\"cat\":0,\"size\":1232,\"env\":\"0x2\",\"stack\":[\"0x3\",\"0x4\","
            + "\"0x5\"],\"stacknames\":[\"frame:@m.luau:1:\",null,\"frame:a\",\"b\"]},\n" + TAIL;
        String out = HEAD_OUT + "\"0x1\",{\"type\":\"thread\",\"cat\":0,\"size\":1232,\"env\":\"0x2\",\"stack\":[\"0x3\","
            + "\"0x4\",\"0x5\"],\"stacknames\":[\"frame:@m.luau:1:\",null,\"frame:a\\\",\\\"b\"]},\n" + TAIL_OUT;
        assertEquals(out, repair(in));
        // a local's name containing a quote, not the last slot
        String in2 = HEAD + "\"0x1\":{\"type\":\"thread\",\"cat\":0,\"size\":1232,\"env\":\"0x2\",\"stack\":[\"0x3\",\"0x4\"],"
            + "\"stacknames\":[\"x\"y\",\"z\"]},\n" + TAIL;
        assertEquals(in2.replace("x\"y", "x\\\"y").replace(HEAD, HEAD_OUT).replace(TAIL, TAIL_OUT)
            .replace("\"0x1\":", "\"0x1\","), repair(in2));
    }

    @Test
    void categoryNames() throws IOException {
        String in = "{\"objects\":{\n" + TAIL + "\"mainthread\":\"0x1\",\"registry\":\"0x2\"},\"stats\":{\n\"size\":3,\n"
            + "\"categories\":{\n\"130\":{\"name\":\"Plugin \"Inspector\"\", \"size\":1},\n"
            + "\"131\":{\"name\":\"Packages\\Roact\", \"size\":2},\n\"none\":{}\n}\n}}\n";
        String out = in.replace("\"Plugin \"Inspector\"\"", "\"Plugin \\\"Inspector\\\"\"")
            .replace("Packages\\Roact", "Packages\\\\Roact").replace("{\"objects\":{\n" + TAIL, HEAD_OUT + TAIL_OUT);
        assertEquals(out, repair(in));
    }

    @Test
    void classRecords() throws IOException {
        String in = HEAD
            + "\"0x1\":{\"type\":\"class\",\"cat\":0,\"size\":80,\"name\":Particle,\"super\":null,\"membernames\":[\"0x2\"],"
            + "\"staticmembers\":[\"0x3\",\"0x4\",\"instancemetatable\":null,\"memberstooffset\":\"0x5\"},\n"
            + "\"0x6\":{\"type\":\"class\",\"cat\":0,\"size\":80,\"name\":null,\"super\":\"0x1\",\"membernames\":[],"
            + "\"staticmembers\":[,\"instancemetatable\":\"0x7\",\"memberstooffset\":\"0x8\"},\n"
            + TAIL;
        String out = HEAD_OUT
            + "\"0x1\",{\"type\":\"class\",\"cat\":0,\"size\":80,\"name\":\"Particle\",\"super\":null,\"membernames\":[\"0x2\"],"
            + "\"staticmembers\":[\"0x3\",\"0x4\"],\"instancemetatable\":null,\"memberstooffset\":\"0x5\"},\n"
            + "\"0x6\",{\"type\":\"class\",\"cat\":0,\"size\":80,\"name\":\"null\",\"super\":\"0x1\",\"membernames\":[],"
            + "\"staticmembers\":[],\"instancemetatable\":\"0x7\",\"memberstooffset\":\"0x8\"},\n"
            + TAIL_OUT;
        assertEquals(out, repair(in));
    }

    @Test
    void emptyVectorRecordsAndOffsetMapping() throws IOException {
        String in = HEAD + "\"0xa\":,\n\"0xb\":,\n\"0xc\":{\"type\":\"table\",\"cat\":0,\"size\":64,\"array\":[\"0xa\"]},\n" + TAIL;
        String out = HEAD_OUT + "\"0xa\",{\"type\":\"vector\"},\n\"0xb\",{\"type\":\"vector\"},\n"
            + "\"0xc\",{\"type\":\"table\",\"cat\":0,\"size\":64,\"array\":[\"0xa\"]},\n" + TAIL_OUT;
        assertEquals(out, repair(in));
        LuauJsonRepair r = new LuauJsonRepair(new ByteArrayInputStream(in.getBytes(StandardCharsets.ISO_8859_1)));
        bulk(r);
        assertEquals(2, r.count(LuauJsonRepair.Repair.EMPTY_VECTOR_RECORD));
        assertEquals(in.indexOf(":,") + 1, r.firstOffset(LuauJsonRepair.Repair.EMPTY_VECTOR_RECORD));
        // every byte copied from the input maps back to its own offset
        for (String marker : new String[] {"\"0xa\"", "\"0xb\"", "\"0xc\"", "\"array\"", "\"0\""}) {
            assertEquals(in.indexOf(marker), r.originalOffset(out.indexOf(marker)), marker);
        }
        // bytes inserted by a repair map to the repaired spot
        assertEquals(in.indexOf(":,") + 1, r.originalOffset(out.indexOf("{\"type\":\"vector\"}") + 5));
        assertEquals(in.length(), r.originalOffset(out.length()));
    }

    @Test
    void lookaheadAcrossBufferBoundaries() throws IOException {
        // a 70 000-byte string pushes the raw name across the filter's 64 KiB input buffer
        StringBuilder in = new StringBuilder(HEAD);
        in.append("\"0x1\":{\"type\":\"string\",\"cat\":0,\"size\":70025,\"data\":\"").append("x".repeat(70000)).append("\"},\n");
        for (int pad = 0; pad < 70; pad++) {
            in.append("\"0x").append(100 + pad).append("\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x1\","
                + "\"name\":\"i(\"").append("q".repeat(pad)).append("\")\"},\n");
        }
        in.append(TAIL);
        String out = repair(in.toString());
        for (int pad = 0; pad < 70; pad++) {
            String name = "\"name\":\"i(\\\"" + "q".repeat(pad) + "\\\")\"},";
            assertEquals(true, out.contains(name), name);
        }
        assertEquals(in.length() + 70 * 2, out.length());
    }
}
