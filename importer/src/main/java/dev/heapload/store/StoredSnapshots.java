package dev.heapload.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotFile;

/**
 * The stored snapshots of an embedded store directory as files, read without opening the store: its catalog, each
 * snapshot's model and analysis ({@code DIR/snapshots/<id>.hsnap}, {@link HeapSnapshotFile}) and its summary
 * ({@code DIR/summaries/<id>.summary}, {@link StoredSummary}). Takes no lock and starts no database, so it may be
 * used while another process holds the store ({@code heapload serve}, a query, a load): a load replaces files by
 * renaming and commits the catalog last, so what is read is one committed state or a file that is gone (read as an
 * {@link IOException}). Uses no Neo4j class. Models read are kept for the life of the instance (a question about a
 * pair reads each once).
 */
public final class StoredSnapshots {

    /** The folder of the snapshot model files under the store directory. */
    public static final String SNAPSHOTS = StoreDirectory.SNAPSHOTS;
    /** The folder of the summary files under the store directory. */
    public static final String SUMMARIES = StoreDirectory.SUMMARIES;

    private final Path dir;
    private final Catalog catalog;
    private final Map<String, HeapSnapshot> models = new HashMap<>();

    private StoredSnapshots(Path dir, Catalog catalog) {
        this.dir = dir;
        this.catalog = catalog;
    }

    /**
     * Reads the catalog of the store in {@code dir} (an absent catalog reads as an empty store).
     *
     * @throws IOException when the catalog is damaged or of another format
     */
    public static StoredSnapshots open(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        return new StoredSnapshots(abs, Catalog.read(abs));
    }

    /** The store directory (absolute). */
    public Path directory() {
        return dir;
    }

    /** The catalog entry of snapshot {@code id}, or {@code null} when the store holds none. */
    public Catalog.Entry entry(String id) {
        return catalog.find(id);
    }

    /**
     * The model of snapshot {@code id} with its analysis attached when it was stored with one; read once per
     * instance. Costs about as much memory as the load did.
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws SnapshotPrunedException   when it was pruned (its file is gone)
     * @throws IOException               when the file cannot be read or is damaged (the message names it)
     */
    public HeapSnapshot model(String id) throws IOException {
        HeapSnapshot cached = models.get(id);
        if (cached != null) {
            return cached;
        }
        Catalog.Entry e = catalog.withModel(id, dir.toString());
        HeapSnapshot s = HeapSnapshotFile.read(dir.resolve(SNAPSHOTS).resolve(e.file()));
        models.put(id, s);
        return s;
    }

    /**
     * The stored summary of snapshot {@code id} (kept also after a prune).
     *
     * @throws SnapshotNotFoundException when the store holds no snapshot {@code id}
     * @throws IOException               when the summary file is missing or damaged
     */
    public StoredSummary summary(String id) throws IOException {
        Catalog.Entry e = catalog.find(id);
        if (e == null) {
            throw new SnapshotNotFoundException(id, dir.toString());
        }
        return StoredSummary.read(dir.resolve(SUMMARIES).resolve(e.summaryFile()));
    }

    /** True when the store holds snapshot {@code id} and its summary file (a store of an older heapload may not). */
    public boolean hasSummary(String id) {
        Catalog.Entry e = catalog.find(id);
        return e != null && java.nio.file.Files.isRegularFile(dir.resolve(SUMMARIES).resolve(e.summaryFile()));
    }
}
