package dev.heapload.micropython;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.heapload.model.DumpFormatException;

/**
 * How MicroPython inputs are recognised and found on disk: a {@code regions.json} beside its images, the
 * symbols ({@code symbols.nm.txt}, else a {@code *.map} / {@code *.map.gz}) in the same directory or its parent
 * (the layout of shared/testdata/micropython: {@code <case>/symbols.nm.txt}, {@code <case>/dumpN/regions.json}).
 */
public final class MicroPythonFiles {

    private MicroPythonFiles() {
    }

    /**
     * True when {@code file} looks like a regions.json: named {@code *.json} or {@code *.json.gz}, a JSON object
     * with "regions" and "base" in its first 4 KiB (decompressed when gzip).
     */
    public static boolean isRegionsJson(Path file) {
        String lower = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (!lower.endsWith(".json") && !lower.endsWith(".json.gz")) {
            return false;
        }
        try {
            String head = new String(dev.heapload.io.DumpInput.peek(file, 4096), StandardCharsets.UTF_8);
            return head.stripLeading().startsWith("{") && head.contains("\"regions\"") && head.contains("\"base\"");
        } catch (IOException e) {
            return false;
        }
    }

    /** True when {@code file} is text holding a printed heap map ("GC memory layout; from"). */
    public static boolean isPrintedHeapMap(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(1 << 20);
            return new String(head, StandardCharsets.ISO_8859_1).contains("GC memory layout; from ");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The symbols for a dump: {@code symbols.nm.txt}, else the only {@code *.map} / {@code *.map.gz}, in the
     * directory of {@code regionsJson} or its parent.
     *
     * @throws DumpFormatException when none is found
     */
    public static Path findSymbols(Path regionsJson) throws IOException {
        Path dir = regionsJson.toAbsolutePath().getParent();
        for (int up = 0; up < 2 && dir != null; up++, dir = dir.getParent()) {
            Path nm = dir.resolve("symbols.nm.txt");
            if (Files.isRegularFile(nm)) {
                return nm;
            }
            List<Path> maps = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.{map,map.gz}")) {
                ds.forEach(maps::add);
            }
            if (maps.size() == 1) {
                return maps.get(0);
            }
        }
        throw new DumpFormatException(regionsJson.toString(), -1, "no firmware symbols beside it (symbols.nm.txt or "
            + "one *.map in its directory or the parent); give them with: heapload micropython --regions FILE --symbols FILE");
    }

    /**
     * The stack pointer at the dump from an {@code info.txt} beside {@code regionsJson} (a line {@code sp=0x…}, as
     * the gdb dump script of shared/testdata/micropython writes it), or -1. Without it a seed-style image's whole
     * stack area is scanned, and stale words below the real stack pointer can keep garbage alive.
     */
    public static long stackPointerBeside(Path regionsJson) {
        Path dir = regionsJson.toAbsolutePath().getParent();
        Path info = dir == null ? null : dir.resolve("info.txt");
        if (info == null || !Files.isRegularFile(info)) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(info, StandardCharsets.ISO_8859_1)) {
                String t = line.trim();
                if (t.startsWith("sp=0x") || t.startsWith("sp = 0x")) {
                    return Long.parseUnsignedLong(t.substring(t.indexOf("0x") + 2).trim(), 16);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /**
     * The phase of a garbage collection running at the dump, from an {@code info.txt} beside {@code regionsJson}: its
     * line {@code gc_phase=PHASE (HOW)} as heapload_gdb.py writes it from the backtrace ({@code PHASE} one of
     * {@link GcCollection#PHASE_MARK}, {@link GcCollection#PHASE_FINALISE}, {@link GcCollection#PHASE_SWEEP}); or
     * {@code null}: {@code [phase, source]}.
     */
    public static String[] gcPhaseBeside(Path regionsJson) {
        Path dir = regionsJson.toAbsolutePath().getParent();
        Path info = dir == null ? null : dir.resolve("info.txt");
        if (info == null || !Files.isRegularFile(info)) {
            return null;
        }
        try {
            for (String line : Files.readAllLines(info, StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("gc_phase=")) {
                    String rest = line.substring("gc_phase=".length()).trim();
                    int space = rest.indexOf(' ');
                    String phase = space < 0 ? rest : rest.substring(0, space);
                    if (!List.of(GcCollection.PHASE_MARK, GcCollection.PHASE_FINALISE, GcCollection.PHASE_SWEEP)
                        .contains(phase)) {
                        return null;
                    }
                    String how = space < 0 ? "" : rest.substring(space + 1).trim();
                    if (how.startsWith("(") && how.endsWith(")")) {
                        how = how.substring(1, how.length() - 1);
                    }
                    return new String[] {phase, "info.txt: " + (how.isEmpty() ? "gc_phase" : how)};
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    /**
     * {@code options} with what heapload_gdb.py wrote beside {@code regionsJson}: the collection phase of
     * {@link #gcPhaseBeside} and the struct layouts of {@code layouts.json} ({@link ObjectLayouts#beside}), if any.
     */
    public static MicroPythonReader.Options withDumperFilesBeside(MicroPythonReader.Options options, Path regionsJson)
        throws IOException {
        String[] phase = gcPhaseBeside(regionsJson);
        MicroPythonReader.Options o = phase == null ? options : options.withGcPhase(phase[0], phase[1]);
        ObjectLayouts layouts = ObjectLayouts.beside(regionsJson);
        return layouts == null ? o : o.withLayouts(layouts);
    }

    /**
     * Reads a regions.json dump with the symbols found by {@link #findSymbols}, the stack pointer of
     * {@link #stackPointerBeside}, and the collection phase and struct layouts of {@link #withDumperFilesBeside}, if
     * any. The snapshot's source is the file's absolute path: a report made later
     * from another directory reads the memory images again from there.
     */
    public static MicroPythonDump read(Path regionsJson, String snapshotId) throws IOException {
        FirmwareSymbols symbols = FirmwareSymbols.read(findSymbols(regionsJson));
        long sp = stackPointerBeside(regionsJson);
        MicroPythonReader.Options options = withDumperFilesBeside(sp < 0 ? MicroPythonReader.Options.DEFAULT
            : new MicroPythonReader.Options(0, 0, sp, null, null), regionsJson);
        return MicroPythonReader.read(MemoryImage.fromRegionsJson(regionsJson), symbols, options, snapshotId,
            regionsJson.toAbsolutePath().normalize().toString());
    }
}
