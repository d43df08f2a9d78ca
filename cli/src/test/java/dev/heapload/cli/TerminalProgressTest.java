package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When bars are drawn, with the terminal detection given instead of read off the process. */
class TerminalProgressTest {

    @Test
    void barsFollowStderrUnlessAnOptionSays() {
        // no option: stderr decides (stdout may be redirected to a file while stderr is a terminal)
        assertTrue(TerminalProgress.wanted(null, true));
        assertFalse(TerminalProgress.wanted(null, false));
        // --progress forces bars even when stderr is not a terminal; --no-progress turns them off
        assertTrue(TerminalProgress.wanted(Boolean.TRUE, false));
        assertFalse(TerminalProgress.wanted(Boolean.FALSE, true));
    }

    @Test
    void theLaunchersWordOnStderrIsUsed() {
        String before = System.getProperty("heapload.stderr.tty");
        try {
            System.setProperty("heapload.stderr.tty", "true");
            assertTrue(TerminalProgress.stderrIsTerminal());
            System.setProperty("heapload.stderr.tty", "false");
            assertFalse(TerminalProgress.stderrIsTerminal());
        } finally {
            if (before == null) {
                System.clearProperty("heapload.stderr.tty");
            } else {
                System.setProperty("heapload.stderr.tty", before);
            }
        }
    }

    @Test
    void theOptionParsesToThreeStates() {
        assertEquals(null, parse().progress);
        assertEquals(Boolean.TRUE, parse("--progress").progress);
        assertEquals(Boolean.FALSE, parse("--no-progress").progress);
    }

    private static HeapLoad parse(String... args) {
        HeapLoad command = new HeapLoad();
        String[] withFile = java.util.Arrays.copyOf(args, args.length + 1);
        withFile[args.length] = "x.json";
        new picocli.CommandLine(command).parseArgs(withFile);
        return command;
    }
}
