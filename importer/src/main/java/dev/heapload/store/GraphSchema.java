package dev.heapload.store;

import java.util.Locale;
import java.util.Set;

/**
 * Names of the graph schema {@link GraphStore} writes: the project's public contract for queries.
 *
 * <pre>
 * (:Snapshot {id, vm, vmVersion, producer, source, sha256, loadedAt, loadOrder, objectCount, referenceCount,
 *             totalBytes, objectBytes})
 * (:Object:&lt;TypeLabel&gt; {snapshot, address, type, size, category, label, site,
 *                        reachable, distance, retainedSize, dominator, rootName})
 * (:Object)-[:REF {kind, name, keyType, ephemeron, weakKey, retention}]-&gt;(:Object) strong references
 * (:Object)-[:WEAK_REF {kind, name, keyType, ephemeron}]-&gt;(:Object)   references flagged WEAK
 * (:Snapshot)-[:ROOT {name}]-&gt;(:Object)                       GC roots
 * (:Snapshot)-[:HAS_CATEGORY]-&gt;(:Category {snapshot, id, name, bytes})
 * </pre>
 *
 * <ul>
 *   <li>Types: {@code address}, {@code type}, {@code label}, {@code snapshot}, {@code name}, {@code kind},
 *       {@code rootName}, {@code vm}, {@code source}, {@code sha256}, {@code id} (of a Snapshot) are strings;
 *       {@code size}, {@code retainedSize}, {@code bytes}, {@code totalBytes}, {@code objectBytes},
 *       {@code objectCount}, {@code referenceCount} are integers in bytes or counts; {@code category},
 *       {@code distance}, {@code id} (of a Category) are integers (all numbers are stored as 64-bit, so the
 *       embedded Java API returns {@code Long}); {@code reachable}, {@code ephemeron}, {@code weakKey}, {@code retention} booleans
 *       ({@code weakKey}: the value of a Lua 5.1/LuaJIT weak-key table entry, strong while its key is alive);
 *       {@code loadedAt} a DATETIME in UTC.</li>
 *   <li>{@code loadOrder} (integer) orders the snapshots as loaded: the store catalog's position (a replaced
 *       snapshot keeps its place) in the embedded store; over Bolt ({@link RemoteGraphStore}) one more than the
 *       largest on the server when the load started. Absent on Snapshot nodes written before it existed (order
 *       those by {@code loadedAt}, then id, before the others).</li>
 *   <li>{@code producer} (the program that wrote the dump, e.g. {@code heapload heapdump.lua}) and {@code vmVersion}
 *       (e.g. {@code Lua 5.4}) on a Snapshot when the dump says them or the load was given {@code --producer} /
 *       {@code --vm-version} (Luau dumps say neither); absent otherwise.</li>
 *   <li>{@code keyType} (on a reference that has a {@code name}): what the name is: {@code string}, {@code number},
 *       {@code boolean}, {@code object} (a collectable key other than a string), {@code other} (NaN, a light
 *       userdata) for a table key, {@code name} for a name that is no table key (a field, local, upvalue, stack
 *       slot). Readers name non-string keys in brackets ({@code [1]}, {@code [true]}); the string key
 *       {@code "[1]"} has the name {@code [1]} and key type {@code string}. Snapshots loaded before key types existed
 *       (snapshot files of an older heapload) say {@code name} for every key.</li>
 *   <li>Retention paths stored with a comparison or ranking ({@code LeakGroup}, {@code TOP_RETAINER}, {@code GREW})
 *       are data, never text to split: four lists of one element per hop from the root (hop 0 is the root),
 *       {@value #PATH_NAMES} (the root's or reference's name, {@code ""} when the hop has none),
 *       {@value #PATH_KINDS} ({@code root} for hop 0, else the reference's kind), {@value #PATH_KEY_TYPES}
 *       ({@code keyType} as above, {@code ""} when the hop has no name) and {@value #PATH_TYPES} (the type of the
 *       object holding the reference; for hop 0 the root object's own type). {@code path} is their display, one
 *       element per hop, names not escaped (outputs make control characters visible): on {@code LeakGroup} one
 *       leak-trace line per hop ({@code root NAME (TYPE)}, {@code NAME in TYPE}), on {@code TOP_RETAINER} and
 *       {@code GREW} the names only; a hop without a name shows {@code [kind]}, and a string key that is empty or
 *       starts with {@code [} or {@code "} is shown in double quotes ({@code dev.heapload.analysis.PathHop}).</li>
 *   <li>{@code address} is the address text exactly as the dump spells it, e.g. {@code 0x5574b889d5e0}.</li>
 *   <li>Absent rather than null: {@code label} and {@code name} when the dump has none, {@code category} when
 *       the VM has no memory categories, {@code ephemeron}, {@code weakKey} and {@code retention} unless true, {@code source}/{@code sha256} when
 *       unknown.</li>
 *   <li>Only when the snapshot was analysed: {@code reachable}, {@code distance} (-1 when unreachable),
 *       {@code retainedSize} on every Object; {@code retention: true} on the one {@code REF} into each object
 *       whose retention path ends in a reference (the path's last hop: walking these backwards from an object
 *       reaches its root); {@code rootName} on objects that are roots themselves (the root's name) instead;
 *       {@code dominator}, the address of the immediate dominator, unless the
 *       super-root dominates the object or it is unreachable. The retention flag and the immediate dominator
 *       are properties rather than relationships of their own: one relationship per object costs 2–4 s of import
 *       per 2.4M objects (measured on the entity-system-large snapshot), and the
 *       dominator chain needs no walk of its own, since every dominator of an object lies on its retention
 *       path (the {@code why-alive} query keeps the path's nodes whose address is the previous kept node's
 *       {@code dominator}).</li>
 *   <li>{@code totalBytes} is the VM's own total when the dump reports one ({@code SnapshotInfo.vmTotalBytes}),
 *       else the sum of shallow sizes; {@code objectBytes} is always the sum of shallow sizes.</li>
 *   <li>Schema: uniqueness constraint {@value #SNAPSHOT_ID_CONSTRAINT} on {@code :Snapshot(id)}, range index
 *       {@value #OBJECT_ADDRESS_INDEX} on {@code :Object(snapshot, address)}, plus the label and
 *       relationship-type lookup indexes.</li>
 *   <li>On a server loaded over Bolt ({@link RemoteGraphStore}), a load or delete in progress also has a marker
 *       node {@code (:LoadInProgress {snapshot, token, startedAt})}; the snapshot's {@code :Snapshot} node exists
 *       only once its load is complete.</li>
 * </ul>
 */
public final class GraphSchema {

    /**
     * Saved queries that read only the {@code Snapshot}, {@code Category} and {@code Stats} nodes, which every
     * snapshot's graph holds for all snapshots of the store (pruned ones included); both store routes answer them
     * from whichever graph is at hand, without comparing or opening another.
     */
    public static final Set<String> SUMMARY_QUERIES = Set.of("snapshot", "summary", "type-histogram", "unreachable",
        "trend", "trend-categories");

    /**
     * Version of this schema, recorded in a store's catalog with the graph built from it. A store whose graph was
     * built with another version gets its graph rebuilt from its snapshot files when it is next opened for queries
     * ({@link GraphStore#database()}). History: 1 (absent from the catalog) RETAINED_BY relationships; 2 the
     * {@code retention} flag on REF instead, and {@code Snapshot.loadOrder}; 3 {@code path} on TOP_RETAINER and GREW;
     * 4 one graph per snapshot (docs/design/store.md): a snapshot's graph holds its own objects and comparisons (itself the
     * target) and only the {@code Snapshot}, {@code Category} and {@code Stats} nodes of the store's other snapshots;
     * comparisons are written when a load or a first request asks for them, not for every pair. Recorded per snapshot.
     * Also {@code frame} on stack-slot REFs and {@code Missing} nodes ({@code --keep-dangling}); paths as lists of hops ({@code pathNames}, {@code pathKinds}, {@code pathKeyTypes}, {@code pathTypes}) on
     * LeakGroup, TOP_RETAINER and GREW, {@code keyType} on references. 5: net growth on LeakGroup ({@code verdict},
     * {@code netObjects}, {@code netBytes}, {@code baselineHeads}, {@code freedHeads}, {@code freedObjects},
     * {@code freedBytes}) and its {@code rank} by net growth (leaks by net bytes, replaced groups after them), so a
     * graph built before gets them when it is rebuilt. 6: {@code site} on objects (where the object was allocated,
     * {@code source:line in function}, for dumps taken with allocation tracking).
     */
    public static final int VERSION = 6;

    /** Property of a named reference: the type of the key that names it (see the class comment). */
    public static final String KEY_TYPE = "keyType";
    /** Retention path property: the hops' names ({@code ""}: none). */
    public static final String PATH_NAMES = "pathNames";
    /** Retention path property: the hops' reference kinds ({@code root} for hop 0). */
    public static final String PATH_KINDS = "pathKinds";
    /** Retention path property: the hops' key types ({@code ""}: no name). */
    public static final String PATH_KEY_TYPES = "pathKeyTypes";
    /** Retention path property: the types of the objects holding the hops (hop 0: the root object's type). */
    public static final String PATH_TYPES = "pathTypes";

    public static final String SNAPSHOT = "Snapshot";
    public static final String OBJECT = "Object";
    public static final String CATEGORY = "Category";
    /**
     * An address the dump refers to but has no object record for ({@code --keep-dangling}): properties {@code snapshot},
     * {@code address} (as the dump spelled it), {@code reason} ({@link dev.heapload.model.DanglingReferences.Reason#text});
     * its references are REF / WEAK_REF with {@code kind} and {@code name} as in the dump, so a snapshot's reference
     * relationships number as many as the dump's references.
     */
    public static final String MISSING = "Missing";

    public static final String REF = "REF";
    public static final String WEAK_REF = "WEAK_REF";
    public static final String ROOT = "ROOT";
    public static final String HAS_CATEGORY = "HAS_CATEGORY";
    public static final String HAS_STATS = "HAS_STATS";
    /**
     * Property {@code retention: true} on the {@code REF} that is the last hop of its target's retention path (one
     * per reachable object that is not a root); absent on every other reference.
     */
    public static final String RETENTION = "retention";
    public static final String TOP_RETAINER = "TOP_RETAINER";
    public static final String CATEGORY_TOP_RETAINER = "CATEGORY_TOP_RETAINER";
    public static final String BASELINE = "BASELINE";
    public static final String TARGET = "TARGET";
    public static final String HAS_NEW_OBJECTS = "HAS_NEW_OBJECTS";
    public static final String HAS_LEAK_GROUP = "HAS_LEAK_GROUP";
    public static final String EXAMPLE = "EXAMPLE";
    public static final String GREW = "GREW";

    public static final String STATS = "Stats";
    public static final String DIFF = "Diff";
    public static final String NEW_OBJECTS = "NewObjects";
    public static final String LEAK_GROUP = "LeakGroup";
    /** Extra label of unreachable objects a reachable object references weakly. */
    public static final String WEAK_ONLY = "WeakOnly";

    /** Name of the uniqueness constraint on {@code :Snapshot(id)}. */
    public static final String SNAPSHOT_ID_CONSTRAINT = "snapshot_id";
    /** Name of the composite range index on {@code :Object(snapshot, address)}. */
    public static final String OBJECT_ADDRESS_INDEX = "object_snapshot_address";

    private GraphSchema() {
    }

    /**
     * The extra label of an object of VM type {@code type}: the type name with every character that is not a
     * letter, digit or underscore removed and the first letter upper-cased ({@code table} → {@code Table},
     * {@code user data} → {@code Userdata}). A result that starts with a digit gets the prefix
     * {@code T}; one that would collide with {@code Snapshot} or {@code Category} gets the suffix {@code Type};
     * an empty result means no extra label ({@code null}).
     */
    public static String typeLabel(String type) {
        if (type == null) {
            return null;
        }
        StringBuilder b = new StringBuilder(type.length());
        for (int i = 0; i < type.length(); i++) {
            char c = type.charAt(i);
            if (Character.isLetterOrDigit(c) || c == '_') {
                b.append(c);
            }
        }
        if (b.length() == 0) {
            return null;
        }
        b.setCharAt(0, Character.toUpperCase(b.charAt(0)));
        String label = b.toString();
        if (Character.isDigit(label.charAt(0))) {
            label = "T" + label;
        }
        String lower = label.toLowerCase(Locale.ROOT);
        if (lower.equals("snapshot") || lower.equals("category")) {
            label = label + "Type";
        }
        return label;
    }
}
