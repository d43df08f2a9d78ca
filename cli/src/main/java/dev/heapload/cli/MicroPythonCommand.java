package dev.heapload.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.micropython.FirmwareSymbols;
import dev.heapload.micropython.HeapMap;
import dev.heapload.micropython.HeapMapDiff;
import dev.heapload.micropython.MemoryImage;
import dev.heapload.micropython.MicroPythonDump;
import dev.heapload.micropython.MicroPythonFiles;
import dev.heapload.micropython.MicroPythonReader;
import dev.heapload.micropython.PrintedHeapMap;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.TextTable;
import dev.heapload.report.svg.HeapLayoutSvg;
import dev.heapload.report.text.LoadReport;
import dev.heapload.report.text.MicroPythonText;
import dev.heapload.store.StoreDirectory;
import dev.heapload.store.SnapshotExistsException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload micropython}: a MicroPython RAM dump (regions.json, or a seed-style ram.bin with its base
 * address) plus the firmware symbols → heap areas, fragmentation figures as {@code gc_info} computes them, the
 * {@code mem_info(1)} heap map, a heap layout SVG, and the object graph loaded into the store like any other
 * snapshot. Or printed heap maps ({@code --printed-map}): figures, kinds and the layout, no graph.
 */
@Command(name = "micropython", mixinStandardHelpOptions = true, sortOptions = false, subcommands = MicroPythonCaptureCommand.class,
    description = {
        "MicroPython/CircuitPython GC heap from a RAM dump and the firmware's symbols: heap areas found without "
            + "struct offsets, fragmentation figures (as micropython.mem_info() prints them), the heap map, a "
            + "layout SVG, and the object graph loaded into the store (reachability, retention paths, retained "
            + "size, queries, as for Lua dumps).",
        "Or, with --printed-map, the text micropython.mem_info(1) printed (REPL or serial log): figures, "
            + "allocations per kind, layout SVG; two maps are compared block by block.",
        "",
        "Examples:",
        "  heapload micropython --regions dump1/regions.json --symbols symbols.nm.txt",
        "  heapload micropython dump1/regions.json --symbols firmware.elf     (what heapload-dump DIR wrote)",
        "  heapload micropython --ram ram.bin --ram-base _sdata --map firmware.map --sp 0x3ffeb8",
        "  heapload micropython --printed-map serial.log --svg heap.svg"})
final class MicroPythonCommand implements Callable<Integer> {

    @Option(names = "--regions", paramLabel = "FILE", description = "regions.json listing the memory images and their base addresses.")
    Path regions;

    @Parameters(arity = "0..1", paramLabel = "REGIONS", description = "Same as --regions: a regions.json, or the "
        + "directory holding one (as heapload_gdb.py's heapload-dump DIR writes it).")
    Path regionsArgument;

    @Option(names = "--ram", paramLabel = "FILE", description = "One seed-style RAM image (e.g. gdb: dump binary memory ram.bin &_sdata &_estack); .gz accepted.")
    Path ram;

    @Option(names = "--ram-base", paramLabel = "ADDR", description = "Address of the first byte of --ram: hex (0x2e88c) or a symbol (_sdata, _srelocate).")
    String ramBase;

    @Option(names = {"--symbols", "--map"}, paramLabel = "FILE",
        description = "Firmware symbols: `nm -S -n --defined-only` output or the GNU ld map (.gz accepted). "
            + "Default for --regions: symbols.nm.txt or the *.map beside it or in its parent directory.")
    Path symbols;

    @Option(names = "--index", paramLabel = "N",
        description = "Which snapshot of a --ram file holding several back to back (each _estack - --ram-base bytes, as "
            + "gdb's `append binary memory` writes them) to read, from 1; default: the last complete one.")
    Integer index;

    @Option(names = "--sp", paramLabel = "ADDR", description = "Stack pointer at the dump (seed-style images hold the whole stack area). Default: sp=0x... from an info.txt beside regions.json; else the stack_limit bytes below stack_top are scanned.")
    String sp;

    @Option(names = "--word-size", paramLabel = "BYTES", description = "4 or 8; default: from regions.json, else the symbols' address width.")
    Integer wordSize;

    @Option(names = "--big-endian", description = "The target is big-endian (default: little-endian, or regions.json's little_endian).")
    boolean bigEndian;

    @Option(names = "--printed-map", paramLabel = "FILE", description = "Text holding micropython.mem_info(1) output (repeatable; any line prefix).")
    List<Path> printedMaps = new ArrayList<>();

    @Option(names = "--heap-map", description = "Also print the heap map exactly as micropython.mem_info(1) prints it.")
    boolean printHeapMap;

    @Option(names = "--svg", paramLabel = "FILE", description = "Write the heap layout picture here.")
    Path svg;

    @Option(names = "--no-load", description = "Only read and report; do not load the snapshot into the store.")
    boolean noLoad;

    @Option(names = "--db", paramLabel = "DIR", description = "Store directory (default: ${DEFAULT-VALUE}).", defaultValue = "heapload-db")
    Path db;

    @Option(names = "--name", paramLabel = "ID", description = "Snapshot id (default: the regions.json directory name, or the image file name).")
    String name;

    @Option(names = "--replace", description = "Replace a snapshot with the same id.")
    boolean replace;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        OutputFiles.requireDirectoryOf(spec.commandLine(), "--svg", svg == null ? null : svg.toString());
        PrintStream out = Streams.out(spec);
        if (name != null) {
            HeapLoad.requireFileNameFits(spec.commandLine(), name, "--name");
        }
        if (regionsArgument != null) {
            if (regions != null) {
                throw usage("give the regions.json once: as an argument or with --regions");
            }
            regions = Files.isDirectory(regionsArgument) ? regionsArgument.resolve("regions.json") : regionsArgument;
        }
        if (!printedMaps.isEmpty()) {
            if (regions != null || ram != null) {
                throw usage("--printed-map cannot be combined with --regions or --ram");
            }
            printed(out);
            return 0;
        }
        if ((regions == null) == (ram == null)) {
            throw usage("give either --regions FILE or --ram FILE --ram-base ADDR (or --printed-map FILE)");
        }
        if (ram != null && ramBase == null) {
            throw usage("--ram needs --ram-base ADDR (hex address or symbol of its first byte)");
        }
        if (wordSize != null && wordSize != 4 && wordSize != 8) {
            throw usage("--word-size must be 4 or 8");
        }
        Path symbolFile = symbols != null ? symbols : regions != null ? MicroPythonFiles.findSymbols(regions) : null;
        if (symbolFile == null) {
            throw usage("--ram needs --symbols FILE (nm -S output or the linker map)");
        }
        FirmwareSymbols syms = FirmwareSymbols.read(symbolFile);
        MemoryImage image;
        String source;
        String id;
        if (regions != null) {
            image = MemoryImage.fromRegionsJson(regions);
            source = regions.toAbsolutePath().normalize().toString(); // read again by reports from any directory
            id = name != null ? name : dev.heapload.io.DumpReaders.defaultSnapshotId(regions);
        } else {
            long base = address(ramBase, syms, "--ram-base");
            image = ramSnapshot(base, syms, out);
            source = ram.toAbsolutePath().normalize().toString();
            id = name != null ? name : dev.heapload.io.DumpReaders.defaultSnapshotId(ram);
        }
        if (bigEndian) {
            image = image.with(image.wordSize(), false);
        }
        long stack = sp != null ? address(sp, syms, "--sp")
            : regions != null ? dev.heapload.micropython.MicroPythonFiles.stackPointerBeside(regions) : -1;
        MicroPythonReader.Options options = new MicroPythonReader.Options(wordSize == null ? 0 : wordSize, 0, stack, null,
            bigEndian ? Boolean.FALSE : null);
        if (regions != null) {
            options = MicroPythonFiles.withDumperFilesBeside(options, regions);
        }
        StoreDirectory store = null;
        try {
            if (!noLoad && Files.isDirectory(db)) {
                store = StoreDirectory.open(db);
                if (!replace && store.snapshot(id).isPresent()) {
                    throw new SnapshotExistsException(id, db.toString());
                }
            }
            MicroPythonDump dump = MicroPythonReader.read(image, syms, options, id, source);
            HeapSnapshot snapshot = dump.snapshot();
            TerminalProgress bars = new TerminalProgress(false);
            HeapAnalyzer.analyze(snapshot, bars);
            MicroPythonText.summary(dump, out);
            if (printHeapMap) {
                out.print(SafeText.visibleLines(dump.heapMap().text()));
            }
            if (svg != null) {
                writeSvg(dump.heapMap(), dump.allocations(), "MicroPython heap of " + source);
                out.println("layout: " + svg);
            }
            if (!noLoad) {
                if (store == null) {
                    store = StoreDirectory.open(db);
                }
                // the snapshot is committed (model, summary) before its figures are printed; its graph after them
                StoreDirectory.Load load = store.prepare(List.of(snapshot), replace, null, bars);
                store.commitFiles(load, bars);
                LoadReport.print(snapshot, out);
                out.println("  store: " + db.toAbsolutePath().normalize());
                out.flush();
                StoreDirectory files = store;
                store = null;
                HeapLoad.writeGraphs(files, load, bars, out);
            } else {
                LoadReport.print(snapshot, out);
            }
        } finally {
            if (store != null) {
                store.close();
            }
        }
        return 0;
    }

    /**
     * The image of one snapshot of {@code --ram}: a file longer than one snapshot ({@code _estack - base} bytes) holds
     * several back to back, and maybe a trailing partial one: said in one line (count and sizes), and
     * {@code --index N} (from 1) picks one, by default the last complete one.
     */
    private MemoryImage ramSnapshot(long base, FirmwareSymbols syms, PrintStream out) throws IOException {
        long estack = syms.address("_estack");
        MemoryImage.RamFile f = MemoryImage.RamFile.read(ram, estack > base ? estack - base : -1);
        String file = f.name();
        long complete = f.complete();
        long trailing = f.trailing();
        long length = f.snapshotLength();
        if (complete == 1 && trailing == 0) {
            if (index != null && index != 1) {
                throw usage("--index " + index + ": " + file + " holds one snapshot");
            }
            return f.snapshot(1, base);
        }
        int pick = index != null ? index : (int) complete;
        if (pick < 1 || pick > complete) {
            throw usage(String.format(Locale.ROOT, "--index %d: %s holds %d complete snapshot(s)", pick, file, complete));
        }
        out.printf(Locale.ROOT, "%s: %d snapshot(s) of %,d bytes (_estack 0x%x - base 0x%x) back to back%s; reading "
                + "snapshot %d%s%n", SafeText.visible(file), complete, length, estack, base,
            trailing > 0 ? String.format(Locale.ROOT, ", and a trailing partial one of %,d bytes (not read)", trailing) : "",
            pick, index == null ? " (the last complete one; --index N picks another)" : "");
        return f.snapshot(pick, base);
    }


    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** A hex address ({@code 0x…} or bare hex) or a symbol name. */
    private long address(String text, FirmwareSymbols syms, String option) {
        long a = syms.address(text);
        if (a >= 0) {
            return a;
        }
        String t = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
        try {
            return Long.parseUnsignedLong(t, 16);
        } catch (NumberFormatException e) {
            throw usage(option + " '" + text + "' is neither a hex address nor a symbol of " + syms.source());
        }
    }




    private void printed(PrintStream out) throws IOException {
        List<HeapMap> maps = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Path file : printedMaps) {
            List<PrintedHeapMap> list = PrintedHeapMap.read(file);
            for (int i = 0; i < list.size(); i++) {
                PrintedHeapMap p = list.get(i);
                String label = SafeText.visible(file.toString()) + (list.size() > 1 ? " map " + (i + 1) + " (line " + p.line() + ")" : "");
                out.printf(Locale.ROOT, "%s: %d area(s), %,d blocks of %d bytes, %s offsets%n", label,
                    p.heapMap().areas().size(), p.heapMap().areas().stream().mapToLong(HeapMap.Area::blocks).sum(),
                    p.heapMap().bytesPerBlock(), p.heapMap().eightDigitOffsets() ? "8-digit" : "5-digit");
                MicroPythonText.figures(p.heapMap().figures(), out);
                MicroPythonText.freeRuns(p.heapMap(), out);
                out.println(p.warnings().isEmpty() ? "  the printed GC: header agrees with the map"
                    : "  warning: " + SafeText.visible(String.join("; ", p.warnings())));
                out.println("  allocations by kind:");
                TextTable kinds = new TextTable().column("kind", TextTable.Align.LEFT)
                    .column("allocations", TextTable.Align.RIGHT).column("blocks", TextTable.Align.RIGHT)
                    .column("bytes", TextTable.Align.RIGHT);
                for (Map.Entry<Character, long[]> e : p.heapMap().kindCounts().entrySet()) {
                    kinds.row(SafeText.visible(String.valueOf(e.getKey())) + " "
                            + SafeText.visible(HeapMap.kindName(e.getKey())),
                        String.format(Locale.ROOT, "%,d", e.getValue()[0]), String.format(Locale.ROOT, "%,d", e.getValue()[1]),
                        String.format(Locale.ROOT, "%,d", e.getValue()[1] * p.heapMap().bytesPerBlock()));
                }
                for (String line : kinds.render().split("\n")) {
                    out.println("   " + line);
                }
                if (printHeapMap) {
                    out.print(SafeText.visibleLines(p.heapMap().text()));
                }
                maps.add(p.heapMap());
                names.add(label);
            }
        }
        if (maps.size() >= 2) {
            HeapMapDiff d = HeapMapDiff.compare(maps.get(0), maps.get(maps.size() - 1));
            out.printf(Locale.ROOT, "%s against %s: %,d blocks newly used, %,d freed, %,d hold another kind%s%n",
                names.get(names.size() - 1), names.get(0), d.newlyUsedBlocks(), d.freedBlocks(), d.changedBlocks(),
                d.unmatchedAreas() > 0 ? ", " + d.unmatchedAreas() + " area(s) not in the first map" : "");
            StringBuilder sb = new StringBuilder("  allocations per kind:");
            d.allocationDelta().forEach((k, v) -> sb.append(String.format(Locale.ROOT, " %s %+,d",
                SafeText.visible(HeapMap.kindName(k)), v)));
            out.println(sb);
        }
        if (svg != null) {
            List<String> titles = new ArrayList<>();
            for (String n : names) {
                titles.add("MicroPython heap map " + n);
            }
            try (Writer w = Files.newBufferedWriter(svg, StandardCharsets.UTF_8)) {
                HeapLayoutSvg.writeAll(maps, titles, w);
            } catch (java.nio.file.NoSuchFileException e) {
                throw new DumpFormatException(svg.toString(), -1, "cannot write the SVG (no such directory)");
            }
            out.println("layout: " + svg + (maps.size() > 1 ? " (" + maps.size() + " maps, one under the other)" : ""));
        }
    }

    private void writeSvg(HeapMap map, List<MicroPythonDump.Allocation> allocations, String title) throws IOException {
        try (Writer w = Files.newBufferedWriter(svg, StandardCharsets.UTF_8)) {
            HeapLayoutSvg.write(map, allocations, title, w);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new DumpFormatException(svg.toString(), -1, "cannot write the SVG (no such directory)");
        }
    }
}
