package dev.heapload.micropython;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.heapload.model.DumpFormatException;

/**
 * The firmware's symbol table: name, address and size (bytes) of the functions and data objects of the
 * build that produced a RAM dump. Read from {@code nm -S -n --defined-only} text or from a GNU ld map
 * ({@code -Map=}); the word size follows from the address column width (8 hex digits = 32-bit, 16 =
 * 64-bit), per shared/docs/formats/micropython-gc-heap.md §8.
 *
 * <p>Map files name symbols in two ways: {@code 0xADDR name} lines (global symbols) and, with
 * {@code -fdata-sections} (all MicroPython ports), input sections {@code .bss.name} / {@code .rodata.name}
 * with address and size, which also name static (local) objects such as the qemu port's
 * {@code gc_heap} or {@code mp_type_ref}. A symbol line takes its size from the input section that
 * starts at the same address; linker-script assignments ({@code _sdata = .}) give address-only symbols. The
 * "Discarded input sections" part and the cross-reference table are
 * skipped. LTO suffixes ({@code .lto_priv.0}) are removed.
 *
 * <p>ELF files (recognised by their magic) are read with jelf: the {@code .symtab} symbols that are defined
 * (section index not {@code SHN_UNDEF}), functions, objects and untyped ones, locals included; word size
 * from {@code EI_CLASS}, byte order from {@code EI_DATA}. ROM contents are not taken from the ELF.
 */
public final class FirmwareSymbols {

    /** One symbol: {@code size} in bytes, or {@code -1} when the input did not give it. */
    public record Symbol(String name, long address, long size) {
    }

    private final Map<String, Symbol> byName;
    private final TreeMap<Long, List<Symbol>> byAddress = new TreeMap<>();
    private final int wordSize;
    private final String source;
    private final Boolean littleEndian;

    private FirmwareSymbols(Map<String, Symbol> byName, int wordSize, String source) {
        this(byName, wordSize, source, null);
    }

    private FirmwareSymbols(Map<String, Symbol> byName, int wordSize, String source, Boolean littleEndian) {
        this.byName = byName;
        this.wordSize = wordSize;
        this.source = source;
        this.littleEndian = littleEndian;
        for (Symbol s : byName.values()) {
            byAddress.computeIfAbsent(s.address(), k -> new ArrayList<>()).add(s);
        }
    }

    /** The file the symbols came from. */
    public String source() {
        return source;
    }

    /** Word size implied by the address width: 4 or 8 bytes. */
    public int wordSize() {
        return wordSize;
    }

    /** Byte order from an ELF header ({@code EI_DATA}), or {@code null} when the input does not tell. */
    public Boolean littleEndian() {
        return littleEndian;
    }

    /** Number of symbols. */
    public int size() {
        return byName.size();
    }

    /** The symbol called {@code name}, or {@code null}. */
    public Symbol get(String name) {
        return byName.get(name);
    }

    /** Address of {@code name}, or {@code -1}. */
    public long address(String name) {
        Symbol s = byName.get(name);
        return s == null ? -1 : s.address();
    }

    /**
     * The symbols starting exactly at {@code address} (several names can share one address, e.g. aliases).
     */
    public List<Symbol> at(long address) {
        return byAddress.getOrDefault(address, List.of());
    }

    /**
     * True when {@code address} lies between the lowest and the highest symbol (its end when sized): the firmware's
     * code, ROM data, RAM sections and the linker's stack symbols, as opposed to peripheral registers and other
     * memory the build knows nothing of.
     */
    public boolean inFirmwareSpan(long address) {
        if (byAddress.isEmpty()) {
            return false;
        }
        if (spanEnd < 0) {
            long end = 0;
            for (Symbol s : byName.values()) {
                end = Math.max(end, s.address() + Math.max(0, s.size()));
            }
            spanEnd = end;
        }
        return address >= byAddress.firstKey() && address <= spanEnd;
    }

    /**
     * The architectural region of {@code address} on an Arm Cortex-M build (the ARMv7-M / ARMv8-M memory map: code,
     * SRAM, peripheral, external RAM, external device, private peripheral bus, vendor), or {@code null} when the
     * symbols are not those of a Cortex-M build (none of {@code Reset_Handler}, {@code HardFault_Handler},
     * {@code SysTick_Handler}) or the word size is not 4.
     */
    public String cortexMRegion(long address) {
        if (wordSize != 4 || (get("Reset_Handler") == null && get("HardFault_Handler") == null
            && get("SysTick_Handler") == null)) {
            return null;
        }
        long a = address & 0xffffffffL;
        if (a < 0x20000000L) {
            return "Cortex-M code region";
        } else if (a < 0x40000000L) {
            return "Cortex-M SRAM region";
        } else if (a < 0x60000000L) {
            return "Cortex-M peripheral region";
        } else if (a < 0xa0000000L) {
            return "Cortex-M external RAM region";
        } else if (a < 0xe0000000L) {
            return "Cortex-M external device region";
        } else if (a < 0xe0100000L) {
            return "Cortex-M private peripheral bus";
        }
        return "Cortex-M vendor-specific region";
    }

    private long spanEnd = -1;

    /** The lowest symbol address above {@code address}, or {@code -1}. */
    public long nextAddressAfter(long address) {
        Long next = byAddress.higherKey(address);
        return next == null ? -1 : next;
    }

    /**
     * The name of a type object at {@code address}: the {@code mp_type_*} symbol there if any, else any
     * symbol there, else {@code null}.
     */
    public String typeSymbolAt(long address) {
        List<Symbol> list = byAddress.get(address);
        if (list == null) {
            return null;
        }
        String best = null;
        for (Symbol s : list) {
            if (s.name().startsWith("mp_type_")) {
                return s.name();
            }
            if (best == null && s.size() != 0) {
                best = s.name();
            }
        }
        return best;
    }

    /**
     * Reads {@code nm -S} text or a GNU ld map (optionally gzip-compressed), recognised by content.
     *
     * @throws DumpFormatException when the file is an ELF (not supported) or has no symbols
     */
    public static FirmwareSymbols read(Path file) throws IOException {
        byte[] bytes = MemoryImage.readImage(file);
        String name = file.toString();
        if (bytes.length >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') {
            return parseElf(bytes, name);
        }
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        FirmwareSymbols symbols = text.contains("Linker script and memory map") ? parseMap(text, name) : parseNm(text, name);
        if (symbols.size() == 0) {
            throw new DumpFormatException(name, 0, "has no symbols (expected `nm -S` output or a GNU ld map)");
        }
        return symbols;
    }

    static FirmwareSymbols parseElf(byte[] bytes, String source) throws DumpFormatException {
        Map<String, Symbol> byName = new HashMap<>();
        net.fornwall.jelf.ElfFile elf;
        try {
            elf = net.fornwall.jelf.ElfFile.from(bytes);
            net.fornwall.jelf.ElfSymbolTableSection symtab = elf.getSymbolTableSection();
            if (symtab == null) {
                throw new DumpFormatException(source, 0, "is an ELF file without a symbol table (stripped?): give the "
                    + "unstripped firmware, `nm -S` output of it, or the linker map");
            }
            for (net.fornwall.jelf.ElfSymbol sym : symtab.symbols) {
                int type = sym.getType();
                if (sym.st_shndx == 0 || type == net.fornwall.jelf.ElfSymbol.STT_SECTION
                    || type == net.fornwall.jelf.ElfSymbol.STT_FILE) {
                    continue;
                }
                String name = sym.getName();
                if (name == null || name.isEmpty()) {
                    continue;
                }
                put(byName, new Symbol(stripLto(name), sym.st_value, sym.st_size));
            }
        } catch (net.fornwall.jelf.ElfException | IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new DumpFormatException(source, -1, "broken ELF file: " + e.getMessage());
        }
        return new FirmwareSymbols(byName, elf.ei_class == net.fornwall.jelf.ElfFile.CLASS_64 ? 8 : 4, source,
            elf.ei_data == net.fornwall.jelf.ElfFile.DATA_LSB);
    }

    private static final Pattern NM = Pattern.compile("^([0-9a-fA-F]{8}|[0-9a-fA-F]{16})(?: ([0-9a-fA-F]+))? ([A-Za-z]) (\\S+)$");

    static FirmwareSymbols parseNm(String text, String source) throws DumpFormatException {
        Map<String, Symbol> byName = new HashMap<>();
        int width = 0;
        long offset = 0;
        for (String line : text.split("\n", -1)) {
            String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            Matcher m = NM.matcher(l);
            if (m.matches()) {
                char type = m.group(3).charAt(0);
                if (type == 'U') {
                    offset += line.length() + 1;
                    continue;
                }
                width = Math.max(width, m.group(1).length());
                long address = Long.parseUnsignedLong(m.group(1), 16);
                long size = m.group(2) == null ? -1 : Long.parseUnsignedLong(m.group(2), 16);
                put(byName, new Symbol(stripLto(m.group(4)), address, size));
            } else if (!l.isBlank() && byName.isEmpty() && offset > 4096) {
                throw new DumpFormatException(source, 0, "is neither `nm -S` output nor a GNU ld map");
            }
            offset += line.length() + 1;
        }
        return new FirmwareSymbols(byName, width == 16 ? 8 : 4, source);
    }

    private static final Pattern SECTION_ONLY = Pattern.compile("^ (\\.[^\\s*(]+)\\s*$");
    private static final Pattern SECTION_LINE = Pattern.compile("^ (\\.[^\\s*(]+)\\s+0x([0-9a-fA-F]+)\\s+0x([0-9a-fA-F]+)\\s+\\S.*$");
    private static final Pattern ADDRESS_SIZE = Pattern.compile("^\\s+0x([0-9a-fA-F]+)\\s+0x([0-9a-fA-F]+)\\s+\\S.*$");
    private static final Pattern SYMBOL_LINE = Pattern.compile("^\\s+0x([0-9a-fA-F]+)\\s+([A-Za-z_$][A-Za-z0-9_.$]*)\\s*$");
    private static final Pattern ASSIGNMENT = Pattern.compile("^\\s+0x([0-9a-fA-F]+)\\s+(?:PROVIDE \\()?([A-Za-z_][A-Za-z0-9_]*) = .*$");
    private static final String[] SECTION_PREFIXES = {".data.rel.ro.local.", ".data.rel.ro.", ".data.rel.local.",
        ".rodata.", ".bss.", ".sbss.", ".data.", ".sdata.", ".text."};

    static FirmwareSymbols parseMap(String text, String source) {
        Map<String, Symbol> byName = new HashMap<>();
        Map<String, Symbol> sectionSymbols = new HashMap<>();
        String[] lines = text.split("\r?\n", -1);
        int i = 0;
        while (i < lines.length && !lines[i].startsWith("Linker script and memory map")) {
            i++;
        }
        int width = 0;
        String pendingSection = null;
        long sectionAddress = -1;
        long sectionSize = -1;
        for (; i < lines.length; i++) {
            String l = lines[i];
            if (l.startsWith("Cross Reference Table")) {
                break;
            }
            Matcher m;
            if ((m = SECTION_LINE.matcher(l)).matches()) {
                pendingSection = null;
                sectionAddress = Long.parseUnsignedLong(m.group(2), 16);
                sectionSize = Long.parseUnsignedLong(m.group(3), 16);
                width = Math.max(width, m.group(2).length());
                section(sectionSymbols, m.group(1), sectionAddress, sectionSize);
            } else if ((m = SECTION_ONLY.matcher(l)).matches()) {
                pendingSection = m.group(1);
            } else if (pendingSection != null && (m = ADDRESS_SIZE.matcher(l)).matches()) {
                sectionAddress = Long.parseUnsignedLong(m.group(1), 16);
                sectionSize = Long.parseUnsignedLong(m.group(2), 16);
                width = Math.max(width, m.group(1).length());
                section(sectionSymbols, pendingSection, sectionAddress, sectionSize);
                pendingSection = null;
            } else if ((m = SYMBOL_LINE.matcher(l)).matches()) {
                long address = Long.parseUnsignedLong(m.group(1), 16);
                width = Math.max(width, m.group(1).length());
                long size = address == sectionAddress ? sectionSize : -1;
                put(byName, new Symbol(stripLto(m.group(2)), address, size));
            } else if ((m = ASSIGNMENT.matcher(l)).matches()) {
                // linker script symbols such as _sdata = . and _estack = ORIGIN (RAM) + LENGTH (RAM)
                put(byName, new Symbol(m.group(2), Long.parseUnsignedLong(m.group(1), 16), -1));
                pendingSection = null;
            } else {
                pendingSection = null;
            }
        }
        for (Symbol s : sectionSymbols.values()) {
            byName.putIfAbsent(s.name(), s);
        }
        return new FirmwareSymbols(byName, width >= 16 ? 8 : 4, source);
    }

    private static void section(Map<String, Symbol> out, String section, long address, long size) {
        if (size == 0) {
            return;
        }
        for (String prefix : SECTION_PREFIXES) {
            if (section.startsWith(prefix) && section.length() > prefix.length()) {
                String name = stripLto(section.substring(prefix.length()));
                if (name.indexOf('.') >= 0) {
                    return; // string literal pools (.rodata.foo.str1.1) and other compiler sections
                }
                out.putIfAbsent(name, new Symbol(name, address, size));
                return;
            }
        }
    }

    private static void put(Map<String, Symbol> byName, Symbol s) {
        Symbol old = byName.get(s.name());
        if (old == null || old.size() < 0 && s.size() >= 0) {
            byName.put(s.name(), s);
        }
    }

    static String stripLto(String name) {
        int i = name.indexOf(".lto_priv.");
        return i > 0 ? name.substring(0, i) : name;
    }
}
