package dev.heapload.micropython;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.heapload.model.DumpFormatException;

/**
 * The RAM of a device (or process) at the dump moment: one or more memory images, each with the
 * runtime address of its first byte. Words are read with the target's word size (4 or 8 bytes) and
 * byte order. Addresses not covered by any image are "unmapped" (ROM without an image, other memory).
 *
 * <p>Inputs: a {@code regions.json} as in shared/testdata/micropython (keys {@code little_endian},
 * {@code word_size}, {@code regions[]} of {@code file}, {@code base} (hex text), {@code size}), or a
 * single seed-style image ({@code dump binary memory ram.bin &_sdata &_estack}) plus its base address.
 * Gzip-compressed images are recognised by their magic bytes {@code 1f 8b}.
 */
public final class MemoryImage {

    /** One image: {@code bytes} are the memory from {@code base} on. */
    public record Region(String file, long base, byte[] bytes, String contents) {
        /** First address after the image. */
        public long end() {
            return base + bytes.length;
        }

        boolean contains(long address, int length) {
            return address >= base && address - base + length <= bytes.length;
        }
    }

    private final List<Region> regions;
    private final int wordSize;
    private final boolean littleEndian;

    /**
     * @param regions      the images (may overlap; the first one listed that covers an address wins)
     * @param wordSize     4 or 8 bytes, or 0 when not known yet (resolve with {@link #with} before reading words)
     * @param littleEndian byte order of the target
     */
    public MemoryImage(List<Region> regions, int wordSize, boolean littleEndian) {
        if (wordSize != 0 && wordSize != 4 && wordSize != 8) {
            throw new IllegalArgumentException("word size must be 4 or 8, not " + wordSize);
        }
        this.regions = List.copyOf(regions);
        this.wordSize = wordSize;
        this.littleEndian = littleEndian;
    }

    /**
     * Hex SHA-256 of the images' bytes, in order: what identifies a MicroPython dump (its regions.json text does not:
     * two dumps can have identical ones). Recorded as the snapshot's {@code sha256}.
     */
    public String sha256() {
        try {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            for (Region r : regions) {
                md.update(r.bytes());
            }
            return java.util.HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
        }
    }

    /** The images, in the order given. */
    public List<Region> regions() {
        return regions;
    }

    /** Word size in bytes (4 or 8). */
    public int wordSize() {
        return wordSize;
    }

    /** True for a little-endian target. */
    public boolean littleEndian() {
        return littleEndian;
    }

    /** A copy with another word size / byte order (an explicit override). */
    public MemoryImage with(int newWordSize, boolean newLittleEndian) {
        return new MemoryImage(regions, newWordSize, newLittleEndian);
    }

    /** The region covering {@code length} bytes at {@code address}, or {@code null}. */
    public Region regionOf(long address, int length) {
        for (Region r : regions) {
            if (r.contains(address, length)) {
                return r;
            }
        }
        return null;
    }

    /** True when {@code length} bytes at {@code address} are in an image. */
    public boolean isMapped(long address, int length) {
        return regionOf(address, length) != null;
    }

    /**
     * The unsigned word at {@code address}, or {@code -1} when it is not in an image. 64-bit words with
     * the top bit set are returned as negative numbers other than -1 only in theory: user-space and
     * microcontroller addresses never have it.
     */
    public long word(long address) {
        Region r = regionOf(address, wordSize);
        if (r == null) {
            return -1;
        }
        return word(r.bytes, (int) (address - r.base));
    }

    /** The word at byte offset {@code offset} of {@code bytes}, in this image's word size and byte order. */
    public long word(byte[] bytes, int offset) {
        long v = 0;
        if (littleEndian) {
            for (int i = wordSize - 1; i >= 0; i--) {
                v = (v << 8) | (bytes[offset + i] & 0xff);
            }
        } else {
            for (int i = 0; i < wordSize; i++) {
                v = (v << 8) | (bytes[offset + i] & 0xff);
            }
        }
        return v;
    }

    /** The unsigned 16-bit value at {@code address}, or {@code -1} when unmapped. */
    public int u16(long address) {
        Region r = regionOf(address, 2);
        if (r == null) {
            return -1;
        }
        int o = (int) (address - r.base);
        int a = r.bytes[o] & 0xff;
        int b = r.bytes[o + 1] & 0xff;
        return littleEndian ? a | (b << 8) : (a << 8) | b;
    }

    /** The byte at {@code address}, or {@code -1} when unmapped. */
    public int u8(long address) {
        Region r = regionOf(address, 1);
        return r == null ? -1 : r.bytes[(int) (address - r.base)] & 0xff;
    }

    /** {@code length} bytes at {@code address}, or {@code null} when not all of them are in one image. */
    public byte[] bytes(long address, int length) {
        Region r = regionOf(address, length);
        if (r == null) {
            return null;
        }
        byte[] out = new byte[length];
        System.arraycopy(r.bytes, (int) (address - r.base), out, 0, length);
        return out;
    }

    /**
     * Reads a {@code regions.json} (gzip-compressed or not, recognised by its magic bytes). Relative {@code file}
     * names are resolved against its directory.
     *
     * @throws DumpFormatException when the JSON or an image is missing or malformed, or an image is
     *                             shorter than its declared {@code size}
     */
    public static MemoryImage fromRegionsJson(Path json) throws IOException {
        String name = json.toString();
        if (!Files.isRegularFile(json)) {
            throw new DumpFormatException(name, -1, "no such file");
        }
        int wordSize = 0;
        Boolean little = null;
        List<Region> regions = new ArrayList<>();
        try (dev.heapload.io.DumpInput input = dev.heapload.io.DumpInput.open(json);
             JsonParser p = JsonFactory.builder().streamReadConstraints(dev.heapload.io.InputLimits.jsonConstraints()).build()
                 .createParser(input.content())) {
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new DumpFormatException(name, p.currentTokenLocation().getByteOffset(),
                        "not a regions.json (expected a JSON object with \"regions\")");
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken t = p.nextToken();
                    switch (field) {
                        case "word_size" -> wordSize = p.getIntValue();
                        case "little_endian" -> little = p.getBooleanValue();
                        case "regions" -> {
                            if (t != JsonToken.START_ARRAY) {
                                throw new DumpFormatException(name, p.currentTokenLocation().getByteOffset(),
                                    "\"regions\" is not an array");
                            }
                            while (p.nextToken() == JsonToken.START_OBJECT) {
                                long at = p.currentTokenLocation().getByteOffset();
                                String file = null;
                                String base = null;
                                long size = -1;
                                String contents = "";
                                while (p.nextToken() == JsonToken.FIELD_NAME) {
                                    String f = p.currentName();
                                    p.nextToken();
                                    switch (f) {
                                        case "file" -> file = p.getText();
                                        case "base" -> base = p.getText();
                                        case "size" -> size = p.getLongValue();
                                        case "contents" -> contents = p.getText();
                                        default -> p.skipChildren();
                                    }
                                }
                                if (file == null || base == null) {
                                    throw new DumpFormatException(name, at, "region without \"file\" or \"base\"");
                                }
                                long baseValue = parseAddress(base, name, at);
                                Path image = json.resolveSibling(file);
                                byte[] bytes = readImage(image);
                                if (size >= 0 && bytes.length < size) {
                                    throw new DumpFormatException(image.toString(), bytes.length,
                                        "image ends after " + bytes.length + " bytes but regions.json declares " + size
                                            + " (truncated dump?)");
                                }
                                regions.add(new Region(file, baseValue, bytes, contents));
                            }
                        }
                        default -> p.skipChildren();
                    }
                }
            } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
                // here, not after the parser is closed: a closed parser's location is its buffer's end
                throw dev.heapload.io.InputLimits.error(name, p, e);
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new DumpFormatException(name, e.getLocation() == null ? -1 : e.getLocation().getByteOffset(),
                "not valid JSON: " + e.getOriginalMessage());
        }
        if (regions.isEmpty()) {
            throw new DumpFormatException(name, -1, "lists no memory regions");
        }
        if (wordSize != 0 && wordSize != 4 && wordSize != 8) {
            throw new DumpFormatException(name, -1, "word_size " + wordSize + " is neither 4 nor 8");
        }
        return new MemoryImage(regions, wordSize, little == null || little);
    }

    /**
     * One seed-style image ({@code ram.bin}) at {@code base}.
     *
     * @param wordSize     4 or 8, or 0 when not known yet (taken from the symbols by the reader)
     */
    public static MemoryImage single(Path ram, long base, int wordSize, boolean littleEndian) throws IOException {
        byte[] bytes = readImage(ram);
        return new MemoryImage(Collections.singletonList(new Region(ram.getFileName().toString(), base, bytes, "ram")),
            wordSize, littleEndian);
    }

    /**
     * A seed-style RAM file cut into the snapshots it holds back to back (gdb's {@code append binary memory} of
     * {@code [base, _estack)} after each stop; the original CircuitPython tool's {@code --analyze-snapshots all}).
     *
     * @param bytes          the whole file
     * @param snapshotLength bytes per snapshot ({@code _estack - base}), or {@code -1} when unknown (one snapshot)
     * @param complete       complete snapshots in the file (1 when the file is not longer than one snapshot)
     * @param trailing       bytes of a trailing partial snapshot after the complete ones (0 if none)
     */
    public record RamFile(String name, byte[] bytes, long snapshotLength, long complete, long trailing) {

        /**
         * Reads a RAM file and cuts it.
         *
         * @param snapshotLength {@code _estack - base} in bytes, or {@code <= 0} when the symbols do not say
         */
        public static RamFile read(Path file, long snapshotLength) throws IOException {
            byte[] bytes = readImage(file);
            String name = String.valueOf(file.getFileName());
            if (snapshotLength <= 0 || bytes.length <= snapshotLength) {
                return new RamFile(name, bytes, -1, 1, 0);
            }
            return new RamFile(name, bytes, snapshotLength, bytes.length / snapshotLength, bytes.length % snapshotLength);
        }

        /** The image of snapshot {@code n} (from 1) at {@code base}. */
        public MemoryImage snapshot(int n, long base) {
            if (n < 1 || n > complete) {
                throw new IllegalArgumentException("snapshot " + n + " of " + complete);
            }
            byte[] one = snapshotLength < 0 ? bytes
                : java.util.Arrays.copyOfRange(bytes, (int) ((n - 1) * snapshotLength), (int) (n * snapshotLength));
            return new MemoryImage(Collections.singletonList(new Region(complete > 1 ? name + " #" + n : name, base, one,
                "ram")), 0, true);
        }
    }

    /** The whole file, gunzipped when it starts with the gzip magic. */
    static byte[] readImage(Path file) throws IOException {
        dev.heapload.io.DumpInput.requireRegularFile(file);
        if (!Files.isRegularFile(file)) {
            throw new DumpFormatException(file.toString(), -1, Files.exists(file) ? "not a regular file" : "no such file");
        }
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file))) {
            raw.mark(2);
            int a = raw.read();
            int b = raw.read();
            raw.reset();
            if (a == 0x1f && b == 0x8b) {
                try (InputStream in = dev.heapload.io.InputLimits.gunzip(raw, file.toString(), Files.size(file),
                        dev.heapload.io.DumpInput.statedGzipSize(file))) {
                    return in.readAllBytes();
                }
            }
            return raw.readAllBytes();
        } catch (NoSuchFileException e) {
            throw new DumpFormatException(file.toString(), -1, "no such file");
        }
    }

    /** Parses {@code 0x1234} / {@code 1234} (hex) into an address. */
    static long parseAddress(String text, String file, long at) throws DumpFormatException {
        String t = text.trim();
        if (t.startsWith("0x") || t.startsWith("0X")) {
            t = t.substring(2);
        }
        try {
            return Long.parseUnsignedLong(t, 16);
        } catch (NumberFormatException e) {
            throw new DumpFormatException(file, at, "'" + text + "' is not a hex address");
        }
    }
}
