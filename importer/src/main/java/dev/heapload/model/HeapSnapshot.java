package dev.heapload.model;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One heap snapshot of one VM, held in memory in column form: the shared model every reader fills
 * (through {@link HeapSnapshotBuilder}) and every analysis and writer reads.
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li><b>Objects</b> have dense ids {@code 0 .. objectCount()-1}. Per object: {@link #address(int)}
 *       (the VM's address as written in the dump), {@link #typeId(int)} (index into
 *       {@link #typeNames()}), {@link #shallowSize(int)} in bytes, {@link #category(int)} (memory
 *       category, {@code -1} when the VM has none) and an optional short {@link #label(int)}.</li>
 *   <li><b>References</b> have dense ids {@code 0 .. referenceCount()-1}, grouped by their source
 *       object: the references of object {@code o} are {@code firstReference(o) ..
 *       firstReference(o+1)-1}, in dump order. Per reference: {@link #referenceTarget(int)},
 *       {@link #referenceKindId(int)} (index into {@link #referenceKinds()}), {@link
 *       #referenceFlags(int)} ({@link #WEAK}, {@link #EPHEMERON_VALUE}, and in bits 3-5 the key type, {@link
 *       #keyType(int)}) and a name (see {@link #referenceName(int)}).</li>
 *   <li><b>GC roots</b>: named references from outside the heap, {@link #roots()}, in the order the
 *       dump lists them.</li>
 * </ul>
 *
 * <h2>Memory</h2>
 * Per object: 8 (address) + 8 (size) + 1 (type) + 2 (category) + 4 (label reference) + 4 (first
 * reference offset) = <b>27 bytes</b>, plus the label text itself when there is one (a Java String:
 * about 40 bytes + its length). Per reference: 4 (target) + 1 (kind) + 1 (flags) + 4 (name) =
 * <b>10 bytes</b>. Reference names that are the text of a string object are stored as a pointer to
 * that object, not copied.
 *
 * <p>Instances are immutable once built, except for {@link #analysis()} results attached later.
 */
public final class HeapSnapshot {

    /** Flag bit: the VM's GC does not keep the target alive through this reference. */
    public static final byte WEAK = 1;
    /**
     * Flag bit: an ephemeron value (Lua 5.2+ weak-key tables, per Lua 5.4 lgc.c {@code traverseephemeron}):
     * the target is kept alive through this reference only while the key is alive. The key is the target
     * of the reference immediately before this one (same source object, flagged {@link #WEAK}).
     */
    public static final byte EPHEMERON_VALUE = 2;
    /**
     * Flag bit: the value of an entry of a weak-key table in a VM without ephemerons (Lua 5.1 lgc.c
     * {@code traversetable} marks such values strongly; {@code cleartable} then removes the entries whose
     * key was not marked; LuaJIT 2.1 lj_gc.c {@code gc_traverse_tab} / {@code gc_clearweak} alike). The
     * target is kept alive through this reference as long as the entry survives, and the entry survives
     * while its key (the target of the reference immediately before this one) is reachable, possibly
     * through this very value; an entry whose key ends up unreachable is dropped, which can make other
     * keys unreachable in turn: reachability iterates to a fixpoint.
     */
    public static final byte WEAK_KEY_VALUE = 4;

    /**
     * Bits 3-5 of a reference's flags: the type of the table key that names it ({@link #keyType}), so that the
     * string key {@code "[1]"} and the number key {@code 1} (named {@code [1]} by the Lua reader) stay apart.
     * Snapshot files written before key types existed have 0 ({@link #KEY_NONE}) everywhere.
     */
    public static final int KEY_TYPE_SHIFT = 3;
    /** Mask of the key-type bits in a reference's flags. */
    public static final int KEY_TYPE_MASK = 7 << KEY_TYPE_SHIFT;
    /** Key type: the reference is not named by a table key (a field, local, upvalue or stack slot name), or has no name. */
    public static final int KEY_NONE = 0;
    /** Key type: a string key; the name is the string's text. */
    public static final int KEY_STRING = 1;
    /** Key type: a number key; the reader names it in brackets ({@code [1]}, {@code [3.5]}). */
    public static final int KEY_NUMBER = 2;
    /** Key type: a boolean key ({@code [true]}). */
    public static final int KEY_BOOLEAN = 3;
    /** Key type: a key that is a collectable object other than a string (a table, function, userdata: {@code [0x…]}). */
    public static final int KEY_OBJECT = 4;
    /** Key type: another non-string key (NaN, a light userdata, a light C function). */
    public static final int KEY_OTHER = 5;

    private static final String[] KEY_TYPE_NAMES = {"name", "string", "number", "boolean", "object", "other", "?", "?"};

    /** The flag bits that give a reference key type {@code keyType} ({@link #KEY_STRING} …), for {@code addReference}. */
    public static int keyTypeFlag(int keyType) {
        return (keyType << KEY_TYPE_SHIFT) & KEY_TYPE_MASK;
    }

    /** Name value meaning "this reference has no name". */
    public static final int NO_NAME = Integer.MIN_VALUE;

    private final SnapshotInfo info;
    private final String[] typeNames;
    private final String[] referenceKinds;
    private final String[] names;

    private final long[] addresses;
    private final AddressFormat addressFormat;
    private final String[] opaqueAddresses;
    private final long[] sizes;
    private final byte[] types;
    private final short[] categories;
    private final String[] labels;

    private final int[] firstReference;
    private final int[] targets;
    private final byte[] kinds;
    private final byte[] flags;
    private final int[] referenceNames;

    /** References that carry a frame of their own (ascending), and the frame of each (index into {@link #names}). */
    private final int[] frameReferences;
    private final int[] frameNames;

    private final List<GcRoot> roots;
    private final DanglingReferences dangling;
    private AllocationSites sites = AllocationSites.NONE;
    private Object analysis;

    HeapSnapshot(SnapshotInfo info, String[] typeNames, String[] referenceKinds, String[] names,
                 long[] addresses, AddressFormat addressFormat, String[] opaqueAddresses,
                 long[] sizes, byte[] types, short[] categories, String[] labels,
                 int[] firstReference, int[] targets, byte[] kinds, byte[] flags, int[] referenceNames,
                 int[] frameReferences, int[] frameNames, List<GcRoot> roots, DanglingReferences dangling) {
        this.info = info;
        this.typeNames = typeNames;
        this.referenceKinds = referenceKinds;
        this.names = names;
        this.addresses = addresses;
        this.addressFormat = addressFormat;
        this.opaqueAddresses = opaqueAddresses;
        this.sizes = sizes;
        this.types = types;
        this.categories = categories;
        this.labels = labels;
        this.firstReference = firstReference;
        this.targets = targets;
        this.kinds = kinds;
        this.flags = flags;
        this.referenceNames = referenceNames;
        this.frameReferences = frameReferences == null ? new int[0] : frameReferences;
        this.frameNames = frameNames == null ? new int[0] : frameNames;
        if (this.frameReferences.length != this.frameNames.length) {
            throw new IllegalArgumentException("frame columns of different lengths");
        }
        this.roots = List.copyOf(roots);
        this.dangling = dangling == null ? DanglingReferences.NONE : dangling;
    }

    /**
     * The dump's references whose other end has no object record, counted per reason (and listed when the reader
     * kept them): they are not among {@link #referenceCount()}; {@link DanglingReferences#NONE} when there are none.
     */
    public DanglingReferences danglingReferences() {
        return dangling;
    }

    /** Snapshot metadata: id, VM, source file, checksum, VM-reported totals, memory categories, warnings. */
    public SnapshotInfo info() {
        return info;
    }

    /**
     * This snapshot with other metadata (e.g. {@link SnapshotInfo#withProducer}); the columns are shared, not copied.
     * Call before the analysis is attached (it is not carried over).
     */
    public HeapSnapshot withInfo(SnapshotInfo newInfo) {
        HeapSnapshot copy = new HeapSnapshot(newInfo, typeNames, referenceKinds, names, addresses, addressFormat,
            opaqueAddresses, sizes, types, categories, labels, firstReference, targets, kinds, flags, referenceNames,
            frameReferences, frameNames, roots, dangling);
        copy.sites = sites;
        return copy;
    }

    /**
     * Where each object was allocated, from dumps that tracked allocations ({@link AllocationSites#NONE} otherwise).
     */
    public AllocationSites sites() {
        return sites;
    }

    /** Sets the allocation sites (readers, the snapshot file); {@code sites.siteColumn()} is indexed by object id. */
    void setSites(AllocationSites sites) {
        this.sites = sites == null ? AllocationSites.NONE : sites;
    }

    /** Number of objects (ids are {@code 0 .. objectCount()-1}). */
    public int objectCount() {
        return sizes.length;
    }

    /** Number of references. */
    public int referenceCount() {
        return targets.length;
    }

    /** Type names indexed by {@link #typeId(int)}, e.g. {@code table}, {@code string}. */
    public List<String> typeNames() {
        return Arrays.asList(typeNames);
    }

    /** Reference kind names indexed by {@link #referenceKindId(int)}, e.g. {@code value}, {@code upvalue}. */
    public List<String> referenceKinds() {
        return Arrays.asList(referenceKinds);
    }

    /** The object's address as the VM wrote it (e.g. {@code 0x5574b889d5e0}). */
    public String address(int object) {
        return addressFormat.format(addresses[object], opaqueAddresses, object);
    }

    /** The object's address as a number (for opaque spellings: a stable synthetic key). */
    public long addressKey(int object) {
        return addresses[object];
    }

    /**
     * The object whose {@link #address} is exactly {@code address} (the dump's spelling: no case folding, no
     * {@code 0x} added or dropped). A reader defines each address once, so at most one object matches.
     *
     * @return its id, or {@code -1} when no object has that address; O(objects) over the address column
     */
    public int objectAt(String address) {
        long value = addressFormat.parse(address);
        if (value >= 0) {
            // opaque spellings have negative keys: a canonical spelling can only be a formatted address
            for (int o = 0, n = addresses.length; o < n; o++) {
                if (addresses[o] == value && (opaqueAddresses == null || opaqueAddresses[o] == null)) {
                    return o;
                }
            }
        }
        if (opaqueAddresses != null) {
            for (int o = 0; o < opaqueAddresses.length; o++) {
                if (address.equals(opaqueAddresses[o])) {
                    return o;
                }
            }
        }
        return -1;
    }

    /** How addresses were spelled in the dump. */
    public AddressFormat addressFormat() {
        return addressFormat;
    }

    /** Index into {@link #typeNames()}. */
    public int typeId(int object) {
        return types[object] & 0xff;
    }

    /** The object's type name. */
    public String type(int object) {
        return typeNames[types[object] & 0xff];
    }

    /** Shallow size in bytes, as the dump gives it (for Luau an estimate by the VM's writer). */
    public long shallowSize(int object) {
        return sizes[object];
    }

    /**
     * Memory category (0..255 for Luau), or {@code -1} when the VM has no categories or the dump does
     * not give the object's category (Luau double-vector records, which are written empty).
     */
    public int category(int object) {
        return categories[object];
    }

    /** A short human label (a string's text, a function's name), or {@code null}. */
    public String label(int object) {
        return labels[object];
    }

    /** First reference id of {@code object}; {@code firstReference(object + 1)} is one past its last. */
    public int firstReference(int object) {
        return firstReference[object];
    }

    /** Source object id of a reference: the object whose reference range holds it (binary search, O(log objects)). */
    public int referenceSource(int reference) {
        int lo = 0;
        int hi = objectCount() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (firstReference[mid] <= reference) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Target object id of a reference. */
    public int referenceTarget(int reference) {
        return targets[reference];
    }

    /** Index into {@link #referenceKinds()}. */
    public int referenceKindId(int reference) {
        return kinds[reference] & 0xff;
    }

    /** The reference's kind name. */
    public String referenceKind(int reference) {
        return referenceKinds[kinds[reference] & 0xff];
    }

    /**
     * Key type of a reference: {@link #KEY_NONE}, {@link #KEY_STRING}, {@link #KEY_NUMBER}, {@link #KEY_BOOLEAN},
     * {@link #KEY_OBJECT} or {@link #KEY_OTHER}.
     */
    public int keyTypeId(int reference) {
        return (flags[reference] & KEY_TYPE_MASK) >>> KEY_TYPE_SHIFT;
    }

    /**
     * The key type of a reference as the graph stores it: {@code ""} when the reference has no name, {@code name}
     * when its name is no table key (a field, local, upvalue, stack slot), else {@code string}, {@code number},
     * {@code boolean}, {@code object} or {@code other}.
     */
    public String keyType(int reference) {
        if (referenceNames[reference] == NO_NAME) {
            return "";
        }
        return KEY_TYPE_NAMES[keyTypeId(reference)];
    }

    /** Flag bits {@link #WEAK}, {@link #EPHEMERON_VALUE}, {@link #WEAK_KEY_VALUE} and the key type ({@link #KEY_TYPE_MASK}). */
    public int referenceFlags(int reference) {
        return flags[reference];
    }

    /** True when the VM's GC does not keep the target alive through this reference alone. */
    public boolean isWeak(int reference) {
        return (flags[reference] & WEAK) != 0;
    }

    /** The reference's name (a table key's text, a local's name), or {@code null}. */
    public String referenceName(int reference) {
        int n = referenceNames[reference];
        if (n == NO_NAME) {
            return null;
        }
        if (n >= 0) {
            return names[n];
        }
        String text = labels[-n - 1];
        return text == null ? "" : text;
    }

    /**
     * The stack frame that holds a local or stack slot. Two sources:
     * <ul>
     *   <li>the frame the reader gave the reference ({@link HeapSnapshotBuilder#setReferenceFrame}; the Lua reader
     *       for a thread's locals and varargs: {@code task_body (program.lua:12)});</li>
     *   <li>else, for a reference of kind {@code stack} that is not itself a frame's function, the nearest earlier slot
     *       of the same thread named {@code frame:…} (Luau {@code stacknames}, shared/docs/formats/luau-luaC_dump.md
     *       §4: Lua frames {@code frame:<source>:<linedefined>:<debugname>}, C frames {@code frame:<debugname>} or
     *       {@code frame:[C]}), rendered {@code handleRequest (@main.luau:5)}, {@code (anonymous) (@main.luau:14)}
     *       or {@code pcall [C]}. Cost: a walk back over the thread's earlier slots.</li>
     * </ul>
     *
     * @return the frame, or {@code null} for other references and slots before the first frame
     */
    public String referenceFrame(int reference) {
        if (frameReferences.length > 0) {
            int i = Arrays.binarySearch(frameReferences, reference);
            if (i >= 0) {
                return names[frameNames[i]];
            }
        }
        if (!"stack".equals(referenceKind(reference))) {
            return null;
        }
        String own = referenceName(reference);
        if (own != null && own.startsWith("frame:")) {
            return null;
        }
        int first = firstReference[referenceSource(reference)];
        for (int r = reference - 1; r >= first; r--) {
            if ((kinds[r] & 0xff) != (kinds[reference] & 0xff)) {
                continue;
            }
            String name = referenceName(r);
            if (name != null && name.startsWith("frame:")) {
                return frameText(name.substring(6));
            }
        }
        return null;
    }

    /** {@code @main.luau:5:handleRequest} → {@code handleRequest (@main.luau:5)}; a C frame's name → {@code name [C]}. */
    static String frameText(String frame) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?s)^(.*):(\\d+):(.*)$").matcher(frame);
        if (m.matches()) {
            return (m.group(3).isEmpty() ? "(anonymous)" : m.group(3)) + " (" + m.group(1) + ":" + m.group(2) + ")";
        }
        return frame.equals("[C]") ? "[C]" : frame + " [C]";
    }

    /** GC roots in dump order. */
    public List<GcRoot> roots() {
        return roots;
    }

    /** Sum of shallow sizes of all objects, in bytes, saturated at {@link Long#MAX_VALUE} ({@link ByteSums}). */
    public long totalShallowBytes() {
        long sum = 0;
        for (long s : sizes) {
            sum = ByteSums.add(sum, s);
        }
        return sum;
    }

    /** Results attached by the analysis pass, or {@code null}. */
    @SuppressWarnings("unchecked")
    public <T> T analysis() {
        return (T) analysis;
    }

    /** Attaches the analysis results (done once, by the analysis pass). */
    public void attachAnalysis(Object results) {
        this.analysis = Objects.requireNonNull(results);
    }

    /** Raw column access for writers and analyses that need whole arrays (do not modify). */
    public int[] firstReferenceColumn() {
        return firstReference;
    }

    /** Raw reference-target column (do not modify). */
    public int[] referenceTargetColumn() {
        return targets;
    }

    /** Raw reference-flags column (do not modify). */
    public byte[] referenceFlagsColumn() {
        return flags;
    }

    /** Raw shallow-size column in bytes (do not modify). */
    public long[] shallowSizeColumn() {
        return sizes;
    }

    // Package-private column access for the snapshot file codec (HeapSnapshotFile); do not modify.

    String[] nameTable() {
        return names;
    }

    long[] addressColumn() {
        return addresses;
    }

    String[] opaqueAddressColumn() {
        return opaqueAddresses;
    }

    byte[] typeColumn() {
        return types;
    }

    short[] categoryColumn() {
        return categories;
    }

    String[] labelColumn() {
        return labels;
    }

    byte[] referenceKindColumn() {
        return kinds;
    }

    int[] referenceNameColumn() {
        return referenceNames;
    }

    int[] frameReferenceColumn() {
        return frameReferences;
    }

    int[] frameNameColumn() {
        return frameNames;
    }

    /** A named GC root: {@code name} as the dump names it, {@code object} the object id. */
    public record GcRoot(String name, int object) {
    }
}
