package dev.heapload.micropython;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The interned strings (qstrs) of a MicroPython VM, decoded from the pool chain in RAM
 * ({@code mp_state_ctx.vm.last_pool -> prev -> ...}), per shared/docs/formats/micropython-gc-heap.md §7:
 * <ul>
 *   <li>v1.19+ (commit 18b1ba086c): pool {@code {prev, total_prev_len (MSB = is_sorted since v1.22), alloc,
 *       len, [hashes*], lengths*, qstrs[alloc]}}; {@code qstrs[i]} points at the bare NUL-terminated
 *       characters;</li>
 *   <li>v1.18 and older: {@code {prev, total_prev_len, alloc, len, qstrs[alloc]}}; {@code qstrs[i]} points at
 *       {@code [hash][len][chars]\0} (hash 2 bytes on MicroPython v1.18, 1 on CircuitPython; length 1 byte),
 *       detected from the data.</li>
 * </ul>
 * The pools of the firmware image ({@code mp_qstr_const_pool} …) are in ROM; without a ROM image their qstrs
 * are only known by number ({@link #display} gives {@code qstr#N}).
 */
public final class QstrPools {

    /** ROM pool symbols that end the chain. */
    static final String[] ROM_POOLS = {"mp_qstr_const_pool", "mp_qstr_frozen_const_pool", "mp_qstr_const_pool_static"};

    /** One pool: {@code qstrsAddress} is the address of {@code qstrs[0]}. */
    public record Pool(long address, long totalPrevLen, long alloc, long len, long qstrsAddress) {
    }

    private final MemoryImage mem;
    private final List<Pool> pools;
    private final boolean legacy;
    private final int legacyHashBytes;
    private final long lastPool;
    private final int ramPools;
    private final Map<Long, String> cache = new HashMap<>();

    private QstrPools(MemoryImage mem, List<Pool> pools, int ramPools, boolean legacy, int legacyHashBytes,
                      long lastPool) {
        this.mem = mem;
        this.pools = pools;
        this.ramPools = ramPools;
        this.legacy = legacy;
        this.legacyHashBytes = legacyHashBytes;
        this.lastPool = lastPool;
    }

    /** An empty table (no pool found). */
    static QstrPools none(MemoryImage mem) {
        return new QstrPools(mem, List.of(), 0, false, 0, -1);
    }

    /** The pools in RAM, newest first (the ROM pools the dump holds are read for their texts, not listed). */
    public List<Pool> pools() {
        return pools.subList(0, ramPools);
    }

    /** True for the v1.18-and-older pool format. */
    public boolean legacyFormat() {
        return legacy;
    }

    /** The value of {@code vm.last_pool}, or {@code -1} when not found. */
    public long lastPool() {
        return lastPool;
    }

    /** True when {@code address} is a ROM pool's hash table ({@code mp_qstr_const_hashes…}). */
    private static boolean isHashTable(FirmwareSymbols symbols, long address) {
        for (FirmwareSymbols.Symbol s : symbols.at(address)) {
            if (s.name().startsWith("mp_qstr_const_hashes") || s.name().startsWith("mp_qstr_frozen_const_hashes")) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code address} is a ROM pool symbol. */
    static boolean isRomPool(FirmwareSymbols symbols, long address) {
        for (String name : ROM_POOLS) {
            if (symbols.address(name) == address) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code candidate} is a {@code last_pool} value: a ROM pool, or a chain of RAM pools whose
     * {@code prev} ends at a ROM pool within 256 steps.
     */
    static boolean isPoolChain(MemoryImage mem, FirmwareSymbols symbols, long candidate, java.util.function.LongPredicate isHeapHead) {
        long p = candidate;
        for (int steps = 0; steps < 256 && p > 0; steps++) {
            if (isRomPool(symbols, p)) {
                return true;
            }
            if (!isHeapHead.test(p)) {
                return false;
            }
            p = mem.word(p);
        }
        return false;
    }

    /** Decodes the chain starting at {@code lastPool} (a value for which {@link #isPoolChain} is true). */
    static QstrPools read(MemoryImage mem, FirmwareSymbols symbols, long lastPool) {
        int w = mem.wordSize();
        long msbMask = w == 8 ? Long.MAX_VALUE : 0x7fffffffL;
        // v1.22+ packs `size_t total_prev_len : (W*8 - 1); size_t is_sorted : 1;` into one word. GCC allocates bit
        // fields from the least significant bit on little-endian targets (is_sorted is the MSB) and from the most
        // significant bit on big-endian ones (is_sorted is bit 0, total_prev_len the word shifted right by one).
        // Before v1.22 the word is a plain size_t. The bit field came with the sorted static pool, whose symbol
        // mp_qstr_const_pool_static tells the layout (v1.22+ per py/qstr.h).
        boolean shiftedTotal = !mem.littleEndian() && symbols.get("mp_qstr_const_pool_static") != null;
        List<Pool> pools = new ArrayList<>();
        boolean legacy = symbols.get("mp_qstr_const_hashes") == null && symbols.get("mp_qstr_const_lengths") == null;
        boolean formatKnown = false;
        long p = lastPool;
        while (p > 0 && !isRomPool(symbols, p) && pools.size() < 256) {
            long alloc = mem.word(p + 2L * w);
            long len = mem.word(p + 3L * w);
            long h4 = mem.word(p + 4L * w);
            long qstrs;
            if (h4 == p + 6L * w + alloc * w) {
                qstrs = p + 6L * w;
                legacy = false;
                formatKnown = true;
            } else if (h4 == p + 5L * w + alloc * w) {
                qstrs = p + 5L * w;
                legacy = false;
                formatKnown = true;
            } else {
                qstrs = p + 4L * w;
                if (!formatKnown) {
                    legacy = true;
                    formatKnown = true;
                }
            }
            long totalWord = mem.word(p + w);
            pools.add(new Pool(p, shiftedTotal ? totalWord >>> 1 : totalWord & msbMask, alloc, len, qstrs));
            p = mem.word(p);
        }
        int ramPools = pools.size();
        // ROM pools whose bytes the dump holds (heapload_gdb.py's rom.bin): same header, their hashes and lengths in
        // arrays of their own (v1.19+: mp_qstr_const_hashes / _lengths, so the qstrs follow 6 header words, 5
        // without hashes; v1.18: 4 header words)
        while (p > 0 && isRomPool(symbols, p) && mem.isMapped(p, 4 * w) && pools.size() < 256) {
            long qstrs = legacy ? p + 4L * w : p + (isHashTable(symbols, mem.word(p + 4L * w)) ? 6L : 5L) * w;
            long alloc = mem.word(p + 2L * w);
            long len = mem.word(p + 3L * w);
            if (len < 0 || len > 1 << 20 || !mem.isMapped(qstrs, (int) (len * w))) {
                break;
            }
            long totalWord = mem.word(p + w);
            pools.add(new Pool(p, shiftedTotal ? totalWord >>> 1 : totalWord & msbMask, alloc, len, qstrs));
            p = mem.word(p);
        }
        int hashBytes = 2;
        if (legacy) {
            hashBytes = detectLegacyHashBytes(mem, pools);
        }
        return new QstrPools(mem, pools, ramPools, legacy, hashBytes, lastPool);
    }

    private static int detectLegacyHashBytes(MemoryImage mem, List<Pool> pools) {
        int[] votes = new int[3];
        int w = mem.wordSize();
        for (Pool pool : pools) {
            for (int i = 0; i < Math.min(pool.len(), 16); i++) {
                long s = mem.word(pool.qstrsAddress() + (long) i * w);
                for (int hb = 1; hb <= 2; hb++) {
                    int n = mem.u8(s + hb);
                    if (n >= 0 && mem.u8(s + hb + 1 + n) == 0 && djb2(mem.bytes(s + hb + 1, n), hb) == hash(mem, s, hb)) {
                        votes[hb]++;
                    }
                }
            }
        }
        return votes[1] > votes[2] ? 1 : 2;
    }

    /** The hash in front of a v1.18 qstr: low byte first on every target (py/qstr.c Q_GET_HASH, byte by byte). */
    private static int hash(MemoryImage mem, long s, int bytes) {
        int lo = mem.u8(s);
        if (bytes == 1 || lo < 0) {
            return lo;
        }
        int hi = mem.u8(s + 1);
        return hi < 0 ? -1 : lo | (hi << 8);
    }

    /** The qstr hash (djb2 variant of py/qstr.c {@code qstr_compute_hash}) masked to {@code bytes} bytes. */
    static int djb2(byte[] data, int bytes) {
        if (data == null) {
            return -2;
        }
        long h = 5381;
        for (byte b : data) {
            h = (h * 33) ^ (b & 0xff);
        }
        long mask = bytes == 1 ? 0xff : 0xffff;
        h &= mask;
        if (h == 0) {
            h = 1;
        }
        return (int) h;
    }

    /** The text of qstr {@code q}, or {@code null} when it lives in ROM (or is out of range). */
    public String text(long q) {
        if (cache.containsKey(q)) {
            return cache.get(q);
        }
        String s = null;
        int w = mem.wordSize();
        for (Pool pool : pools) {
            if (pool.totalPrevLen() <= q) {
                long i = q - pool.totalPrevLen();
                if (i < pool.len()) {
                    long at = mem.word(pool.qstrsAddress() + i * w);
                    s = legacy ? legacyString(at) : cString(at);
                }
                break;
            }
        }
        cache.put(q, s);
        return s;
    }

    /**
     * The first static qstrs of v1.19 and later (py/makeqstrdata.py's {@code static_qstr_list}): qstr 1 to 55 have these
     * texts on every build, since .mpy files leave them out.
     */
    private static final String[] STATIC = {"", "__dir__", "\n", " ", "*", "/", "<module>", "_", "__call__", "__class__",
        "__delitem__", "__enter__", "__exit__", "__getattr__", "__getitem__", "__hash__", "__init__", "__int__",
        "__iter__", "__len__", "__main__", "__module__", "__name__", "__new__", "__next__", "__qualname__", "__repr__",
        "__setitem__", "__str__", "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "EOFError",
        "Ellipsis", "Exception", "GeneratorExit", "ImportError", "IndentationError", "IndexError", "KeyError",
        "KeyboardInterrupt", "LookupError", "MemoryError", "NameError", "NoneType", "NotImplementedError", "OSError",
        "OverflowError", "RuntimeError", "StopIteration", "SyntaxError", "SystemExit", "TypeError", "ValueError"};

    /**
     * The text of qstr {@code q}: from the pools in the dump, else (v1.19+) one of the first static qstrs, whose numbers
     * every build shares; else {@code qstr#q} (a ROM qstr the dump does not hold).
     */
    public String display(long q) {
        String s = text(q);
        if (s == null && !legacy && q >= 1 && q <= STATIC.length) {
            return STATIC[(int) q - 1];
        }
        return s != null ? s : "qstr#" + q;
    }

    private String cString(long at) {
        int n = 0;
        while (n < 4096) {
            int c = mem.u8(at + n);
            if (c <= 0) {
                break;
            }
            n++;
        }
        byte[] b = mem.bytes(at, n);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private String legacyString(long at) {
        int n = mem.u8(at + legacyHashBytes);
        if (n < 0) {
            return null;
        }
        byte[] b = mem.bytes(at + legacyHashBytes + 1, n);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
