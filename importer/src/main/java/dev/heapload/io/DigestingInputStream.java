package dev.heapload.io;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Passes bytes through while counting them and feeding them to a SHA-256 digest, so the checksum of a
 * file is computed in the same pass that reads it.
 */
public final class DigestingInputStream extends FilterInputStream {

    private final MessageDigest sha256;
    private volatile long count;

    /** @param in the file's bytes as stored */
    public DigestingInputStream(InputStream in) {
        super(in);
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }

    @Override
    public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
            sha256.update((byte) b);
            count++;
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
            sha256.update(b, off, n);
            count += n;
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        return skipByReading(this, n);
    }

    /**
     * Skips up to {@code n} bytes of {@code s} through its own {@code read}, so a filter stream that digests, counts
     * or bounds what passes sees the skipped bytes too ({@link FilterInputStream#skip} would go around it).
     *
     * @return the bytes skipped (fewer at the end of the stream)
     */
    static long skipByReading(InputStream s, long n) throws IOException {
        byte[] scratch = new byte[8192];
        long done = 0;
        while (done < n) {
            int r = s.read(scratch, 0, (int) Math.min(scratch.length, n - done));
            if (r < 0) {
                break;
            }
            done += r;
        }
        return done;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    /** Bytes read so far. */
    public long count() {
        return count;
    }

    /** Reads the rest of the stream (so the checksum covers the whole file) and returns the hex SHA-256. */
    public String finish() throws IOException {
        byte[] scratch = new byte[1 << 16];
        while (read(scratch, 0, scratch.length) >= 0) {
            // digest only
        }
        return HexFormat.of().formatHex(sha256.digest());
    }
}
