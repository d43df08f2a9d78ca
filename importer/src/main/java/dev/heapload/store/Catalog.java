package dev.heapload.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The committed state of a store: which snapshots it holds, in load order, and for each the directory of its own
 * graph (a Neo4j home under {@code graphs/}), whether it was pruned, and the store's baseline setting. Replacing this
 * file (write to a temporary file, force, atomic rename) is the single commit point of every load, replace, delete,
 * prune and graph build (docs/design/store.md).
 *
 * <p>Format {@code heapload-store-2}; a catalog of format {@code heapload-store-1} (one graph of all snapshots,
 * {@code graph-<generation>}) is read as entries without graphs, {@link #legacy} set, for the migration of
 * {@link GraphStore#open}.
 */
public final class Catalog {

    public static final String FILE = "catalog.properties";
    private static final String FORMAT = "heapload-store-2";
    private static final String FORMAT_1 = "heapload-store-1";

    /**
     * A snapshot in the store: its summary, its file name under {@code snapshots/}, its category count, the number of
     * {@code Missing} nodes its graph has ({@code --keep-dangling}; property {@code missingCount}, absent = 0), the
     * directory of its graph under {@code graphs/} (null: none built yet, or pruned), the {@link GraphSchema#VERSION}
     * that graph was built with, and whether the snapshot was pruned (graph and model dropped, summary kept).
     */
    public record Entry(SnapshotSummary summary, String file, int categoryCount, int missingCount, String graph,
                 int graphSchema, boolean pruned) {
        /** An entry without a graph yet. */
        public Entry(SnapshotSummary summary, String file, int categoryCount, int missingCount) {
            this(summary, file, categoryCount, missingCount, null, GraphSchema.VERSION, false);
        }

        /** An entry without a graph yet and without Missing nodes. */
        public Entry(SnapshotSummary summary, String file, int categoryCount) {
            this(summary, file, categoryCount, 0);
        }

        public String id() {
            return summary.id();
        }

        /** The file name of its summary under {@code summaries/}. */
        public String summaryFile() {
            return file.substring(0, file.length() - ".hsnap".length()) + ".summary";
        }

        /** The same entry with its graph in {@code graph} (built now, with the current schema). */
        public Entry withGraph(String graph) {
            return new Entry(summary, file, categoryCount, missingCount, graph, GraphSchema.VERSION, false);
        }

        /** The same entry pruned: no graph, no model. */
        public Entry asPruned() {
            return new Entry(summary, file, categoryCount, missingCount, null, graphSchema, true);
        }

        /** True when its graph exists and was built with the current schema. */
        public boolean hasCurrentGraph() {
            return graph != null && graphSchema == GraphSchema.VERSION;
        }
    }

    public final long generation;
    public final List<Entry> entries;
    /** The store's baseline setting (a snapshot id every load is also compared against), or null. */
    public final String baseline;
    /** Read from a format-1 catalog: the one graph of all snapshots ({@code graph-<generation>}) to be replaced. */
    public final boolean legacy;

    public Catalog(long generation, List<Entry> entries) {
        this(generation, entries, null, false);
    }

    public Catalog(long generation, List<Entry> entries, String baseline, boolean legacy) {
        this.generation = generation;
        this.entries = List.copyOf(entries);
        this.baseline = baseline;
        this.legacy = legacy;
    }

    public static Catalog empty() {
        return new Catalog(0, List.of());
    }

    /** The directory name of a graph built in {@code generation} for the snapshot file {@code file}. */
    public static String graphDirectory(String file, long generation) {
        return file.substring(0, file.length() - ".hsnap".length()) + "-" + generation;
    }

    /** The same catalog with another baseline setting (null: none), as the next generation. */
    public Catalog withBaseline(String id) {
        return new Catalog(generation + 1, entries, id, false);
    }

    /** The next generation with {@code entry} put in place of the entry with its id (which must exist). */
    public Catalog replacing(Entry entry) {
        List<Entry> list = new ArrayList<>(entries);
        list.replaceAll(e -> e.id().equals(entry.id()) ? entry : e);
        return new Catalog(generation + 1, list, baseline, false);
    }

    /**
     * The entry of snapshot {@code id} when it still has its graph and model.
     *
     * @param store the store directory, for the messages
     * @throws SnapshotNotFoundException when the catalog has no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned
     */
    public Entry withModel(String id, String store) throws IOException {
        Entry e = find(id);
        if (e == null) {
            throw new SnapshotNotFoundException(id, store);
        }
        if (e.pruned()) {
            throw new SnapshotPrunedException(id, store);
        }
        return e;
    }

    public Entry find(String id) {
        for (Entry e : entries) {
            if (e.id().equals(id)) {
                return e;
            }
        }
        return null;
    }

    /** The same entries under another generation number. */
    public Catalog withGeneration(long g) {
        return new Catalog(g, entries, baseline, false);
    }

    /** A copy of the next generation with {@code entry} added, or put in place of the entry with its id. */
    public Catalog with(Entry entry) {
        List<Entry> list = new ArrayList<>(entries);
        boolean replaced = false;
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).id().equals(entry.id())) {
                list.set(i, entry);
                replaced = true;
            }
        }
        if (!replaced) {
            list.add(entry);
        }
        return new Catalog(generation + 1, list, baseline, false);
    }

    /** A copy of the next generation without the entry {@code id}. */
    public Catalog without(String id) {
        List<Entry> list = new ArrayList<>(entries);
        list.removeIf(e -> e.id().equals(id));
        return new Catalog(generation + 1, list, id.equals(baseline) ? null : baseline, false);
    }

    /**
     * A file name for snapshot {@code id}: letters, digits, {@code -}, {@code _} and non-leading dots kept,
     * every other UTF-8 byte written as {@code %XX}; so distinct ids give distinct names.
     */
    public static String fileNameFor(String id) {
        StringBuilder b = new StringBuilder();
        byte[] bytes = id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            int c = bytes[i] & 0xff;
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '_' || (c == '.' && i > 0);
            if (plain) {
                b.append((char) c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                    .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.append(".hsnap").toString();
    }

    public static Catalog read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return empty();
        }
        boolean legacy = FORMAT_1.equals(p.getProperty("format"));
        if (!legacy && !FORMAT.equals(p.getProperty("format"))) {
            throw new IOException(file + ": not a heapload store catalog of format " + FORMAT
                + " (found " + p.getProperty("format") + ")");
        }
        try {
            long generation = Long.parseLong(p.getProperty("generation"));
            int count = Integer.parseInt(p.getProperty("snapshot.count"));
            List<Entry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String k = "snapshot." + i + ".";
                SnapshotSummary s = new SnapshotSummary(
                    required(p, k + "id"), required(p, k + "vm"), p.getProperty(k + "source"),
                    p.getProperty(k + "sha256"), Instant.parse(required(p, k + "loadedAt")),
                    Long.parseLong(required(p, k + "objectCount")), Long.parseLong(required(p, k + "referenceCount")),
                    Long.parseLong(required(p, k + "totalBytes")), Long.parseLong(required(p, k + "objectBytes")),
                    Boolean.parseBoolean(required(p, k + "analysed")), p.getProperty(k + "producer"),
                    p.getProperty(k + "vmVersion"));
                String name = required(p, k + "file");
                int categories = Integer.parseInt(required(p, k + "categoryCount"));
                int missing = Integer.parseInt(p.getProperty(k + "missingCount", "0"));
                if (legacy) {
                    entries.add(new Entry(s, name, categories, missing, null, GraphSchema.VERSION, false));
                } else {
                    entries.add(new Entry(s, name, categories, missing, p.getProperty(k + "graph"),
                        Integer.parseInt(p.getProperty(k + "graphSchema", "0")),
                        Boolean.parseBoolean(p.getProperty(k + "pruned", "false"))));
                }
            }
            return new Catalog(generation, entries, p.getProperty("baseline"), legacy);
        } catch (NumberFormatException | DateTimeParseException | NullPointerException e) {
            throw new IOException(file + ": corrupt store catalog (" + e.getMessage() + ")", e);
        }
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null) {
            throw new NullPointerException("missing " + key);
        }
        return v;
    }

    /** Atomically replaces {@code dir/catalog.properties} with this catalog (the commit point). */
    public void write(Path dir) throws IOException {
        Properties p = new Properties();
        p.setProperty("format", FORMAT);
        p.setProperty("generation", Long.toString(generation));
        if (baseline != null) {
            p.setProperty("baseline", baseline);
        }
        p.setProperty("snapshot.count", Integer.toString(entries.size()));
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            SnapshotSummary s = e.summary();
            String k = "snapshot." + i + ".";
            p.setProperty(k + "id", s.id());
            p.setProperty(k + "vm", s.vm());
            if (s.source() != null) {
                p.setProperty(k + "source", s.source());
            }
            if (s.sha256() != null) {
                p.setProperty(k + "sha256", s.sha256());
            }
            if (s.producer() != null) {
                p.setProperty(k + "producer", s.producer());
            }
            if (s.vmVersion() != null) {
                p.setProperty(k + "vmVersion", s.vmVersion());
            }
            p.setProperty(k + "loadedAt", s.loadedAt().toString());
            p.setProperty(k + "objectCount", Long.toString(s.objectCount()));
            p.setProperty(k + "referenceCount", Long.toString(s.referenceCount()));
            p.setProperty(k + "totalBytes", Long.toString(s.totalBytes()));
            p.setProperty(k + "objectBytes", Long.toString(s.objectBytes()));
            p.setProperty(k + "analysed", Boolean.toString(s.analysed()));
            p.setProperty(k + "file", e.file());
            p.setProperty(k + "categoryCount", Integer.toString(e.categoryCount()));
            if (e.missingCount() > 0) {
                p.setProperty(k + "missingCount", Integer.toString(e.missingCount()));
            }
            if (e.graph() != null) {
                p.setProperty(k + "graph", e.graph());
            }
            p.setProperty(k + "graphSchema", Integer.toString(e.graphSchema()));
            if (e.pruned()) {
                p.setProperty(k + "pruned", "true");
            }
        }
        Path tmp = dir.resolve(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream out = Channels.newOutputStream(ch);
            p.store(out, "heapload store catalog: do not edit");
            out.flush();
            ch.force(true);
        }
        try {
            Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING);
        }
        forceDirectory(dir);
    }

    /** Best-effort fsync of a directory (makes renames in it durable on Linux). */
    public static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // not supported on this platform: renames are still atomic, only durability is weaker
        }
    }
}
