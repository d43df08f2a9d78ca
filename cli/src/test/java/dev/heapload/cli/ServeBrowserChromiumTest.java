package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.store.embedded.GraphStore;

/**
 * {@code heapload serve} with Neo4j Browser as a person meets it, in headless Chromium: the printed Browser address
 * opens Browser connected (no login form), the heapload guide shows by itself with the saved queries filled in, its
 * first query runs from the run icon of its code block and the graph view shows the served style's captions (nodes
 * by snapshot id or by type and label, relationships by name). A screenshot of the graph is kept as
 * {@code target/serve-browser.png}. Also no temporary file beside Browser: the folder holding Browser's jar (a copy in a
 * folder of its own on the child's class path, as {@code cli/target/lib} holds it for the launcher) is unchanged
 * afterwards, its own modification time included (a served store must not change the installed files).
 * Skipped without Chromium, as {@link ReportChromiumTest}.
 */
@Tag("process")
@Tag("server")
class ServeBrowserChromiumTest {

    private static final long GUARD_SECONDS = 480; // a hang guard: serve took 270 s to start at load 30

    @TempDir
    Path tmp;

    @Test
    void browserOpensConnectedWithTheGuideAndDrawsCaptionedGraphs() throws Exception {
        Path chromium = ReportChromiumTest.chromium();
        Path data = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", "event-listeners");
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--db", db.toString(), "--no-progress",
            data.resolve("before.json").toString(), data.resolve("after.json").toString());
        assertEquals(0, load.code(), load.err());

        // Browser's jar in a folder of its own, as cli/target/lib holds it
        Path lib = Files.createDirectories(tmp.resolve("lib"));
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (p.getFileName() != null && p.getFileName().toString().startsWith("neo4j-browser-")) {
                Files.copy(p, lib.resolve(p.getFileName()));
                p = lib.resolve(p.getFileName());
            }
            classPath.add(p.toString());
        }
        assertEquals(1, Files.list(lib).count(), "neo4j-browser jar on the test class path");
        Map<String, String> libBefore = listing(lib);

        int[] ports = ServeCommandTest.freePorts();
        List<String> command = new ArrayList<>(ChildHeapLoad.command("serve", "--db", db.toString(), "--bolt-port",
            String.valueOf(ports[0]), "--http-port", String.valueOf(ports[1])));
        command.set(command.indexOf("-cp") + 1, String.join(File.pathSeparator, classPath));
        Path stdout = tmp.resolve("serve.out");
        Process serve = new ProcessBuilder(command).redirectOutput(stdout.toFile())
            .redirectError(tmp.resolve("serve.err").toFile()).start();
        String url;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
            while (!Files.readString(stdout).contains(ServeCommand.READY)) {
                if (!serve.isAlive() || System.nanoTime() > deadline) {
                    fail("serve not ready:\n" + Files.readString(stdout) + Files.readString(tmp.resolve("serve.err")));
                }
                Thread.sleep(100);
            }
            String welcome = Files.readString(stdout);
            String password = Files.readString(db.resolve(GraphStore.SERVE_PASSWORD)).strip();
            Matcher m = Pattern.compile("Neo4j Browser  (\\S+)").matcher(welcome);
            assertTrue(m.find(), welcome);
            url = m.group(1);
            assertEquals("http://localhost:" + ports[1] + "/heapload/browser#password=" + password, url);

            Path shot = Path.of("target", "serve-browser.png");
            try (ChromiumPage page = new ChromiumPage(chromium, Files.createDirectories(tmp.resolve("profile")), 1400, 1000)) {
                page.navigate(url);
                // connected without a login form, and the guide played on connect
                page.await("document.body.innerText.includes('Saved queries')", Duration.ofSeconds(GUARD_SECONDS),
                    "the guide");
                assertEquals("http://localhost:" + ports[1] + "/browser/", page.evaluate("location.href").asText());
                assertFalse(page.evaluate("!!document.querySelector('input[type=password]')").asBoolean(),
                    "a login form is shown");
                String guide = page.evaluate("document.body.innerText").asText();
                assertTrue(guide.contains("heapload: " + db), guide);
                assertTrue(guide.contains("why-alive"), guide);
                // the saved queries are filled in with the newest snapshot ids
                assertTrue(guide.contains("MATCH (s:Snapshot {id: 'after'})"), guide);
                assertTrue(guide.contains("baseline: 'before'") || guide.contains("id: 'before'"), guide);
                assertFalse(page.evaluate("document.body.innerText.includes('$snapshot')").asBoolean(), guide);

                // a guide query runs from its block's run icon (Browser prepends it to each code block of the guide)
                // and the graph view shows captions from the served style: nodes by id / type and label,
                // relationships by name ("root ..." for the roots, "weak ..." for weak references)
                page.await("document.querySelector('pre.runnable i.fa-play-circle-o')",
                    Duration.ofSeconds(GUARD_SECONDS),
                    "the run icon of the guide's code blocks");
                assertEquals("MATCH p = (:Snapshot {id: 'after'})-[:ROOT]->()-[:REF|WEAK_REF]->()\nRETURN p LIMIT 50",
                    page.evaluate("document.querySelector('pre.runnable').textContent.trim()").asText());
                page.evaluate("document.querySelector('pre.runnable i.fa-play-circle-o').click(), true");
                page.await("document.querySelectorAll('svg.neod3viz g.node').length >= 10",
                    Duration.ofSeconds(GUARD_SECONDS),
                    "the graph view of the guide's first query");
                // the force layout settles: the same captions in two reads in a row, the roots' and references'
                // captions drawn (relationship captions are clipped to the edge's length); the bound is for a hang
                long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
                List<String> nodes = captions(page, "svg.neod3viz g.node");
                List<String> relationships = captions(page, "svg.neod3viz g.relationship");
                while (System.nanoTime() < settle) {
                    Thread.sleep(250);
                    List<String> nodesAgain = captions(page, "svg.neod3viz g.node");
                    List<String> relationshipsAgain = captions(page, "svg.neod3viz g.relationship");
                    boolean stable = nodesAgain.equals(nodes) && relationshipsAgain.equals(relationships);
                    nodes = nodesAgain;
                    relationships = relationshipsAgain;
                    if (stable && relationships.stream().anyMatch(c -> c.startsWith("ro"))
                        && relationships.stream().anyMatch(c -> c.startsWith("_"))) {
                        break;
                    }
                }
                System.out.println("ServeBrowserChromiumTest: " + nodes.size() + " nodes " + nodes + ", "
                    + relationships.size() + " relationships " + relationships);
                assertTrue(nodes.contains("after"), "the Snapshot node captioned by its id: " + nodes);
                assertTrue(nodes.stream().allMatch(c -> !c.isBlank()), "an uncaptioned node: " + nodes);
                // objects by type and label ("table", "string _LOADED", clipped with ... to the circle by Browser)
                assertTrue(nodes.contains("table"), "tables by type: " + nodes);
                assertTrue(nodes.stream().anyMatch(c -> c.startsWith("string ") && c.length() > "string ".length()),
                    "strings by type and label: " + nodes);
                assertTrue(nodes.stream().noneMatch(c -> c.matches("\\d+") || c.equals("Object")),
                    "a node captioned by its id or label: " + nodes);
                // the roots ("root registry", "root mainthread", clipped to the edge's length) and references by name
                // ("_G", "_LOADED", ...); Browser also draws the other relationships between the shown nodes
                // (TOP_RETAINER, ...), which the style leaves captioned by type
                assertTrue(relationships.stream().anyMatch(c -> c.startsWith("ro")), "roots by name: " + relationships);
                assertTrue(relationships.stream().anyMatch(c -> c.startsWith("_")), "references by name: " + relationships);
                assertTrue(relationships.stream().noneMatch(c -> c.startsWith("REF") || c.startsWith("ROOT")),
                    "a reference or root captioned by its type: " + relationships);
                Files.write(shot, page.screenshot());
                System.out.println("ServeBrowserChromiumTest: screenshot " + shot.toAbsolutePath());
            }
        } finally {
            serve.destroy();
            if (!serve.waitFor(GUARD_SECONDS, TimeUnit.SECONDS)) {
                serve.destroyForcibly();
            }
        }
        assertEquals(143, serve.exitValue());
        // serving Browser wrote nothing next to its jar
        assertEquals(libBefore, listing(lib));
    }

    /** The caption of each element matching {@code selector} in the graph view: its text elements' text. */
    private static List<String> captions(ChromiumPage page, String selector) throws Exception {
        List<String> captions = new ArrayList<>();
        for (var c : page.evaluate("Array.from(document.querySelectorAll('" + selector + "')).map(g => "
            + "Array.from(g.querySelectorAll('text')).map(t => t.textContent).join(' ').trim())")) {
            captions.add(c.asText());
        }
        return captions;
    }

    /** Each entry of {@code dir} (and {@code dir} itself) with its size and modification time. */
    static Map<String, String> listing(Path dir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        files.put(".", String.valueOf(Files.getLastModifiedTime(dir).toMillis()));
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                files.put(dir.relativize(p).toString(), Files.size(p) + " " + Files.getLastModifiedTime(p).toMillis());
            }
        }
        return files;
    }
}
