package dev.heapload.luau;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/** Files that are not (complete, valid) Luau dumps: one-line DumpFormatExceptions with the right offset. */
class LuauBadInputTest {

    @TempDir
    Path dir;

    /** A minimal valid dump in the VM's layout (spec §2). */
    static final String SMALL = "{\"objects\":{\n"
        + "\"0x10\":{\"type\":\"thread\",\"cat\":0,\"size\":1232,\"env\":\"0x20\",\"stack\":[],\"stacknames\":[]},\n"
        + "\"0x20\":{\"type\":\"table\",\"cat\":0,\"size\":80,\"pairs\":[\"0x30\",\"0x40\"]},\n"
        + "\"0x30\":{\"type\":\"string\",\"cat\":0,\"size\":29,\"data\":\"print\"},\n"
        + "\"0x40\":{\"type\":\"function\",\"cat\":0,\"size\":56,\"env\":\"0x20\",\"name\":\"print\"},\n"
        + "\"0\":{\"type\":\"userdata\",\"cat\":0,\"size\":0}\n"
        + "},\"roots\":{\n"
        + "\"mainthread\":\"0x10\",\"registry\":\"0x20\"},\"stats\":{\n"
        + "\"size\":2000,\n"
        + "\"categories\":{\n"
        + "\"0\":{\"name\":\"main\", \"size\":2000},\n"
        + "\"none\":{}\n"
        + "}\n"
        + "}}\n";

    private Path write(String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    private Path write(String name, String text) throws IOException {
        return write(name, text.getBytes(StandardCharsets.UTF_8));
    }

    private static DumpFormatException failure(Path file) {
        DumpFormatException e = assertThrows(DumpFormatException.class,
            () -> new LuauDumpReader().read(file, "x", Progress.NONE));
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertTrue(e.getMessage().startsWith(file.toString() + ": "), e.getMessage());
        return e;
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    @Test
    void theSmallDumpIsValid() throws IOException {
        HeapSnapshot s = new LuauDumpReader().read(write("small.json", SMALL), "x", Progress.NONE);
        assertEquals(4, s.objectCount());
        assertEquals(4, s.referenceCount());
        assertEquals("print", s.referenceName(s.firstReference(1) + 1));
        assertEquals(2000, s.info().vmTotalBytes());
        assertEquals("print", s.label(3));
    }

    @Test
    void validJsonWithAnEscapedKeyIsNotADumpAndSaysSo() throws IOException {
        // an escaped key once overflowed the repair filter's key buffer index (found by a new-user trial)
        Path file = write("esc.json", "{\"objects\":{}, \"x\\\\yzw\": 1}");
        assertEquals(file + ": not a Luau heap dump: no \"roots\" member", failure(file).getMessage());
        // the VM never writes backslash escapes, so the filter reads a backslash as a literal byte: an escaped
        // quote in a key is then a broken key, reported as such
        Path key = write("esc2.json", "{\"a\\\"b\": 1, \"objects\":{}, \"roots\":{}}");
        assertEquals(key + ": byte 5: invalid JSON: Unexpected character ('b' (code 98)): was expecting a colon to separate field name and value",
            failure(key).getMessage());
    }

    @Test
    void aDumpNeedsRoots() throws IOException {
        Path file = write("objects-only.json", "{\"objects\":{}}");
        assertEquals(file + ": not a Luau heap dump: no \"roots\" member", failure(file).getMessage());
    }

    @Test
    void randomBytesGiveOneLineNamingTheFile() throws IOException {
        java.util.Random random = new java.util.Random(7);
        for (int round = 0; round < 200; round++) {
            byte[] bytes = new byte[1 + random.nextInt(3000)];
            random.nextBytes(bytes);
            if (round % 2 == 0) {
                bytes[0] = '{';
            }
            Path file = write("garbage" + round + ".json", bytes);
            String message = failure(file).getMessage();
            assertTrue(message.startsWith(file + ": ") && !message.contains("\n"), message);
        }
    }

    @Test
    void missingFile() {
        Path file = dir.resolve("x.json");
        DumpFormatException e = failure(file);
        assertEquals(file + ": no such file", e.getMessage());
        assertEquals(-1, e.byteOffset());
    }

    @Test
    void directory() {
        assertEquals(dir + ": is a directory, not a dump file", failure(dir).getMessage());
    }

    @Test
    void emptyFile() throws IOException {
        Path file = write("x.json", "");
        DumpFormatException e = failure(file);
        assertEquals(file + ": byte 0: empty file", e.getMessage());
        assertEquals(0, e.byteOffset());
        Path gz = write("x.json.gz", gzip(new byte[0]));
        assertEquals(gz + ": byte 0: empty file", failure(gz).getMessage());
    }

    @Test
    void whitespaceOnly() throws IOException {
        Path file = write("x.json", " \n\n");
        assertEquals(file + ": byte 0: no JSON value (only whitespace)", failure(file).getMessage());
    }

    @Test
    void truncatedEverywhere() throws IOException {
        byte[] full = SMALL.getBytes(StandardCharsets.UTF_8);
        // every cut except after the closing "}}" (the last newline is optional)
        for (int cut = 1; cut < full.length - 1; cut++) {
            Path file = write("cut.json", Arrays.copyOf(full, cut));
            DumpFormatException e = failure(file);
            if (e.getMessage().contains("unexpected end of input")) {
                assertEquals(file + ": byte " + cut + ": unexpected end of input (truncated dump?)", e.getMessage());
            } else {
                // a cut inside a literal (null, a number) can be an invalid token rather than an early end
                assertTrue(e.getMessage().contains("invalid JSON"), e.getMessage());
                assertTrue(e.byteOffset() >= 0 && e.byteOffset() <= cut, e.getMessage());
            }
        }
    }

    @Test
    void truncatedRealDump() throws IOException {
        Path source = bundled("event-listeners/after.json");
        byte[] full = Files.readAllBytes(source);
        Path file = write("x.json", Arrays.copyOf(full, 51234));
        DumpFormatException e = failure(file);
        assertEquals(file + ": byte 51234: unexpected end of input (truncated dump?)", e.getMessage());
        assertEquals(51234, e.byteOffset());
    }

    @Test
    void gzipIsDetectedByMagicBytesNotByName() throws IOException {
        byte[] full = Files.readAllBytes(bundled("event-listeners/after.json"));
        byte[] gz = gzip(full);
        HeapSnapshot plain = new LuauDumpReader().read(write("plain.json.gz", full), "x", Progress.NONE);
        HeapSnapshot packed = new LuauDumpReader().read(write("packed.json", gz), "x", Progress.NONE);
        assertEquals(871, plain.objectCount());
        assertEquals(871, packed.objectCount());
        assertEquals(plain.referenceCount(), packed.referenceCount());
        assertEquals(plain.info().vmTotalBytes(), packed.info().vmTotalBytes());
        assertFalse(plain.info().sha256().equals(packed.info().sha256()), "checksum of the bytes as stored");
    }

    @Test
    void truncatedGzip() throws IOException {
        byte[] full = Files.readAllBytes(bundled("event-listeners/after.json"));
        byte[] gz = gzip(full);
        Path file = write("x.json.gz", Arrays.copyOf(gz, gz.length / 2));
        DumpFormatException e = failure(file);
        assertTrue(e.getMessage().matches(".*: byte \\d+: unexpected end of gzip data \\(truncated file\\?\\)"),
            e.getMessage());
        assertTrue(e.byteOffset() > 0 && e.byteOffset() < full.length, e.getMessage());
        // the JSON complete, only the gzip trailer (CRC, length) missing
        Path noTrailer = write("y.json.gz", Arrays.copyOf(gz, gz.length - 4));
        assertTrue(failure(noTrailer).getMessage().endsWith("unexpected end of gzip data (truncated file?)"));
    }

    @Test
    void corruptGzip() throws IOException {
        byte[] gz = gzip(SMALL.getBytes(StandardCharsets.UTF_8));
        gz[2] = 7; // compression method: only 8 (deflate) exists
        Path file = write("x.json.gz", gz);
        assertTrue(failure(file).getMessage().startsWith(file + ": byte 0: corrupt gzip data: "));
    }

    @Test
    void notJson() throws IOException {
        Path file = write("x.json", "hello world\n");
        DumpFormatException e = failure(file);
        assertTrue(e.getMessage().startsWith(file + ": byte 0: invalid JSON: Unrecognized token 'hello'"), e.getMessage());
        Path png = write("x.png", new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13});
        assertTrue(failure(png).getMessage().startsWith(png + ": byte 0: invalid JSON: "));
    }

    @Test
    void jsonThatIsNotALuauDump() throws IOException {
        Path object = write("x.json", "{\"a\":1}");
        assertEquals(object + ": not a Luau heap dump: no \"objects\" member", failure(object).getMessage());
        Path array = write("y.json", "[1,2]");
        assertEquals(array + ": byte 0: not a Luau heap dump: the top-level JSON value is an array, expected an"
            + " object with \"objects\", \"roots\" and \"stats\"", failure(array).getMessage());
        Path objectsArray = write("z.json", "{\"objects\":[1]}");
        assertEquals(objectsArray + ": byte 11: not a Luau heap dump: \"objects\" is an array, not an object",
            failure(objectsArray).getMessage());
        Path notARecord = write("r.json", "{\"objects\":{\"0x1\":5}}");
        assertEquals(notARecord + ": byte 18: not a Luau heap dump: the record of \"0x1\" is a number, not an object",
            failure(notARecord).getMessage());
        Path noType = write("t.json", "{\"objects\":{\"0x1\":{\"size\":5,\"env\":\"0x2\"}}}");
        assertEquals(noType + ": byte 12: not a Luau heap dump: the record of \"0x1\" has no \"type\"",
            failure(noType).getMessage());
    }

    @Test
    void trailingData() throws IOException {
        Path file = write("x.json", SMALL + "{}");
        assertEquals(file + ": byte " + SMALL.length() + ": unexpected data after the end of the dump",
            failure(file).getMessage());
    }

    @Test
    void addressDefinedTwice() throws IOException {
        String dump = SMALL.replace("\"0x30\":{\"type\":\"string\"", "\"0x20\":{\"type\":\"string\"");
        Path file = write("x.json", dump);
        int at = dump.indexOf("\"0x20\":{\"type\":\"string\"");
        assertEquals(file + ": byte " + at + ": object 0x20 is defined twice", failure(file).getMessage());
    }

    @Test
    void errorOffsetsAreOffsetsOfTheOriginalFileAfterRepairs() throws IOException {
        // the raw name grows by 6 bytes when repaired (2 quotes, a backslash, a TAB), the later error must
        // still be reported where it is in the file
        String dump = SMALL.replace("\"name\":\"print\"", "\"name\":\"p\"r\"i\\n\tt\"")
            .replace("\"size\":2000,", "\"size\":20x0,");
        Path file = write("x.json", dump);
        DumpFormatException e = failure(file);
        assertEquals(dump.indexOf("20x0") + 2, e.byteOffset(), e.getMessage());
        assertTrue(e.getMessage().contains("invalid JSON"), e.getMessage());
        // and in a gzip file: offsets in the uncompressed dump
        Path gz = write("x.json.gz", gzip(dump.getBytes(StandardCharsets.UTF_8)));
        assertEquals(dump.indexOf("20x0") + 2, failure(gz).byteOffset());
    }

    @Test
    void unknownFieldsAndTypesAreWarnings() throws IOException {
        String dump = SMALL.replace("\"data\":\"print\"", "\"data\":\"print\",\"hash\":[1,{\"x\":2}]")
            .replace("{\"type\":\"function\",", "{\"type\":\"closure2\",");
        HeapSnapshot s = new LuauDumpReader().read(write("x.json", dump), "x", Progress.NONE);
        assertEquals(4, s.objectCount());
        assertEquals("closure2", s.type(3));
        assertEquals(Arrays.asList(
            "record type(s) unknown to this reader: closure2; none of their unknown fields holds an address",
            "ignored unknown field(s): string.hash"), s.info().warnings());
        // known field names of an unknown type are still read: "env" is a reference, "name" no label
        assertEquals(4, s.referenceCount());
        assertEquals("env", s.referenceKind(s.firstReference(3)));
        assertEquals(null, s.label(3));
    }

    static Path bundled(String file) {
        String testdata = System.getProperty("heapload.testdata");
        Path p = testdata == null ? null : Path.of(testdata, "luau", file);
        Assumptions.assumeTrue(p != null && Files.isRegularFile(p),
            "bundled test data not found (system property heapload.testdata = " + testdata + "): test skipped");
        return p;
    }
}
