package dev.heapload.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.model.DumpFormatException;

/** The heapdump.py stream format: decoding, and one clear line for each kind of damage. */
class DumpStreamTest {

    @TempDir
    Path tmp;

    static String dataLine(int region, long offset, byte[] data) {
        String b64 = Base64.getEncoder().encodeToString(data);
        return String.format("D%02x%08x%04x %-256s", region, offset, DumpStream.crc16(data), b64);
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    /** A REPL echo, the header, region 0 in two lines (192 + 8 bytes), region 1 in one, the trailer; \r\n endings. */
    static String stream(String line2) {
        byte[] a = bytes(200, 1);
        byte[] b = bytes(5, 7);
        return String.join("\r\n", "OK", "heapload-dump 1", "word_size 4", "little_endian 1", "bytes_per_block 16",
            "region 0 20001000 200 gc heap area 0: ATB .. pool end", "region 1 20000000 5 RAM .data/.bss",
            "own 20001040 line buffer", "used_at_entry 1000", "encoder python", "data",
            dataLine(0, 0, java.util.Arrays.copyOf(a, 192)),
            line2 != null ? line2 : dataLine(0, 192, java.util.Arrays.copyOfRange(a, 192, 200)),
            dataLine(1, 0, b), "end used_before_copy 1200 used_after_copy 1200", "\u0004");
    }

    @Test
    void crc16IsCcittFalse() {
        assertEquals(0x29B1, DumpStream.crc16("123456789".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void decodesRegionsAndWritesRegionsJson() throws Exception {
        var r = DumpStream.decode(new ByteArrayInputStream(stream(null).getBytes(StandardCharsets.ISO_8859_1)), tmp, "s");
        assertEquals(2, r.regions().size());
        assertEquals(205, r.bytes());
        assertEquals(1000, r.usedAtEntry());
        assertEquals(1200, r.usedBeforeCopy());
        assertTrue(r.consistent());
        assertEquals("python", r.encoder());
        assertArrayEquals(bytes(200, 1), Files.readAllBytes(tmp.resolve("region0.bin")));
        assertArrayEquals(bytes(5, 7), Files.readAllBytes(tmp.resolve("region1.bin")));
        String json = Files.readString(tmp.resolve("regions.json"));
        assertTrue(json.contains("\"word_size\" : 4") && json.contains("\"base\" : \"0x20001000\"")
            && json.contains("\"size\" : 200"), json);
        assertTrue(Files.readString(tmp.resolve("info.txt")).contains("own=20001040 line buffer\n"));
    }

    @Test
    void aFlippedCharacterIsACrcErrorNamingTheLine() {
        String good = dataLine(0, 192, java.util.Arrays.copyOfRange(bytes(200, 1), 192, 200));
        String bad = good.substring(0, 17) + (good.charAt(17) == 'A' ? 'B' : 'A') + good.substring(18);
        var e = assertThrows(DumpFormatException.class, () -> DumpStream.decode(
            new ByteArrayInputStream(stream(bad).getBytes(StandardCharsets.ISO_8859_1)), tmp, "port"));
        assertTrue(e.getMessage().contains("line 13: CRC mismatch in region 0 at offset 192"), e.getMessage());
    }

    @Test
    void aLostLineAndAShortStreamAreErrors() {
        String skipped = dataLine(1, 0, bytes(5, 7));
        var lost = assertThrows(DumpFormatException.class, () -> DumpStream.decode(
            new ByteArrayInputStream(stream(skipped).getBytes(StandardCharsets.ISO_8859_1)), tmp, "port"));
        assertTrue(lost.getMessage().contains("line 13: expected region 0 offset 192, got region 1 offset 0"), lost.getMessage());
        String s = stream(null);
        String cut = s.substring(0, s.indexOf("end used"));
        var shortStream = assertThrows(DumpFormatException.class, () -> DumpStream.decode(
            new ByteArrayInputStream(cut.getBytes(StandardCharsets.ISO_8859_1)), tmp, "port"));
        assertTrue(shortStream.getMessage().contains("stream ended at line 15 before its end line"), shortStream.getMessage());
        var none = assertThrows(DumpFormatException.class, () -> DumpStream.decode(
            new ByteArrayInputStream("Traceback\r\n".getBytes(StandardCharsets.ISO_8859_1)), tmp, "port"));
        assertTrue(none.getMessage().contains("no heapload-dump stream"), none.getMessage());
    }
}
