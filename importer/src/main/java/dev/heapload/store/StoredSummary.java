package dev.heapload.store;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import dev.heapload.analysis.ClassHistogram;
import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.ObjectClasses;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SnapshotStatistics;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.MemoryCategory;

/**
 * The figures of one snapshot that a store keeps forever, also after {@code heapload prune} dropped its graph and
 * model: its memory categories (id, name, the VM's bytes), its statistics buckets (per type and category:
 * objects, bytes, reachable objects and bytes, largest retained size, weakly referenced unreachable objects) and the
 * comparisons its load made with it as the target (totals and the {@link #LEAK_GROUPS} largest leak groups with their
 * retention paths, from which the report's leak fingerprints are computed). The first two are what the
 * {@code Snapshot}, {@code Category} and {@code Stats} nodes of the graph hold, so every snapshot's graph gets them for
 * all other snapshots of the store without reading their models; the comparisons are the leak history of
 * {@code heapload trend --leak} (docs/design/store.md).
 *
 * It also keeps the snapshot's class histogram ({@link ClassHistogram}: objects, shallow, reachable and retained bytes
 * per class), which {@code heapload query class-histogram} reads.
 *
 * <p>File {@code DIR/summaries/<id>.summary}: the magic {@code HLSUM4} ({@code HLSUM3}: without the class histogram,
 * read as not stored; {@code HLSUM2}: also leak groups without verdict and net growth, read as net = new;
 * {@code HLSUM1}: also without comparisons, read as none), then counts and fields in
 * {@link DataOutputStream} encoding; a few KiB per snapshot, up to some tens of KiB with long retention paths.
 *
 * @param categories  the snapshot's memory categories, in the model's order (empty for VMs without them)
 * @param buckets     its statistics buckets; empty when the snapshot was not analysed
 * @param comparisons the comparisons its load made with it as the target, in the load's order (previous snapshot
 *                    first); empty for a first snapshot, an unanalysed one, or a summary of format {@code HLSUM1}
 * @param classes     its class histogram's rows ({@link ClassHistogram#rows}), or {@code null} when the summary has
 *                    none (not analysed, or written by an earlier heapload: compute it from the model)
 */
public record StoredSummary(List<MemoryCategory> categories, List<SnapshotStatistics.Bucket> buckets,
                            List<StoredComparison> comparisons, List<ClassHistogram.Row> classes) {

    private static final String MAGIC = "HLSUM4";
    private static final String MAGIC_3 = "HLSUM3";
    private static final String MAGIC_2 = "HLSUM2";
    private static final String MAGIC_1 = "HLSUM1";

    /** How many of a comparison's largest leak groups a summary keeps. */
    public static final int LEAK_GROUPS = 50;

    public StoredSummary {
        categories = List.copyOf(categories);
        buckets = List.copyOf(buckets);
        comparisons = List.copyOf(comparisons);
        classes = classes == null ? null : List.copyOf(classes);
    }

    /** A summary without a class histogram. */
    public StoredSummary(List<MemoryCategory> categories, List<SnapshotStatistics.Bucket> buckets,
                         List<StoredComparison> comparisons) {
        this(categories, buckets, comparisons, null);
    }

    /**
     * The summary of {@code snapshot} with its statistics {@code stats} (null when not analysed), no comparisons; its
     * class histogram computed from the model and its analysis ({@link ObjectClasses}), when it has one.
     */
    public static StoredSummary of(HeapSnapshot snapshot, SnapshotStatistics stats) {
        List<ClassHistogram.Row> classes = null;
        if (stats != null && snapshot.analysis() instanceof HeapAnalysis a) {
            classes = ClassHistogram.compute(snapshot, a, ObjectClasses.compute(snapshot, a)).rows();
        }
        return new StoredSummary(new ArrayList<>(snapshot.info().categories().values()),
            stats == null ? List.of() : stats.buckets(), List.of(), classes);
    }

    /** This summary with {@code comparison} (with {@code baseline}) added after the comparisons it has. */
    public StoredSummary with(String baseline, SnapshotComparison comparison) {
        List<StoredComparison.StoredLeakGroup> groups = new ArrayList<>();
        for (SnapshotComparison.LeakGroup g : comparison.leakGroups()) {
            if (groups.size() == LEAK_GROUPS) {
                break;
            }
            groups.add(new StoredComparison.StoredLeakGroup(g.objects(), g.newBytes(), g.retainedBytes(), g.heads(),
                g.headType(), g.path(), g.verdict().label(), g.netObjects(), g.netBytes()));
        }
        List<StoredComparison> list = new ArrayList<>(comparisons);
        list.add(new StoredComparison(baseline, comparison.newObjects(), comparison.newBytes(),
            comparison.leakGroups().size(), groups));
        return new StoredSummary(categories, buckets, list, classes);
    }

    /**
     * Writes the summary to {@code file} (created or replaced) and forces it to disk.
     *
     * @throws IOException on file-system errors
     */
    public void write(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream raw = Channels.newOutputStream(ch);
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(raw));
            out.writeUTF(MAGIC);
            out.writeInt(categories.size());
            for (MemoryCategory c : categories) {
                out.writeInt(c.id());
                out.writeBoolean(c.name() != null);
                if (c.name() != null) {
                    writeString(out, c.name());
                }
                out.writeLong(c.bytes());
            }
            out.writeInt(buckets.size());
            for (SnapshotStatistics.Bucket b : buckets) {
                writeString(out, b.type());
                out.writeInt(b.category());
                out.writeLong(b.objects());
                out.writeLong(b.bytes());
                out.writeLong(b.reachableObjects());
                out.writeLong(b.reachableBytes());
                out.writeLong(b.maxRetainedSize());
                out.writeLong(b.weakOnlyObjects());
            }
            out.writeInt(comparisons.size());
            for (StoredComparison c : comparisons) {
                writeString(out, c.baseline());
                out.writeLong(c.newObjects());
                out.writeLong(c.newBytes());
                out.writeInt(c.leakGroupCount());
                out.writeInt(c.leakGroups().size());
                for (StoredComparison.StoredLeakGroup g : c.leakGroups()) {
                    out.writeLong(g.objects());
                    out.writeLong(g.newBytes());
                    out.writeLong(g.retainedBytes());
                    out.writeLong(g.heads());
                    writeString(out, g.headType());
                    out.writeInt(g.path().size());
                    for (String line : g.path()) {
                        writeString(out, line);
                    }
                    writeString(out, g.verdict() == null ? "" : g.verdict());
                    out.writeLong(g.netObjects());
                    out.writeLong(g.netBytes());
                }
            }
            out.writeBoolean(classes != null);
            if (classes != null) {
                out.writeInt(classes.size());
                for (ClassHistogram.Row r : classes) {
                    writeString(out, r.type());
                    writeString(out, r.className());
                    out.writeLong(r.objects());
                    out.writeLong(r.bytes());
                    out.writeLong(r.reachableObjects());
                    out.writeLong(r.reachableBytes());
                    out.writeLong(r.retainedBytes());
                }
            }
            out.flush();
            ch.force(true);
        }
    }

    /**
     * Reads a summary written by {@link #write}.
     *
     * @throws IOException when the file is missing, damaged or not a summary (message names the file)
     */
    public static StoredSummary read(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(new BufferedInputStream(raw))) {
            String magic = in.readUTF();
            if (!MAGIC.equals(magic) && !MAGIC_3.equals(magic) && !MAGIC_2.equals(magic) && !MAGIC_1.equals(magic)) {
                throw new IOException(file + ": not a heapload snapshot summary");
            }
            int n = count(in, file);
            List<MemoryCategory> categories = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int id = in.readInt();
                String name = in.readBoolean() ? readString(in) : null;
                categories.add(new MemoryCategory(id, name, in.readLong()));
            }
            int m = count(in, file);
            List<SnapshotStatistics.Bucket> buckets = new ArrayList<>(m);
            for (int i = 0; i < m; i++) {
                buckets.add(new SnapshotStatistics.Bucket(readString(in), in.readInt(), in.readLong(), in.readLong(),
                    in.readLong(), in.readLong(), in.readLong(), in.readLong()));
            }
            List<StoredComparison> comparisons = new ArrayList<>();
            if (!MAGIC_1.equals(magic)) {
                boolean net = MAGIC.equals(magic) || MAGIC_3.equals(magic);
                int k = count(in, file);
                for (int i = 0; i < k; i++) {
                    String baseline = readString(in);
                    long newObjects = in.readLong();
                    long newBytes = in.readLong();
                    int groupCount = in.readInt();
                    int kept = count(in, file);
                    List<StoredComparison.StoredLeakGroup> groups = new ArrayList<>(kept);
                    for (int j = 0; j < kept; j++) {
                        long objects = in.readLong();
                        long bytes = in.readLong();
                        long retained = in.readLong();
                        long heads = in.readLong();
                        String headType = readString(in);
                        int hops = count(in, file);
                        List<String> path = new ArrayList<>(hops);
                        for (int h = 0; h < hops; h++) {
                            path.add(readString(in));
                        }
                        if (net) {
                            String verdict = readString(in);
                            groups.add(new StoredComparison.StoredLeakGroup(objects, bytes, retained, heads, headType,
                                path, verdict.isEmpty() ? null : verdict, in.readLong(), in.readLong()));
                        } else {
                            groups.add(new StoredComparison.StoredLeakGroup(objects, bytes, retained, heads, headType,
                                path));
                        }
                    }
                    comparisons.add(new StoredComparison(baseline, newObjects, newBytes, groupCount, groups));
                }
            }
            List<ClassHistogram.Row> classes = null;
            if (MAGIC.equals(magic) && in.readBoolean()) {
                int c = count(in, file);
                classes = new ArrayList<>(c);
                for (int i = 0; i < c; i++) {
                    classes.add(new ClassHistogram.Row(readString(in), readString(in), in.readLong(), in.readLong(),
                        in.readLong(), in.readLong(), in.readLong()));
                }
            }
            return new StoredSummary(categories, buckets, comparisons, classes);
        } catch (EOFException | java.io.UTFDataFormatException e) {
            throw new IOException(file + ": damaged snapshot summary (" + e + ")", e);
        }
    }

    private static int count(DataInputStream in, Path file) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 50_000_000) {
            throw new IOException(file + ": damaged snapshot summary (count " + n + ")");
        }
        return n;
    }

    /** Strings of any length (writeUTF stops at 65,535 bytes): a length, then UTF-8 bytes. */
    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 28) {
            throw new IOException("damaged snapshot summary (string of " + n + " bytes)");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }
}
