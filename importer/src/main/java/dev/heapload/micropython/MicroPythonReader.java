package dev.heapload.micropython;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.SnapshotInfo;

/**
 * Reads a MicroPython (v1.18 .. current) RAM dump into the heap model, using only the firmware's symbols
 * (address and size of {@code mp_state_ctx}, the {@code mp_type_*} type objects, the ROM qstr pools) and the
 * memory images; no struct offset is hard-coded. Facts: shared/docs/formats/micropython-gc-heap.md ("the
 * notes").
 *
 * <h2>Heap</h2>
 * The areas are found by {@link GcHeapLocator} (notes §3), the allocation table decoded (notes §1: 2 bits per
 * block, LSB first, 0 free, 1 head, 2 tail, 3 mark), and each HEAD with its following TAILs is one
 * allocation = one object of the model. Shallow size = blocks × block size (what the GC charges).
 *
 * <h2>Types</h2>
 * The first word of an allocation names its type (notes §6): a firmware symbol {@code mp_type_X} gives type
 * {@code X} ({@code fun_bc} → {@code function}, {@code bound_meth} → {@code bound_method},
 * {@code gen_instance} → {@code generator}); a heap block whose own first word is {@code &mp_type_type} is a
 * user class, and its instances get the class's name (qstr at offset W+2 of the type object) as type; the
 * class itself has type {@code type} and its name as label. Allocations that are not objects are typed by
 * their owner: {@code map_table} (dict, instance and module-globals tables at +3W), {@code list_items},
 * {@code str_data}, {@code bytes_data}, {@code array_data}, {@code set_table}, {@code mpz_digits},
 * {@code bytecode}, {@code child_table} / {@code const_table} (bytecode functions, v1.19+ / v1.18 layout),
 * {@code qstr_pool}, {@code qstr_chunk}, and the compiled code and frames reached from them: {@code module_context},
 * {@code module_constants}, {@code raw_code}, {@code traceback}, {@code code_state} (a running function's frame on the
 * heap, told by its content); anything else is {@code raw}. asyncio's {@code task_type} and {@code task_queue_type} are
 * {@code Task} and {@code TaskQueue}.
 *
 * <h2>References</h2>
 * The GC's own conservative rule (notes §5): every word of the whole block run whose value is block aligned
 * and points at a HEAD (or MARK) block of any area is a reference. Words pointing into a pool but not at a
 * head are counted as interior pointers, not references. On builds with a weak-reference table (v1.28+),
 * a word {@code ptr | 1} with {@code ptr} a head is a {@link HeapSnapshot#WEAK weak} reference (weakref
 * objects and {@code vm.mp_weakref_map} store their targets so). Kinds: {@code key} / {@code value} in map
 * tables (values named by the key: a qstr or str key's text with key type string, a small int in brackets, {@code [3]},
 * with key type number), {@code item} in list and tuple items, {@code weak}; {@code field} named by the struct's field
 * for objects whose layout is known ({@link ObjectLayouts}: from the firmware's debug info, else built in), {@code local}
 * and {@code stack} (with their frame) in a running frame's {@code state[]}; else {@code ref}.
 *
 * <h2>Roots</h2>
 * The words of {@code mp_state_ctx} from its start to {@code vm.qstr_last_chunk} (the GC scans from
 * {@code thread.dict_locals}; the few words before it hold the stack top and limit, never heap pointers),
 * named by their field with debug info ({@code mp_state_ctx.vm.cur_exception}), else
 * {@code mp_state_ctx.vm.last_pool}, {@code mp_state_ctx.vm.mp_loaded_modules_dict.map.table},
 * {@code mp_state_ctx.vm.dict_main.map.table} where recognised, else {@code mp_state_ctx+OFFSET} (decimal
 * bytes); and the C stack {@code [sp, thread.stack_top)}: a word in a running frame's code_state
 * {@code frame NAME (FILE:LINE) local ARG}, a pointer to a frame on the heap {@code frame NAME (FILE:LINE) (code_state,
 * stack+OFFSET)}, an nlr buffer's return value (with debug info) {@code nlr_buf[i].ret_val (stack+OFFSET)}, else
 * {@code stack+OFFSET} from its start. The
 * stack range: an image that ends at {@code stack_top} (hosted dumps), else (seed-style RAM dumps) the
 * {@code thread.stack_limit} bytes below {@code stack_top}, or an explicit start (the {@code sp} register).
 */
public final class MicroPythonReader {

    /**
     * Overrides; zero / negative values mean "derive from the inputs".
     *
     * @param gcPhase       the phase of a garbage collection running at the dump ({@link GcCollection#PHASE_MARK} …),
     *                      as the dumper read it from the backtrace, or {@code null} (then only MARK blocks tell one)
     * @param gcPhaseSource where {@code gcPhase} comes from (shown in the warning), or {@code null}
     * @param layouts       struct layouts from the firmware's debug info (heapload_gdb.py's {@code layouts.json}), or
     *                      {@code null}: the built-in ones name what they can
     */
    public record Options(int wordSize, int bytesPerBlock, long stackStart, Boolean eightDigitOffsets,
                          Boolean littleEndian, String gcPhase, String gcPhaseSource, ObjectLayouts layouts) {
        /** No overrides. */
        public static final Options DEFAULT = new Options(0, 0, -1, null, null);

        /** Overrides without a collection phase or struct layouts. */
        public Options(int wordSize, int bytesPerBlock, long stackStart, Boolean eightDigitOffsets, Boolean littleEndian) {
            this(wordSize, bytesPerBlock, stackStart, eightDigitOffsets, littleEndian, null, null, null);
        }

        /** These options with the collection phase {@code phase} (or none) read from {@code source}. */
        public Options withGcPhase(String phase, String source) {
            return new Options(wordSize, bytesPerBlock, stackStart, eightDigitOffsets, littleEndian, phase, source,
                layouts);
        }

        /** These options with the struct layouts of the firmware's debug info ({@code layouts.json}), or none. */
        public Options withLayouts(ObjectLayouts newLayouts) {
            return new Options(wordSize, bytesPerBlock, stackStart, eightDigitOffsets, littleEndian, gcPhase,
                gcPhaseSource, newLayouts);
        }
    }

    private static final byte FREE = 0;
    private static final byte HEAD = 1;
    private static final byte TAIL = 2;
    private static final byte MARK = 3;

    private final FirmwareSymbols symbols;
    private final Options options;
    private MemoryImage mem;
    private int w;
    private int bpb;
    private List<GcHeapArea> areas;
    private byte[][] kinds;
    private int[][] allocAt; // per area, per block: allocation index at a head block, -1 otherwise
    // allocations
    private int count;
    private long[] address;
    private int[] blocks;
    private int[] areaOf;
    private int[] blockOf;
    private String[] type;
    private String[] label;
    private byte[] role;
    private long typeType;
    private final List<String> warnings = new ArrayList<>();

    private static final byte ROLE_OBJECT = 0;
    private static final byte ROLE_MAP_TABLE = 1;
    private static final byte ROLE_LIST_ITEMS = 2;
    private static final byte ROLE_OTHER_RAW = 3;

    private MicroPythonReader(FirmwareSymbols symbols, Options options) {
        this.symbols = symbols;
        this.options = options;
    }

    /**
     * Reads a dump.
     *
     * @param image      the RAM images (word size 0 = take it from the symbols)
     * @param symbols    the firmware symbols
     * @param options    overrides
     * @param snapshotId id of the snapshot
     * @param source     the input as given (e.g. the regions.json path), for messages and metadata
     * @throws DumpFormatException one line naming the file and what did not match
     */
    public static MicroPythonDump read(MemoryImage image, FirmwareSymbols symbols, Options options, String snapshotId,
                                       String source) throws DumpFormatException {
        return new MicroPythonReader(symbols, options).run(image, snapshotId, source);
    }

    private MicroPythonDump run(MemoryImage image, String snapshotId, String source) throws DumpFormatException {
        int ws = options.wordSize() > 0 ? options.wordSize() : image.wordSize() > 0 ? image.wordSize() : symbols.wordSize();
        if (options.wordSize() <= 0 && image.wordSize() > 0 && image.wordSize() != symbols.wordSize()) {
            throw new DumpFormatException(symbols.source(), -1, "has " + symbols.wordSize() * 8
                + "-bit addresses but the memory images are described as " + image.wordSize() * 8
                + "-bit (word_size " + image.wordSize() + "): symbols from another build?");
        }
        boolean little = options.littleEndian() != null ? options.littleEndian()
            : symbols.littleEndian() != null ? symbols.littleEndian() : image.littleEndian();
        mem = image.with(ws, little);
        w = ws;
        bpb = options.bytesPerBlock() > 0 ? options.bytesPerBlock() : 4 * w;

        FirmwareSymbols.Symbol ctx = symbols.get("mp_state_ctx");
        if (ctx == null) {
            throw new DumpFormatException(symbols.source(), -1,
                "has no symbol mp_state_ctx: not the symbols of a MicroPython build (or stripped)");
        }
        long ctxSize = ctx.size() > 0 ? ctx.size() : sizeFromNextSymbol(ctx);
        if (!mem.isMapped(ctx.address(), (int) ctxSize)) {
            throw notCovered(source, "mp_state_ctx", ctx.address(), ctxSize);
        }
        typeType = symbols.address("mp_type_type");
        GcHeapLocator.Match match = GcHeapLocator.findArea0(mem, ctx.address(), ctxSize, bpb);
        if (match == null) {
            throw new DumpFormatException(source, -1, String.format(Locale.ROOT,
                "no GC heap area found in mp_state_ctx (0x%x, %d bytes per %s) reading %d-byte words with %d-byte "
                    + "blocks: RAM and symbols from different builds, or wrong word size?",
                ctx.address(), ctxSize, symbols.source(), w, bpb));
        }
        areas = GcHeapLocator.areas(mem, ctx.address(), match, bpb);
        for (GcHeapArea a : areas) {
            if (!mem.isMapped(a.atbStart(), a.atbLength())) {
                throw notCovered(source, "the allocation table of heap area " + a.index(), a.atbStart(), a.atbLength());
            }
            if (!mem.isMapped(a.poolStart(), (int) (a.poolEnd() - a.poolStart()))) {
                throw notCovered(source, "the pool of heap area " + a.index(), a.poolStart(), a.poolEnd() - a.poolStart());
            }
        }
        int orphanTails = decodeTables();
        int[] sideBits = countSideBits();
        classifyObjects();

        // qstr pools and the root range
        long[] ctxWords = new long[(int) (ctxSize / w)];
        for (int i = 0; i < ctxWords.length; i++) {
            ctxWords[i] = mem.word(ctx.address() + (long) i * w);
        }
        int areaField = match.wordIndex() - (areas.size() > 1 || isSplitCandidate(ctxWords, match) ? 1 : 0);
        int lastPoolIndex = -1;
        for (int i = 0; i < areaField; i++) {
            long v = ctxWords[i];
            if (v > 0 && QstrPools.isPoolChain(mem, symbols, v, this::isHead)) {
                lastPoolIndex = i;
                break;
            }
        }
        QstrPools qstrs = lastPoolIndex >= 0 ? QstrPools.read(mem, symbols, ctxWords[lastPoolIndex]) : QstrPools.none(mem);
        if (lastPoolIndex < 0) {
            warnings.add("vm.last_pool not found in mp_state_ctx: qstrs shown by number");
        }
        int rootEnd = findQstrLastChunk(ctxWords, lastPoolIndex, areaField);
        if (rootEnd < 0) {
            rootEnd = areaField;
            warnings.add("vm.qstr_last_chunk not recognised: roots taken from all of mp_state_ctx before mem.area");
        }
        layouts = options.layouts() != null ? options.layouts().orElse(ObjectLayouts.builtin(w, qstrs.legacyFormat()))
            : ObjectLayouts.builtin(w, qstrs.legacyFormat());
        frames = new RunningFrames(mem, bpb, layouts, qstrs, new RunningFrames.Heap() {
            @Override
            public int count() {
                return count;
            }

            @Override
            public int headAllocation(long v) {
                return MicroPythonReader.this.headAllocation(v);
            }

            @Override
            public long address(int a) {
                return address[a];
            }

            @Override
            public int blocks(int a) {
                return blocks[a];
            }

            @Override
            public String type(int a) {
                return type[a];
            }
        });
        nameTypes(qstrs);
        classifyRaw(qstrs);
        structs();
        frames.onHeap();
        Map<Integer, String> ctxNames = ctxFieldNames(ctxWords, lastPoolIndex, rootEnd);
        ObjectLayouts.Struct ctxLayout = layouts.fromDebugInfo() ? layouts.struct("mp_state_ctx_t") : null;
        if (ctxLayout != null) {
            for (int i = 0; i < ctxWords.length; i++) {
                String f = ctxLayout.wordName((long) i * w, w);
                if (f != null) {
                    ctxNames.put(i, "mp_state_ctx." + f);
                }
            }
        }
        for (Map.Entry<Integer, String> e : ctxNames.entrySet()) {
            if (e.getValue().endsWith(".map.table")) {
                // the tables of the static dicts in mp_state_ctx (sys.modules, __main__ globals)
                mark(ctxWords[e.getKey()], "map_table", ROLE_MAP_TABLE);
            } else if (e.getValue().endsWith("_obj.items") && e.getKey() >= 3
                && ctxWords[e.getKey() - 3] == symbols.address("mp_type_list")) {
                // the items of the static lists in mp_state_ctx (sys.argv, sys.path), named by the debug info
                mark(ctxWords[e.getKey()], "list_items", ROLE_LIST_ITEMS);
            }
        }

        // heap map letters
        boolean eight = options.eightDigitOffsets() != null ? options.eightDigitOffsets()
            : match.sideTables() > 0 ? areas.get(0).gapByte() || areas.size() > 1 : !qstrs.legacyFormat();
        HeapMap heapMap = new HeapMap(letters(), bpb, eight);

        // the model
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int[] ids = new int[count];
        for (int a = 0; a < count; a++) {
            ids[a] = b.objectId(hex(address[a]));
        }
        boolean weakBuild = areas.get(0).wtbStart() >= 0;
        int kRef = b.kind("ref");
        int kKey = b.kind("key");
        int kValue = b.kind("value");
        int kItem = b.kind("item");
        int kWeak = b.kind("weak");
        int kField = b.kind("field");
        int kLocal = b.kind("local");
        int kStack = b.kind("stack");
        Map<String, Integer> frameNames = new HashMap<>();
        List<MicroPythonDump.InteriorPointer> interior = new ArrayList<>();
        long ramStart = Long.MAX_VALUE;
        long ramEnd = 0;
        for (MemoryImage.Region r : mem.regions()) {
            if (r.contents() != null && r.contents().startsWith("ROM")) {
                continue; // read-only data dumped for its qstrs (heapload_gdb.py's rom.bin): not RAM
            }
            ramStart = Math.min(ramStart, r.base());
            ramEnd = Math.max(ramEnd, r.end());
        }
        long estack = symbols.address("_estack");
        long ramTop = Math.max(ramEnd, estack);
        long[] notReferences = new long[4]; // out of RAM, into a free block, at ram_start, at _estack
        for (int a = 0; a < count; a++) {
            b.defineObject(hex(address[a]), type[a], (long) blocks[a] * bpb, -1, label[a]);
            long base = address[a];
            int words = blocks[a] * bpb / w;
            String keyName = null;
            int keyFlag = 0;
            for (int i = 0; i < words; i++) {
                long v = mem.word(base + (long) i * w);
                int target = headAllocation(v);
                if (role[a] == ROLE_MAP_TABLE && (i & 1) == 0) {
                    keyName = keyText(v, qstrs);
                    keyFlag = HeapSnapshot.keyTypeFlag((v & 7) != 2 && (v & 1) == 1 ? HeapSnapshot.KEY_NUMBER
                        : HeapSnapshot.KEY_STRING);
                }
                if (target < 0 && v != 0 && v % w == 0) {
                    // word-aligned, so no tagged small int, qstr or immediate object
                    if (v == ramStart) {
                        notReferences[2]++;
                    } else if (v == estack) {
                        notReferences[3]++;
                    } else if (v % bpb == 0 && inAnyPool(v) && isFreeBlock(v)) {
                        notReferences[1]++;
                    } else if (v > ramStart && v < ramTop && !mem.isMapped(v, 1)) {
                        notReferences[0]++;
                    }
                }
                if (target >= 0) {
                    if (role[a] == ROLE_MAP_TABLE) {
                        if ((i & 1) == 0) {
                            b.addReference(ids[target], kKey, HeapSnapshot.NO_NAME, 0);
                        } else {
                            b.addReference(ids[target], kValue, keyName == null ? HeapSnapshot.NO_NAME : b.name(keyName),
                                keyName == null ? 0 : keyFlag);
                        }
                    } else {
                        String[] named = wordName(a, (long) i * w);
                        if (named == null) {
                            boolean item = role[a] == ROLE_LIST_ITEMS || ("tuple".equals(type[a]) && i >= 2);
                            b.addReference(ids[target], item ? kItem : kRef, HeapSnapshot.NO_NAME, 0);
                        } else {
                            int kind = named[0].equals("local") ? kLocal : named[0].equals("stack") ? kStack : kField;
                            int r = b.addReference(ids[target], kind, b.name(named[1]), 0);
                            if (named[2] != null) {
                                b.setReferenceFrame(r, frameNames.computeIfAbsent(named[2], b::name));
                            }
                        }
                    }
                } else if ((v & 1) == 0 && inAnyPool(v)) {
                    int into = containingAllocation(v);
                    interior.add(new MicroPythonDump.InteriorPointer(base, (long) i * w, v,
                        into >= 0 && blockIndex(v) < blockOf[into] + blocks[into] ? address[into] : -1));
                } else if (weakBuild && (v & 1) == 1 && (target = headAllocation(v - 1)) >= 0) {
                    String name = role[a] == ROLE_MAP_TABLE && (i & 1) == 1 ? keyName : null;
                    b.addReference(ids[target], kWeak, name == null ? HeapSnapshot.NO_NAME : b.name(name),
                        HeapSnapshot.WEAK | (name == null ? 0 : keyFlag));
                }
            }
        }

        // roots: mp_state_ctx root range, then the stack
        boolean[] isRoot = new boolean[count];
        for (int i = 0; i < rootEnd; i++) {
            int target = headAllocation(ctxWords[i]);
            if (target >= 0 && !isRoot[target]) {
                isRoot[target] = true;
                b.addRoot(ctxNames.getOrDefault(i, "mp_state_ctx+" + (long) i * w), ids[target]);
            }
        }
        List<String> nonRoot = new ArrayList<>();
        for (int i = rootEnd; i < ctxWords.length; i++) {
            if (headAllocation(ctxWords[i]) >= 0) {
                String name = i == rootEnd ? "mp_state_ctx.vm.qstr_last_chunk"
                    : i == match.wordIndex() + 2 + match.sideTables() ? "mp_state_ctx.mem.area.gc_pool_start"
                    : "mp_state_ctx+" + (long) i * w;
                nonRoot.add(name + "=" + hex(ctxWords[i]));
            }
        }
        long[] stack = stackRange(ctxWords, source);
        if (stack != null) {
            frames.onStack(stack, ctxWords, ctxLayout);
            // a frame's slot or an nlr buffer names a root better than its stack offset: those first
            for (int pass = 0; pass < 2; pass++) {
                for (long at = stack[0]; at + w <= stack[1]; at += w) {
                    int target = headAllocation(mem.word(at));
                    if (target >= 0 && !isRoot[target]
                        && (pass == 1 || frames.frameAt(at) != null || frames.isNlrReturnValue(at))) {
                        isRoot[target] = true;
                        b.addRoot(frames.stackRootName(at, stack[0], target), ids[target]);
                    }
                }
            }
        }
        if (orphanTails > 0) {
            warnings.add(orphanTails + " TAIL block(s) without a HEAD before them (corrupt allocation table?) ignored");
        }
        if (notReferences[0] + notReferences[1] + notReferences[2] + notReferences[3] > 0) {
            warnings.add(String.format(Locale.ROOT, "word-aligned words in allocations that look like heap pointers but are "
                    + "not references (the GC ignores them): %,d out of RAM, %,d into free blocks, %,d at ram_start (0x%x), "
                    + "%,d at _estack%s", notReferences[0], notReferences[1], notReferences[2], ramStart, notReferences[3],
                estack >= 0 ? String.format(Locale.ROOT, " (0x%x)", estack) : " (no _estack symbol)"));
        }
        List<MicroPythonDump.OutsidePointer> outside = outsidePointers();
        if (!outside.isEmpty()) {
            StringBuilder named = new StringBuilder();
            for (int i = 0; i < Math.min(5, outside.size()); i++) {
                named.append(i == 0 ? "" : ", ").append(outside.get(i).text());
            }
            warnings.add(String.format(Locale.ROOT, "%,d pointer field(s) point outside the dumped RAM and the firmware "
                + "(peripheral registers or memory not dumped; not references, nothing there is read): %s%s",
                outside.size(), named, outside.size() > 5 ? ", …" : ""));
        }
        GcFigures figures = heapMap.figures();
        long allocatedBytes = 0;
        boolean[] marked = new boolean[count];
        int markedCount = 0;
        for (int a = 0; a < count; a++) {
            allocatedBytes += (long) blocks[a] * bpb;
            marked[a] = kinds[areaOf[a]][blockOf[a]] == MARK;
            markedCount += marked[a] ? 1 : 0;
        }
        boolean collecting = markedCount > 0 || options.gcPhase() != null;
        // mid-collection, gc_info's used leaves out the MARK heads: the total is every allocation's blocks
        SnapshotInfo info = new SnapshotInfo(snapshotId, "micropython", source, mem.sha256(),
            collecting ? allocatedBytes : figures.usedBytes(), Map.of(), warnings);
        HeapSnapshot snapshot = b.build(info);
        GcCollection collection = null;
        if (collecting) {
            collection = collection(snapshot, heapMap, ids, marked, isRoot);
            List<String> all = new ArrayList<>(warnings);
            all.add(0, collection.warning(count));
            snapshot = snapshot.withInfo(info.withWarnings(all));
        }

        List<MicroPythonDump.Allocation> allocations = new ArrayList<>(count);
        for (int a = 0; a < count; a++) {
            allocations.add(new MicroPythonDump.Allocation(address[a], blocks[a], (long) blocks[a] * bpb, areaOf[a],
                blockOf[a], type[a], (char) heapMap.areas().get(areaOf[a]).letters()[blockOf[a]], label[a]));
        }
        return new MicroPythonDump(snapshot, areas, heapMap, allocations, qstrs, interior, nonRoot, sideBits[1],
            sideBits[0], orphanTails, stack, notReferences, outside, collection);
    }

    /**
     * Pointer fields of objects whose layout is known (str/bytes {@code data}, bytearray/array/memoryview/list
     * {@code items}, dict/set/instance {@code table} at +3W; a uctypes struct's {@code addr} at +2W, per extmod/moductypes.c)
     * whose value lies in no memory image and outside the firmware's symbols.
     */
    private List<MicroPythonDump.OutsidePointer> outsidePointers() {
        List<MicroPythonDump.OutsidePointer> out = new ArrayList<>();
        for (int a = 0; a < count; a++) {
            if (role[a] != ROLE_OBJECT || type[a] == null) {
                continue;
            }
            String field;
            int at;
            switch (type[a]) {
                case "str", "bytes" -> {
                    field = "data";
                    at = 3;
                }
                case "bytearray", "array", "memoryview", "list" -> {
                    field = "items";
                    at = 3;
                }
                case "dict", "set", "frozenset" -> {
                    field = "table";
                    at = 3;
                }
                case "uctypes_struct_type" -> {
                    field = "addr";
                    at = 2;
                }
                default -> {
                    if (!userTypes.containsKey(type[a])) {
                        continue;
                    }
                    field = "table";
                    at = 3;
                }
            }
            long v = mem.word(address[a] + (long) at * w);
            if (v != 0 && !mem.isMapped(v, 1) && !symbols.inFirmwareSpan(v)) {
                out.add(new MicroPythonDump.OutsidePointer(address[a], type[a], field, v, symbols.cortexMRegion(v)));
            }
        }
        return out;
    }

    /** The outcome of the collection running at the dump, from the graph as read (see {@link GcCollection}). */
    private GcCollection collection(HeapSnapshot snapshot, HeapMap heapMap, int[] ids, boolean[] marked, boolean[] isRoot) {
        int[] objectToAllocation = new int[snapshot.objectCount()];
        java.util.Arrays.fill(objectToAllocation, -1);
        for (int a = 0; a < count; a++) {
            objectToAllocation[ids[a]] = a;
        }
        int[] firstRef = new int[count + 1];
        int refs = 0;
        for (int a = 0; a < count; a++) {
            refs += snapshot.firstReference(ids[a] + 1) - snapshot.firstReference(ids[a]);
        }
        int[] targets = new int[refs];
        boolean[] weak = new boolean[refs];
        int at = 0;
        for (int a = 0; a < count; a++) {
            firstRef[a] = at;
            for (int r = snapshot.firstReference(ids[a]); r < snapshot.firstReference(ids[a] + 1); r++) {
                targets[at] = objectToAllocation[snapshot.referenceTarget(r)];
                weak[at] = snapshot.isWeak(r) || targets[at] < 0;
                if (targets[at] < 0) {
                    targets[at] = a;
                }
                at++;
            }
        }
        firstRef[count] = at;
        char[] letters = new char[count];
        for (int a = 0; a < count; a++) {
            letters[a] = letterOf(mem.word(address[a]));
        }
        return GcCollection.compute(heapMap, letters, marked, blocks, areaOf, blockOf,
            firstRef, targets, weak, isRoot, options.gcPhase(), options.gcPhaseSource());
    }

    /** A symbol without a size (map without -fdata-sections): up to the next symbol, at most 64 KiB. */
    private long sizeFromNextSymbol(FirmwareSymbols.Symbol ctx) {
        long next = symbols.nextAddressAfter(ctx.address());
        long size = next > ctx.address() ? next - ctx.address() : 4096;
        return Math.min(size, 1 << 16) / w * w;
    }

    private boolean isSplitCandidate(long[] ctxWords, GcHeapLocator.Match match) {
        // a split-heap build with one area has a NULL next pointer before the area fields: the word is not a
        // root either way, so treating it as part of the area is harmless
        return match.wordIndex() > 0 && ctxWords[match.wordIndex() - 1] == 0;
    }

    private DumpFormatException notCovered(String source, String what, long at, long size) {
        MemoryImage.Region start = mem.regionOf(at, 1);
        if (start != null) {
            return new DumpFormatException(start.file(), start.bytes().length, String.format(Locale.ROOT,
                "image ends at 0x%x but %s extends to 0x%x per the symbols (%d bytes missing): image too short, or "
                    + "symbols of another build?", start.end(), what, at + size, at + size - start.end()));
        }
        StringBuilder covered = new StringBuilder();
        for (MemoryImage.Region r : mem.regions()) {
            if (covered.length() > 0) {
                covered.append(", ");
            }
            covered.append(r.file()).append(' ').append(hex(r.base())).append("..").append(hex(r.end()));
        }
        return new DumpFormatException(source, -1, String.format(Locale.ROOT,
            "the memory images do not cover %s at 0x%x..0x%x (%d bytes, per the symbols); images: %s "
                + "(image too short, or symbols of another build?)", what, at, at + size, size, covered));
    }

    // ---- allocation table ----

    private int decodeTables() {
        kinds = new byte[areas.size()][];
        allocAt = new int[areas.size()][];
        int total = 0;
        for (GcHeapArea a : areas) {
            total += a.blocks();
        }
        address = new long[Math.max(16, total / 2)];
        blocks = new int[address.length];
        areaOf = new int[address.length];
        blockOf = new int[address.length];
        int orphans = 0;
        for (GcHeapArea a : areas) {
            byte[] atb = mem.bytes(a.atbStart(), a.atbLength());
            int n = a.blocks();
            byte[] k = new byte[n];
            int[] at = new int[n];
            java.util.Arrays.fill(at, -1);
            int current = -1;
            for (int bl = 0; bl < n; bl++) {
                k[bl] = (byte) ((atb[bl >> 2] >> (2 * (bl & 3))) & 3);
                if (k[bl] == HEAD || k[bl] == MARK) {
                    current = newAllocation(a.poolStart() + (long) bl * bpb, a.index(), bl);
                    at[bl] = current;
                } else if (k[bl] == TAIL) {
                    if (current >= 0) {
                        blocks[current]++;
                    } else {
                        orphans++;
                    }
                } else {
                    current = -1;
                }
            }
            kinds[a.index()] = k;
            allocAt[a.index()] = at;
        }
        type = new String[count];
        label = new String[count];
        role = new byte[count];
        return orphans;
    }

    private int[] countSideBits() {
        int ftb = 0;
        int wtb = 0;
        for (GcHeapArea a : areas) {
            int bytes = (a.blocks() + 7) / 8;
            if (a.ftbStart() >= 0) {
                ftb += bitCount(mem.bytes(a.ftbStart(), bytes));
            }
            if (a.wtbStart() >= 0) {
                wtb += bitCount(mem.bytes(a.wtbStart(), bytes));
            }
        }
        return new int[] {ftb, wtb};
    }

    private static int bitCount(byte[] bytes) {
        int n = 0;
        if (bytes != null) {
            for (byte x : bytes) {
                n += Integer.bitCount(x & 0xff);
            }
        }
        return n;
    }

    private int newAllocation(long addr, int area, int block) {
        if (count == address.length) {
            int n = count * 2;
            address = java.util.Arrays.copyOf(address, n);
            blocks = java.util.Arrays.copyOf(blocks, n);
            areaOf = java.util.Arrays.copyOf(areaOf, n);
            blockOf = java.util.Arrays.copyOf(blockOf, n);
        }
        address[count] = addr;
        blocks[count] = 1;
        areaOf[count] = area;
        blockOf[count] = block;
        return count++;
    }

    /** The allocation whose head block is at {@code v}, or -1 (the GC's pointer test). */
    private int headAllocation(long v) {
        if (v <= 0 || v % bpb != 0) {
            return -1;
        }
        for (GcHeapArea a : areas) {
            if (a.inPool(v)) {
                return allocAt[a.index()][(int) ((v - a.poolStart()) / bpb)];
            }
        }
        return -1;
    }

    private boolean isHead(long v) {
        return headAllocation(v) >= 0;
    }

    /** True when {@code v} lies in a pool at a FREE block. */
    private boolean isFreeBlock(long v) {
        for (GcHeapArea a : areas) {
            if (a.inPool(v)) {
                return kinds[a.index()][(int) ((v - a.poolStart()) / bpb)] == FREE;
            }
        }
        return false;
    }

    private boolean inAnyPool(long v) {
        for (GcHeapArea a : areas) {
            if (a.inPool(v)) {
                return true;
            }
        }
        return false;
    }

    // ---- types ----

    /** Symbol names of the builtin types the heap map letters distinguish. */
    private char letterOf(long firstWord) {
        String s = symbols.typeSymbolAt(firstWord);
        if (s == null) {
            return 'h';
        }
        return switch (s) {
            case "mp_type_tuple" -> 'T';
            case "mp_type_list" -> 'L';
            case "mp_type_dict" -> 'D';
            case "mp_type_str", "mp_type_bytes" -> 'S';
            case "mp_type_bytearray", "mp_type_array" -> 'A';
            case "mp_type_float" -> 'F';
            case "mp_type_fun_bc" -> 'B';
            case "mp_type_module" -> 'M';
            default -> 'h';
        };
    }

    private List<HeapMap.Area> letters() {
        List<HeapMap.Area> out = new ArrayList<>();
        for (GcHeapArea a : areas) {
            byte[] k = kinds[a.index()];
            byte[] l = new byte[k.length];
            for (int bl = 0; bl < k.length; bl++) {
                l[bl] = switch (k[bl]) {
                    case FREE -> (byte) '.';
                    case TAIL -> (byte) '=';
                    case MARK -> (byte) 'm';
                    default -> (byte) letterOf(mem.word(a.poolStart() + (long) bl * bpb));
                };
            }
            out.add(new HeapMap.Area(a.poolStart(), l));
        }
        return out;
    }

    private String builtinTypeName(long firstWord) {
        String s = symbols.typeSymbolAt(firstWord);
        if (s == null) {
            return null;
        }
        if (s.startsWith("mp_type_")) {
            String t = s.substring("mp_type_".length());
            return switch (t) {
                case "fun_bc" -> "function";
                case "bound_meth" -> "bound_method";
                case "gen_instance" -> "generator";
                case "gen_wrap" -> "generator_function";
                default -> t.startsWith("fun_builtin") ? "builtin_function" : t;
            };
        }
        if (s.endsWith("_type")) {
            // extmod/modasyncio.c's types are named task_type and task_queue_type; Python calls them Task, TaskQueue
            return switch (s) {
                case "task_type" -> "Task";
                case "task_queue_type" -> "TaskQueue";
                default -> s;
            };
        }
        return null;
    }

    /** First pass: builtin objects and user classes/instances (names filled in later). */
    private void classifyObjects() {
        for (int a = 0; a < count; a++) {
            long t = mem.word(address[a]);
            String builtin = builtinTypeName(t);
            if (builtin != null) {
                type[a] = builtin;
            } else if (typeType >= 0 && isHead(t) && mem.word(t) == typeType) {
                type[a] = "\0instance";
            } else {
                type[a] = null;
                role[a] = ROLE_OTHER_RAW;
            }
        }
    }

    private final Map<String, Integer> userTypes = new HashMap<>();

    private void nameTypes(QstrPools qstrs) {
        for (int a = 0; a < count; a++) {
            if ("type".equals(type[a])) {
                label[a] = className(address[a], qstrs);
            }
        }
        for (int a = 0; a < count; a++) {
            if ("\0instance".equals(type[a])) {
                String name = className(mem.word(address[a]), qstrs);
                // the heap model holds at most 256 type names (builtin ones, about 20 for raw blocks, classes):
                // past 120 distinct classes, instances of further classes are "object"
                if (!userTypes.containsKey(name) && userTypes.size() >= 120) {
                    name = "object";
                }
                userTypes.putIfAbsent(name, userTypes.size());
                type[a] = name;
            }
        }
    }

    private String className(long typeObject, QstrPools qstrs) {
        int q = mem.u16(typeObject + w + 2);
        return q < 0 ? "?" : qstrs.display(q);
    }

    /** Second pass: raw allocations typed by the object pointing at them, and labels. */
    private void classifyRaw(QstrPools qstrs) {
        for (int a = 0; a < count; a++) {
            String t = type[a];
            if (t == null || role[a] != ROLE_OBJECT) {
                continue;
            }
            long base = address[a];
            switch (t) {
                case "dict" -> {
                    mark(mem.word(base + 3L * w), "map_table", ROLE_MAP_TABLE);
                    label[a] = mapUsed(mem.word(base + w)) + " items";
                }
                case "list" -> {
                    mark(mem.word(base + 3L * w), "list_items", ROLE_LIST_ITEMS);
                    label[a] = mem.word(base + 2L * w) + " items";
                }
                case "str", "bytes" -> {
                    long len = mem.word(base + 2L * w);
                    long data = mem.word(base + 3L * w);
                    mark(data, t + "_data", ROLE_OTHER_RAW);
                    byte[] bytes = len >= 0 && len < 1 << 20 ? mem.bytes(data, (int) Math.min(len, 60)) : null;
                    if (bytes != null) {
                        String text = t.equals("str") ? new String(bytes, StandardCharsets.UTF_8) : bytesRepr(bytes);
                        label[a] = len > 60 ? text + "…" : text;
                    } else {
                        label[a] = len + " bytes";
                    }
                }
                case "bytearray", "array", "memoryview" -> {
                    mark(mem.word(base + 3L * w), "array_data", ROLE_OTHER_RAW);
                    label[a] = mem.word(base + 2L * w) + " items";
                }
                case "set", "frozenset" -> mark(mem.word(base + 3L * w), "set_table", ROLE_OTHER_RAW);
                case "int" -> mark(mem.word(base + 3L * w), "mpz_digits", ROLE_OTHER_RAW);
                case "function", "generator_function" -> {
                    if (qstrs.legacyFormat()) {
                        mark(mem.word(base + 2L * w), "bytecode", ROLE_OTHER_RAW);
                        mark(mem.word(base + 3L * w), "const_table", ROLE_OTHER_RAW);
                    } else {
                        mark(mem.word(base + 2L * w), "child_table", ROLE_OTHER_RAW);
                        mark(mem.word(base + 3L * w), "bytecode", ROLE_OTHER_RAW);
                    }
                }
                case "float" -> label[a] = floatLabel(base + w);
                default -> {
                    if (userTypes.containsKey(t) || t.equals("object")) {
                        mark(mem.word(base + 3L * w), "map_table", ROLE_MAP_TABLE);
                    }
                }
            }
        }
        for (QstrPools.Pool pool : qstrs.pools()) {
            int a = headAllocation(pool.address());
            if (a >= 0) {
                type[a] = "qstr_pool";
                role[a] = ROLE_OTHER_RAW;
                label[a] = pool.len() + "/" + pool.alloc() + " qstrs from " + pool.totalPrevLen();
                for (long i = 0; i < pool.len(); i++) {
                    long s = mem.word(pool.qstrsAddress() + i * w);
                    int chunk = containingAllocation(s);
                    if (chunk >= 0 && chunk != a && type[chunk] == null) {
                        type[chunk] = "qstr_chunk";
                        label[chunk] = qstrs.display(pool.totalPrevLen() + i);
                    }
                }
            }
        }
        classifyCode(qstrs.legacyFormat());
        for (int a = 0; a < count; a++) {
            if (type[a] == null) {
                type[a] = "raw";
            }
        }
    }

    /**
     * The allocations of compiled code and running frames, typed by their owners until nothing changes (per
     * MicroPython py/emitglue.h, py/bc.h, py/objfun.h): a function's {@code context} ({@code module_context}, v1.19+),
     * its {@code child_table}'s entries ({@code raw_code}), a raw_code's {@code fun_data} ({@code bytecode}) and
     * {@code children} ({@code child_table}) or, on v1.18, {@code const_table} (whose entries and the bytecode's inline
     * pointers that are not objects are raw_codes again), a module context's {@code constants.qstr_table}
     * ({@code module_constants}: the qstr table and the object table in one allocation), an exception's
     * {@code traceback_data} ({@code traceback}); and a {@code code_state} (a running function's frame put on the heap
     * because it is too big for the C stack), told by its content: a function, an instruction pointer into that
     * function's bytecode, and {@code n_state} as the bytecode's prelude says.
     */
    private void classifyCode(boolean legacy) {
        java.util.ArrayDeque<Integer> work = new java.util.ArrayDeque<>();
        for (int a = 0; a < count; a++) {
            if (type[a] != null) {
                work.add(a);
            }
        }
        while (!work.isEmpty()) {
            int a = work.poll();
            long base = address[a];
            switch (type[a]) {
                case "function", "generator_function" -> {
                    if (!legacy) {
                        markCode(mem.word(base + w), "module_context", work);
                    }
                }
                case "child_table", "const_table" -> {
                    for (int i = 0; i < blocks[a] * bpb / w; i++) {
                        markCode(mem.word(base + (long) i * w), "raw_code", work);
                    }
                }
                case "bytecode" -> {
                    if (legacy) {
                        // v1.18 bytecode holds its children's raw_code pointers inline (word aligned)
                        for (int i = 0; i < blocks[a] * bpb / w; i++) {
                            markCode(mem.word(base + (long) i * w), "raw_code", work);
                        }
                    }
                }
                case "raw_code" -> {
                    markCode(mem.word(base + w), "bytecode", work);
                    markCode(mem.word(base + 2L * w), legacy ? "const_table" : "child_table", work);
                }
                case "module_context" -> markCode(mem.word(base + 2L * w), "module_constants", work);
                default -> {
                    if (role[a] == ROLE_OBJECT) {
                        String sym = symbols.typeSymbolAt(mem.word(base));
                        if (sym != null && ObjectLayouts.isException(sym)) {
                            markCode(mem.word(base + 2L * w), "traceback", work);
                        }
                    }
                }
            }
        }
        for (int a = 0; a < count; a++) {
            // a raw_code no child table lists (a module's outer code, held by the compiler or the C stack)
            int code = type[a] == null ? headAllocation(mem.word(address[a] + w)) : -1;
            long second = code >= 0 ? mem.word(address[a] + 2L * w) : -1;
            int table = second > 0 ? headAllocation(second) : -1;
            if (code >= 0 && "bytecode".equals(type[code]) && (second == 0
                || (table >= 0 && (legacy ? "const_table" : "child_table").equals(type[table])))) {
                type[a] = "raw_code";
                role[a] = ROLE_OTHER_RAW;
            }
        }
        for (int a = 0; a < count; a++) {
            if (type[a] == null && frames.looksLikeCodeState(address[a], (long) blocks[a] * bpb)) {
                type[a] = "code_state";
                role[a] = ROLE_OTHER_RAW;
            }
        }
    }

    /** Types an untyped allocation at {@code pointer} as {@code rawType} and queues it for its own owned blocks. */
    private void markCode(long pointer, String rawType, java.util.ArrayDeque<Integer> work) {
        int target = headAllocation(pointer);
        if (target >= 0 && type[target] == null) {
            type[target] = rawType;
            role[target] = ROLE_OTHER_RAW;
            work.add(target);
        }
    }

    // ---- names of references: struct fields, frames ----

    private ObjectLayouts.Struct[] structOf;
    private ObjectLayouts layouts;
    private RunningFrames frames;
    /** The C struct of every allocation whose layout is known. */
    private void structs() {
        structOf = new ObjectLayouts.Struct[count];
        for (int a = 0; a < count; a++) {
            String sym = role[a] == ROLE_OBJECT ? symbols.typeSymbolAt(mem.word(address[a])) : null;
            String st = role[a] == ROLE_OBJECT && (userTypes.containsKey(type[a]) || "object".equals(type[a]))
                ? "mp_obj_instance_t" : ObjectLayouts.structOf(sym, type[a]);
            structOf[a] = st == null ? null : layouts.struct(st);
        }
    }

    /**
     * The name of the word at byte {@code offset} of allocation {@code a}: {kind, name, frame or null}, or {@code null}
     * when nothing names it (kinds {@code field}, {@code local}, {@code stack}).
     */
    private String[] wordName(int a, long offset) {
        RunningFrames.Frame fr = frames.frameAt(address[a] + offset);
        if (fr != null && address[a] + offset >= fr.state()) {
            return frames.slotName(fr, address[a] + offset);
        }
        ObjectLayouts.Struct st = structOf[a];
        if (st == null) {
            return null;
        }
        String f = st.wordName(offset, w);
        if (f == null || f.endsWith("base.type")) {
            return f == null ? null : new String[] {"field", "type", null};
        }
        return new String[] {"field", f, fr == null ? null : fr.text()};
    }

    private void mark(long pointer, String rawType, byte rawRole) {
        int target = headAllocation(pointer);
        if (target < 0) {
            return;
        }
        // owners are authoritative: a table or item array whose first element happens to point at a type
        // object looked like an object in the first pass
        type[target] = rawType;
        role[target] = rawRole;
    }

    /** Block index of {@code v} in its area (v in a pool). */
    private int blockIndex(long v) {
        for (GcHeapArea a : areas) {
            if (a.inPool(v)) {
                return (int) ((v - a.poolStart()) / bpb);
            }
        }
        return -1;
    }

    private int containingAllocation(long v) {
        for (GcHeapArea a : areas) {
            if (a.inPool(v)) {
                int bl = (int) ((v - a.poolStart()) / bpb);
                byte[] k = kinds[a.index()];
                while (bl > 0 && k[bl] == TAIL) {
                    bl--;
                }
                return allocAt[a.index()][bl];
            }
        }
        return -1;
    }

    /**
     * {@code mp_map_t.used} from the map's first word, {@code {all_keys_are_qstrs:1, is_fixed:1, is_ordered:1,
     * used:(W*8-3)}} (py/obj.h): GCC allocates bit fields from the least significant bit on little-endian targets
     * ({@code used} = word >> 3) and from the most significant bit on big-endian ones ({@code used} = the low
     * W*8-3 bits).
     */
    private long mapUsed(long firstWord) {
        return mem.littleEndian() ? firstWord >>> 3 : firstWord & ((1L << (8 * w - 3)) - 1);
    }

    private String keyText(long key, QstrPools qstrs) {
        if ((key & 7) == 2) {
            return qstrs.display(key >>> 3);
        }
        if ((key & 1) == 1) {
            return "[" + (key >> 1) + "]"; // a small int: in brackets, as the Lua readers name number keys
        }
        int a = headAllocation(key);
        if (a >= 0 && "str".equals(type[a])) {
            return label[a];
        }
        return null;
    }

    private String floatLabel(long at) {
        if (w == 8) {
            long bits = mem.word(at);
            return Double.toString(Double.longBitsToDouble(bits));
        }
        long bits = mem.word(at);
        return Float.toString(Float.intBitsToFloat((int) bits));
    }

    private static String bytesRepr(byte[] bytes) {
        StringBuilder s = new StringBuilder("b'");
        for (byte x : bytes) {
            int c = x & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
                s.append((char) c);
            } else {
                s.append(String.format(Locale.ROOT, "\\x%02x", c));
            }
        }
        return s.append('\'').toString();
    }

    // ---- roots ----

    /**
     * The end of the GC's root range: the index of {@code vm.qstr_last_chunk}, recognised as a word pointing at
     * a head block followed by {@code qstr_last_alloc} (bytes, fitting that allocation's block count) and
     * {@code qstr_last_used <= qstr_last_alloc}.
     */
    private int findQstrLastChunk(long[] ctxWords, int lastPoolIndex, int limit) {
        for (int j = Math.max(0, lastPoolIndex + 1); j + 2 < limit; j++) {
            int a = headAllocation(ctxWords[j]);
            if (a < 0) {
                continue;
            }
            long alloc = ctxWords[j + 1];
            long used = ctxWords[j + 2];
            long bytes = (long) blocks[a] * bpb;
            if (used > 0 && used <= alloc && alloc <= bytes && alloc > bytes - bpb) {
                return j;
            }
        }
        return -1;
    }

    private Map<Integer, String> ctxFieldNames(long[] ctxWords, int lastPoolIndex, int rootEnd) {
        Map<Integer, String> names = new HashMap<>();
        if (lastPoolIndex >= 0) {
            names.put(lastPoolIndex, "mp_state_ctx.vm.last_pool");
        }
        long dictType = symbols.address("mp_type_dict");
        int found = 0;
        for (int i = Math.max(0, lastPoolIndex); i + 3 < rootEnd && found < 2 && dictType >= 0; i++) {
            if (ctxWords[i] == dictType) {
                names.put(i + 3, found == 0 ? "mp_state_ctx.vm.mp_loaded_modules_dict.map.table"
                    : "mp_state_ctx.vm.dict_main.map.table");
                found++;
                i += 3;
            }
        }
        return names;
    }

    private long[] stackRange(long[] ctxWords, String source) {
        long top = ctxWords[0];
        if (top <= 0) {
            return null;
        }
        if (options.stackStart() > 0) {
            if (!mem.isMapped(options.stackStart(), (int) (top - options.stackStart()))) {
                warnings.add("the memory images do not cover the stack " + hex(options.stackStart()) + ".." + hex(top));
                return null;
            }
            return new long[] {options.stackStart(), top};
        }
        for (MemoryImage.Region r : mem.regions()) {
            if (r.end() == top) {
                return new long[] {r.base(), top};
            }
        }
        MemoryImage.Region r = mem.regionOf(top - w, w);
        if (r == null) {
            warnings.add("no memory image holds the C stack below stack_top " + hex(top) + ": no stack roots");
            return null;
        }
        long limit = ctxWords.length > 1 ? ctxWords[1] : 0;
        long start = limit > 0 && limit < (1 << 24) ? top - limit : r.base();
        start = Math.max(start, r.base());
        for (GcHeapArea a : areas) {
            if (a.poolEnd() <= top && a.poolEnd() > start) {
                start = a.poolEnd();
            }
        }
        start = (start + w - 1) / w * w;
        warnings.add("stack scanned from stack_top - stack_limit (" + hex(start) + ".." + hex(top)
            + "): stale words below sp may keep garbage alive; give the sp register to narrow it");
        return new long[] {start, top};
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }
}
