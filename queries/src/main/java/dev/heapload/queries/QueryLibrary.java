package dev.heapload.queries;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * A set of saved queries by name: the repository's {@code cypher/} folder, which the build packages into the
 * queries jar under {@value #RESOURCE_DIR} ({@link #builtIn()}), or any folder of {@code .cypher} files
 * ({@link #fromDirectory(Path)}).
 */
public final class QueryLibrary {

    /** Classpath folder holding the packaged copies of {@code cypher/*.cypher}. */
    public static final String RESOURCE_DIR = "dev/heapload/queries/cypher";

    private final Map<String, SavedQuery> byName;

    private QueryLibrary(Map<String, SavedQuery> byName) {
        this.byName = byName;
    }

    /**
     * The queries packaged with heapload (the {@code cypher/} folder at build time).
     *
     * @throws IOException when the classpath cannot be read
     * @throws QueryFormatException when a packaged file has a bad header or two share a name
     */
    public static QueryLibrary builtIn() throws IOException, QueryFormatException {
        Map<String, String> texts = new TreeMap<>();
        CodeSource cs = QueryLibrary.class.getProtectionDomain().getCodeSource();
        if (cs == null) {
            throw new IOException("cannot locate the saved queries on the classpath");
        }
        Path location;
        try {
            location = Path.of(cs.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IOException("cannot locate the saved queries on the classpath: " + cs.getLocation());
        }
        if (Files.isDirectory(location)) {
            Path dir = location.resolve(RESOURCE_DIR);
            if (Files.isDirectory(dir)) {
                for (Path p : cypherFiles(dir)) {
                    texts.put(RESOURCE_DIR + "/" + p.getFileName(), Files.readString(p, StandardCharsets.UTF_8));
                }
            }
        } else {
            try (JarFile jar = new JarFile(location.toFile())) {
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    JarEntry e = entries.nextElement();
                    String n = e.getName();
                    if (n.startsWith(RESOURCE_DIR + "/") && n.endsWith(".cypher") && n.indexOf('/', RESOURCE_DIR.length() + 1) < 0) {
                        try (InputStream in = jar.getInputStream(e)) {
                            texts.put(n, new String(in.readAllBytes(), StandardCharsets.UTF_8));
                        }
                    }
                }
            }
        }
        List<SavedQuery> queries = new ArrayList<>();
        for (Map.Entry<String, String> e : texts.entrySet()) {
            queries.add(SavedQuery.parse(e.getValue(), "classpath:" + e.getKey()));
        }
        return of(queries);
    }

    /**
     * The {@code .cypher} files directly in {@code dir}.
     *
     * @throws IOException when the folder cannot be read
     * @throws QueryFormatException when a file has a bad header or two files share a name
     */
    public static QueryLibrary fromDirectory(Path dir) throws IOException, QueryFormatException {
        List<SavedQuery> queries = new ArrayList<>();
        for (Path p : cypherFiles(dir)) {
            queries.add(readFile(p));
        }
        return of(queries);
    }

    /**
     * Reads one query file.
     *
     * @throws IOException when it cannot be read ({@link NoSuchFileException} when missing)
     * @throws QueryFormatException when its header is bad
     */
    public static SavedQuery readFile(Path file) throws IOException, QueryFormatException {
        return SavedQuery.parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    private static List<Path> cypherFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".cypher") && Files.isRegularFile(p)).sorted().toList();
        }
    }

    private static QueryLibrary of(List<SavedQuery> queries) throws QueryFormatException {
        Map<String, SavedQuery> map = new TreeMap<>();
        for (SavedQuery q : queries) {
            SavedQuery old = map.put(q.name(), q);
            if (old != null) {
                throw new QueryFormatException(q.source() + ": query name '" + q.name() + "' is also used by " + old.source());
            }
        }
        return new QueryLibrary(map);
    }

    /** The queries, sorted by name. */
    public Collection<SavedQuery> queries() {
        return byName.values();
    }

    /** The query called {@code name}, or {@code null}. */
    public SavedQuery get(String name) {
        return byName.get(name);
    }

    /**
     * A query by name, or, when {@code nameOrPath} ends in {@code .cypher}, the query in that file.
     *
     * @throws IOException when the file cannot be read
     * @throws QueryFormatException when its header is bad
     * @throws QueryFailedException when no query has that name
     */
    public SavedQuery resolve(String nameOrPath) throws IOException, QueryFormatException, QueryFailedException {
        if (nameOrPath.endsWith(".cypher")) {
            return readFile(Path.of(nameOrPath));
        }
        SavedQuery q = byName.get(nameOrPath);
        if (q == null) {
            throw new QueryFailedException("no saved query '" + nameOrPath + "' (heapload queries lists them; "
                + "a path to a .cypher file also works)");
        }
        return q;
    }
}
