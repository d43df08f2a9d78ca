package dev.heapload.cli;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import dev.heapload.capture.BoardLink;
import dev.heapload.capture.DumpStream;
import dev.heapload.capture.RawRepl;
import dev.heapload.micropython.FirmwareSymbols;
import dev.heapload.model.DumpFormatException;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.TextTable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload micropython capture}: a MicroPython heap dump taken over the board's REPL, no debugger. Sends
 * dumpers/micropython/heapdump.py through the raw REPL with the addresses from the firmware's symbols, runs it,
 * and decodes its stream ({@link DumpStream}) into DIR/regions.json and the images. {@code --exec} runs a
 * scenario first; {@code --stream} decodes a saved stream instead of talking to a board.
 */
@Command(name = "capture", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Take a MicroPython heap dump over the board's REPL (USB serial, UART, a pty, or socket://host:port): "
            + "heapdump.py is sent through the raw REPL and streams the heap areas, the RAM holding mp_state_ctx "
            + "and the C stack back (base64 lines, a CRC each) into DIR/regions.json and images.",
        "",
        "Examples:",
        "  heapload micropython capture --port /dev/ttyACM0 --symbols firmware.elf before",
        "  heapload micropython capture --port /dev/ttyACM0 --symbols firmware.elf --exec 'import app; app.run()' after",
        "  heapload micropython capture --stream serial.log --symbols firmware.elf dump1   (a stream saved by hand)"})
final class MicroPythonCaptureCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DIR", description = "Output directory (created): regions.json, images, info.txt.")
    Path dir;

    @Option(names = "--port", paramLabel = "PORT", description = "Serial device or pty (/dev/ttyACM0, COM3, /dev/pts/4) or socket://HOST:PORT.")
    String port;

    @Option(names = "--stream", paramLabel = "FILE", description = "Decode a saved heapdump.py stream (a serial log) instead of using a port.")
    Path stream;

    @Option(names = {"--symbols", "--map"}, paramLabel = "FILE", required = true,
        description = "Firmware symbols: the ELF, `nm -S -n --defined-only` text or the GNU ld map (.gz accepted).")
    Path symbols;

    @Option(names = "--exec", paramLabel = "CODE", description = "Python run on the board before the dump (repeatable, in order), e.g. 'import app; app.run()'.")
    List<String> exec = new ArrayList<>();

    @Option(names = "--baud", paramLabel = "N", defaultValue = "115200", description = "Serial speed (default ${DEFAULT-VALUE}; USB CDC ignores it).")
    int baud;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "Longest silence of the board (default ${DEFAULT-VALUE} s).")
    int timeout;

    @Option(names = "--max-static", paramLabel = "BYTES", defaultValue = "1048576",
        description = "Dump all of .data/.bss when at most this big (default ${DEFAULT-VALUE}), else mp_state_ctx alone.")
    long maxStatic;

    @Option(names = "--no-viper", description = "Do not use the viper encoder (slower; for ports without the native emitter it is skipped anyway).")
    boolean noViper;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if ((port == null) == (stream == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give either --port PORT or --stream FILE");
        }
        PrintStream out = Streams.out(spec);
        FirmwareSymbols syms = FirmwareSymbols.read(symbols);
        long started = System.nanoTime();
        DumpStream.Result result;
        if (stream != null) {
            try (InputStream in = new BufferedInputStream(Files.newInputStream(stream), 1 << 16)) {
                result = DumpStream.decode(in, dir, stream.toString());
            }
        } else {
            String call = dumpCall(syms);
            String code = pythonLiteralProgram(dumperSource(), call);
            try (BoardLink link = BoardLink.open(port, baud, 200)) {
                RawRepl repl = new RawRepl(link, timeout * 1000L);
                repl.enter();
                for (String e : exec) {
                    String[] r = repl.exec(e);
                    if (!r[0].isEmpty()) {
                        out.print(SafeText.visibleLines(r[0].replace("\r\n", "\n")));
                        if (!r[0].endsWith("\n")) {
                            out.println();
                        }
                    }
                    if (!r[1].isBlank()) {
                        throw new DumpFormatException(port, -1, "--exec '" + SafeText.visible(e) + "' raised on the board: "
                            + SafeText.visible(lastLine(r[1])));
                    }
                }
                repl.start(code);
                InputStream stdout = repl.stdout();
                try {
                    result = DumpStream.decode(stdout, dir, port);
                } catch (DumpFormatException e) {
                    String err = "";
                    try {
                        err = repl.finish(stdout)[1];
                    } catch (IOException ignored) {
                        // the board's answer is what matters; the first error is reported
                    }
                    if (!err.isBlank()) {
                        throw new DumpFormatException(port, -1, "heapdump.py raised on the board: " + SafeText.visible(lastLine(err)));
                    }
                    throw e;
                }
                String[] rest = repl.finish(stdout);
                if (!rest[1].isBlank()) {
                    throw new DumpFormatException(port, -1, "heapdump.py raised on the board: " + SafeText.visible(lastLine(rest[1])));
                }
                repl.exit();
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        copySymbolsBeside();
        out.printf(Locale.ROOT, "captured %d region(s), %,d bytes in %.1f s (%s encoder on the board) into %s%n",
            result.regions().size(), result.bytes(), seconds, SafeText.visible(result.encoder()),
            SafeText.visible(dir.toString()));
        TextTable regions = new TextTable()
            .column("file", TextTable.Align.LEFT)
            .column("address", TextTable.Align.LEFT)
            .column("bytes", TextTable.Align.RIGHT)
            .column("contents", TextTable.Align.LEFT);
        for (DumpStream.Region r : result.regions()) {
            regions.row(r.file(), String.format(Locale.ROOT, "0x%x", r.base()), String.format(Locale.ROOT, "%,d", r.size()),
                SafeText.visible(r.contents()));
        }
        out.print(regions.render().indent(2));
        out.printf(Locale.ROOT, "  the dumper's own allocations: %,d heap bytes (heap use %,d at its call, %,d while it "
                + "copied; its %d objects are listed in info.txt)%n", result.usedBeforeCopy() - result.usedAtEntry(),
            result.usedAtEntry(), result.usedBeforeCopy(), result.own().size());
        if (!result.consistent()) {
            out.printf(Locale.ROOT, "  warning: the heap changed while copying (used %,d before, %,d after): the images "
                + "may not show one moment%n", result.usedBeforeCopy(), result.usedAfterCopy());
        }
        out.println("next: heapload micropython " + SafeText.visible(dir.resolve("regions.json").toString())
            + " --symbols " + SafeText.visible(symbols.toString()));
        return 0;
    }

    /** The dump() call with mp_state_ctx and the .data/.bss range from the symbols. */
    String dumpCall(FirmwareSymbols syms) throws DumpFormatException {
        FirmwareSymbols.Symbol ctx = syms.get("mp_state_ctx");
        if (ctx == null) {
            throw new DumpFormatException(symbols.toString(), -1, "has no symbol mp_state_ctx: not the symbols of a MicroPython build");
        }
        if (ctx.size() <= 0) {
            throw new DumpFormatException(symbols.toString(), -1, "does not give the size of mp_state_ctx: use the ELF or "
                + "`nm -S` output");
        }
        String ranges = "";
        String[][] pairs = {{"_sdata", "_ebss"}, {"_srelocate", "_ebss"}, {"__data_start", "_end"}, {"_sdata", "_end"},
            {"__bss_start", "_end"}, {"_sbss", "_ebss"}, {"__bss_start__", "__bss_end__"}};
        for (String[] p : pairs) {
            long s = syms.address(p[0]);
            long e = syms.address(p[1]);
            if (s >= 0 && e > s && s <= ctx.address() && ctx.address() + ctx.size() <= e && e - s <= maxStatic + (1L << 22)) {
                ranges = String.format(Locale.ROOT, "[(0x%x, %d)]", s, e - s);
                break;
            }
        }
        boolean split = syms.get("gc_add") != null;
        return String.format(Locale.ROOT, "dump(0x%x, %d, %s, None, None, %s, True, %s)", ctx.address(), ctx.size(),
            ranges.isEmpty() ? "()" : ranges, noViper ? "False" : "True", split ? "True" : "False");
    }

    /** heapdump.py as bundled in the jar (copied from dumpers/micropython at build time). */
    static String dumperSource() throws IOException {
        try (InputStream in = MicroPythonCaptureCommand.class.getResourceAsStream("/dev/heapload/capture/heapdump.py")) {
            if (in == null) {
                throw new IOException("heapdump.py is missing from the heapload jar (rebuild)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The program sent to the board: the dumper's source without comment lines, as a string literal executed
     * into a private dict (the board's __main__ gets one name, removed afterwards), then the call.
     */
    static String pythonLiteralProgram(String source, String call) {
        StringBuilder src = new StringBuilder();
        for (String line : source.split("\n", -1)) {
            if (!line.strip().startsWith("#") && !line.isBlank()) {
                src.append(line).append('\n');
            }
        }
        StringBuilder lit = new StringBuilder("'");
        for (int i = 0; i < src.length(); i++) {
            char c = src.charAt(i);
            switch (c) {
                case '\\' -> lit.append("\\\\");
                case '\'' -> lit.append("\\'");
                case '\n' -> lit.append("\\n");
                default -> lit.append(c);
            }
        }
        lit.append('\'');
        String args = call.substring(call.indexOf('(') + 1, call.length() - 1);
        return "import gc\n_heapload = {}\nexec(" + lit + ", _heapload)\n_heapload['args'] = (" + args + ")\ntry:\n"
            + "    _heapload['dump'](*_heapload['args'], used_at_call=gc.mem_alloc())\nfinally:\n    del _heapload\n";
    }

    private void copySymbolsBeside() throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(symbols)) {
            head = in.readNBytes(4);
        }
        boolean elf = head.length == 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F';
        if (!elf) {
            String name = symbols.getFileName().toString().toLowerCase(Locale.ROOT).contains(".map") ? "firmware.map"
                + (symbols.toString().endsWith(".gz") ? ".gz" : "") : "symbols.nm.txt";
            Files.copy(symbols, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static String lastLine(String text) {
        String[] lines = text.strip().split("\r?\n");
        return lines[lines.length - 1];
    }
}
