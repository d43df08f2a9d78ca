package dev.heapload.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.ObjectIntHashMap;

/**
 * Collects objects, references and roots from a streaming reader and builds a {@link HeapSnapshot}.
 *
 * <p>Readers refer to objects by their address text; an object gets its dense id the first time its
 * address is seen, either as a record or as a reference target, so references can point forward.
 * Usage: {@link #defineObject} once per record, then {@link #addReference} for each of its outgoing
 * references (references are added to the object defined last), {@link #addRoot}, then {@link #build}.
 *
 * <p>Addresses that are referenced but never defined ("dangling", e.g. a dump taken without a full GC, a NULL
 * written as an address, a forged or corrupt value) are taken out of the model at {@link #build}: their references
 * are counted per {@link DanglingReferences.Reason} ({@link HeapSnapshot#danglingReferences()}) and, after
 * {@link #keepDangling}, kept one by one for the store's {@code Missing} nodes. The reason: {@link #sentinel} values
 * and 0 (any spelling, also {@code (nil)}) are sentinels; an address outside every {@link #heapArea} (without areas:
 * outside the span from the lowest object address to the end of the highest object) is outside the heap; any other
 * is "inside the heap but no object".
 *
 * <p>Not thread-safe.
 */
public final class HeapSnapshotBuilder {

    private static final int INITIAL = 1 << 12;

    private AddressFormat addressFormat;
    private LongIntHashMap idByAddress = new LongIntHashMap(INITIAL);
    private ObjectIntHashMap<String> idByOpaqueAddress = new ObjectIntHashMap<>();
    private String[] opaqueAddresses;

    private final ObjectIntHashMap<String> typeIds = new ObjectIntHashMap<>();
    private final List<String> typeNames = new ArrayList<>();
    private final ObjectIntHashMap<String> kindIds = new ObjectIntHashMap<>();
    private final List<String> kindNames = new ArrayList<>();
    private final ObjectIntHashMap<String> nameIds = new ObjectIntHashMap<>();
    private final List<String> names = new ArrayList<>();

    private int objectCount;
    private long[] addresses = new long[INITIAL];
    private long[] sizes = new long[INITIAL];
    private byte[] types = new byte[INITIAL];
    private short[] categories = new short[INITIAL];
    private String[] labels = new String[INITIAL];
    private boolean[] defined = new boolean[INITIAL];
    /** Site index per object (+1; 0 = none), allocated at the first {@link #setSite}. */
    private int[] siteOf;
    private AllocationSites siteTable;

    private int referenceCount;
    private int[] sources = new int[INITIAL];
    private int[] targets = new int[INITIAL];
    private byte[] kinds = new byte[INITIAL];
    private byte[] flags = new byte[INITIAL];
    private int[] referenceNames = new int[INITIAL];

    /** Builder reference id → name id of its frame ({@link #setReferenceFrame}); few: a thread's locals. */
    private final org.eclipse.collections.impl.map.mutable.primitive.IntIntHashMap referenceFrames =
        new org.eclipse.collections.impl.map.mutable.primitive.IntIntHashMap();

    private int current = -1;
    private final List<HeapSnapshot.GcRoot> roots = new ArrayList<>();

    private boolean keepDangling;
    private final List<long[]> heapAreas = new ArrayList<>();
    private final org.eclipse.collections.impl.set.mutable.primitive.LongHashSet sentinels =
        new org.eclipse.collections.impl.set.mutable.primitive.LongHashSet();

    /**
     * Keeps the references to nothing one by one (for {@code (:Missing)} nodes) instead of only counting them.
     *
     * @return this builder
     */
    public HeapSnapshotBuilder keepDangling(boolean keep) {
        this.keepDangling = keep;
        return this;
    }

    /**
     * Declares a heap area {@code [start, end)} (addresses): a missing address outside every declared area is
     * {@link DanglingReferences.Reason#OUTSIDE_HEAP}. Without any, the span of the defined objects is the heap.
     */
    public void heapArea(long start, long end) {
        heapAreas.add(new long[] {start, end});
    }

    /** Declares an address value the producer uses for "no object" ({@link DanglingReferences.Reason#SENTINEL}). */
    public void sentinel(long address) {
        sentinels.add(address);
    }

    /**
     * Returns the id of the object at {@code address}, assigning the next id on first sight.
     *
     * @param address the address text exactly as in the dump
     */
    public int objectId(CharSequence address) {
        if (addressFormat == null) {
            addressFormat = AddressFormat.detect(address);
        }
        long value = addressFormat.parse(address);
        if (value >= 0) {
            long key = spread(value);
            int id = idByAddress.getIfAbsent(key, -1);
            if (id < 0) {
                id = newObject(value);
                idByAddress.put(key, id);
            }
            return id;
        }
        String text = address.toString();
        int id = idByOpaqueAddress.getIfAbsent(text, -1);
        if (id < 0) {
            // synthetic keys for opaque spellings are negative so they never collide with real addresses
            id = newObject(-1 - idByOpaqueAddress.size());
            idByOpaqueAddress.put(text, id);
            if (opaqueAddresses == null) {
                opaqueAddresses = new String[addresses.length];
            }
            ensureObjectCapacity(id + 1);
            opaqueAddresses[id] = text;
        }
        return id;
    }

    /** True once {@link #defineObject} was called for this id. */
    public boolean isDefined(int object) {
        return object < objectCount && defined[object];
    }

    /**
     * Defines the object record at {@code address} and makes it the source of the following references.
     *
     * @param address  address text as in the dump
     * @param type     VM type name, e.g. {@code table} (at most 256 distinct types)
     * @param size     shallow size in bytes
     * @param category memory category, or {@code -1}
     * @param label    short label, or {@code null}
     * @return the object id
     * @throws IllegalStateException when the same address is defined twice
     */
    public int defineObject(CharSequence address, String type, long size, int category, String label) {
        int id = objectId(address);
        if (defined[id]) {
            throw new IllegalStateException("object " + address + " is defined twice");
        }
        defined[id] = true;
        types[id] = (byte) intern(typeIds, typeNames, type, 256, "types");
        sizes[id] = size;
        categories[id] = (short) category;
        labels[id] = label;
        current = id;
        return id;
    }

    /** Sets or replaces the label of an object. */
    /**
     * Records that {@code object} was allocated at site {@code site} (an index into the table given to
     * {@link #siteTable}).
     */
    public void setSite(int object, int site) {
        if (siteOf == null) {
            siteOf = new int[defined.length];
        } else if (siteOf.length < defined.length) {
            siteOf = Arrays.copyOf(siteOf, defined.length);
        }
        siteOf[object] = site + 1;
    }

    /**
     * The site table of a dump that tracked allocations (its per-object column is ignored; {@link #setSite} fills
     * it); {@code null} when the dump tracked nothing.
     */
    public void siteTable(AllocationSites table) {
        this.siteTable = table;
    }

    public void setLabel(int object, String label) {
        labels[object] = label;
    }

    /** The current label of an object, or {@code null}. */
    public String label(int object) {
        return labels[object];
    }

    /** Interns a reference kind name (at most 256 kinds) and returns its id, for use with {@link #addReference}. */
    public int kind(String kind) {
        return intern(kindIds, kindNames, kind, 256, "reference kinds");
    }

    /** Interns a reference name and returns the value to pass as {@code name} to {@link #addReference}. */
    public int name(String name) {
        if (name == null) {
            return HeapSnapshot.NO_NAME;
        }
        return intern(nameIds, names, name, Integer.MAX_VALUE, "names");
    }

    /** A name that is the label (text) of a string object: stored as a pointer, not copied. */
    public static int nameFromObject(int stringObject) {
        return -stringObject - 1;
    }

    /**
     * Adds a reference from the object defined last.
     *
     * @param target object id of the target (from {@link #objectId})
     * @param kind   kind id from {@link #kind}
     * @param name   name from {@link #name}, {@link #nameFromObject} or {@link HeapSnapshot#NO_NAME}
     * @param flag   {@link HeapSnapshot#WEAK}, {@link HeapSnapshot#EPHEMERON_VALUE} bits, or 0
     * @return the reference id (valid until {@link #build})
     */
    public int addReference(int target, int kind, int name, int flag) {
        if (current < 0) {
            throw new IllegalStateException("addReference before defineObject");
        }
        return addReference(current, target, kind, name, flag);
    }

    /**
     * Adds a reference from any object id, defined or not (for formats that list an object's referrers, like
     * lua-snapshot's parent lines; a source that is never defined makes it a reference to nothing).
     *
     * @param source object id of the source (from {@link #objectId})
     * @return the reference id (valid until {@link #build})
     */
    public int addReference(int source, int target, int kind, int name, int flag) {
        if (referenceCount == targets.length) {
            ensureReferenceCapacity(grow(targets.length));
        }
        int r = referenceCount++;
        sources[r] = source;
        targets[r] = target;
        kinds[r] = (byte) kind;
        flags[r] = (byte) flag;
        referenceNames[r] = name;
        return r;
    }

    /**
     * Sets or replaces the name of a reference added earlier, for names known only after later records
     * were read (e.g. a table value named by its key only once the key turned out to be a string).
     *
     * @param reference reference id from {@link #addReference}
     * @param name      name from {@link #name}, {@link #nameFromObject} or {@link HeapSnapshot#NO_NAME}
     */
    public void setReferenceName(int reference, int name) {
        referenceNames[reference] = name;
    }

    /**
     * Sets the stack frame that holds a reference added earlier (a thread's local or vararg), as text shown after
     * the hop ({@link HeapSnapshot#referenceFrame}), e.g. {@code task_body (program.lua:12)}.
     *
     * @param reference reference id from {@link #addReference}
     * @param frame     name id from {@link #name}: the frame's text
     */
    public void setReferenceFrame(int reference, int frame) {
        if (frame < 0) {
            throw new IllegalArgumentException("a frame is a name id from name(String)");
        }
        referenceFrames.put(reference, frame);
    }

    /** Sets flag bits on a reference added earlier (e.g. weakness known only after the metatable was read). */
    public void addFlags(int reference, int flag) {
        flags[reference] |= (byte) flag;
    }

    /** Number of references added so far. */
    public int referenceCount() {
        return referenceCount;
    }

    /** Source object of a reference added earlier. */
    public int referenceSource(int reference) {
        return sources[reference];
    }

    /** Target object of a reference added earlier. */
    public int referenceTarget(int reference) {
        return targets[reference];
    }

    /** Kind id of a reference added earlier. */
    public int referenceKind(int reference) {
        return kinds[reference] & 0xff;
    }

    /** Type name of a defined object. */
    public String type(int object) {
        return typeNames.get(types[object] & 0xff);
    }

    /** Number of object ids handed out (defined or only referenced). */
    public int objectCount() {
        return objectCount;
    }

    /** Adds a named GC root. */
    public void addRoot(String name, int object) {
        roots.add(new HeapSnapshot.GcRoot(name, object));
    }

    /**
     * Builds the snapshot: drops references to undefined objects (counted in a warning added to
     * {@code info}), renumbers objects densely in first-seen order and groups references by source
     * object, keeping dump order within each object. The builder is spent afterwards: it lets go of each of its
     * columns (and first of its address index) as soon as the snapshot's copy of it is made, so that building
     * needs little more heap than the builder itself (for a 24M-object dump about 2.3 GB instead of 4.2 GB at
     * the peak: the address index alone is 0.8 GB).
     *
     * @param info metadata; a warning is appended when references were dropped
     */
    public HeapSnapshot build(SnapshotInfo info) {
        idByAddress = null;
        idByOpaqueAddress = null;
        // dense renumbering of defined objects
        int[] newId = new int[objectCount];
        int n = 0;
        for (int i = 0; i < objectCount; i++) {
            newId[i] = defined[i] ? n++ : -1;
        }
        defined = null;
        // references per source (to group them by source, stable) and the dropped ones
        int[] first = new int[n + 1];
        int dropped = 0;
        for (int r = 0; r < referenceCount; r++) {
            if (newId[targets[r]] < 0 || newId[sources[r]] < 0) {
                dropped++;
                continue;
            }
            first[newId[sources[r]] + 1]++;
        }
        // from the builder's own columns, before they go
        DanglingReferences dangling = dropped == 0 ? DanglingReferences.NONE : dangling(newId);
        long[] outAddresses = compact(addresses, newId, n);
        addresses = null;
        long[] outSizes = compact(sizes, newId, n);
        sizes = null;
        byte[] outTypes = new byte[n];
        for (int i = 0; i < objectCount; i++) {
            if (newId[i] >= 0) {
                outTypes[newId[i]] = types[i];
            }
        }
        types = null;
        short[] outCategories = new short[n];
        for (int i = 0; i < objectCount; i++) {
            if (newId[i] >= 0) {
                outCategories[newId[i]] = categories[i];
            }
        }
        categories = null;
        String[] outLabels = compact(labels, newId, n);
        labels = null;
        String[] outOpaque = opaqueAddresses == null ? null : compact(opaqueAddresses, newId, n);
        opaqueAddresses = null;
        for (int i = 0; i < n; i++) {
            first[i + 1] += first[i];
        }
        int m = referenceCount - dropped;
        // each reference's place in the snapshot (-1: dropped), written over its source, which is not needed again
        int[] fill = Arrays.copyOf(first, n);
        long[] framePairs = new long[referenceFrames.size()];
        int framed = 0;
        int[] place = sources;
        sources = null;
        for (int r = 0; r < referenceCount; r++) {
            int source = newId[place[r]];
            if (source < 0 || newId[targets[r]] < 0) {
                place[r] = -1;
                continue;
            }
            int at = fill[source]++;
            place[r] = at;
            if (!referenceFrames.isEmpty()) {
                int frame = referenceFrames.getIfAbsent(r, -1);
                if (frame >= 0) {
                    framePairs[framed++] = ((long) at << 32) | frame;
                }
            }
        }
        fill = null;
        // one column at a time, each let go once copied
        int[] outTargets = new int[m];
        for (int r = 0; r < referenceCount; r++) {
            if (place[r] >= 0) {
                outTargets[place[r]] = newId[targets[r]];
            }
        }
        targets = null;
        byte[] outKinds = new byte[m];
        for (int r = 0; r < referenceCount; r++) {
            if (place[r] >= 0) {
                outKinds[place[r]] = kinds[r];
            }
        }
        kinds = null;
        byte[] outFlags = new byte[m];
        for (int r = 0; r < referenceCount; r++) {
            if (place[r] >= 0) {
                outFlags[place[r]] = flags[r];
            }
        }
        flags = null;
        int[] outNames = new int[m];
        for (int r = 0; r < referenceCount; r++) {
            if (place[r] < 0) {
                continue;
            }
            int name = referenceNames[r];
            if (name != HeapSnapshot.NO_NAME && name < 0) {
                int obj = newId[-name - 1];
                name = obj < 0 ? HeapSnapshot.NO_NAME : -obj - 1;
            }
            outNames[place[r]] = name;
        }
        referenceNames = null;
        place = null;
        Arrays.sort(framePairs, 0, framed);
        int[] frameReferences = new int[framed];
        int[] frameNames = new int[framed];
        for (int i = 0; i < framed; i++) {
            frameReferences[i] = (int) (framePairs[i] >>> 32);
            frameNames[i] = (int) framePairs[i];
        }
        List<HeapSnapshot.GcRoot> outRoots = new ArrayList<>();
        int droppedRoots = 0;
        for (HeapSnapshot.GcRoot root : roots) {
            int j = newId[root.object()];
            if (j < 0) {
                droppedRoots++;
            } else {
                outRoots.add(new HeapSnapshot.GcRoot(root.name(), j));
            }
        }
        SnapshotInfo outInfo = info;
        long total = 0;
        for (long s : outSizes) {
            total = ByteSums.add(total, s);
        }
        if (total == Long.MAX_VALUE || total == Long.MIN_VALUE) {
            List<String> warnings = new ArrayList<>(info.warnings());
            warnings.add(ByteSums.SATURATED_WARNING);
            outInfo = info.withWarnings(warnings);
        }
        if (droppedRoots > 0) {
            List<String> warnings = new ArrayList<>(outInfo.warnings());
            warnings.add(droppedRoots
                + " root(s) point to addresses that have no object record (dump taken without a full GC?); dropped");
            outInfo = info.withWarnings(warnings);
        }
        HeapSnapshot built = new HeapSnapshot(outInfo, typeNames.toArray(String[]::new), kindNames.toArray(String[]::new),
            names.toArray(String[]::new), outAddresses, addressFormat == null ? AddressFormat.PREFIXED_HEX : addressFormat,
            outOpaque, outSizes, outTypes, outCategories, outLabels, first, outTargets, outKinds, outFlags, outNames,
            frameReferences, frameNames, outRoots, dangling);
        if (siteTable != null) {
            int[] outSites = new int[n];
            Arrays.fill(outSites, AllocationSites.NO_SITE);
            if (siteOf != null) {
                for (int i = 0; i < Math.min(siteOf.length, newId.length); i++) {
                    if (newId[i] >= 0 && siteOf[i] > 0) {
                        outSites[newId[i]] = siteOf[i] - 1;
                    }
                }
            }
            siteOf = null;
            built.setSites(new AllocationSites(
                java.util.stream.IntStream.range(0, siteTable.siteCount()).mapToObj(siteTable::source).toArray(String[]::new),
                java.util.stream.IntStream.range(0, siteTable.siteCount()).map(siteTable::line).toArray(),
                java.util.stream.IntStream.range(0, siteTable.siteCount()).mapToObj(siteTable::function).toArray(String[]::new),
                outSites));
        }
        return built;
    }

    /** The entries of {@code column} whose {@code newId} is not negative, at their new ids. */
    private static long[] compact(long[] column, int[] newId, int n) {
        long[] out = new long[n];
        for (int i = 0; i < newId.length; i++) {
            if (newId[i] >= 0) {
                out[newId[i]] = column[i];
            }
        }
        return out;
    }

    /** {@link #compact(long[], int[], int)} for a column of strings. */
    private static String[] compact(String[] column, int[] newId, int n) {
        String[] out = new String[n];
        for (int i = 0; i < newId.length; i++) {
            if (newId[i] >= 0) {
                out[newId[i]] = column[i];
            }
        }
        return out;
    }

    /**
     * Counts (and, after {@link #keepDangling}, lists) the references with an undefined end, per reason, from the
     * builder's columns (before {@link #build} lets them go).
     */
    private DanglingReferences dangling(int[] newId) {
        long low = Long.MAX_VALUE;
        long high = Long.MIN_VALUE;
        if (heapAreas.isEmpty()) {
            for (int i = 0; i < objectCount; i++) {
                if (newId[i] >= 0 && addresses[i] >= 0) {
                    low = Math.min(low, addresses[i]);
                    high = Math.max(high, addresses[i] + Math.max(1, sizes[i]));
                }
            }
        }
        long[] counts = new long[DanglingReferences.Reason.values().length];
        LongIntHashMap missingIndex = new LongIntHashMap();
        ObjectIntHashMap<String> opaqueIndex = new ObjectIntHashMap<>();
        List<String> missingAddresses = new ArrayList<>();
        List<Byte> missingReasons = new ArrayList<>();
        org.eclipse.collections.impl.list.mutable.primitive.IntArrayList objects =
            new org.eclipse.collections.impl.list.mutable.primitive.IntArrayList();
        org.eclipse.collections.impl.list.mutable.primitive.IntArrayList missing =
            new org.eclipse.collections.impl.list.mutable.primitive.IntArrayList();
        List<String> keptKinds = new ArrayList<>();
        List<String> keptNames = new ArrayList<>();
        org.eclipse.collections.impl.list.mutable.primitive.ByteArrayList keptFlags =
            new org.eclipse.collections.impl.list.mutable.primitive.ByteArrayList();
        org.eclipse.collections.impl.list.mutable.primitive.BooleanArrayList keptIncoming =
            new org.eclipse.collections.impl.list.mutable.primitive.BooleanArrayList();
        int modelReferences = 0;
        for (int r = 0; r < referenceCount; r++) {
            boolean targetMissing = newId[targets[r]] < 0;
            boolean sourceMissing = newId[sources[r]] < 0;
            if (!targetMissing && !sourceMissing) {
                modelReferences++;
                continue;
            }
            if (targetMissing && sourceMissing) {
                // neither end is an object: counted, but there is no object to hang it on
                counts[reason(targets[r], low, high).ordinal()]++;
                continue;
            }
            int id = targetMissing ? targets[r] : sources[r];
            DanglingReferences.Reason reason = reason(id, low, high);
            counts[reason.ordinal()]++;
            if (!keepDangling) {
                continue;
            }
            String text = opaqueAddresses != null && opaqueAddresses[id] != null ? opaqueAddresses[id] : null;
            int index = text != null ? opaqueIndex.getIfAbsent(text, -1) : missingIndex.getIfAbsent(addresses[id], -1);
            if (index < 0) {
                index = missingAddresses.size();
                missingAddresses.add(text != null ? text : addressFormat.format(addresses[id], null, id));
                missingReasons.add((byte) reason.ordinal());
                if (text != null) {
                    opaqueIndex.put(text, index);
                } else {
                    missingIndex.put(addresses[id], index);
                }
            }
            objects.add(targetMissing ? newId[sources[r]] : newId[targets[r]]);
            missing.add(index);
            keptKinds.add(kindNames.get(kinds[r] & 0xff));
            int name = referenceNames[r];
            keptNames.add(name == HeapSnapshot.NO_NAME ? null : name >= 0 ? names.get(name) : labels[-name - 1]);
            keptFlags.add(flags[r]);
            keptIncoming.add(sourceMissing);
        }
        byte[] reasons = new byte[missingReasons.size()];
        for (int i = 0; i < reasons.length; i++) {
            reasons[i] = missingReasons.get(i);
        }
        return new DanglingReferences(counts, modelReferences, missingAddresses.toArray(String[]::new), reasons,
            objects.toArray(), missing.toArray(), keptKinds.toArray(String[]::new), keptNames.toArray(String[]::new),
            keptFlags.toArray(), keptIncoming.toArray());
    }

    private DanglingReferences.Reason reason(int id, long low, long high) {
        String text = opaqueAddresses != null ? opaqueAddresses[id] : null;
        if (text != null) {
            String t = text.trim().toLowerCase(java.util.Locale.ROOT);
            return t.equals("(nil)") || t.equals("(null)") || t.equals("null") || t.equals("nil") || t.matches("(0x)?0+")
                ? DanglingReferences.Reason.SENTINEL : DanglingReferences.Reason.NO_OBJECT;
        }
        long a = addresses[id];
        if (a == 0 || sentinels.contains(a)) {
            return DanglingReferences.Reason.SENTINEL;
        }
        if (!heapAreas.isEmpty()) {
            for (long[] area : heapAreas) {
                if (a >= area[0] && a < area[1]) {
                    return DanglingReferences.Reason.NO_OBJECT;
                }
            }
            return DanglingReferences.Reason.OUTSIDE_HEAP;
        }
        return a >= low && a < high ? DanglingReferences.Reason.NO_OBJECT : DanglingReferences.Reason.OUTSIDE_HEAP;
    }

    /**
     * The key of an address in {@link #idByAddress}: the address rotated right by 3 bits (a bijection).
     * LongIntHashMap takes its first slot from the key's low bits unchanged; addresses are multiples of
     * 8 or 16, so raw keys pile up on a fraction of the slots and probe far, while a full hash (murmur)
     * loses the locality of neighbouring objects referring to each other. Measured on the 11.2M address
     * look-ups of a 2.4M-object Luau dump: raw 2.2-2.7 s, murmur 1.8-2.3 s, rotated 0.34-0.73 s.
     */
    private static long spread(long address) {
        return Long.rotateRight(address, 3);
    }

    private int newObject(long address) {
        ensureObjectCapacity(objectCount + 1);
        int id = objectCount++;
        addresses[id] = address;
        categories[id] = -1;
        return id;
    }

    /**
     * Sizes the builder for about {@code objects} objects and {@code references} references, so that a large
     * dump's columns are allocated once instead of growing by half again some twenty times (each growth copies
     * them, and the garbage collector copies the live young copies again). Only a hint: the builder still
     * grows past it, and a hint smaller than what it holds changes nothing. Call it before the first object.
     * What the hint allocates ({@link #hintBytes}) is held to a quarter of the maximum heap: a larger hint is
     * scaled down to fit.
     *
     * @throws IllegalArgumentException when a count is negative
     */
    public void expect(int objects, int references) {
        if (objects < 0 || references < 0) {
            throw new IllegalArgumentException("negative size hint: " + objects + " objects, " + references + " references");
        }
        long bytes = hintBytes(objects, references);
        long budget = Runtime.getRuntime().maxMemory() / 4;
        if (bytes > budget) {
            objects = (int) (objects * budget / bytes);
            references = (int) (references * budget / bytes);
        }
        ensureObjectCapacity(objects);
        if (references > targets.length) {
            ensureReferenceCapacity(references);
        }
        if (objectCount == 0 && objects > INITIAL) {
            idByAddress = new LongIntHashMap(objects);
        }
    }

    /**
     * Bytes a size hint allocates, about: 24 per object (address and size as longs, type, category, label
     * reference, defined flag), 14 per reference (source, target, name id as ints, kind and flags as bytes), and
     * the address map's two slots per object of 12 bytes each (a long key and an int value; Eclipse Collections'
     * LongIntHashMap rounds its slots up to a power of two, which can double that part).
     */
    static long hintBytes(long objects, long references) {
        return objects * 24 + references * 14 + objects * 2 * 12;
    }

    private void ensureReferenceCapacity(int n) {
        sources = Arrays.copyOf(sources, n);
        targets = Arrays.copyOf(targets, n);
        kinds = Arrays.copyOf(kinds, n);
        flags = Arrays.copyOf(flags, n);
        referenceNames = Arrays.copyOf(referenceNames, n);
    }

    private void ensureObjectCapacity(int needed) {
        if (needed <= addresses.length) {
            return;
        }
        int n = Math.max(needed, grow(addresses.length));
        addresses = Arrays.copyOf(addresses, n);
        sizes = Arrays.copyOf(sizes, n);
        types = Arrays.copyOf(types, n);
        categories = Arrays.copyOf(categories, n);
        labels = Arrays.copyOf(labels, n);
        defined = Arrays.copyOf(defined, n);
        if (opaqueAddresses != null) {
            opaqueAddresses = Arrays.copyOf(opaqueAddresses, n);
        }
    }

    private static int grow(int n) {
        long next = (long) n + (n >> 1) + 16;
        if (next > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("heap model is full (2^31 entries)");
        }
        return (int) next;
    }

    private static int intern(ObjectIntHashMap<String> ids, List<String> values, String value, int limit, String what) {
        int id = ids.getIfAbsent(value, -1);
        if (id < 0) {
            id = values.size();
            if (id >= limit) {
                throw new IllegalStateException("more than " + limit + " distinct " + what);
            }
            values.add(value);
            ids.put(value, id);
        }
        return id;
    }
}
