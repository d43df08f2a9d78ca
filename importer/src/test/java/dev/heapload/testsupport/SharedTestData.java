package dev.heapload.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Assumptions;

/**
 * Locates the real VM dumps in {@code ../shared/testdata} (system property {@code heapload.shared}, set by
 * the parent pom). When they are absent (a fresh clone without ../shared), the calling tests are skipped
 * and one line saying so is printed to stderr once per test JVM, so the skip is visible on the console and
 * not only in the reports.
 */
public final class SharedTestData {

    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private SharedTestData() {
    }

    /**
     * The directory {@code shared/testdata/<format>}; skips the calling test when it is absent.
     *
     * @param format sub-directory, e.g. {@code luau}
     * @param what   what is skipped, for the message
     */
    public static Path require(String format, String what) {
        String shared = System.getProperty("heapload.shared");
        Path dir = shared == null ? null : Path.of(shared, "testdata", format);
        boolean present = dir != null && Files.isDirectory(dir);
        String message = "shared test data not found (system property heapload.shared = " + shared
            + " has no testdata/" + format + "): " + what + " skipped";
        if (!present && WARNED.compareAndSet(false, true)) {
            System.err.println("heapload tests: " + message
                + " (tests on the real dumps need ../shared beside the checkout; the bundled fixtures still run)");
        }
        Assumptions.assumeTrue(present, message);
        return dir;
    }
}
