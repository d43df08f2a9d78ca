package dev.heapload.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One page of a headless Chromium driven over the Chrome DevTools Protocol (a WebSocket; Page.navigate,
 * Runtime.evaluate, Page.captureScreenshot), for tests that click through a web application. Chromium as
 * {@link ReportChromiumTest#chromium()} finds it.
 */
final class ChromiumPage implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");

    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    /** Starts Chromium ({@code width} x {@code height} window, a fresh profile in {@code profile}) on about:blank. */
    ChromiumPage(Path chromium, Path profile, int width, int height) throws Exception {
        process = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", "--user-data-dir=" + profile, "--remote-debugging-port=0",
            "--window-size=" + width + "," + height, "about:blank")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectInput(ProcessBuilder.Redirect.from(
                Path.of("/dev/null").toFile())).start();
        String browserUrl = null;
        BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (String line; browserUrl == null && System.nanoTime() < deadline && (line = err.readLine()) != null; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                browserUrl = m.group(1);
            }
        }
        if (browserUrl == null) {
            process.destroyForcibly();
            throw new AssertionError("chromium printed no DevTools address");
        }
        Thread drain = new Thread(() -> {
            try {
                while (err.readLine() != null) {
                    // keep the pipe from filling up
                }
            } catch (IOException e) {
                // chromium ended
            }
        }, "chromium-stderr");
        drain.setDaemon(true);
        drain.start();
        URI ws = URI.create(browserUrl);
        HttpClient http = HttpClient.newHttpClient();
        JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://" + ws.getHost() + ":"
            + ws.getPort() + "/json/list")).GET().build(), HttpResponse.BodyHandlers.ofString()).body());
        String pageUrl = null;
        for (JsonNode t : targets) {
            if ("page".equals(t.path("type").asText())) {
                pageUrl = t.get("webSocketDebuggerUrl").asText();
            }
        }
        if (pageUrl == null) {
            throw new AssertionError("chromium has no page: " + targets);
        }
        socket = http.newWebSocketBuilder().buildAsync(URI.create(pageUrl), new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    try {
                        JsonNode message = JSON.readTree(text.toString());
                        CompletableFuture<JsonNode> f = message.has("id") ? pending.remove(message.get("id").asInt()) : null;
                        if (f != null) {
                            f.complete(message);
                        }
                    } catch (IOException e) {
                        // not ours
                    }
                    text.setLength(0);
                }
                webSocket.request(1);
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
    }

    /** Sends a DevTools command and returns its {@code result}; an AssertionError on a protocol error. */
    JsonNode call(String method, Map<String, Object> params) throws Exception {
        int id = ids.incrementAndGet();
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", JSON.valueToTree(params));
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        socket.sendText(JSON.writeValueAsString(message), true).get(30, TimeUnit.SECONDS);
        JsonNode reply = answer.get(60, TimeUnit.SECONDS);
        if (reply.has("error")) {
            throw new AssertionError(method + ": " + reply.get("error"));
        }
        return reply.get("result");
    }

    void navigate(String url) throws Exception {
        call("Page.navigate", Map.of("url", url));
    }

    /** The value of a JavaScript expression in the page (promises awaited); an AssertionError when it throws. */
    JsonNode evaluate(String expression) throws Exception {
        JsonNode r = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true,
            "awaitPromise", true));
        if (r.has("exceptionDetails")) {
            throw new AssertionError(expression + ": " + r.get("exceptionDetails"));
        }
        return r.path("result").path("value");
    }

    /**
     * Evaluates {@code condition} every 250 ms until it is true; an AssertionError with {@code what} and the page's
     * text after {@code timeout}.
     */
    void await(String condition, Duration timeout, String what) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                if (evaluate("!!(" + condition + ")").asBoolean()) {
                    return;
                }
            } catch (AssertionError e) {
                // a page being replaced
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " not seen in " + timeout.toSeconds() + " s; page text:\n"
                    + evaluate("document.body ? document.body.innerText : ''").asText());
            }
            Thread.sleep(250);
        }
    }

    /** A PNG of the viewport. */
    byte[] screenshot() throws Exception {
        return Base64.getDecoder().decode(call("Page.captureScreenshot", Map.of("format", "png")).get("data").asText());
    }

    @Override
    public void close() throws Exception {
        try {
            socket.abort();
        } finally {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
