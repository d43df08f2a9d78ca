package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Opens HTML reports in a real headless Chromium (Debian's {@code chromium}; {@code .ci/run} installs it; skipped with
 * a message when there is none; {@code -Dheapload.chromium=PATH} picks another binary). A harness page next to the
 * report loads it in an iframe and writes what the rendered page shows (its {@code innerText}, the icicle SVG's size,
 * its script elements, its title) into its own DOM, which {@code --dump-dom} prints; Chromium's console (every
 * message, also Content-Security-Policy violations) goes to stderr with {@code --enable-logging=stderr}, and must be
 * empty.
 */
@Tag("process")
class ReportChromiumTest {

    @TempDir
    static Path tmp;

    /** The reports made so far, by fixture: each is made once per class (the tests only read it). */
    private static final Map<String, Path> REPORTS = new HashMap<>();

    static final ObjectMapper JSON = new ObjectMapper();

    static final String HARNESS = """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>harness</title></head><body>
        <iframe id="f" src="report.html" style="width:1300px;height:4000px"></iframe>
        <script>
        window.addEventListener('load', function () {
          var r = {};
          try {
            var d = document.getElementById('f').contentDocument;
            r.title = d.title;
            r.text = d.body.innerText;
            var scripts = Array.prototype.slice.call(d.querySelectorAll('script'));
            r.scripts = scripts.length;
            r.alertScripts = scripts.filter(function (s) { return s.textContent.indexOf('alert') >= 0; }).length;
            var svg = d.querySelector('.icicle svg');
            r.svgWidth = svg ? svg.getBoundingClientRect().width : 0;
            r.svgBoxes = svg ? svg.querySelectorAll('g.b').length : 0;
            r.boxNames = svg ? Array.prototype.map.call(svg.querySelectorAll('g.b title'), function (t) { return t.textContent; }) : [];
            r.scrollWidth = d.documentElement.scrollWidth;
            r.clientWidth = d.documentElement.clientWidth;
          } catch (e) {
            r.error = String(e);
          }
          var pre = document.createElement('pre');
          pre.id = 'result';
          pre.textContent = JSON.stringify(r);
          document.body.appendChild(pre);
        });
        </script></body></html>
        """;

    static Path chromium() {
        String given = System.getProperty("heapload.chromium");
        List<Path> candidates = new ArrayList<>();
        if (given != null) {
            candidates.add(Path.of(given));
        }
        candidates.add(Path.of("/usr/bin/chromium"));
        candidates.add(Path.of("/usr/bin/chromium-browser"));
        for (Path p : candidates) {
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        Assumptions.assumeTrue(false, "no chromium binary (/usr/bin/chromium; Debian package chromium): "
            + "the HTML report's browser test is skipped");
        return null;
    }

    /** What Chromium rendered, and its console output. */
    record Opened(JsonNode result, List<String> console, long millis) {
    }

    Opened open(Path reportDir) throws Exception {
        return open(reportDir, 1300);
    }

    /** Opens the report in an iframe {@code width} CSS pixels wide. */
    Opened open(Path reportDir, int width) throws Exception {
        Path browser = chromium();
        Files.writeString(reportDir.resolve("harness.html"), HARNESS.replace("width:1300px", "width:" + width + "px"),
            StandardCharsets.UTF_8);
        Path profile = Files.createDirectories(tmp.resolve("profile-" + System.nanoTime()));
        Path stdout = tmp.resolve("dom.html");
        Path stderr = tmp.resolve("chromium.log");
        ProcessBuilder pb = new ProcessBuilder(browser.toString(), "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--user-data-dir=" + profile, "--allow-file-access-from-files", "--enable-logging=stderr",
            "--v=0", "--dump-dom", reportDir.resolve("harness.html").toUri().toString())
            .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                Path.of("/dev/null").toFile()));
        long start = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 180 s");
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        String dom = Files.readString(stdout, StandardCharsets.UTF_8);
        int a = dom.indexOf("<pre id=\"result\">");
        int b = dom.indexOf("</pre>", a);
        assertTrue(a >= 0 && b > a, "the harness wrote no result; chromium exit " + p.exitValue() + ", log:\n"
            + Files.readString(stderr));
        String text = dom.substring(a + "<pre id=\"result\">".length(), b)
            .replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", "\u00a0").replace("&amp;", "&");
        List<String> console = Files.readAllLines(stderr, StandardCharsets.UTF_8).stream()
            .filter(l -> l.contains(":CONSOLE")).toList();
        return new Opened(JSON.readTree(text), console, millis);
    }

    /** The HTML report of the bundled pair {@code fixture}, made by {@code heapload report} on its first use. */
    static Path report(String fixture) {
        return REPORTS.computeIfAbsent(fixture, f -> {
            Path dir = Path.of(System.getProperty("heapload.testdata", "../testdata"), "luau", f);
            Path out = tmp.resolve(f);
            HeapLoadCommandTest.Run r = HeapLoadCommandTest.run("report", "--db", tmp.resolve("db-" + f).toString(),
                "--out", out.toString(), "--format", "html", dir.resolve("before.json").toString(),
                dir.resolve("after.json").toString());
            assertEquals(0, r.code(), r.err());
            return out;
        });
    }

    @Test
    void eventListenersReportRendersWithoutConsoleMessages() throws Exception {
        chromium();
        Path out = report("event-listeners");
        Opened o = open(out);
        System.err.println("ReportChromiumTest: event-listeners report opened in " + o.millis() + " ms (incl. browser start)");
        JsonNode r = o.result();
        assertFalse(r.has("error"), r.toString());
        assertEquals(List.of(), o.console(), "console messages");
        String text = r.get("text").asText();
        assertTrue(text.contains("#1 16 table head(s), 152 objects, 19,608 new bytes, 19,608 retained bytes"), text);
        assertTrue(text.contains("EventBus in table\nThemeChanged in table\nhandlers in table\n[array] in table"), text);
        assertTrue(r.get("svgWidth").asDouble() > 100, "icicle SVG is laid out: " + r);
        assertTrue(r.get("svgBoxes").asInt() > 5, r.toString());
        assertTrue(r.get("boxNames").toString().contains("ThemeChanged"), r.get("boxNames").toString());
        assertEquals(1, r.get("scripts").asInt(), "only the icicle graph's own script");
    }

    @Test
    void aScriptTagInADumpStringIsTextAndNeverRuns() throws Exception {
        chromium();
        Path out = report("script-in-key");
        String html = Files.readString(out.resolve("report.html"));
        assertFalse(html.contains("<script>alert(1)"), "the dump string is escaped in the file");
        assertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; in table"), "shown in the retention path");
        Opened o = open(out);
        JsonNode r = o.result();
        assertFalse(r.has("error"), r.toString());
        assertEquals(List.of(), o.console(), "console messages (a blocked script would show here)");
        assertTrue(r.get("text").asText().contains("Widget in table\n<script>alert(1)</script> in table\n[array] in table"),
            r.get("text").asText());
        assertEquals(0, r.get("alertScripts").asInt(), "no script element from the dump");
        assertEquals(1, r.get("scripts").asInt());
        assertEquals("heapload: Nightly leak report: after vs before", r.get("title").asText());
        assertTrue(r.get("boxNames").toString().contains("<script>alert(1)</script>"), "the icicle box name is text too");
    }

    /**
     * The event-listeners report at 1400 and 800 CSS pixels: the page never scrolls sideways (wide tables and figures
     * scroll or shrink inside their own box). Screenshots of both widths are kept as test artifacts in
     * {@code target/report-screenshots/} (Chromium's {@code --screenshot}, the top 2,400 pixels).
     */
    @Test
    void theReportFitsAt1400And800PixelsWithoutSidewaysScrolling() throws Exception {
        Path browser = chromium();
        Path out = report("event-listeners");
        Path shots = Files.createDirectories(Path.of("target", "report-screenshots"));
        for (int width : new int[] {1400, 800}) {
            Opened o = open(out, width);
            JsonNode r = o.result();
            assertFalse(r.has("error"), r.toString());
            assertEquals(List.of(), o.console(), "console messages");
            assertTrue(r.get("clientWidth").asInt() > width - 40, r.toString());
            assertTrue(r.get("scrollWidth").asInt() <= r.get("clientWidth").asInt(),
                "no horizontal page scroll at " + width + " px: " + r.get("scrollWidth") + " > " + r.get("clientWidth"));
            Path png = shots.resolve("event-listeners-" + width + ".png").toAbsolutePath();
            Path profile = Files.createDirectories(tmp.resolve("shot-profile-" + width));
            Process p = new ProcessBuilder(browser.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                "--user-data-dir=" + profile, "--window-size=" + width + ",2400", "--screenshot=" + png,
                out.resolve("report.html").toUri().toString())
                .redirectErrorStream(true).redirectOutput(tmp.resolve("shot-" + width + ".log").toFile()).start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("chromium did not take the screenshot in 180 s");
            }
            assertTrue(Files.size(png) > 10_000, "screenshot " + png + " written");
        }
    }
}
