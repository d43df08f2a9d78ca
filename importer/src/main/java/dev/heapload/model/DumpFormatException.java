package dev.heapload.model;

import java.io.IOException;

/**
 * A dump that cannot be read: not a dump of the expected format, truncated, or broken beyond the
 * known repairs. {@link #getMessage()} is one line naming the file and the place, e.g.
 * {@code after.json: byte 1204: unexpected end of input (truncated file?)}.
 */
public class DumpFormatException extends IOException {

    private final String file;
    private final long byteOffset;

    /**
     * @param file       the file name as given by the user
     * @param byteOffset offset in the (uncompressed) dump where the problem was found, or {@code -1}
     * @param reason     what is wrong, without the file name
     */
    public DumpFormatException(String file, long byteOffset, String reason) {
        super(file + (byteOffset >= 0 ? ": byte " + byteOffset : "") + ": " + reason);
        this.file = file;
        this.byteOffset = byteOffset;
    }

    /** The file name as given. */
    public String file() {
        return file;
    }

    /** Byte offset of the problem in the uncompressed dump, or {@code -1}. */
    public long byteOffset() {
        return byteOffset;
    }
}
