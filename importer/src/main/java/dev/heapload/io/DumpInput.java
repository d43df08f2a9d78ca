package dev.heapload.io;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import dev.heapload.model.DumpFormatException;

/**
 * A dump file opened for one streaming read on the calling thread: its bytes as stored are counted and
 * digested (SHA-256) while they pass; when the file starts with the gzip magic bytes {@code 1f 8b}
 * (RFC 1952) the content is decompressed, whatever the file's name. For readers that need no repair
 * thread (the Luau reader has its own, {@code RepairedChunks}).
 */
public final class DumpInput implements Closeable {

    private final String name;
    private final DigestingInputStream stored;
    private final InputStream content;
    private final long size;
    private final boolean gzip;

    private DumpInput(String name, DigestingInputStream stored, InputStream content, long size, boolean gzip) {
        this.name = name;
        this.stored = stored;
        this.content = content;
        this.size = size;
        this.gzip = gzip;
    }

    /**
     * Opens {@code file}.
     *
     * @throws DumpFormatException when the file is missing, a directory, not a regular file (a pipe, a device),
     *                             unreadable, or a gzip file whose header is incomplete (one line naming it); reading
     *                             {@link #content()} throws it for truncated or corrupt gzip data and for content over
     *                             {@link InputLimits#gzipContentLimit}
     */
    public static DumpInput open(Path file) throws IOException {
        String name = file.toString();
        InputStream in = openStored(file);
        long size = Files.size(file);
        DigestingInputStream stored = new DigestingInputStream(in);
        PushbackInputStream head = new PushbackInputStream(new BufferedInputStream(stored, 1 << 16), 2);
        byte[] magic = new byte[2];
        int n = head.readNBytes(magic, 0, 2);
        head.unread(magic, 0, n);
        boolean gzip = n == 2 && magic[0] == (byte) 0x1f && magic[1] == (byte) 0x8b;
        InputStream content;
        try {
            content = gzip ? new BufferedInputStream(InputLimits.gunzip(head, name, size, statedGzipSize(file)), 1 << 16) : head;
        } catch (IOException e) {
            in.close();
            throw e;
        }
        return new DumpInput(name, stored, content, size, gzip);
    }

    /**
     * The file's bytes as stored (not decompressed), for readers that do their own decompression.
     *
     * @throws DumpFormatException when the file is missing, a directory, not a regular file or unreadable (one line
     *                             naming it)
     */
    public static InputStream openStored(Path file) throws IOException {
        String name = file.toString();
        requireRegularFile(file);
        try {
            return Files.newInputStream(file);
        } catch (NoSuchFileException e) {
            throw new DumpFormatException(name, -1, "no such file");
        } catch (AccessDeniedException e) {
            throw new DumpFormatException(name, -1, "permission denied");
        }
    }

    /** The file name that means standard input to command-line tools. */
    public static final String STANDARD_INPUT = "-";

    /**
     * Refuses {@code -} (standard input, unless a file of that name exists) in words that say why and what to do.
     *
     * @param name the name to report (e.g. with the option that gave it)
     * @throws DumpFormatException one line naming it
     */
    public static void refuseStandardInput(Path file, String name) throws DumpFormatException {
        if (file.toString().equals(STANDARD_INPUT) && !Files.exists(file)) {
            throw new DumpFormatException(name, -1, "standard input is not read: heapload reads a dump more than once (to"
                + " detect its format, then to load it); save it to a file first (… > dump.json) and give that file");
        }
    }

    /**
     * Refuses what is not a regular file, before anything opens it: {@code -} (standard input, unless a file of that
     * name exists), a directory, and a pipe, FIFO, socket or device
     * ({@code <(…)} process substitution gives a pipe {@code /dev/fd/N}): heapload reads a dump more than once (format
     * detection reads its first 4 KiB, the reader all of it), which a pipe cannot give, and reading a FIFO without a
     * writer would wait forever.
     *
     * @throws DumpFormatException one line naming the file
     */
    public static void requireRegularFile(Path file) throws DumpFormatException {
        String name = file.toString();
        refuseStandardInput(file, name);
        if (Files.isDirectory(file)) {
            throw new DumpFormatException(name, -1, "is a directory, not a dump file");
        }
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new DumpFormatException(name, -1, "not a regular file (a pipe, FIFO or device); heapload reads a dump "
                + "more than once: save it to a file first");
        }
    }

    /**
     * A gzip file's stated content size: its last 4 bytes ({@code ISIZE}, the content's length modulo 2^32, RFC 1952
     * §2.3.1), or -1 when the file is shorter than a gzip header and trailer or cannot be read.
     */
    public static long statedGzipSize(Path file) {
        try (FileChannel ch = FileChannel.open(file)) {
            long size = ch.size();
            if (size < 18) {
                return -1;
            }
            ByteBuffer tail = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            return ch.read(tail, size - 4) == 4 ? Integer.toUnsignedLong(tail.getInt(0)) : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The first bytes of a file's content (decompressed when gzip), at most {@code max}; for format detection.
     *
     * @throws DumpFormatException when the file is missing, a directory or unreadable
     */
    public static byte[] peek(Path file, int max) throws IOException {
        try (DumpInput in = open(file)) {
            return in.content().readNBytes(max);
        }
    }

    /**
     * The size of a file's content in bytes, decompressed when it is gzip, for sizing buffers; -1 when unknown.
     * For gzip this is the last member's {@code ISIZE} trailer, "the size of the original (uncompressed) input
     * data modulo 2^32" (RFC 1952 §2.3.1): exact for a one-member file under 4 GiB, and taken as unknown when it
     * is smaller than the file itself (a wrapped or concatenated file). Never throws: an unreadable file gives -1.
     */
    public static long contentSizeHint(Path file) {
        try (FileChannel ch = FileChannel.open(file)) {
            long size = ch.size();
            ByteBuffer head = ByteBuffer.allocate(2);
            if (size < 18 || ch.read(head, 0) != 2 || head.get(0) != (byte) 0x1f || head.get(1) != (byte) 0x8b) {
                return size;
            }
            ByteBuffer tail = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            if (ch.read(tail, size - 4) != 4) {
                return -1;
            }
            long isize = Integer.toUnsignedLong(tail.getInt(0));
            return isize >= size ? isize : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The file name as given. */
    public String name() {
        return name;
    }

    /** The content: the file's bytes, decompressed when it is gzip. */
    public InputStream content() {
        return content;
    }

    /** Size of the file as stored, in bytes. */
    public long size() {
        return size;
    }

    /** Whether the file is gzip-compressed. */
    public boolean gzip() {
        return gzip;
    }

    /** Bytes of the file as stored read so far (for progress). */
    public long storedBytesRead() {
        return stored.count();
    }

    /** Reads what is left of the file and returns the hex SHA-256 of all its bytes as stored. */
    public String sha256() throws IOException {
        return stored.finish();
    }

    @Override
    public void close() throws IOException {
        content.close();
    }
}
