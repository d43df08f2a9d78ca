package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one-line errors on stderr show control characters of file names (and dump text) escaped, like all output. */
class ErrorLineEscapeTest {

    @TempDir
    Path tmp;

    @Test
    void aFileNameWithEscapeSequencesIsShownEscaped() {
        Path missing = tmp.resolve("x\u001b[2J\u202e.json");
        HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("--db", tmp.resolve("db").toString(), missing.toString());
        assertEquals(1, r.code());
        assertEquals("heapload: " + tmp + "/x\\x1b[2J\\u202e.json: no such file\n", r.err());
    }
}
