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

import dev.heapload.analysis.SnapshotStatistics;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.MemoryCategory;

/**
 * The figures of one snapshot that a store keeps forever, also after {@code heapload prune} dropped its graph and
 * model: its memory categories (id, name, the VM's bytes) and its statistics buckets (per type and category:
 * objects, bytes, reachable objects and bytes, largest retained size, weakly referenced unreachable objects). These
 * are what the {@code Snapshot}, {@code Category} and {@code Stats} nodes of the graph hold, so every snapshot's
 * graph gets them for all other snapshots of the store without reading their models (docs/store.md).
 *
 * <p>File {@code DIR/summaries/<id>.summary}: the magic {@code HLSUM1}, then counts and fields in
 * {@link DataOutputStream} encoding; a few KiB per snapshot.
 *
 * @param categories the snapshot's memory categories, in the model's order (empty for VMs without them)
 * @param buckets    its statistics buckets; empty when the snapshot was not analysed
 */
public record StoredSummary(List<MemoryCategory> categories, List<SnapshotStatistics.Bucket> buckets) {

    private static final String MAGIC = "HLSUM1";

    public StoredSummary {
        categories = List.copyOf(categories);
        buckets = List.copyOf(buckets);
    }

    /** The summary of {@code snapshot} with its statistics {@code stats} (null when not analysed). */
    public static StoredSummary of(HeapSnapshot snapshot, SnapshotStatistics stats) {
        return new StoredSummary(new ArrayList<>(snapshot.info().categories().values()),
            stats == null ? List.of() : stats.buckets());
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
            if (!MAGIC.equals(in.readUTF())) {
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
            return new StoredSummary(categories, buckets);
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
