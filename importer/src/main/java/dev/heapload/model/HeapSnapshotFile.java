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
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

import dev.heapload.analysis.HeapAnalysis;

/**
 * Compact binary file of one {@link HeapSnapshot}, with its {@link HeapAnalysis} when one is attached:
 * the store keeps one per loaded snapshot ({@code DIR/snapshots/<id>.hsnap}) so its graph can be
 * rebuilt without the original dump.
 *
 * <h2>Layout (format version 4, little-endian; versions 1 to 3 are read too)</h2>
 * Version 3 compresses the body: the magic and version are plain, everything after them up to the checksum (the
 * body below, end magic included) is one raw DEFLATE stream (level 1, {@link Deflater}), followed by a long holding
 * the stream's uncompressed length (which bounds every count and length read from it) and the CRC-32C of the
 * uncompressed bytes. A store's model files are about 8 times smaller so (a 72k-object Luau snapshot: 6.5 MB as
 * version 2, 0.8 MB as version 3) for about 0.1 s more CPU per 70k objects written and read. Version 3 also holds
 * "frames" (the stack frames of references, e.g. a Lua local's function and line); version 2 is the body
 * uncompressed and ends before "frames"; version 1 has no producer and VM version and ends before "dangling".
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
 *   sites (version 4): int count k (-1: the dump tracked no allocations, nothing follows), then k (source string,
 *             line int, function string), then site int[n] per object (-1: none) (HeapSnapshot#sites)
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
     * Format version written by this class (4: the body compressed, with frames and allocation sites; 3 is the same
     * without sites); it also reads version 2 (the
     * body uncompressed, no frames of its own) and version 1 (no producer and VM version, no references to nothing).
     */
    public static final int VERSION = 4;
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
        write(snapshot, file, progress, true);
    }

    /** {@link #write(HeapSnapshot, Path, Progress)} as version 3 ({@code compressed}) or version 2 (for tests: no frames). */
    static void write(HeapSnapshot snapshot, Path file, Progress progress, boolean compressed) throws IOException {
        int n = snapshot.objectCount();
        int m = snapshot.referenceCount();
        progress.start("write", n, "objects");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            Out out = new Out(channel);
            out.putInt(MAGIC);
            out.putInt(compressed ? VERSION : 2);
            if (compressed) {
                out.compress();
            }

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
            if (compressed) {   // version 2 (tests only) ends before the frames
                int[] frameReferences = snapshot.frameReferenceColumn();
                out.putInt(frameReferences.length);
                out.putInts(frameReferences, frameReferences.length);
                out.putInts(snapshot.frameNameColumn(), frameReferences.length);
                AllocationSites sites = snapshot.sites();
                out.putInt(sites.tracked() ? sites.siteCount() : -1);
                if (sites.tracked()) {
                    for (int i = 0; i < sites.siteCount(); i++) {
                        out.putString(sites.source(i));
                        out.putInt(sites.line(i));
                        out.putString(sites.function(i));
                    }
                    out.putInts(sites.siteColumn(), n);
                }
            }
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
                    + " is not supported (this build reads versions 1 to " + VERSION + ")");
            }
            if (version >= 3) {
                in.decompress();
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
            AllocationSites sites = AllocationSites.NONE;
            if (version >= 4) {
                int k = in.getInt();
                if (k >= 0) {
                    String[] sources = new String[k];
                    int[] lines = new int[k];
                    String[] functions = new String[k];
                    for (int i = 0; i < k; i++) {
                        sources[i] = in.getString();
                        lines[i] = in.getInt();
                        functions[i] = in.getString();
                    }
                    int[] siteOf = in.getInts(n);
                    for (int i = 0; i < n; i++) {
                        if (siteOf[i] < AllocationSites.NO_SITE || siteOf[i] >= k) {
                            throw new IOException(file + ": corrupt snapshot file (site of object " + i + ")");
                        }
                    }
                    sites = new AllocationSites(nonNull(sources), lines, nonNull(functions), siteOf);
                } else if (k != -1) {
                    throw new IOException(file + ": corrupt snapshot file (site count " + k + ")");
                }
            }
            if (in.getInt() != END_MAGIC) {
                throw new IOException(file + ": corrupt snapshot file (no end marker)");
            }
            in.verifyChecksum();
            HeapSnapshot snapshot = new HeapSnapshot(info, typeNames, kinds, names, addresses, addressFormat, opaque,
                sizes, types, cats, labels, first, targets, refKinds, flags, refNames, frameReferences, frameNames, roots,
                dangling);
            snapshot.setSites(sites);
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
        /** From {@link #compress} on: what follows goes through this, into {@link #packed}. */
        private Deflater deflater;
        private ByteBuffer packed;
        private long raw;

        Out(FileChannel channel) {
            this.channel = channel;
        }

        /** Writes what was put so far plainly; everything put after this call is compressed (version 3). */
        void compress() throws IOException {
            flush();
            deflater = new Deflater(1, true);
            packed = ByteBuffer.allocate(BUFFER);
        }

        private void flush() throws IOException {
            buf.flip();
            crc.update(buf.array(), 0, buf.limit());
            if (deflater == null) {
                while (buf.hasRemaining()) {
                    channel.write(buf);
                }
            } else {
                deflater.setInput(buf.array(), 0, buf.limit());
                raw += buf.limit();
                while (!deflater.needsInput()) {
                    drain();
                }
            }
            buf.clear();
        }

        /** Compresses what the deflater holds into {@link #packed} and writes it. */
        private void drain() throws IOException {
            int k = deflater.deflate(packed.array(), 0, packed.capacity());
            packed.position(0).limit(k);
            while (packed.hasRemaining()) {
                channel.write(packed);
            }
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
            if (deflater != null) {
                deflater.finish();
                while (!deflater.finished()) {
                    drain();
                }
                deflater.end();
                buf.putLong(raw);
            }
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
        private long bodyEnd;
        private final Path file;
        private final ByteBuffer buf = ByteBuffer.allocate(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
        private final CRC32C crc = new CRC32C();
        private long filePos;
        private int checked;
        /** From {@link #decompress} on: the body is inflated from the file's bytes in {@link #packed}. */
        private Inflater inflater;
        private ByteBuffer packed;
        /** Where the checksum is (the end of the body of versions 1 and 2). */
        private final long crcAt;
        /** Version 3: the compressed body's uncompressed length, and how many of its bytes were inflated. */
        private long rawLength;
        private long produced;

        In(FileChannel channel, long bodyEnd, Path file) {
            this.channel = channel;
            this.bodyEnd = bodyEnd;
            this.crcAt = bodyEnd;
            this.file = file;
            buf.limit(0);
        }

        /**
         * What follows the bytes read so far (which must be the whole plain header: the first {@code need} reads
         * at most 8 bytes ahead of it when it fills the buffer) is one raw DEFLATE stream up to {@code bodyEnd}.
         */
        void decompress() throws IOException {
            // the stream ends before the length and the checksum
            bodyEnd = crcAt - 8;
            ByteBuffer length = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            while (length.hasRemaining()) {
                if (channel.read(length, bodyEnd + length.position()) < 0) {
                    throw new EOFException(file + ": truncated snapshot file");
                }
            }
            rawLength = length.getLong(0);
            if (rawLength < 0) {
                throw new IOException(file + ": corrupt snapshot file (length " + rawLength + ")");
            }
            // the buffered bytes past the header are compressed: hand those before the length to the inflater
            crc.update(buf.array(), checked, buf.position() - checked);
            long bufferedFrom = filePos - buf.remaining();
            int take = (int) Math.max(0, Math.min(buf.remaining(), bodyEnd - bufferedFrom));
            filePos = bufferedFrom + take;
            packed = ByteBuffer.allocate(BUFFER);
            packed.put(buf.array(), buf.position(), take).flip();
            buf.position(buf.limit());
            checked = buf.position();
            inflater = new Inflater(true);
            inflater.setInput(packed.array(), 0, packed.limit());
        }

        /** Reads more into {@code buf} at its position; -1 at the end of the body. */
        private int fill() throws IOException {
            if (inflater == null) {
                long left = bodyEnd - filePos;
                if (left <= 0) {
                    return -1;
                }
                if (left < buf.remaining()) {
                    buf.limit(buf.position() + (int) left);
                }
                int r = channel.read(buf, filePos);
                buf.limit(buf.capacity());
                if (r > 0) {
                    filePos += r;
                }
                return r;
            }
            while (true) {
                int k;
                try {
                    k = inflater.inflate(buf.array(), buf.position(), buf.remaining());
                } catch (DataFormatException e) {
                    throw new IOException(file + ": corrupt snapshot file (" + e.getMessage() + ")", e);
                }
                if (k > 0) {
                    buf.position(buf.position() + k);
                    produced += k;
                    return k;
                }
                if (inflater.finished()) {
                    return -1;
                }
                if (inflater.needsInput()) {
                    long left = bodyEnd - filePos;
                    if (left <= 0) {
                        return -1;
                    }
                    packed.clear();
                    if (left < packed.capacity()) {
                        packed.limit((int) left);
                    }
                    int r = channel.read(packed, filePos);
                    if (r < 0) {
                        return -1;
                    }
                    filePos += r;
                    inflater.setInput(packed.array(), 0, r);
                }
            }
        }

        /** Makes at least {@code bytes} (at most the buffer size) available. */
        private void need(int bytes) throws IOException {
            if (buf.remaining() >= bytes) {
                return;
            }
            crc.update(buf.array(), checked, buf.position() - checked);
            buf.compact();
            while (buf.position() < bytes) {
                if (fill() < 0) {
                    throw new EOFException(file + ": truncated snapshot file");
                }
            }
            buf.flip();
            checked = 0;
        }

        void verifyChecksum() throws IOException {
            if (buf.hasRemaining()) {
                throw new IOException(file + ": corrupt snapshot file (trailing bytes)");
            }
            crc.update(buf.array(), checked, buf.position() - checked);
            checked = buf.position();
            if (inflater != null) {
                // the stream must end here: nothing more inflates, and its end marker is read
                buf.clear();
                int more = fill();
                boolean ended = more < 0 && inflater.finished() && inflater.getRemaining() == 0
                    && produced == rawLength;
                inflater.end();
                if (!ended) {
                    throw new IOException(file + ": corrupt snapshot file (" + (more > 0 ? "trailing bytes"
                        : "truncated compressed body") + ")");
                }
            }
            if (filePos != bodyEnd) {
                throw new IOException(file + ": corrupt snapshot file (trailing bytes)");
            }
            ByteBuffer tail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            while (tail.hasRemaining()) {
                if (channel.read(tail, crcAt + tail.position()) < 0) {
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
            fits(v, 1);
            return v;
        }

        /**
         * Refuses {@code count} elements of {@code width} bytes when fewer bytes are left in the body: a damaged
         * count or length then fails with one line instead of allocating a huge array (every counted element takes
         * at least one byte).
         */
        private void fits(long count, int width) throws IOException {
            long left = inflater == null ? bodyEnd - filePos + buf.remaining() : rawLength - produced + buf.remaining();
            if (count * width > left) {
                throw new IOException(file + ": corrupt snapshot file (" + count + " elements of " + width
                    + " bytes, " + left + " bytes left)");
            }
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
            fits(len, 1);
            if (len <= BUFFER) {
                need(len);
                String s = new String(buf.array(), buf.position(), len, StandardCharsets.UTF_8);
                buf.position(buf.position() + len);
                return s;
            }
            return new String(getBytes(len), StandardCharsets.UTF_8);
        }

        String[] getStrings() throws IOException {
            int count = getCount();
            fits(count, 4);
            String[] values = new String[count];
            for (int i = 0; i < values.length; i++) {
                values[i] = getString();
            }
            return values;
        }

        byte[] getBytes(int len) throws IOException {
            fits(len, 1);
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
            fits(len, 2);
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
            fits(len, 4);
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
            fits(len, 8);
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
