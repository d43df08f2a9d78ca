package dev.heapload.luau;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.PushbackInputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import dev.heapload.io.DigestingInputStream;
import dev.heapload.io.InputLimits;

/**
 * Reads a dump file on a second thread (file bytes → SHA-256 and byte count → gunzip when the file
 * starts with the gzip magic bytes {@code 1f 8b} (RFC 1952) → {@link LuauJsonRepair}) and hands the
 * repaired bytes over in chunks, so decompression and repair overlap with parsing.
 *
 * <p>Use from one consumer thread, either chunk by chunk ({@link #next()} until it returns {@code false})
 * or as an {@link InputStream} (which calls {@code next()} itself), then {@link #sha256()}; always
 * {@link #close()}. After the end was reached, a read threw, or after {@code close()}, the producer
 * thread has ended and {@link #repair()} may be inspected.
 */
final class RepairedChunks extends InputStream {

    private static final int CHUNK_SIZE = 1 << 18;
    private static final int QUEUED_CHUNKS = 6;

    /** Thrown by {@link #next()} when reading or decompressing failed on the producer thread. */
    static final class SourceFailure extends IOException {
        private final long decodedOffset;

        SourceFailure(IOException cause, long decodedOffset) {
            super(cause.getMessage(), cause);
            this.decodedOffset = decodedOffset;
        }

        /** Offset in the uncompressed dump reached when the failure happened. */
        long decodedOffset() {
            return decodedOffset;
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    private static final class Chunk {
        final byte[] data;
        int length;
        long fileBytes;

        Chunk(byte[] data) {
            this.data = data;
        }
    }

    private static final Chunk END = new Chunk(new byte[0]);
    private static final Chunk FAILED = new Chunk(new byte[0]);

    private final InputStream file;
    private final ArrayBlockingQueue<Chunk> full = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
    private final ArrayBlockingQueue<Chunk> free = new ArrayBlockingQueue<>(QUEUED_CHUNKS + 2);
    private final Thread thread;
    private volatile boolean stopped;

    // written by the producer before it queues END/FAILED or ends; read by the consumer after that
    private volatile LuauJsonRepair repair;
    private volatile String sha256;
    private volatile Throwable failure;
    private volatile long failureOffset;

    private Chunk current;
    private int position;
    private boolean ended;
    private final LongConsumer onChunk;

    private final String fileName;
    private final long storedSize;
    private final long statedSize;

    /**
     * @param file       the dump file's bytes as stored; closed by this object
     * @param fileName   the file's name for errors (gzip: {@link InputLimits#gunzip})
     * @param storedSize the file's size in bytes
     * @param statedSize a gzip file's stated content size ({@code ISIZE}), or -1
     * @param onChunk    called on the consumer thread with {@link #fileBytes()} whenever a chunk becomes current
     */
    RepairedChunks(InputStream file, String fileName, long storedSize, long statedSize, String threadName, LongConsumer onChunk) {
        this.file = file;
        this.fileName = fileName;
        this.storedSize = storedSize;
        this.statedSize = statedSize;
        this.onChunk = onChunk;
        this.thread = new Thread(this::produce, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Makes the next chunk current.
     *
     * @return false at the end of the data
     * @throws SourceFailure when reading or decompressing failed
     */
    boolean next() throws IOException {
        if (current != null) {
            free.offer(current);
            current = null;
        }
        if (ended) {
            return false;
        }
        Chunk c;
        try {
            c = full.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the dump");
        }
        if (c == END || c == FAILED) {
            ended = true;
            join();
            if (c == FAILED) {
                Throwable t = failure;
                if (t instanceof IOException io) {
                    throw new SourceFailure(io, failureOffset);
                }
                if (t instanceof RuntimeException re) {
                    throw re;
                }
                throw (Error) t;
            }
            return false;
        }
        current = c;
        position = 0;
        onChunk.accept(c.fileBytes);
        return true;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        while (current == null || position >= current.length) {
            if (!next()) {
                return -1;
            }
        }
        int n = Math.min(len, current.length - position);
        System.arraycopy(current.data, position, b, off, n);
        position += n;
        return n;
    }

    @Override
    public int read() throws IOException {
        while (current == null || position >= current.length) {
            if (!next()) {
                return -1;
            }
        }
        return current.data[position++] & 0xff;
    }

    /** The current chunk's bytes ({@code [0, length())}). */
    byte[] data() {
        return current.data;
    }

    /** Length of the current chunk. */
    int length() {
        return current.length;
    }

    /** Bytes of the file (as stored, i.e. compressed for gzip) consumed when the current chunk was made. */
    long fileBytes() {
        return current.fileBytes;
    }

    /** Hex SHA-256 of the whole file, available after {@link #next()} returned false. */
    String sha256() {
        return sha256;
    }

    /** The repair filter; inspect only after the producer ended (see class doc). May be null after a failure. */
    LuauJsonRepair repair() {
        return repair;
    }

    /** Stops the producer thread, waits for it and closes the file. */
    @Override
    public void close() throws IOException {
        stopped = true;
        full.clear();
        join();
        file.close();
    }

    private void join() throws InterruptedIOException {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the reader thread");
        }
    }

    private void produce() {
        DigestingInputStream counted = new DigestingInputStream(file);
        LuauJsonRepair r = null;
        try {
            // (not SequenceInputStream: it closes a stream at its end, and finish() reads on)
            PushbackInputStream rest = new PushbackInputStream(counted, 2);
            byte[] head = new byte[2];
            int n = 0;
            while (n < 2) {
                int k = counted.read(head, n, 2 - n);
                if (k < 0) {
                    break;
                }
                n += k;
            }
            rest.unread(head, 0, n);
            boolean gzip = n == 2 && head[0] == (byte) 0x1f && head[1] == (byte) 0x8b;
            r = new LuauJsonRepair(gzip ? InputLimits.gunzip(rest, fileName, storedSize, statedSize) : rest);
            repair = r;
            while (!stopped) {
                Chunk c = free.poll();
                if (c == null) {
                    c = new Chunk(new byte[CHUNK_SIZE]);
                }
                int len = r.read(c.data, 0, c.data.length);
                if (len < 0) {
                    break;
                }
                c.length = len;
                c.fileBytes = counted.count();
                if (!put(c)) {
                    return;
                }
            }
            if (stopped) {
                return;
            }
            sha256 = counted.finish();
            put(END);
        } catch (Throwable t) {
            failure = t;
            failureOffset = r == null ? 0 : r.inputBytesRead();
            put(FAILED);
        }
    }

    private boolean put(Chunk c) {
        try {
            while (!stopped) {
                if (full.offer(c, 50, TimeUnit.MILLISECONDS)) {
                    return true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }
}
