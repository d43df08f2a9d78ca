package dev.heapload.io;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

import dev.heapload.model.DumpFormatException;

/**
 * The documented limits of every dump reader, so that no input can make a reader allocate without bound: one
 * string value at most {@value #MAX_STRING_CHARS} characters (64 Mi), one member name at most
 * {@value #MAX_NAME_CHARS} characters, one number at most {@value #MAX_NUMBER_CHARS} characters, nesting at most
 * {@value #MAX_NESTING_DEPTH} levels, and a gzip file's content at most {@value #MAX_GZIP_RATIO} times the file's
 * size and consistent with its stated size ({@code ISIZE}, RFC 1952 §2.3.1: the content's length modulo 2^32).
 * Luau's own dumps stay far below these: the 2.4M-object entity-system-large dump has 4 levels, names under 20
 * characters and compresses 14.2:1 (320,971,333 bytes in 22,547,056).
 */
public final class InputLimits {

    /** Longest string value a reader accepts, in characters (64 MiB of ASCII). */
    public static final int MAX_STRING_CHARS = 64 << 20;
    /** Longest member name, in characters. */
    public static final int MAX_NAME_CHARS = 65_536;
    /** Longest number literal, in characters (Jackson's default). */
    public static final int MAX_NUMBER_CHARS = 1000;
    /** Deepest nesting of arrays and objects (and of a Lua literal's tables). */
    public static final int MAX_NESTING_DEPTH = 10_000;
    /** Most decompressed bytes per byte of a gzip file. */
    public static final long MAX_GZIP_RATIO = 1000;
    /** Most decompressed bytes per byte believed of a gzip file whose content would be 4 GiB or more. */
    public static final long PLAUSIBLE_GZIP_RATIO = 100;

    private InputLimits() {
    }

    /** Jackson's constraints with the limits above, for every reader's {@code JsonFactory}. */
    public static StreamReadConstraints jsonConstraints() {
        return StreamReadConstraints.builder()
            .maxStringLength(MAX_STRING_CHARS)
            .maxNameLength(MAX_NAME_CHARS)
            .maxNumberLength(MAX_NUMBER_CHARS)
            .maxNestingDepth(MAX_NESTING_DEPTH)
            .build();
    }

    /**
     * The one-line reason for a violated Jackson constraint, e.g. {@code nesting deeper than 10,000 levels (limit
     * of heapload's readers)}.
     */
    public static String reason(StreamConstraintsException e) {
        String m = String.valueOf(e.getOriginalMessage());
        if (m.startsWith("Document nesting depth")) {
            return "nesting deeper than " + String.format(java.util.Locale.ROOT, "%,d", MAX_NESTING_DEPTH)
                + " levels (limit of heapload's readers)";
        }
        if (m.startsWith("String value length")) {
            return "a string longer than " + String.format(java.util.Locale.ROOT, "%,d", MAX_STRING_CHARS)
                + " characters (64 MiB, limit of heapload's readers)";
        }
        if (m.startsWith("Name length")) {
            return "a member name longer than " + String.format(java.util.Locale.ROOT, "%,d", MAX_NAME_CHARS)
                + " characters (limit of heapload's readers)";
        }
        if (m.startsWith("Number value length")) {
            return "a number longer than " + MAX_NUMBER_CHARS + " characters (limit of heapload's readers)";
        }
        int nl = m.indexOf('\n');
        return (nl >= 0 ? m.substring(0, nl) : m) + " (limit of heapload's readers)";
    }

    /** A violated constraint as a one-line error naming the file and the parser's byte offset. */
    public static DumpFormatException error(String file, JsonParser p, StreamConstraintsException e) {
        long at = p == null ? -1 : p.currentLocation().getByteOffset();
        if (at < 0 && e.getLocation() != null) {
            at = e.getLocation().getByteOffset();
        }
        return new DumpFormatException(file, at, reason(e));
    }

    /**
     * The most bytes the content of a gzip file of {@code storedSize} bytes whose last 4 bytes state {@code isize}
     * may have. The stated size is the content's length modulo 2^32, so the content is {@code isize + k·2^32}: it is
     * believed with the largest {@code k} that keeps it within {@value #PLAUSIBLE_GZIP_RATIO} times the file's size
     * (dumps compress about 14:1), and at least with {@code k = 0} when that is within {@value #MAX_GZIP_RATIO} times;
     * a stated size over that (a file of several members states only the last's size) leaves the ratio limit alone.
     * A 10 MB gzip of 10 GiB (stating 2 GiB) stops after 2 GiB.
     *
     * @param isize the stated size, or -1 when unknown
     */
    public static long gzipContentLimit(long storedSize, long isize) {
        long stored = Math.max(storedSize, 1);
        long hard = stored > Long.MAX_VALUE / MAX_GZIP_RATIO ? Long.MAX_VALUE : stored * MAX_GZIP_RATIO;
        if (isize < 0 || isize > hard) {
            return hard;
        }
        long plausible = stored > Long.MAX_VALUE / PLAUSIBLE_GZIP_RATIO ? Long.MAX_VALUE : stored * PLAUSIBLE_GZIP_RATIO;
        if (plausible <= isize) {
            return isize;
        }
        return isize + (((plausible - isize) >>> 32) << 32);
    }

    /**
     * Decompresses {@code stored} (which starts with the gzip magic bytes), bounded by
     * {@link #gzipContentLimit}; truncated and corrupt data and a content over the limit are
     * {@link DumpFormatException}s naming {@code file} and the decompressed byte offset.
     *
     * @param storedSize the file's size in bytes
     * @param isize      the file's stated content size (its last 4 bytes), or -1 when unknown
     * @throws DumpFormatException when not even the gzip header is complete
     */
    public static InputStream gunzip(InputStream stored, String file, long storedSize, long isize) throws IOException {
        GZIPInputStream gz;
        try {
            gz = new GZIPInputStream(stored, 1 << 16);
        } catch (EOFException e) {
            throw new DumpFormatException(file, 0, "not a complete gzip file (it ends inside the gzip header; truncated?)");
        } catch (ZipException e) {
            throw new DumpFormatException(file, 0, "corrupt gzip data: " + e.getMessage());
        }
        return new BoundedGunzip(gz, file, gzipContentLimit(storedSize, isize), storedSize);
    }

    /** A gzip stream that counts its output, stops at a limit and names the file in its errors. */
    private static final class BoundedGunzip extends FilterInputStream {
        private final String file;
        private final long limit;
        private final long storedSize;
        private long count;

        BoundedGunzip(InputStream in, String file, long limit, long storedSize) {
            super(in);
            this.file = file;
            this.limit = limit;
            this.storedSize = storedSize;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                n = in.read(b, off, (int) Math.min(len, Math.max(1, limit + 1 - count)));
            } catch (EOFException e) {
                throw new DumpFormatException(file, count, "unexpected end of gzip data (truncated file?)");
            } catch (ZipException e) {
                throw new DumpFormatException(file, count, "corrupt gzip data: " + e.getMessage());
            }
            if (n > 0) {
                count += n;
                if (count > limit) {
                    throw new DumpFormatException(file, limit, String.format(java.util.Locale.ROOT,
                        "gzip content larger than %,d bytes, the most a %,d-byte file may expand to "
                            + "(%d:1 and its stated size; limit of heapload's readers)", limit, storedSize, MAX_GZIP_RATIO));
                }
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            return DigestingInputStream.skipByReading(this, n);
        }
    }
}
