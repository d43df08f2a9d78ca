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

    /** {@code -} as a file name is standard input, which heapload cannot read twice: refused in those words. */
    @Test
    void aDashIsStandardInputAndRefusedInThoseWords() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.exists(Path.of("-")), "a file named - in the working directory");
        dev.heapload.model.DumpFormatException e = org.junit.jupiter.api.Assertions.assertThrows(
            dev.heapload.model.DumpFormatException.class, () -> DumpInput.open(Path.of("-")));
        assertEquals("-: standard input is not read: heapload reads a dump more than once (to detect its format, then to"
            + " load it); save it to a file first (… > dump.json) and give that file", e.getMessage());
        org.junit.jupiter.api.Assertions.assertThrows(dev.heapload.model.DumpFormatException.class,
            () -> DumpReaders.detect(Path.of("-")));
        // what the load command calls: the same words, not "no such file"
        assertEquals(e.getMessage(), org.junit.jupiter.api.Assertions.assertThrows(dev.heapload.model.DumpFormatException.class,
            () -> DumpReaders.read(Path.of("-"), null, dev.heapload.model.Progress.NONE, null)).getMessage());
        // a file that is named - is a file
        Path dash = dir.resolve("-");
        Files.copy(EVENT_LISTENERS, dash);
        try (DumpInput in = DumpInput.open(dash)) {
            assertEquals(98_734, in.size());
        }
    }

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
