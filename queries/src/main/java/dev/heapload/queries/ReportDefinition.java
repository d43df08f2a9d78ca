package dev.heapload.queries;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A report defined as data: an ordered list of sections, each a saved query (shown as a table) or a built-in figure
 * ({@code @headline}, {@code @leak-groups}, {@code @icicle}, {@code @history}, {@code @micropython-heap}), with a title and parameters. The
 * file format ({@code .report}, UTF-8):
 *
 * <pre>
 * # comment
 * name: nightly
 * title: Nightly leak report
 * &#64;headline            | Headline
 * categories           | Memory categories: change | snapshot=$target baseline=$baseline top=3
 * </pre>
 *
 * Section lines are {@code WHAT | TITLE [| KEY=VALUE ...]}; {@code $baseline} and {@code $target} in a value stand for
 * the report's two snapshot ids. The reports packaged with heapload are the repository's {@code cypher/reports/}
 * folder ({@link #builtIn(String)}).
 *
 * @param name     the report's name (letters, digits, {@code -})
 * @param title    its heading
 * @param sections the sections, in order
 * @param source   where it was read from, for messages
 */
public record ReportDefinition(String name, String title, List<Section> sections, String source) {

    /** Classpath folder holding the packaged copies of {@code cypher/reports/*.report}. */
    public static final String RESOURCE_DIR = QueryLibrary.RESOURCE_DIR + "/reports";

    /** The built-in figures a section may name (with a leading {@code @}). */
    public static final Set<String> FIGURES = Set.of("headline", "leak-groups", "icicle", "history", "micropython-heap",
        "class-histogram");

    /**
     * One section.
     *
     * @param what       a saved query name, or a figure name with its leading {@code @}
     * @param title      the section's heading
     * @param parameters KEY → VALUE text as written (with {@code $baseline}/{@code $target} not yet substituted)
     */
    public record Section(String what, String title, Map<String, String> parameters) {

        /** True when the section is a built-in figure rather than a saved query. */
        public boolean figure() {
            return what.startsWith("@");
        }

        /**
         * The parameter values with {@code $baseline} and {@code $target} replaced by the ids, plus
         * {@code snapshot=$target}, {@code baseline=$baseline} and {@code target=$target} for those of {@code query}'s
         * parameters that the section does not set.
         */
        public Map<String, String> bind(SavedQuery query, String baseline, String target) {
            Map<String, String> out = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : parameters.entrySet()) {
                String v = e.getValue();
                out.put(e.getKey(), "$baseline".equals(v) ? baseline : "$target".equals(v) ? target : v);
            }
            for (QueryParameter p : query.parameters()) {
                if (!out.containsKey(p.name())) {
                    switch (p.name()) {
                        case "snapshot", "target" -> out.put(p.name(), target);
                        case "baseline" -> out.put(p.name(), baseline);
                        default -> {
                            // the query's default
                        }
                    }
                }
            }
            return out;
        }
    }

    /**
     * Parses a report file's text.
     *
     * @param text    the file's content
     * @param source  file path or resource name, for messages
     * @param library the saved queries a section may name
     * @throws QueryFormatException (one line naming the file and line) on a missing name or title, an unknown
     *                              query or figure, a parameter the query does not declare, or a malformed line
     */
    public static ReportDefinition parse(String text, String source, QueryLibrary library) throws QueryFormatException {
        String name = null;
        String title = null;
        List<Section> sections = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            String where = source + ":" + (i + 1) + ": ";
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("name:")) {
                name = line.substring(5).strip();
                if (!name.matches("[A-Za-z0-9][A-Za-z0-9-]*")) {
                    throw new QueryFormatException(where + "the name must be letters, digits and -");
                }
                continue;
            }
            if (line.startsWith("title:")) {
                title = line.substring(6).strip();
                continue;
            }
            String[] parts = line.split("\\|", -1);
            if (parts.length < 2 || parts.length > 3) {
                throw new QueryFormatException(where + "expected 'WHAT | TITLE [| KEY=VALUE ...]'");
            }
            String what = parts[0].strip();
            String sectionTitle = parts[1].strip();
            Map<String, String> params = new LinkedHashMap<>();
            if (parts.length == 3) {
                for (String kv : parts[2].strip().split("\\s+")) {
                    if (kv.isEmpty()) {
                        continue;
                    }
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new QueryFormatException(where + "parameter '" + kv + "' is not KEY=VALUE");
                    }
                    params.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            if (what.startsWith("@")) {
                if (!FIGURES.contains(what.substring(1))) {
                    throw new QueryFormatException(where + "unknown figure '" + what + "' (known: @" + String.join(", @",
                        new java.util.TreeSet<>(FIGURES)) + ")");
                }
            } else {
                SavedQuery q = library.get(what);
                if (q == null) {
                    throw new QueryFormatException(where + "no saved query '" + what + "' (heapload queries lists them)");
                }
                for (String key : params.keySet()) {
                    if (q.parameter(key) == null) {
                        throw new QueryFormatException(where + "query '" + what + "' has no parameter '" + key + "'");
                    }
                }
            }
            if (sectionTitle.isEmpty()) {
                sectionTitle = what;
            }
            sections.add(new Section(what, sectionTitle, params));
        }
        if (name == null || title == null) {
            throw new QueryFormatException(source + ": a report needs a 'name:' and a 'title:' line");
        }
        if (sections.isEmpty()) {
            throw new QueryFormatException(source + ": a report needs at least one section");
        }
        return new ReportDefinition(name, title, List.copyOf(sections), source);
    }

    /**
     * Reads a report file.
     *
     * @throws IOException when it cannot be read
     * @throws QueryFormatException when it is malformed ({@link #parse})
     */
    public static ReportDefinition read(Path file, QueryLibrary library) throws IOException, QueryFormatException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString(), library);
    }

    /**
     * A report packaged with heapload ({@code cypher/reports/NAME.report} at build time).
     *
     * @throws IOException when it is not packaged
     * @throws QueryFormatException when it is malformed
     */
    public static ReportDefinition builtIn(String name, QueryLibrary library) throws IOException, QueryFormatException {
        String resource = RESOURCE_DIR + "/" + name + ".report";
        try (InputStream in = ReportDefinition.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no built-in report '" + name + "'");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "classpath:" + resource, library);
        }
    }
}
