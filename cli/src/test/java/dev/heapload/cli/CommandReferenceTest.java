package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The committed command reference ({@code docs/reference/commands/}) is what {@link CommandReference} writes from
 * the commands as they are now: a changed option or description fails here, naming the stale pages and the command
 * that writes them again. With {@code -Dheapload.reference.update=true} this test writes them instead (and removes
 * pages of commands that are gone).
 */
class CommandReferenceTest {

    static Path repoRoot() {
        return Path.of(System.getProperty("heapload.testdata", "../testdata")).toAbsolutePath().getParent();
    }

    @Test
    void committedReferenceIsWhatTheCommandsSay() throws IOException {
        Path dir = repoRoot().resolve(CommandReference.FOLDER);
        Map<String, String> pages = CommandReference.pages();
        TreeSet<String> committed = new TreeSet<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                files.map(f -> f.getFileName().toString()).forEach(committed::add);
            }
        }
        if (Boolean.getBoolean("heapload.reference.update")) {
            Files.createDirectories(dir);
            for (String gone : committed) {
                if (!pages.containsKey(gone)) {
                    Files.delete(dir.resolve(gone));
                }
            }
            for (Map.Entry<String, String> page : pages.entrySet()) {
                Files.writeString(dir.resolve(page.getKey()), page.getValue());
            }
            return;
        }
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, String> page : pages.entrySet()) {
            Path file = dir.resolve(page.getKey());
            if (!Files.isRegularFile(file)) {
                stale.add(page.getKey() + " (missing)");
            } else if (!Files.readString(file).equals(page.getValue())) {
                stale.add(page.getKey() + " (differs)");
            }
        }
        for (String name : committed) {
            if (!pages.containsKey(name)) {
                stale.add(name + " (no such command)");
            }
        }
        assertTrue(stale.isEmpty(), CommandReference.FOLDER + " is out of date: " + stale
            + "; write it again from the repository root with: " + CommandReference.UPDATE_COMMAND);
    }

    @Test
    void everyVisibleCommandHasAPageAndTheIndexLinksIt() {
        Map<String, String> pages = CommandReference.pages();
        for (String name : List.of("heapload.adoc", "heapload-query.adoc", "heapload-micropython-capture.adoc",
                "heapload-report.adoc", "heapload-serve.adoc")) {
            assertTrue(pages.containsKey(name), name + " in " + pages.keySet());
            assertTrue(pages.get("README.md").contains("](" + name + ")"), name + " linked from the index");
        }
        assertTrue(pages.get("heapload-query.adoc").contains("= heapload-query(1)"), pages.get("heapload-query.adoc"));
    }
}
