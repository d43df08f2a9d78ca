package dev.heapload.store.embedded;

import dev.heapload.store.embedded.GraphStore;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watchdog ends work stuck in Neo4j's page-cache retry loop on a full disk (simulated: a thread in a method
 * {@code FakeMuninnPageCache.flushAndCloseWithoutFail} that only an interrupt ends, on a full 4 MiB tmpfs; needs
 * root to mount, skipped with one line otherwise), and leaves work alone while the disk has space.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // a bound for a hang only
@Tag("process")
class DiskWatchdogTest {

    @TempDir
    Path tmp;

    /** Named like Neo4j's page cache, whose close retries a failed flush until it succeeds. */
    static final class FakeMuninnPageCache {
        static void flushAndCloseWithoutFail() {
            while (true) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private static boolean mount(Path dir) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            return false;
        }
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir.toString())
            .redirectErrorStream(true).start();
        return p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0;
    }

    @Test
    void endsWorkStuckInTheFlushRetryLoopOnAFullDisk() throws Exception {
        Path disk = Files.createDirectories(tmp.resolve("disk"));
        boolean mounted = mount(disk);
        if (!mounted) {
            System.out.println("DiskWatchdogTest skipped: cannot mount a small tmpfs (needs root and mount)");
        }
        Assumptions.assumeTrue(mounted, "cannot mount a small tmpfs (needs root and mount)");
        try {
            Thread stuck = new Thread(FakeMuninnPageCache::flushAndCloseWithoutFail, "stuck");
            stuck.start();
            AtomicBoolean aborted = new AtomicBoolean();
            ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
            PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
            DiskWatchdog.setHaltOnDiskFullHang(false);
            DiskWatchdog watchdog = new DiskWatchdog(disk, stuck, () -> aborted.set(true), log, () -> "the line");
            try {
                // three looks at a disk with space, however long the machine takes to give them
                while (watchdog.looks() < 3) {
                    Thread.sleep(DiskWatchdog.PERIOD_MS);
                }
                assertTrue(stuck.isAlive(), "ended while the disk had space");
                assertFalse(watchdog.sawFull());
                try (OutputStream out = Files.newOutputStream(disk.resolve("filler"))) {
                    byte[] block = new byte[64 << 10];
                    while (true) {
                        out.write(block);
                    }
                } catch (IOException full) {
                    // ENOSPC
                }
                stuck.join(TimeUnit.MINUTES.toMillis(5)); // a bound for a hang only
                assertFalse(stuck.isAlive(), "the watchdog did not end the stuck thread");
                assertTrue(watchdog.sawFull());
                assertTrue(aborted.get(), "the attempt's files were not removed");
                assertEquals("heapload: still running on a full disk (Neo4j retrying a flush), ending it: the line\n",
                    logBytes.toString(StandardCharsets.UTF_8));
            } finally {
                watchdog.stop();
                stuck.interrupt();
            }
        } finally {
            new ProcessBuilder("umount", "-l", disk.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
