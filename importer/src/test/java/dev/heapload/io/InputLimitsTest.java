package dev.heapload.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.micropython.MemoryImage;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.Progress;

/**
 * The documented input limits ({@link InputLimits}), the refusal of pipes and duplicate members: exact one-line
 * messages with the file and byte offset, for every reader.
 */
class InputLimitsTest {

    @TempDir
    Path dir;

    private static final String LUA_HEAD = "{\"format\":\"lua-heap-snapshot\",\"formatVersion\":1,"
        + "\"lua\":{\"version\":\"Lua 5.4\",\"jit\":null},\"objects\":{";

    private Path write(String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name), bytes);
    }

    private Path write(String name, String text) throws IOException {
        return write(name, text.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    /** The message of reading {@code file} with the format detected (or {@code format}). */
    private static String failure(Path file, String format) {
        DumpFormatException e = assertThrows(DumpFormatException.class,
            () -> DumpReaders.read(file, "x", Progress.NONE, format));
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        return e.getMessage();
    }

    @Test
    void gzipContentLimitCombinesTheRatioAndTheStatedSize() {
        assertEquals(1000L * 1000, InputLimits.gzipContentLimit(1000, -1));
        // stated 500 bytes of a 1000-byte file: 500 + k·2^32 under 1,000,000 is 500 itself
        assertEquals(500, InputLimits.gzipContentLimit(1000, 500));
        // a 10 MB file stating 2 GiB (10 GiB mod 2^32): over 100:1 already, so 2 GiB and no more
        assertEquals(2L << 30, InputLimits.gzipContentLimit(10_000_000, 2L << 30));
        // a 300 MB file stating 1 GiB: 1, 5, … 29 GiB are plausible (up to 30 GB at 100:1); the largest is believed
        assertEquals((1L << 30) + 6 * (1L << 32), InputLimits.gzipContentLimit(300_000_000, 1L << 30));
        // a stated size over the ratio (the last member of several): the ratio alone
        assertEquals(1000L * 1000, InputLimits.gzipContentLimit(1000, 3_000_000));
        assertEquals(Long.MAX_VALUE, InputLimits.gzipContentLimit(Long.MAX_VALUE / 10, -1));
    }

    @Test
    void aTwoByteGzipIsNotACompleteGzipFile() throws IOException {
        Path f = write("two.json.gz", new byte[] {0x1f, (byte) 0x8b});
        assertEquals(f + ": byte 0: not a complete gzip file (it ends inside the gzip header; truncated?)", failure(f, null));
        assertEquals(f + ": byte 0: not a complete gzip file (it ends inside the gzip header; truncated?)", failure(f, "luau"));
        assertEquals(f + ": byte 0: not a complete gzip file (it ends inside the gzip header; truncated?)", failure(f, "lua"));
    }

    @Test
    void aTruncatedGzipNamesTheFileForEveryReader() throws IOException {
        byte[] json = (LUA_HEAD + "\"0x1\":{\"type\":\"table\",\"size\":40,\"pad\":\"" + "ab".repeat(20_000) + "\"}}}")
            .getBytes(StandardCharsets.UTF_8);
        byte[] gz = gzip(json);
        Path f = write("cut.json.gz", java.util.Arrays.copyOf(gz, gz.length - 12));
        String m = failure(f, "lua");
        assertTrue(m.matches(java.util.regex.Pattern.quote(f.toString())
            + ": byte \\d+: unexpected end of gzip data \\(truncated file\\?\\)"), m);
        String luau = failure(f, "luau");
        assertTrue(luau.matches(java.util.regex.Pattern.quote(f.toString())
            + ": byte \\d+: unexpected end of gzip data \\(truncated file\\?\\)"), luau);
    }

    @Test
    void aGzipExpandingPastItsStatedSizeStopsThere() throws IOException {
        byte[] json = (LUA_HEAD + "\"0x1\":{\"type\":\"table\",\"size\":40}}}").getBytes(StandardCharsets.UTF_8);
        byte[] gz = gzip(json);
        // the trailer states 20 bytes: reading stops at byte 20 (before GZIPInputStream's own trailer check)
        gz[gz.length - 4] = 20;
        gz[gz.length - 3] = 0;
        gz[gz.length - 2] = 0;
        gz[gz.length - 1] = 0;
        Path f = write("lies.json.gz", gz);
        assertEquals(f + ": byte 20: gzip content larger than 20 bytes, the most a " + String.format("%,d", gz.length)
            + "-byte file may expand to (1000:1 and its stated size; limit of heapload's readers)", failure(f, "lua"));
    }

    @Test
    void aGzipBombStopsAtTheRatioLimit() throws IOException {
        byte[] zeros = new byte[16 << 20];
        byte[] gz = gzip(zeros);
        Path f = write("bomb.bin.gz", gz);
        long limit = InputLimits.gzipContentLimit(gz.length, DumpInput.statedGzipSize(f));
        assertTrue(limit < zeros.length, "deflate packs zeros about 1030:1: " + gz.length);
        try (DumpInput in = DumpInput.open(f)) {
            InputStream content = in.content();
            DumpFormatException e = assertThrows(DumpFormatException.class, () -> content.transferTo(OutputStreamNull.INSTANCE));
            assertEquals(f + ": byte " + limit + ": gzip content larger than " + String.format("%,d", limit)
                + " bytes, the most a " + String.format("%,d", gz.length)
                + "-byte file may expand to (1000:1 and its stated size; limit of heapload's readers)", e.getMessage());
        }
    }

    /** Discards what is written. */
    private static final class OutputStreamNull extends java.io.OutputStream {
        static final OutputStreamNull INSTANCE = new OutputStreamNull();

        @Override
        public void write(int b) {
        }

        @Override
        public void write(byte[] b, int off, int len) {
        }
    }

    @Test
    void nestingDeeperThanTheLimitIsOneLineWithTheOffsetInEveryReader() throws IOException {
        String deep = "[".repeat(10_001) + "]".repeat(10_001);
        String luauPrefix = "{\"objects\":{\"0x1\":{\"type\":\"table\",\"x\":";
        Path luau = write("deep-luau.json", luauPrefix + deep + "}}}");
        // Jackson counts the 10,001st level when it opens: the 10,001st '[' is at prefix + 10,000 - 3 (the
        // three enclosing objects are levels 1-3), the offset is just past it
        long at = luauPrefix.length() + 10_000 - 3 + 1;
        assertEquals(luau + ": byte " + at + ": nesting deeper than 10,000 levels (limit of heapload's readers)",
            failure(luau, null));
        String luaPrefix = LUA_HEAD + "\"0x1\":{\"type\":\"table\",\"x\":";
        Path lua = write("deep-lua.json", luaPrefix + deep + "}}}");
        assertEquals(lua + ": byte " + (luaPrefix.length() + 10_000 - 3 + 1)
            + ": nesting deeper than 10,000 levels (limit of heapload's readers)", failure(lua, null));
        Path raw = write("deep-raw.json", "{" + deep + "}");
        assertTrue(failure(raw, "lua-snapshot").startsWith(raw + ": byte 1: "), failure(raw, "lua-snapshot"));
        Path regions = write("regions.json", "{\"word_size\":4,\"x\":" + deep + "}");
        DumpFormatException e = assertThrows(DumpFormatException.class, () -> MemoryImage.fromRegionsJson(regions));
        assertEquals(regions + ": byte " + ("{\"word_size\":4,\"x\":".length() + 10_000 - 1 + 1)
            + ": nesting deeper than 10,000 levels (limit of heapload's readers)", e.getMessage());
    }

    @Test
    void aStringOrNameOverTheLimitIsOneLine() throws IOException {
        String prefix = "{\"objects\":{\"0x1\":{\"type\":\"string\",\"data\":\"";
        StringBuilder big = new StringBuilder(prefix.length() + InputLimits.MAX_STRING_CHARS + 100).append(prefix);
        big.append("a".repeat(InputLimits.MAX_STRING_CHARS + 1)).append("\"}}}");
        // plain: gzip packs a run of one letter over 1000:1, which the ratio limit stops first
        Path luau = write("big.json", big.toString().getBytes(StandardCharsets.US_ASCII));
        String m = failure(luau, null);
        assertTrue(m.matches(java.util.regex.Pattern.quote(luau.toString())
            + ": byte \\d+: a string longer than 67,108,864 characters \\(64 MiB, limit of heapload's readers\\)"), m);
        Path name = write("name.json", LUA_HEAD + "\"0x1\":{\"type\":\"table\",\"" + "n".repeat(70_000) + "\":1}}}");
        String n = failure(name, null);
        assertTrue(n.matches(java.util.regex.Pattern.quote(name.toString())
            + ": byte \\d+: a member name longer than 65,536 characters \\(limit of heapload's readers\\)"), n);
    }

    @Test
    void duplicateFieldsAndMembersAreErrorsAtTheirOffset() throws IOException {
        String luauRecord = "{\"objects\":{\"0x1\":{\"type\":\"table\",\"cat\":0,\"size\":40,";
        Path luau = write("dup-field.json", luauRecord + "\"size\":80}},\"roots\":{}}");
        assertEquals(luau + ": byte " + luauRecord.length() + ": the record of \"0x1\" has a second \"size\" field",
            failure(luau, null));
        String luauDoc = "{\"objects\":{},\"roots\":{},";
        Path second = write("dup-objects.json", luauDoc + "\"objects\":{}}");
        assertEquals(second + ": byte " + luauDoc.length() + ": not a Luau heap dump: a second top-level \"objects\" member",
            failure(second, null));
        String luaRecord = LUA_HEAD + "\"0x1\":{\"type\":\"table\",\"size\":40,";
        Path lua = write("dup-field-lua.json", luaRecord + "\"type\":\"string\"}},\"roots\":{}}");
        assertEquals(lua + ": byte " + luaRecord.length() + ": record 0x1 has a second \"type\" field", failure(lua, null));
        String luaDoc = LUA_HEAD + "},";
        Path luaSecond = write("dup-objects-lua.json", luaDoc + "\"objects\":{},\"roots\":{}}");
        assertEquals(luaSecond + ": byte " + luaDoc.length() + ": not a Lua heap snapshot: a second top-level \"objects\" member",
            failure(luaSecond, null));
    }

    @Test
    void seenNamesSwitchesToAHashSetPastThirtyTwo() {
        SeenNames s = new SeenNames();
        for (int i = 0; i < 100; i++) {
            assertTrue(s.add("f" + i));
        }
        assertFalse(s.add("f5"));
        assertFalse(s.add("f77"));
        s.clear();
        assertTrue(s.add("f5"));
        assertFalse(s.add(new String("f5")));
    }

    @Test
    void aFifoIsRefusedWithoutBeingOpened() throws Exception {
        Path fifo = dir.resolve("dump.json");
        Process mk;
        try {
            mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        } catch (IOException e) {
            Assumptions.abort("mkfifo not available: " + e.getMessage());
            return;
        }
        Assumptions.assumeTrue(mk.waitFor() == 0, "mkfifo failed");
        String expected = fifo + ": not a regular file (a pipe, FIFO or device); heapload reads a dump more than once: "
            + "save it to a file first";
        // no writer: opening it would block forever
        assertEquals(expected, failure(fifo, null));
        assertEquals(expected, failure(fifo, "luau"));
        assertEquals(expected, assertThrows(DumpFormatException.class, () -> DumpInput.open(fifo)).getMessage());
    }
}
