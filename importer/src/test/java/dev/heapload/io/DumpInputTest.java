package dev.heapload.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DumpInputTest {

    private static final Path EVENT_LISTENERS = Path.of("..", "testdata", "luau", "event-listeners", "after.json");

    @TempDir
    Path dir;

    @Test
    void contentSizeHintOfAPlainFileIsItsSize() throws IOException {
        assertEquals(98_734, Files.size(EVENT_LISTENERS));
        assertEquals(98_734, DumpInput.contentSizeHint(EVENT_LISTENERS));
    }

    @Test
    void contentSizeHintOfGzipIsTheDecompressedSize() throws IOException {
        Path gz = dir.resolve("after.json.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(EVENT_LISTENERS, out);
        }
        assertEquals(98_734, DumpInput.contentSizeHint(gz));
    }

    @Test
    void contentSizeHintIsUnknownWhenTheTrailerCannotBeRight() throws IOException {
        // gzip magic, then a trailer that claims 16 bytes of content for a 30-byte file
        byte[] bytes = new byte[30];
        bytes[0] = 0x1f;
        bytes[1] = (byte) 0x8b;
        bytes[26] = 16;
        Path wrapped = dir.resolve("wrapped.gz");
        Files.write(wrapped, bytes);
        assertEquals(-1, DumpInput.contentSizeHint(wrapped));
        assertEquals(-1, DumpInput.contentSizeHint(dir.resolve("missing.json")));
        assertEquals(-1, DumpInput.contentSizeHint(dir));
        Path empty = dir.resolve("empty.json");
        Files.write(empty, new byte[0]);
        assertEquals(0, DumpInput.contentSizeHint(empty));
    }
}
