package dev.heapload.capture;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.heapload.model.DumpFormatException;

/**
 * Decodes the text stream of the on-board dumper {@code dumpers/micropython/heapdump.py} into a dump directory
 * that {@code heapload micropython} reads: {@code regions.json}, one {@code regionN.bin} image per region and
 * {@code info.txt} (the header's facts, the dumper's own allocations, the heap usage before and after copying).
 *
 * <p>Stream (format 1, ASCII lines, {@code \r\n} accepted): anything before the line {@code heapload-dump 1}
 * (REPL echo) is skipped; header lines {@code word_size W}, {@code little_endian 0|1}, {@code bytes_per_block B},
 * {@code region I BASE_HEX SIZE CONTENTS}, {@code own ADDR_HEX WHAT}, {@code used_at_entry N}, ...; the line
 * {@code data}; then one line per chunk {@code D RR OOOOOOOO CCCC BASE64} (without the spaces: region index 2 hex
 * digits, byte offset 8 hex digits, CRC-16/CCITT-FALSE of the chunk 4 hex digits, a space, base64 padded with
 * spaces), chunks of a region in order; the last line {@code end used_before_copy N used_after_copy N}.
 */
public final class DumpStream {

    /** One region of the dump: base address, size in bytes and what it holds (the dumper's words). */
    public record Region(int index, long base, long size, String contents, String file) {
    }

    /** What was decoded: the regions, the dumper's own allocations and the heap usage around the copy. */
    public record Result(List<Region> regions, List<String> own, long usedAtEntry, long usedBeforeCopy,
                         long usedAfterCopy, String encoder, long bytes) {
        /** True when nothing was allocated on the target's heap while it copied: one consistent moment. */
        public boolean consistent() {
            return usedBeforeCopy >= 0 && usedBeforeCopy == usedAfterCopy;
        }
    }

    private DumpStream() {
    }

    /** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection), as heapdump.py computes it per chunk. */
    static int crc16(byte[] data) {
        int crc = 0xFFFF;
        for (byte b : data) {
            crc ^= (b & 0xff) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xFFFF;
        }
        return crc;
    }

    /**
     * Reads the stream until its {@code end} line and writes the dump into {@code dir} (created when missing).
     *
     * @param in     the stream (stops after the {@code end} line; the rest is left unread)
     * @param dir    output directory
     * @param source name of the input for messages (port or file)
     * @throws DumpFormatException one line naming the source and the stream line that is wrong (CRC, order,
     *                             missing chunk, stream ended early)
     */
    public static Result decode(InputStream in, Path dir, String source) throws IOException {
        Files.createDirectories(dir);
        List<Region> regions = new ArrayList<>();
        List<String> own = new ArrayList<>();
        List<String> header = new ArrayList<>();
        int wordSize = 0;
        boolean little = true;
        long usedAtEntry = -1;
        long usedBefore = -1;
        long usedAfter = -1;
        String encoder = "";
        long lineNo = 0;
        String line;
        boolean started = false;
        // header
        while (true) {
            line = readLine(in);
            lineNo++;
            if (line == null) {
                throw new DumpFormatException(source, -1, started ? "stream ended in the header (line " + lineNo + ")"
                    : "no heapload-dump stream (the line 'heapload-dump 1' never came)");
            }
            if (!started) {
                int at = line.indexOf("heapload-dump ");
                if (at >= 0) {
                    started = true;
                    String version = line.substring(at + 14).trim();
                    if (!version.equals("1")) {
                        throw new DumpFormatException(source, -1, "stream format " + version + " (this heapload reads 1)");
                    }
                }
                continue;
            }
            if (line.equals("data")) {
                break;
            }
            header.add(line);
            String[] f = line.split(" ", 5);
            try {
                switch (f[0]) {
                    case "word_size" -> wordSize = Integer.parseInt(f[1]);
                    case "little_endian" -> little = f[1].equals("1");
                    case "region" -> {
                        int index = Integer.parseInt(f[1]);
                        if (index != regions.size()) {
                            throw new DumpFormatException(source, -1, "region " + index + " out of order (line " + lineNo + ")");
                        }
                        regions.add(new Region(index, Long.parseUnsignedLong(f[2], 16), Long.parseLong(f[3]),
                            f.length > 4 ? f[4] : "", "region" + index + ".bin"));
                    }
                    case "own" -> own.add(line.substring(4));
                    case "used_at_entry" -> usedAtEntry = Long.parseLong(f[1]);
                    case "encoder" -> encoder = f[1];
                    default -> {
                    }
                }
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new DumpFormatException(source, -1, "malformed header line " + lineNo + ": " + shorten(line));
            }
        }
        if (regions.isEmpty() || (wordSize != 4 && wordSize != 8)) {
            throw new DumpFormatException(source, -1, "header without regions or word size");
        }
        // data
        long total = 0;
        int current = 0;
        long expected = 0;
        OutputStream out = open(dir, regions.get(0));
        try {
            while (true) {
                line = readLine(in);
                lineNo++;
                if (line == null) {
                    throw new DumpFormatException(source, -1, "stream ended at line " + lineNo + " before its end line "
                        + "(connection lost or the board reset?)");
                }
                if (line.startsWith("end")) {
                    String[] f = line.split(" ");
                    for (int i = 1; i + 1 < f.length; i += 2) {
                        if (f[i].equals("used_before_copy")) {
                            usedBefore = Long.parseLong(f[i + 1]);
                        } else if (f[i].equals("used_after_copy")) {
                            usedAfter = Long.parseLong(f[i + 1]);
                        }
                    }
                    break;
                }
                if (line.length() < 17 || line.charAt(0) != 'D' || line.charAt(15) != ' ') {
                    throw new DumpFormatException(source, -1, "line " + lineNo + " is not a data line: " + shorten(line));
                }
                int region;
                long offset;
                int crc;
                byte[] data;
                try {
                    region = Integer.parseInt(line.substring(1, 3), 16);
                    offset = Long.parseLong(line.substring(3, 11), 16);
                    crc = Integer.parseInt(line.substring(11, 15), 16);
                    data = Base64.getDecoder().decode(line.substring(16).trim());
                } catch (IllegalArgumentException e) {
                    throw new DumpFormatException(source, -1, "line " + lineNo + " is garbled: " + shorten(line));
                }
                if (crc16(data) != crc) {
                    throw new DumpFormatException(source, -1, String.format(Locale.ROOT,
                        "line %d: CRC mismatch in region %d at offset %d (transmission error; capture again)", lineNo,
                        region, offset));
                }
                while (region != current || offset != expected) {
                    if (region == current + 1 && offset == 0 && expected == regions.get(current).size()) {
                        out.close();
                        current++;
                        expected = 0;
                        out = open(dir, regions.get(current));
                        continue;
                    }
                    throw new DumpFormatException(source, -1, String.format(Locale.ROOT,
                        "line %d: expected region %d offset %d, got region %d offset %d (a line was lost; capture again)",
                        lineNo, current, expected, region, offset));
                }
                if (expected + data.length > regions.get(current).size()) {
                    throw new DumpFormatException(source, -1, "line " + lineNo + ": more data than region " + current + " declares");
                }
                out.write(data);
                expected += data.length;
                total += data.length;
            }
        } finally {
            out.close();
        }
        if (current != regions.size() - 1 || expected != regions.get(current).size()) {
            throw new DumpFormatException(source, -1, String.format(Locale.ROOT,
                "the stream ended in region %d at offset %d of %d", current, expected, regions.get(current).size()));
        }
        writeRegionsJson(dir.resolve("regions.json"), regions, wordSize, little);
        try (Writer w = Files.newBufferedWriter(dir.resolve("info.txt"), StandardCharsets.UTF_8)) {
            w.write("dumped_by=heapdump.py (on the target, no debugger)\n");
            for (String h : header) {
                w.write(h.replaceFirst(" ", "=") + "\n");
            }
            w.write("used_before_copy=" + usedBefore + "\nused_after_copy=" + usedAfter + "\n");
        }
        return new Result(List.copyOf(regions), List.copyOf(own), usedAtEntry, usedBefore, usedAfter, encoder, total);
    }

    private static OutputStream open(Path dir, Region r) throws IOException {
        return new BufferedOutputStream(Files.newOutputStream(dir.resolve(r.file())), 1 << 16);
    }

    private static void writeRegionsJson(Path file, List<Region> regions, int wordSize, boolean little) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeBooleanField("little_endian", little);
            g.writeNumberField("word_size", wordSize);
            g.writeArrayFieldStart("regions");
            for (Region r : regions) {
                g.writeStartObject();
                g.writeStringField("file", r.file());
                g.writeStringField("base", "0x" + Long.toHexString(r.base()));
                g.writeNumberField("size", r.size());
                g.writeStringField("contents", r.contents());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeStringField("dumped_by", "heapdump.py");
            g.writeEndObject();
        }
    }

    /** One line without its {@code \n} / {@code \r\n} (ISO-8859-1), or null at the end of the stream. */
    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(512);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                b.write(c);
            }
            if (b.size() > 1 << 16) {
                throw new DumpFormatException("dump stream", -1, "a line longer than 64 KiB: not a heapload-dump stream");
            }
        }
        if (c < 0 && b.size() == 0) {
            return null;
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static String shorten(String s) {
        String t = s.length() > 60 ? s.substring(0, 60) + "…" : s;
        return dev.heapload.queries.SafeText.visible(t);
    }
}
