package dev.heapload.browser;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

import dev.heapload.queries.QueryParameter;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.SavedQuery;
import dev.heapload.store.SnapshotSummary;

/**
 * How {@code heapload serve} configures Neo4j Browser 5 for the store it serves: the Neo4j settings Browser reads on
 * connect ({@code dbms.clientConfig}), and three documents served by the same Neo4j HTTP server under
 * {@value #MOUNT} ({@link BrowserResources}):
 * <ul>
 *   <li>{@code /heapload/browser}: opens Browser already connected. With authentication the password comes in the
 *       URL's fragment ({@code #password=...}, which the browser never sends to a server); the page's script stores
 *       it where Browser 5.24 keeps its connection (localStorage {@code neo4j.connections}, entry
 *       {@code $$discovery}, read by Browser's startup connect before it shows a login form; seen in its bundled
 *       {@code app-*.js}), removes the fragment from the address bar and history, and goes to {@code /browser/};
 *   <li>{@code /heapload/guide.html}: a one-page guide played on connect ({@code browser.post_connect_cmd}): the
 *       snapshots, the graph schema, and every saved query as a runnable code block with the newest snapshot ids
 *       (and an example address) filled in as literals;
 *   <li>{@code /heapload/style.grass}: a GraSS style loaded on connect: objects captioned by type and label and
 *       coloured by type, references by name, weak references dashed-grey and captioned "weak ...", roots by name.
 * </ul>
 * Telemetry is off ({@code client.allow_telemetry=false}, which also hides Browser's consent banner), guides and
 * styles load from {@code localhost} only, and Browser is served from a copy unpacked by Neo4j in the temporary
 * directory instead of from inside its jar (served from the jar, Java's zip file system wrote a temporary file next
 * to the jar for every large file, changing the launcher's {@code cli/target/lib} and so marking its class-data
 * archive stale).
 */
public final class BrowserSetup {

    /** Where {@link BrowserResources} is mounted on Neo4j's HTTP server. */
    public static final String MOUNT = "/heapload";

    /** The documents, with their media types. */
    enum Document {
        OPEN_PAGE("text/html; charset=utf-8"), GUIDE("text/html; charset=utf-8"), STYLE("text/plain; charset=utf-8");

        final String mediaType;

        Document(String mediaType) {
            this.mediaType = mediaType;
        }
    }

    private static volatile BrowserSetup current;

    private final String openPage;
    private final String guide;
    private final String style;

    private BrowserSetup(String openPage, String guide, String style) {
        this.openPage = openPage;
        this.guide = guide;
        this.style = style;
    }

    /** What {@link BrowserResources} serves now; null while nothing is served. */
    static BrowserSetup current() {
        return current;
    }

    String text(Document which) {
        return switch (which) {
            case OPEN_PAGE -> openPage;
            case GUIDE -> guide;
            case STYLE -> style;
        };
    }

    /** Stops serving the documents (404 afterwards). */
    public static void uninstall() {
        current = null;
    }

    /** The address that opens Browser connected: {@code http://localhost:HTTP/heapload/browser[#password=...]}. */
    public static String openUrl(int httpPort, String password) {
        String url = "http://localhost:" + httpPort + MOUNT + "/browser";
        return password == null ? url : url + "#password=" + password;
    }

    /**
     * The Neo4j settings (by name, as in {@code neo4j.conf}) that configure Browser and the extension for a serve on
     * these ports, for {@link dev.heapload.store.embedded.GraphStore#serve(int, int, String, Map)}.
     *
     * @param webDir an empty directory for {@link #writeBrowserArchive} (Neo4j's {@code internal.dbms.web_dir_path})
     */
    public static Map<String, String> neo4jSettings(int httpPort, Path webDir) {
        String base = "http://localhost:" + httpPort + MOUNT;
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("server.unmanaged_extension_classes", BrowserSetup.class.getPackageName() + "=" + MOUNT);
        settings.put("browser.post_connect_cmd", "style " + base + "/style.grass; play " + base + "/guide.html");
        settings.put("browser.remote_content_hostname_whitelist", "localhost");
        settings.put("client.allow_telemetry", "false");
        // Neo4j's default allowlist plus these documents: Browser fetches the guide and the style without credentials
        settings.put("dbms.security.http_auth_allowlist", "/,/browser.*," + MOUNT + "/.*");
        settings.put("internal.dbms.web_dir_path", webDir.toAbsolutePath().toString());
        return settings;
    }

    /**
     * Writes Browser's files (the {@code browser/} folder of its jar, as the archive's first entry) into
     * {@code webDir} as {@code neo4j-browser.zip}, where Neo4j looks for a Browser archive (setting {@code internal.dbms.web_dir_path},
     * file pattern {@code neo4j-browser*.zip}) before it serves the {@code browser/} folder of the class path from
     * inside the jar: Neo4j unpacks the archive into a temporary directory of its own (deleted when the JVM exits) and
     * serves plain files from there. The archive is kept and reused while the jar's size and time are the same
     * (about 0.5 s to write). Does nothing when the jar is not on the class path (Neo4j then serves no Browser).
     *
     * @throws IOException when the archive cannot be written
     */
    public static void writeBrowserArchive(Path webDir) throws IOException {
        URL index = BrowserSetup.class.getClassLoader().getResource("browser/index.html");
        if (index == null || !"jar".equals(index.getProtocol())) {
            return;
        }
        String spec = index.getFile(); // file:/.../neo4j-browser-5.24.0.jar!/browser/index.html
        Path jar;
        try {
            jar = Path.of(new URL(spec.substring(0, spec.indexOf("!/"))).toURI());
        } catch (URISyntaxException | RuntimeException e) {
            return;
        }
        Files.createDirectories(webDir);
        Path zip = webDir.resolve("neo4j-browser.zip");
        Path stamp = webDir.resolve("neo4j-browser.source");
        String source = jar + " " + Files.size(jar) + " " + Files.getLastModifiedTime(jar).toMillis() + "\n";
        if (Files.isRegularFile(zip) && Files.isRegularFile(stamp) && Files.readString(stamp).equals(source)) {
            return;
        }
        Path tmp = webDir.resolve("neo4j-browser.zip.tmp");
        try (java.util.zip.ZipFile in = new java.util.zip.ZipFile(jar.toFile());
             java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(Files.newOutputStream(tmp))) {
            out.setLevel(1);
            // Neo4j serves the folder named by the archive's first entry
            out.putNextEntry(new java.util.zip.ZipEntry("browser/"));
            out.closeEntry();
            for (var entries = in.entries(); entries.hasMoreElements(); ) {
                java.util.zip.ZipEntry e = entries.nextElement();
                String name = e.getName();
                if (!name.startsWith("browser/") || name.equals("browser/") || name.contains("..")) {
                    continue;
                }
                out.putNextEntry(new java.util.zip.ZipEntry(name));
                if (!e.isDirectory()) {
                    try (var data = in.getInputStream(e)) {
                        data.transferTo(out);
                    }
                }
                out.closeEntry();
            }
        }
        Files.move(tmp, zip, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(stamp, source);
    }

    /**
     * Makes the documents for the served store and serves them from now on.
     *
     * @param database  the served database (read for the labels in use and an example address)
     * @param store     the store directory (shown in the guide)
     * @param snapshots the store's snapshots in load order (at least one)
     * @param queries   the saved queries for the guide
     */
    public static void install(GraphDatabaseService database, Path store, List<SnapshotSummary> snapshots,
                               Iterable<SavedQuery> queries, int httpPort, int boltPort, boolean auth) {
        String newest = snapshots.get(snapshots.size() - 1).id();
        String previous = snapshots.size() > 1 ? snapshots.get(snapshots.size() - 2).id() : newest;
        List<String> typeLabels = new ArrayList<>();
        String address = null;
        try (Transaction tx = database.beginTx()) {
            try (Result r = tx.execute("CALL db.labels() YIELD label RETURN label ORDER BY label")) {
                r.forEachRemaining(row -> typeLabels.add((String) row.get("label")));
            }
            try (Result r = tx.execute("MATCH (:Snapshot {id: $id})-[t:TOP_RETAINER]->(o) RETURN o.address AS a "
                + "ORDER BY t.rank LIMIT 1", Map.of("id", newest))) {
                if (r.hasNext()) {
                    address = (String) r.next().get("a");
                }
            }
        }
        typeLabels.removeAll(List.of("Object", "Snapshot", "Category", "Stats", "Diff", "NewObjects", "LeakGroup",
            "WeakOnly", "LoadInProgress"));
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("snapshot", newest);
        values.put("target", newest);
        values.put("baseline", previous);
        values.put("address", address == null ? "0x0" : address);
        current = new BrowserSetup(openPage(boltPort, auth),
            guide(store, snapshots, queries, values), style(typeLabels));
    }

    // ---------------------------------------------------------------------------------------------------------

    /** The page behind {@link #openUrl}: stores the connection for Browser, then opens it. */
    static String openPage(int boltPort, boolean auth) {
        String bolt = "bolt://localhost:" + boltPort;
        String withoutPassword = auth
            ? "/browser/?preselectAuthMethod=NATIVE&dbms=" + "bolt://neo4j@localhost:" + boltPort
            : "/browser/?preselectAuthMethod=NO_AUTH";
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
            <title>heapload: opening Neo4j Browser</title></head>
            <body><p>Opening Neo4j Browser&hellip;</p>
            <script>
            (function () {
              var password = new URLSearchParams(location.hash.slice(1)).get('password');
              history.replaceState(null, '', location.pathname);
              var settings = {};
              try { settings = JSON.parse(localStorage.getItem('neo4j.settings')) || {}; } catch (e) { settings = {}; }
              settings.initCmd = '';
              settings.allowUserStats = false;
              settings.allowCrashReports = false;
              settings.showSampleScripts = false;
              localStorage.setItem('neo4j.settings', JSON.stringify(settings));
              if (!password) {
                location.replace('WITHOUT_PASSWORD');
                return;
              }
              localStorage.setItem('neo4j.connections', JSON.stringify({
                allConnectionIds: ['$$discovery'],
                connectionsById: {'$$discovery': {id: '$$discovery', name: '$$discovery', host: 'BOLT',
                  username: 'neo4j', password: password, authenticationMethod: 'NATIVE', db: null}},
                activeConnection: '$$discovery'
              }));
              location.replace('/browser/');
            })();
            </script></body></html>
            """.replace("WITHOUT_PASSWORD", withoutPassword).replace("BOLT", bolt);
    }

    /** Colours for the type labels, in label order (from Browser's own default palette and a few more). */
    private static final String[] COLOURS = {"#68BDF6", "#6DCE9E", "#FF756E", "#DE9BF9", "#FB95AF", "#FFD86E",
        "#A5ABB6", "#F79767", "#57C7E3", "#D9C8AE", "#8DCC93", "#ECB5C9", "#4C8EDA", "#FFC454", "#DA7194", "#569480"};

    /** The GraSS style; {@code typeLabels} are the type labels in use (Table, Function, ...). */
    static String style(List<String> typeLabels) {
        StringBuilder g = new StringBuilder();
        g.append("node {\n  diameter: 50px;\n  color: #A5ABB6;\n  border-color: #9AA1AC;\n  border-width: 2px;\n"
            + "  text-color-internal: #FFFFFF;\n  font-size: 10px;\n}\n");
        g.append("relationship {\n  color: #A5ABB6;\n  shaft-width: 1px;\n  font-size: 8px;\n  padding: 3px;\n"
            + "  text-color-external: #000000;\n  text-color-internal: #FFFFFF;\n  caption: \"<type>\";\n}\n");
        g.append("node.Object {\n  caption: \"{type} {label}\";\n}\n");
        g.append("node.Snapshot {\n  color: #4C8EDA;\n  diameter: 65px;\n  caption: \"{id}\";\n}\n");
        g.append("node.Category {\n  color: #D9C8AE;\n  caption: \"{name}\";\n}\n");
        for (int i = 0; i < typeLabels.size(); i++) {
            String colour = COLOURS[i % COLOURS.length];
            g.append("node.").append(typeLabels.get(i)).append(" {\n  color: ").append(colour)
                .append(";\n  border-color: ").append(colour).append(";\n  text-color-internal: #000000;\n}\n");
        }
        g.append("relationship.REF {\n  color: #6B7280;\n  shaft-width: 2px;\n  caption: \"{name}\";\n}\n");
        g.append("relationship.WEAK_REF {\n  color: #D1D5DB;\n  shaft-width: 1px;\n  text-color-external: #9CA3AF;\n"
            + "  caption: \"weak {name}\";\n}\n");
        g.append("relationship.ROOT {\n  color: #4C8EDA;\n  caption: \"root {name}\";\n}\n");
        return g.toString();
    }

    /** The one-page guide. */
    static String guide(Path store, List<SnapshotSummary> snapshots, Iterable<SavedQuery> queries,
                        Map<String, Object> values) {
        String newest = (String) values.get("snapshot");
        StringBuilder h = new StringBuilder();
        h.append("<article class=\"guide\"><carousel class=\"deck container-fluid\"><slide class=\"row-fluid\">"
            + "<div class=\"col-sm-12\">\n");
        h.append("<h3>heapload: ").append(html(store.toString())).append("</h3>\n");
        h.append("<p>Snapshots, in load order: ");
        List<String> parts = new ArrayList<>();
        for (SnapshotSummary s : snapshots) {
            parts.add(String.format(Locale.ROOT, "<code>%s</code> (%,d objects, %,d bytes)", html(s.id()),
                s.objectCount(), s.totalBytes()));
        }
        h.append(String.join(", ", parts)).append(". The queries below are filled in for the newest, <code>")
            .append(html(newest)).append("</code>")
            .append(values.get("baseline").equals(newest) ? "" : ", against <code>" + html((String) values.get("baseline"))
                + "</code>")
            .append("; click a block to put it into the editor, or its &#9654; icon to run it. The graph is read-only.</p>\n");
        h.append("<h4>Draw the heap</h4>\n<p>The roots and what they reference directly, weak references included "
            + "(drawn thin and grey, captioned <em>weak</em>):</p>\n");
        h.append(runnable("MATCH p = (:Snapshot {id: " + literal(newest) + "})-[:ROOT]->()-[:REF|WEAK_REF]->()\n"
            + "RETURN p LIMIT 50"));
        h.append("<h4>The graph</h4>\n<ul>\n"
            + "<li><code>(:Snapshot {id, vm, objectCount, referenceCount, totalBytes, objectBytes, loadOrder})</code>"
            + " one per loaded dump; <code>-[:ROOT {name}]-&gt;</code> its GC roots.</li>\n"
            + "<li><code>(:Object:&lt;Type&gt; {snapshot, address, type, label, size, category, reachable, distance,"
            + " retainedSize, dominator, rootName})</code> one per heap object; sizes in bytes; <code>address</code>"
            + " as the dump spells it; <code>dominator</code> the immediate dominator's address.</li>\n"
            + "<li><code>-[:REF {kind, name, retention}]-&gt;</code> strong references; <code>retention: true</code> on"
            + " the last hop of each object's retention path. <code>-[:WEAK_REF {kind, name}]-&gt;</code> weak"
            + " references (they keep nothing alive).</li>\n"
            + "<li><code>(:Snapshot)-[:TOP_RETAINER {rank}]-&gt;(:Object)</code> the largest retainers;"
            + " <code>(:Snapshot)-[:HAS_CATEGORY]-&gt;(:Category {id, name, bytes})</code> memory categories;"
            + " comparisons of two snapshots hang off <code>(:Diff)</code> nodes.</li>\n"
            + "</ul>\n");
        h.append("<h4>Saved queries</h4>\n<p>The same as <code>heapload query NAME</code> on the command line.</p>\n");
        for (SavedQuery q : queries) {
            h.append("<h5>").append(html(q.name())).append("</h5>\n<p>").append(html(q.description())).append("</p>\n");
            Map<String, Object> filled = new LinkedHashMap<>();
            for (QueryParameter p : q.parameters()) {
                Object v = values.get(p.name());
                filled.put(p.name(), v != null ? v : p.defaultValue());
            }
            h.append(runnable(fillIn(body(q.text()), filled)));
        }
        h.append("</div></slide></carousel></article>\n");
        return h.toString();
    }

    private static String runnable(String cypher) {
        return "<pre class=\"pre-scrollable code runnable\">" + html(cypher.strip()) + "</pre>\n";
    }

    private static String html(String s) {
        return SafeText.xml(s, true);
    }

    /** The query text without its header comment (the leading {@code //} lines). */
    static String body(String text) {
        List<String> lines = new ArrayList<>(text.lines().toList());
        while (!lines.isEmpty() && (lines.get(0).strip().startsWith("//") || lines.get(0).isBlank())) {
            lines.remove(0);
        }
        return String.join("\n", lines);
    }

    /** A Cypher literal for a parameter value: a quoted string, a number, a boolean or null. */
    static String literal(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String s) {
            StringBuilder b = new StringBuilder("'");
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '\'' -> b.append("\\'");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> {
                        if (c < 0x20 || c == 0x7f) {
                            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            return b.append('\'').toString();
        }
        return String.valueOf(value);
    }

    /**
     * Replaces each {@code $name} parameter of {@code cypher} that {@code values} has by its {@link #literal}, outside
     * string literals, back-quoted names and comments.
     */
    static String fillIn(String cypher, Map<String, Object> values) {
        StringBuilder out = new StringBuilder(cypher.length());
        int n = cypher.length();
        int i = 0;
        while (i < n) {
            char c = cypher.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                int j = i + 1;
                while (j < n && cypher.charAt(j) != c) {
                    j += cypher.charAt(j) == '\\' && c != '`' ? 2 : 1;
                }
                j = Math.min(n, j + 1);
                out.append(cypher, i, j);
                i = j;
            } else if (c == '/' && i + 1 < n && cypher.charAt(i + 1) == '/') {
                int j = cypher.indexOf('\n', i);
                j = j < 0 ? n : j;
                out.append(cypher, i, j);
                i = j;
            } else if (c == '/' && i + 1 < n && cypher.charAt(i + 1) == '*') {
                int j = cypher.indexOf("*/", i + 2);
                j = j < 0 ? n : j + 2;
                out.append(cypher, i, j);
                i = j;
            } else if (c == '$') {
                int j = i + 1;
                while (j < n && (Character.isLetterOrDigit(cypher.charAt(j)) || cypher.charAt(j) == '_')) {
                    j++;
                }
                String name = cypher.substring(i + 1, j);
                if (values.containsKey(name)) {
                    out.append(literal(values.get(name)));
                } else {
                    out.append(cypher, i, j);
                }
                i = Math.max(j, i + 1);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
