package dev.heapload.model;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import dev.heapload.analysis.HeapAnalysis;

/**
 * Compact binary file of one {@link HeapSnapshot}, with its {@link HeapAnalysis} when one is attached:
 * the store keeps one per loaded snapshot ({@code DIR/snapshots/<id>.hsnap}) so its graph can be
 * rebuilt without the original dump.
 *
 * <h2>Layout (format version 3, little-endian; versions 1 and 2 are read too: version 1 has no producer and VM version
 * and ends before "dangling", version 2 ends before "frames")</h2>
 * <pre>
 *   int   magic 0x50534E48 ("HNSP" read as bytes), int version
 *   info: id, vm, source, sha256 (strings), vmTotalBytes (long),
 *         categories (int count, then id int, name string, bytes long), warnings (int count, strings),
 *         producer, vmVersion (strings; absent in version 1, read as null)
 *   tables: typeNames, referenceKinds, names (int count, then strings)
 *   int objectCount n, int referenceCount m, byte addressFormat ordinal
 *   columns: addresses long[n], opaque addresses (byte present; if 1: n strings), sizes long[n],
 *            types byte[n], categories short[n], labels n strings, firstReference int[n+1],
 *            targets int[m], kinds byte[m], flags byte[m], reference names int[m]
 *   roots: int count, then name string, object int
 *   analysis: byte present; if 1: reachable byte[n], distance int[n], retainedBy int[n], rootOf int[n],
 *             immediateDominator int[n], retainedSize long[n]
 *   dangling (version 2): counts long[3] (per DanglingReferences.Reason), long model references, int missing count k,
 *             then k (address string, reason byte), int kept count j, then j (object int, missing int, kind string,
 *             name string, flags byte, incoming byte)
 *   frames (version 3): int count f, then reference int[f] (ascending), frame name int[f] (index into names);
 *             the frames the reader gave references (HeapSnapshot#referenceFrame)
 *   int end magic 0x444E4548, long CRC-32C of all preceding bytes
 * </pre>
 * A string is an int byte length ({@code -1} for {@code null}) followed by UTF-8 bytes. Size on disk is
 * about 27 bytes per object plus label text, 10 per reference, 25 per object more with analysis.
 *
 * <p>Columns are moved in bulk through a 1 MiB buffer on a {@link FileChannel}; no per-element
 * stream calls.
 */
public final class HeapSnapshotFile {

    /** First four bytes of every file. */
    public static final int MAGIC = 0x50534E48;
    /**
     * Format version written by this class; it also reads version 1 (no producer and VM version, no references to
     * nothing) and version 2 (no frames of their own).
     */
    public static final int VERSION = 3;
    private static final int END_MAGIC = 0x444E4548;
    private static final int BUFFER = 1 << 20;
    private static final int PROGRESS_STEP = 1 << 16;

    private HeapSnapshotFile() {
    }

    /** Writes {@code snapshot} to {@code file} (created or truncated) and forces it to disk. */
    public static void write(HeapSnapshot snapshot, Path file) throws IOException {
        write(snapshot, file, Progress.NONE);
    }

    /**
     * Writes {@code snapshot} (and its analysis when {@link HeapSnapshot#analysis()} is a {@link HeapAnalysis})
     * to {@code file}, creating or truncating it, and forces the bytes to disk before returning.
     *
     * @param progress receives phase {@code "write"} in unit {@code "objects"}
     * @throws IOException on any file-system error; the file is then incomplete and should be deleted
     */
    public static void write(HeapSnapshot snapshot, Path file, Progress progress) throws IOException {
        int n = snapshot.objectCount();
        int m = snapshot.referenceCount();
        progress.start("write", n, "objects");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            Out out = new Out(channel);
            out.putInt(MAGIC);
            out.putInt(VERSION);

            SnapshotInfo info = snapshot.info();
            out.putString(info.id());
            out.putString(info.vm());
            out.putString(info.source());
            out.putString(info.sha256());
            out.putLong(info.vmTotalBytes());
            out.putInt(info.categories().size());
            for (MemoryCategory c : info.categories().values()) {
                out.putInt(c.id());
                out.putString(c.name());
                out.putLong(c.bytes());
            }
            out.putStrings(info.warnings().toArray(String[]::new));
            out.putString(info.producer());
            out.putString(info.vmVersion());

            out.putStrings(snapshot.typeNames().toArray(String[]::new));
            out.putStrings(snapshot.referenceKinds().toArray(String[]::new));
            out.putStrings(snapshot.nameTable());

            out.putInt(n);
            out.putInt(m);
            out.putByte((byte) snapshot.addressFormat().ordinal());
            out.putLongs(snapshot.addressColumn(), n);
            String[] opaque = snapshot.opaqueAddressColumn();
            out.putByte((byte) (opaque == null ? 0 : 1));
            if (opaque != null) {
                for (int i = 0; i < n; i++) {
                    out.putString(opaque[i]);
                }
            }
            out.putLongs(snapshot.shallowSizeColumn(), n);
            out.putBytes(snapshot.typeColumn(), n);
            out.putShorts(snapshot.categoryColumn(), n);
            String[] labels = snapshot.labelColumn();
            for (int i = 0; i < n; i++) {
                out.putString(labels[i]);
                if ((i & (PROGRESS_STEP - 1)) == PROGRESS_STEP - 1) {
                    progress.step(i + 1);
                }
            }
            out.putInts(snapshot.firstReferenceColumn(), n + 1);
            out.putInts(snapshot.referenceTargetColumn(), m);
            out.putBytes(snapshot.referenceKindColumn(), m);
            out.putBytes(snapshot.referenceFlagsColumn(), m);
            out.putInts(snapshot.referenceNameColumn(), m);

            List<HeapSnapshot.GcRoot> roots = snapshot.roots();
            out.putInt(roots.size());
            for (HeapSnapshot.GcRoot root : roots) {
                out.putString(root.name());
                out.putInt(root.object());
            }

            Object analysis = snapshot.analysis();
            if (analysis instanceof HeapAnalysis a) {
                out.putByte((byte) 1);
                byte[] reachable = new byte[n];
                for (int i = 0; i < n; i++) {
                    reachable[i] = (byte) (a.reachable()[i] ? 1 : 0);
                }
                out.putBytes(reachable, n);
                out.putInts(a.distance(), n);
                out.putInts(a.retainedBy(), n);
                out.putInts(a.rootOf(), n);
                out.putInts(a.immediateDominator(), n);
                out.putLongs(a.retainedSize(), n);
            } else {
                out.putByte((byte) 0);
            }
            DanglingReferences d = snapshot.danglingReferences();
            for (long c : d.countColumn()) {
                out.putLong(c);
            }
            out.putLong(d.modelReferences());
            out.putInt(d.missingCount());
            for (int i = 0; i < d.missingCount(); i++) {
                out.putString(d.missingAddressColumn()[i]);
                out.putByte(d.missingReasonColumn()[i]);
            }
            out.putInt(d.keptCount());
            for (int r = 0; r < d.keptCount(); r++) {
                out.putInt(d.objectColumn()[r]);
                out.putInt(d.missingColumn()[r]);
                out.putString(d.kindColumn()[r]);
                out.putString(d.nameColumn()[r]);
                out.putByte(d.flagColumn()[r]);
                out.putByte((byte) (d.incomingColumn()[r] ? 1 : 0));
            }
            int[] frameReferences = snapshot.frameReferenceColumn();
            out.putInt(frameReferences.length);
            out.putInts(frameReferences, frameReferences.length);
            out.putInts(snapshot.frameNameColumn(), frameReferences.length);
            out.putInt(END_MAGIC);
            out.finish();
            channel.force(true);
        }
        progress.step(n);
        progress.end();
    }

    /**
     * Reads a file written by {@link #write}. The analysis, when the file has one, is attached to the
     * returned snapshot as a {@link HeapAnalysis}.
     *
     * @throws IOException naming the file when it is not a snapshot file, has another format version,
     *                     is truncated or fails its checksum
     */
    public static HeapSnapshot read(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < 20) {
                throw new IOException(file + ": not a heapload snapshot file (too short)");
            }
            In in = new In(channel, size - 8, file);
            if (in.getInt() != MAGIC) {
                throw new IOException(file + ": not a heapload snapshot file (bad magic)");
            }
            int version = in.getInt();
            if (version < 1 || version > VERSION) {
                throw new IOException(file + ": snapshot file format version " + version
                    + " is not supported (this build reads version " + VERSION + ")");
            }
            String id = in.getString();
            String vm = in.getString();
            String source = in.getString();
            String sha256 = in.getString();
            long vmTotalBytes = in.getLong();
            int categoryCount = in.getCount();
            Map<Integer, MemoryCategory> categories = new LinkedHashMap<>();
            for (int i = 0; i < categoryCount; i++) {
                int cid = in.getInt();
                categories.put(cid, new MemoryCategory(cid, in.getString(), in.getLong()));
            }
            List<String> warnings = List.of(nonNull(in.getStrings()));
            String producer = version >= 2 ? in.getString() : null;
            String vmVersion = version >= 2 ? in.getString() : null;
            SnapshotInfo info = new SnapshotInfo(id, vm, source, sha256, vmTotalBytes, categories, warnings, producer,
                vmVersion);

            String[] typeNames = in.getStrings();
            String[] kinds = in.getStrings();
            String[] names = in.getStrings();

            int n = in.getCount();
            int m = in.getCount();
            int formatOrdinal = in.getByte();
            if (formatOrdinal < 0 || formatOrdinal >= AddressFormat.values().length) {
                throw new IOException(file + ": corrupt snapshot file (address format " + formatOrdinal + ")");
            }
            AddressFormat addressFormat = AddressFormat.values()[formatOrdinal];
            long[] addresses = in.getLongs(n);
            String[] opaque = null;
            if (in.getByte() != 0) {
                opaque = new String[n];
                for (int i = 0; i < n; i++) {
                    opaque[i] = in.getString();
                }
            }
            long[] sizes = in.getLongs(n);
            byte[] types = in.getBytes(n);
            short[] cats = in.getShorts(n);
            String[] labels = new String[n];
            for (int i = 0; i < n; i++) {
                labels[i] = in.getString();
            }
            int[] first = in.getInts(n + 1);
            int[] targets = in.getInts(m);
            byte[] refKinds = in.getBytes(m);
            byte[] flags = in.getBytes(m);
            int[] refNames = in.getInts(m);
            int rootCount = in.getCount();
            List<HeapSnapshot.GcRoot> roots = new ArrayList<>(rootCount);
            for (int i = 0; i < rootCount; i++) {
                roots.add(new HeapSnapshot.GcRoot(in.getString(), in.getInt()));
            }
            HeapAnalysis analysis = null;
            if (in.getByte() != 0) {
                byte[] r = in.getBytes(n);
                boolean[] reachable = new boolean[n];
                for (int i = 0; i < n; i++) {
                    reachable[i] = r[i] != 0;
                }
                analysis = new HeapAnalysis(reachable, in.getInts(n), in.getInts(n), in.getInts(n), in.getInts(n),
                    in.getLongs(n));
            }
            DanglingReferences dangling = DanglingReferences.NONE;
            if (version >= 2) {
                long[] counts = in.getLongs(DanglingReferences.Reason.values().length);
                long modelReferences = in.getLong();
                int k = in.getCount();
                String[] missingAddresses = new String[k];
                byte[] reasons = new byte[k];
                for (int i = 0; i < k; i++) {
                    missingAddresses[i] = in.getString();
                    reasons[i] = (byte) in.getByte();
                    if (reasons[i] < 0 || reasons[i] >= DanglingReferences.Reason.values().length) {
                        throw new IOException(file + ": corrupt snapshot file (reason " + reasons[i] + ")");
                    }
                }
                int j = in.getCount();
                int[] objects = new int[j];
                int[] missing = new int[j];
                String[] keptKinds = new String[j];
                String[] keptNames = new String[j];
                byte[] keptFlags = new byte[j];
                boolean[] incoming = new boolean[j];
                for (int r = 0; r < j; r++) {
                    objects[r] = in.getInt();
                    missing[r] = in.getInt();
                    keptKinds[r] = in.getString();
                    keptNames[r] = in.getString();
                    keptFlags[r] = (byte) in.getByte();
                    incoming[r] = in.getByte() != 0;
                    if (objects[r] < 0 || objects[r] >= n || missing[r] < 0 || missing[r] >= k) {
                        throw new IOException(file + ": corrupt snapshot file (reference to nothing " + r + ")");
                    }
                }
                dangling = new DanglingReferences(counts, modelReferences, missingAddresses, reasons, objects, missing,
                    keptKinds, keptNames, keptFlags, incoming);
            }
            int[] frameReferences = null;
            int[] frameNames = null;
            if (version >= 3) {
                int f = in.getCount();
                frameReferences = in.getInts(f);
                frameNames = in.getInts(f);
                for (int i = 0; i < f; i++) {
                    if (frameReferences[i] < 0 || frameReferences[i] >= m || (i > 0 && frameReferences[i] <= frameReferences[i - 1])
                        || frameNames[i] < 0 || frameNames[i] >= names.length) {
                        throw new IOException(file + ": corrupt snapshot file (frame " + i + ")");
                    }
                }
            }
            if (in.getInt() != END_MAGIC) {
                throw new IOException(file + ": corrupt snapshot file (no end marker)");
            }
            in.verifyChecksum();
            HeapSnapshot snapshot = new HeapSnapshot(info, typeNames, kinds, names, addresses, addressFormat, opaque,
                sizes, types, cats, labels, first, targets, refKinds, flags, refNames, frameReferences, frameNames, roots,
                dangling);
            if (analysis != null) {
                snapshot.attachAnalysis(analysis);
            }
            return snapshot;
        }
    }

    private static String[] nonNull(String[] values) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                values[i] = "";
            }
        }
        return values;
    }

    /** Buffered little-endian writer that checksums everything it writes. */
    private static final class Out {
        private final FileChannel channel;
        private final ByteBuffer buf = ByteBuffer.allocate(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
        private final CRC32C crc = new CRC32C();

        Out(FileChannel channel) {
            this.channel = channel;
        }

        private void flush() throws IOException {
            buf.flip();
            crc.update(buf.array(), 0, buf.limit());
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
            buf.clear();
        }

        private void room(int bytes) throws IOException {
            if (buf.remaining() < bytes) {
                flush();
            }
        }

        void putByte(byte v) throws IOException {
            room(1);
            buf.put(v);
        }

        void putInt(int v) throws IOException {
            room(4);
            buf.putInt(v);
        }

        void putLong(long v) throws IOException {
            room(8);
            buf.putLong(v);
        }

        void putString(String s) throws IOException {
            if (s == null) {
                putInt(-1);
                return;
            }
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            putInt(bytes.length);
            putBytes(bytes, bytes.length);
        }

        void putStrings(String[] values) throws IOException {
            putInt(values.length);
            for (String v : values) {
                putString(v);
            }
        }

        void putBytes(byte[] a, int len) throws IOException {
            int i = 0;
            while (i < len) {
                room(1);
                int k = Math.min(len - i, buf.remaining());
                buf.put(a, i, k);
                i += k;
            }
        }

        void putShorts(short[] a, int len) throws IOException {
            int i = 0;
            while (i < len) {
                room(2);
                int k = Math.min(len - i, buf.remaining() / 2);
                buf.asShortBuffer().put(a, i, k);
                buf.position(buf.position() + k * 2);
                i += k;
            }
        }

        void putInts(int[] a, int len) throws IOException {
            int i = 0;
            while (i < len) {
                room(4);
                int k = Math.min(len - i, buf.remaining() / 4);
                buf.asIntBuffer().put(a, i, k);
                buf.position(buf.position() + k * 4);
                i += k;
            }
        }

        void putLongs(long[] a, int len) throws IOException {
            int i = 0;
            while (i < len) {
                room(8);
                int k = Math.min(len - i, buf.remaining() / 8);
                buf.asLongBuffer().put(a, i, k);
                buf.position(buf.position() + k * 8);
                i += k;
            }
        }

        /** Flushes the body and appends the checksum (not itself checksummed). */
        void finish() throws IOException {
            flush();
            buf.putLong(crc.getValue());
            buf.flip();
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
            buf.clear();
        }
    }

    /** Buffered little-endian reader over the body (all bytes before the 8-byte checksum). */
    private static final class In {
        private final FileChannel channel;
        private final long bodyEnd;
        private final Path file;
        private final ByteBuffer buf = ByteBuffer.allocate(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
        private final CRC32C crc = new CRC32C();
        private long filePos;
        private int checked;

        In(FileChannel channel, long bodyEnd, Path file) {
            this.channel = channel;
            this.bodyEnd = bodyEnd;
            this.file = file;
            buf.limit(0);
        }

        /** Makes at least {@code bytes} (at most the buffer size) available. */
        private void need(int bytes) throws IOException {
            if (buf.remaining() >= bytes) {
                return;
            }
            crc.update(buf.array(), checked, buf.position() - checked);
            buf.compact();
            while (buf.position() < bytes) {
                long left = bodyEnd - filePos;
                if (left <= 0) {
                    throw new EOFException(file + ": truncated snapshot file");
                }
                if (left < buf.remaining()) {
                    buf.limit(buf.position() + (int) left);
                }
                int r = channel.read(buf, filePos);
                if (r < 0) {
                    throw new EOFException(file + ": truncated snapshot file");
                }
                filePos += r;
                buf.limit(buf.capacity());
            }
            buf.flip();
            checked = 0;
        }

        void verifyChecksum() throws IOException {
            if (buf.hasRemaining() || filePos != bodyEnd) {
                throw new IOException(file + ": corrupt snapshot file (trailing bytes)");
            }
            crc.update(buf.array(), checked, buf.position() - checked);
            checked = buf.position();
            ByteBuffer tail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            while (tail.hasRemaining()) {
                if (channel.read(tail, bodyEnd + tail.position()) < 0) {
                    throw new EOFException(file + ": truncated snapshot file");
                }
            }
            if (tail.getLong(0) != crc.getValue()) {
                throw new IOException(file + ": corrupt snapshot file (checksum mismatch)");
            }
        }

        byte getByte() throws IOException {
            need(1);
            return buf.get();
        }

        int getInt() throws IOException {
            need(4);
            return buf.getInt();
        }

        int getCount() throws IOException {
            int v = getInt();
            if (v < 0) {
                throw new IOException(file + ": corrupt snapshot file (negative count)");
            }
            return v;
        }

        long getLong() throws IOException {
            need(8);
            return buf.getLong();
        }

        String getString() throws IOException {
            int len = getInt();
            if (len == -1) {
                return null;
            }
            if (len < -1) {
                throw new IOException(file + ": corrupt snapshot file (string length " + len + ")");
            }
            if (len <= BUFFER) {
                need(len);
                String s = new String(buf.array(), buf.position(), len, StandardCharsets.UTF_8);
                buf.position(buf.position() + len);
                return s;
            }
            return new String(getBytes(len), StandardCharsets.UTF_8);
        }

        String[] getStrings() throws IOException {
            String[] values = new String[getCount()];
            for (int i = 0; i < values.length; i++) {
                values[i] = getString();
            }
            return values;
        }

        byte[] getBytes(int len) throws IOException {
            byte[] a = new byte[len];
            int i = 0;
            while (i < len) {
                need(1);
                int k = Math.min(len - i, buf.remaining());
                buf.get(a, i, k);
                i += k;
            }
            return a;
        }

        short[] getShorts(int len) throws IOException {
            short[] a = new short[len];
            int i = 0;
            while (i < len) {
                need(2);
                int k = Math.min(len - i, buf.remaining() / 2);
                buf.asShortBuffer().get(a, i, k);
                buf.position(buf.position() + k * 2);
                i += k;
            }
            return a;
        }

        int[] getInts(int len) throws IOException {
            int[] a = new int[len];
            int i = 0;
            while (i < len) {
                need(4);
                int k = Math.min(len - i, buf.remaining() / 4);
                buf.asIntBuffer().get(a, i, k);
                buf.position(buf.position() + k * 4);
                i += k;
            }
            return a;
        }

        long[] getLongs(int len) throws IOException {
            long[] a = new long[len];
            int i = 0;
            while (i < len) {
                need(8);
                int k = Math.min(len - i, buf.remaining() / 8);
                buf.asLongBuffer().get(a, i, k);
                buf.position(buf.position() + k * 8);
                i += k;
            }
            return a;
        }
    }
}
