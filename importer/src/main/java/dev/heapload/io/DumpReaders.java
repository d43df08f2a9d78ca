package dev.heapload.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.heapload.lua.LuaHeapDumpReader;
import dev.heapload.lua.LuaSnapshotRawReader;
import dev.heapload.luau.LuauDumpReader;
import dev.heapload.micropython.MicroPythonFiles;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.Progress;

/**
 * Chooses the reader for a dump file and names snapshots. The one place that lists the formats: a MicroPython
 * {@code regions.json} (symbols found beside it, see {@code MicroPythonFiles}), else a Luau JSON dump.
 */
public final class DumpReaders {

    private DumpReaders() {
    }

    /**
     * Reads a dump into a heap model.
     *
     * @param file       the dump ({@code .json} or gzip-compressed)
     * @param snapshotId id for the snapshot, or {@code null} for {@link #defaultSnapshotId(Path)}
     * @param progress   receives the {@code read} phase in bytes of the file
     * @return the snapshot
     * @throws DumpFormatException when the file is missing, unreadable, not a regular file (a pipe: see
     *                             {@link DumpInput#requireRegularFile}), over a limit of {@link InputLimits}, or not
     *                             a dump heapload can read (one-line message naming the file and byte offset)
     * @throws IOException         on an I/O failure while reading, or {@link HeapBudget.NotEnoughMemoryException}
     *                             before reading when the launcher's estimate says the machine is too small
     */
    public static HeapSnapshot read(Path file, String snapshotId, Progress progress) throws IOException {
        return read(file, snapshotId, progress, null);
    }

    /** The formats {@link #read(Path, String, Progress, String)} accepts, as named by {@code --format}. */
    public static final java.util.List<String> FORMATS = java.util.List.of("luau", "lua", "lua-snapshot", "micropython");

    /**
     * Which format a file is, from its first 4 KiB (decompressed when gzip):
     * <ul>
     *   <li>{@code lua}: a JSON object with {@code "format":"lua-heap-snapshot"} (heapload's Lua dumper);</li>
     *   <li>{@code lua-snapshot}: a Lua literal {@code return {…}}, or a JSON object whose first member is an address
     *       ({@code "0x…"}, or MSVC's bare 8 or 16 upper-case hex digits) with a string value (lua-snapshot's raw
     *       table);</li>
     *   <li>{@code luau}: anything else (Luau's {@code luaC_dump}; its reader reports what is wrong).</li>
     * </ul>
     *
     * @throws DumpFormatException when the file is missing or unreadable
     */
    public static String detect(Path file) throws IOException {
        String head = new String(dev.heapload.io.DumpInput.peek(file, 4096), java.nio.charset.StandardCharsets.ISO_8859_1);
        String trimmed = head.stripLeading();
        if (java.util.regex.Pattern.compile("\"format\"\\s*:\\s*\"" + LuaHeapDumpReader.FORMAT + "\"").matcher(head).find()) {
            return "lua";
        }
        if (trimmed.startsWith("return")
            || java.util.regex.Pattern.compile("^\\{\\s*\"(0x[0-9a-fA-F]+|[0-9A-F]{8}|[0-9A-F]{16})\"\\s*:\\s*\"").matcher(trimmed).find()) {
            return "lua-snapshot";
        }
        return "luau";
    }

    /**
     * Reads a dump into a heap model with the reader of {@code format}, or of the detected format.
     *
     * @param format one of {@link #FORMATS}, or {@code null} to {@link #detect} it
     * @throws DumpFormatException also for an unknown format name
     */
    public static HeapSnapshot read(Path file, String snapshotId, Progress progress, String format) throws IOException {
        return read(file, snapshotId, progress, format, false);
    }

    /**
     * As {@link #read(Path, String, Progress, String)}, keeping the references to addresses with no record one by
     * one when {@code keepDangling} ({@code --keep-dangling}: the store writes them as {@code Missing} nodes).
     */
    public static HeapSnapshot read(Path file, String snapshotId, Progress progress, String format, boolean keepDangling)
        throws IOException {
        DumpInput.refuseStandardInput(file, file.toString());
        if (!Files.exists(file)) {
            throw new DumpFormatException(file.toString(), -1, "no such file");
        }
        DumpInput.requireRegularFile(file);
        if (!Files.isReadable(file)) {
            throw new DumpFormatException(file.toString(), -1, "not readable (permission denied)");
        }
        HeapBudget.requireEnough();
        String id = snapshotId != null ? snapshotId : defaultSnapshotId(file);
        if ((format == null || format.equals("micropython")) && MicroPythonFiles.isRegionsJson(file)) {
            progress.start("read " + file.getFileName(), -1, "B");
            HeapSnapshot snapshot = MicroPythonFiles.read(file, id).snapshot();
            progress.end();
            return snapshot;
        }
        if (format == null && MicroPythonFiles.isPrintedHeapMap(file)) {
            throw new DumpFormatException(file.toString(), -1, "is a printed MicroPython heap map (no object graph "
                + "to load); see its figures with: heapload micropython --printed-map " + file);
        }
        String f = format != null ? format : detect(file);
        return switch (f) {
            case "luau" -> new LuauDumpReader().keepDangling(keepDangling).read(file, id, progress);
            case "lua" -> new LuaHeapDumpReader().keepDangling(keepDangling).read(file, id, progress);
            case "lua-snapshot" -> new LuaSnapshotRawReader().keepDangling(keepDangling).read(file, id, progress);
            case "micropython" -> throw new DumpFormatException(file.toString(), -1, "not a MicroPython regions.json "
                + "(for a RAM image with symbols use: heapload micropython --ram FILE --ram-base ADDR --symbols FILE)");
            default -> throw new DumpFormatException(file.toString(), -1, "unknown format " + f + " (known: " + FORMATS + ")");
        };
    }

    /**
     * The file name without directory and without {@code .gz} and {@code .json} extensions; for a MicroPython
     * {@code regions.json}, the name of its directory ({@code dump1}).
     */
    public static String defaultSnapshotId(Path file) {
        String name = file.getFileName().toString();
        Path parent = file.toAbsolutePath().getParent();
        if (name.equals("regions.json") && parent != null && parent.getFileName() != null) {
            return parent.getFileName().toString();
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".gz")) {
            name = name.substring(0, name.length() - 3);
            lower = lower.substring(0, lower.length() - 3);
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            name = name.substring(0, dot);
        }
        return name;
    }
}
