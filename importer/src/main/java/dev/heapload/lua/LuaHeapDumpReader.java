package dev.heapload.lua;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.JsonEOFException;

import org.eclipse.collections.impl.list.mutable.primitive.IntArrayList;

import dev.heapload.io.DumpInput;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;

/**
 * Reads the JSON heap snapshot written by heapload's Lua dumper ({@code dumpers/lua/heapdump.lua},
 * {@code "format":"lua-heap-snapshot"}, docs/reference/lua-dumper-format.md) for Lua 5.1-5.5 and LuaJIT 2.1 into a
 * {@link HeapSnapshot}. Plain or gzip (by magic bytes); one streaming pass, no document tree.
 *
 * <h2>Objects</h2>
 * One per record of {@code objects}, in file order. Type: {@code table}, {@code function} (a Lua
 * closure), {@code cfunction} (a C function: record {@code "what":"C"}), {@code thread},
 * {@code userdata}, {@code string}, {@code cdata} (LuaJIT); another type name is kept as written and
 * counted in a warning. Shallow size = {@code size} in bytes: what the VM's allocator counts for the object
 * (docs/reference/lua-dumper-format.md; table capacities and thread stacks estimated). Label: string → its text; function → {@code source:linedefined}; thread → its status and
 * top frame; userdata → its metatable's {@code __name}; cdata → its {@code repr}.
 *
 * <h2>Addresses</h2>
 * The record key. Lua 5.4, 5.5 and LuaJIT write real addresses ({@code %p}) for every object, strings included;
 * Lua 5.1-5.3 have no printable string address, so the dumper writes ids {@code s1, s2, …} by content; this
 * reader replaces them by {@code 0x4…}: 2^62 plus the low 62 bits of a 64-bit FNV-1a hash of the string's
 * bytes, so the same text has the same address in two snapshots and {@link
 * dev.heapload.analysis.SnapshotDiff}'s identity rule (address, type, size) compares strings by content
 * there (user-space addresses on x86_64 are below 2^47, so these never meet a real one).
 *
 * <h2>References</h2> (kind in brackets)
 * <ul>
 *   <li>table: {@code metatable} → [metatable]; each {@code pairs} entry {@code [k, v]}: a key that is an
 *       object → [key], then a value that is an object → [value], named by the key: a string key's text,
 *       other keys in brackets ({@code [1]}, {@code [3.5]}, {@code [true]}, {@code [0x55…]}), with the key's type
 *       ({@link HeapSnapshot#keyType}: string, number, boolean, object, other) so the string key {@code "[1]"}
 *       and the number key {@code 1} stay apart;</li>
 *   <li>function: {@code env} → [env] (5.1, LuaJIT), {@code upvalues} → [upvalue] named by the upvalue's
 *       name ({@code ""} of C upvalues: no name);</li>
 *   <li>thread: {@code env} → [env]; per frame: {@code func} → [frame-function] named {@code source:line},
 *       {@code locals} → [local] named by the local's name ({@code (temporary)} slots included: dead
 *       registers really keep objects alive), {@code varargs} → [vararg]; each local and vararg carries its
 *       frame ({@link HeapSnapshot#referenceFrame}, {@link #frameText}: {@code handle (program.lua:11)});</li>
 *   <li>userdata: {@code metatable} → [metatable], {@code uservalues} → [uservalue] named {@code [n]},
 *       {@code env} → [env].</li>
 * </ul>
 *
 * <h2>Weak references, per Lua version</h2>
 * A table's {@code weak} field ({@code k}, {@code v} or {@code kv}, from its metatable's {@code __mode}):
 * <ul>
 *   <li>weak values: [value] references are {@link HeapSnapshot#WEAK};</li>
 *   <li>weak keys: [key] references are {@link HeapSnapshot#WEAK}; the value of such an entry is, on
 *       Lua 5.2, 5.3 and 5.4, an {@link HeapSnapshot#EPHEMERON_VALUE} (alive only while the key is reachable
 *       otherwise; Lua 5.4 lgc.c {@code traverseephemeron}; 5.5 keeps the rule), and on Lua 5.1 and LuaJIT a {@link
 *       HeapSnapshot#WEAK_KEY_VALUE} (strong while the entry survives; entries with unreachable keys are
 *       dropped; Lua 5.1 lgc.c {@code traversetable} / {@code cleartable});</li>
 *   <li>strings are never weak (lgc.c {@code iscleared}: strings are values), nor are number and boolean
 *       keys: such entries are strong unless the values are weak.</li>
 * </ul>
 * A string record precedes every reference to it (the dumper guarantees it), so whether a target is a
 * string is known when the reference is made.
 *
 * <h2>Roots</h2>
 * {@code registry}, {@code globals}, {@code mainthread} (5.2+), {@code metatable(<type>)} for each of
 * {@code typeMetatables}, then the calling thread: {@code callstack} → the thread when the dump names it,
 * else (the main thread of 5.1 / LuaJIT, which is no visible object) one root per frame function, local
 * and vararg, named {@code stack <source>:<line> <local>}.
 *
 * <h2>Warnings</h2>
 * The dumper's own ({@code warnings}: what it could not see) are kept. C functions with more upvalues than the dump
 * lists (Lua 5.1 without the C helper) are counted in one warning, the standard library's ({@code builtin}) left out.
 * Objects adding up to under a quarter of the VM's total ({@code stats.gcCountKB}) give one warning naming the likely
 * cause ({@link #belowVmTotal}).
 *
 * <h2>Errors</h2>
 * One-line {@link DumpFormatException}s naming the file and byte offset: not JSON, cut short ("unexpected
 * end of input (truncated dump?)"), not this format. Addresses referenced but never defined are dropped
 * with a warning (the builder), records of unknown type are kept with a warning.
 */
public final class LuaHeapDumpReader {

    /** The value of the top-level {@code format} field. */
    public static final String FORMAT = "lua-heap-snapshot";

    private static final JsonFactory JSON = JsonFactory.builder()
        .disable(com.fasterxml.jackson.core.StreamReadFeature.AUTO_CLOSE_SOURCE) // the SHA-256 reads the rest
        // object ids are member names of "objects"; canonicalisation stays on: without it Jackson reads
        // through a char Reader, which is slower and reports no byte offsets
        .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
        .streamReadConstraints(dev.heapload.io.InputLimits.jsonConstraints())
        .build();

    private static final long STRING_ADDRESS_BASE = 1L << 62;

    /** Creates a reader; instances hold no state between reads. */
    public LuaHeapDumpReader() {
    }

    private boolean keepDangling;

    /**
     * Keeps the references to addresses with no record one by one (the store writes them as {@code Missing} nodes)
     * instead of only counting them ({@link dev.heapload.model.HeapSnapshot#danglingReferences()}).
     *
     * @return this reader
     */
    public LuaHeapDumpReader keepDangling(boolean keep) {
        this.keepDangling = keep;
        return this;
    }

    /**
     * The VM name for {@link SnapshotInfo#vm()} from the dump's {@code lua} member.
     *
     * @param version {@code _VERSION}, e.g. {@code Lua 5.4}
     * @param jit     {@code jit.version} or {@code null}
     * @return {@code luajit}, {@code lua5.1} … {@code lua5.5}
     */
    public static String vmName(String version, String jit) {
        if (jit != null) {
            return "luajit";
        }
        if (version != null && version.startsWith("Lua ")) {
            return "lua" + version.substring(4).trim();
        }
        return "lua";
    }

    /** Whether a VM has ephemeron tables (Lua 5.2 and later). */
    static boolean hasEphemerons(String vm) {
        return vm.startsWith("lua5.") && !vm.equals("lua5.1");
    }

    /**
     * Reads one dump.
     *
     * @param file       the dump
     * @param snapshotId id of the snapshot
     * @param progress   receives the phase {@code read <file name>} in bytes of the file as stored
     * @return the snapshot
     * @throws DumpFormatException when the file is not a readable dump of this format (one line: file, byte, reason)
     * @throws IOException         on an I/O failure
     */
    public HeapSnapshot read(Path file, String snapshotId, Progress progress) throws IOException {
        try (DumpInput in = DumpInput.open(file)) {
            Path fileName = file.getFileName();
            progress.start("read " + (fileName == null ? file.toString() : fileName.toString()), in.size(), "B");
            try (JsonParser p = JSON.createParser(in.content())) {
                Parse parse = new Parse(in, p, progress);
                parse.b.keepDangling(keepDangling);
                try {
                    return parse.run(snapshotId);
                } catch (JsonEOFException e) {
                    throw new DumpFormatException(in.name(), p.currentLocation().getByteOffset(),
                        "unexpected end of input (truncated dump?)");
                } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
                    throw dev.heapload.io.InputLimits.error(in.name(), p, e);
                } catch (StreamReadException e) {
                    String msg = e.getOriginalMessage();
                    int nl = msg == null ? -1 : msg.indexOf('\n');
                    throw new DumpFormatException(in.name(), e.getLocation() == null ? -1 : e.getLocation().getByteOffset(),
                        "not valid JSON: " + (nl >= 0 ? msg.substring(0, nl) : msg));
                } catch (java.util.zip.ZipException | java.io.EOFException e) {
                    throw new DumpFormatException(in.name(), -1, "broken gzip data (" + e.getMessage() + ")");
                }
            } finally {
                progress.end();
            }
        }
    }

    private static final class Parse {
        private final DumpInput in;
        private final JsonParser p;
        private final Progress progress;
        private final HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        private final List<String> warnings = new ArrayList<>();
        /** Sites in the dump's {@code tracking.sites}, and the highest index an object's {@code site} used. */
        private int siteCount;
        private int maxSite = -1;
        private final Map<String, String> stringAddress = new HashMap<>();
        private String version;
        private String jit;
        private String producer;
        private String vm;
        private boolean ephemerons;
        private boolean contentStringIds;
        private long vmTotalBytes = -1;
        private int unknownTypes;
        /**
         * C functions with more upvalues than the dump lists (coroutine.wrap generators on Lua 5.1), the standard
         * library's own ({@code builtin}: pairs, ipairs, newproxy) left out: what they hide is no program object.
         */
        private int hiddenUpvalueClosures;
        /** The sum of the records' sizes, in bytes. */
        private long objectBytes;
        /** Userdata whose payload size the dump does not know ({@code payloadSizeUnknown}). */
        private int unknownPayloads;
        /** LuaJIT cdata without {@code ctype}: written by a dumper that counted every cdata as 16 bytes. */
        private int unsizedCdata;
        /** Warnings the dumper wrote ({@code warnings}). */
        private final List<String> dumperWarnings = new ArrayList<>();
        private String firstUnknown;
        private int kKey, kValue, kMeta, kEnv, kUpvalue, kFrameFunction, kLocal, kVararg, kUservalue, kCallstack;

        // references of the record being read: added once the record is defined
        private final IntArrayList rTarget = new IntArrayList();
        private final IntArrayList rKind = new IntArrayList();
        private final IntArrayList rName = new IntArrayList();
        private final IntArrayList rFlag = new IntArrayList();
        /** Per reference of the record: the name id of its frame, or -1. */
        private final IntArrayList rFrame = new IntArrayList();
        /** The frame (name id) of the locals being read, else -1. */
        private int currentFrame = -1;

        Parse(DumpInput in, JsonParser p, Progress progress) {
            this.in = in;
            this.p = p;
            this.progress = progress;
            kKey = b.kind("key");
            kValue = b.kind("value");
            kMeta = b.kind("metatable");
            kEnv = b.kind("env");
            kUpvalue = b.kind("upvalue");
            kFrameFunction = b.kind("frame-function");
            kLocal = b.kind("local");
            kVararg = b.kind("vararg");
            kUservalue = b.kind("uservalue");
            kCallstack = b.kind("callstack");
        }

        private DumpFormatException error(String reason) {
            return new DumpFormatException(in.name(), p.currentTokenLocation().getByteOffset(), reason);
        }

        HeapSnapshot run(String snapshotId) throws IOException {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw error("not a Lua heap snapshot: the file does not start with a JSON object");
            }
            boolean formatSeen = false;
            boolean objectsSeen = false;
            Map<String, Object> roots = null;
            dev.heapload.io.SeenNames members = new dev.heapload.io.SeenNames();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                if (!members.add(field)) {
                    throw error("not a Lua heap snapshot: a second top-level \"" + field + "\" member");
                }
                JsonToken t = p.nextToken();
                switch (field) {
                    case "format" -> {
                        if (t != JsonToken.VALUE_STRING || !FORMAT.equals(p.getText())) {
                            throw error("not a Lua heap snapshot: \"format\" is not \"" + FORMAT + "\"");
                        }
                        formatSeen = true;
                    }
                    case "lua" -> readLua();
                    case "dumper" -> readDumper();
                    case "stats" -> readStats();
                    case "objects" -> {
                        if (!formatSeen || vm == null) {
                            throw error("not a Lua heap snapshot: \"format\" and \"lua\" must come before \"objects\"");
                        }
                        readObjects();
                        objectsSeen = true;
                    }
                    case "roots" -> roots = readRoots();
                    case "warnings" -> readDumperWarnings();
                    case "tracking" -> readTracking();
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                throw error("not a Lua heap snapshot: unexpected " + p.currentToken());
            }
            if (!formatSeen || !objectsSeen) {
                throw new DumpFormatException(in.name(), -1, "not a Lua heap snapshot: no \"format\"/\"objects\" member");
            }
            if (roots == null) {
                throw new DumpFormatException(in.name(), -1, "no \"roots\" member (truncated dump?)");
            }
            addRoots(roots);
            warnings.addAll(dumperWarnings);
            String below = belowVmTotal(objectBytes, vmTotalBytes, vm, unknownPayloads, unsizedCdata);
            if (below != null) {
                warnings.add(below);
            }
            if (hiddenUpvalueClosures > 0) {
                warnings.add(hiddenUpvalueClosures + " C function(s) with upvalues this dump cannot show (" + vm
                    + "'s debug library does not read C upvalues; e.g. coroutine.wrap generators): what they hold"
                    + " (a generator's thread, its locals) is missing from this snapshot and from its leaks");
            }
            if (unknownTypes > 0) {
                warnings.add(unknownTypes + " record(s) of unknown type (first: " + firstUnknown
                    + ") kept with their size, without references");
            }
            if (maxSite >= siteCount) {
                throw new DumpFormatException(in.name(), -1, "an object's \"site\" " + maxSite + " is not in \"tracking.sites\" ("
                    + siteCount + " site(s))");
            }
            String sha = in.sha256();
            SnapshotInfo info = new SnapshotInfo(snapshotId, vm, in.name(), sha, vmTotalBytes, Map.of(), warnings,
                producer, jit != null ? jit : version);
            return b.build(info);
        }

        private void readLua() throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw error("\"lua\" is not an object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                switch (f) {
                    case "version" -> version = t == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "jit" -> jit = t == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "stringIds" -> contentStringIds = t == JsonToken.VALUE_STRING && "content".equals(p.getText());
                    default -> p.skipChildren();
                }
            }
            vm = vmName(version, jit);
            ephemerons = hasEphemerons(vm);
        }

        /**
         * {@code tracking} (dumps taken after {@code heapdump.track(true)}): {@code sites}, an array of
         * {@code {"source", "line", "function"}} that objects' {@code site} fields index; the rest is informative.
         */
        private void readTracking() throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw error("\"tracking\" is not an object");
            }
            List<String> sources = new ArrayList<>();
            List<Integer> lines = new ArrayList<>();
            List<String> functions = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                if (!"sites".equals(f)) {
                    p.skipChildren();
                    continue;
                }
                if (t != JsonToken.START_ARRAY) {
                    throw error("\"tracking.sites\" is not an array");
                }
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    String source = "?";
                    int line = -1;
                    String function = "?";
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String g = p.currentName();
                        JsonToken v = p.nextToken();
                        switch (g) {
                            case "source" -> source = v == JsonToken.VALUE_STRING ? p.getText() : "?";
                            case "line" -> line = v == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : -1;
                            case "function" -> function = v == JsonToken.VALUE_STRING ? p.getText() : "?";
                            default -> p.skipChildren();
                        }
                    }
                    sources.add(source);
                    lines.add(line);
                    functions.add(function);
                }
                if (p.currentToken() != JsonToken.END_ARRAY) {
                    throw error("\"tracking.sites\" holds something other than site objects");
                }
            }
            siteCount = sources.size();
            b.siteTable(new dev.heapload.model.AllocationSites(sources.toArray(String[]::new),
                lines.stream().mapToInt(Integer::intValue).toArray(), functions.toArray(String[]::new), null));
        }

        /** The dumper's {@code warnings}: an array of strings, each kept as a warning of the snapshot. */
        private void readDumperWarnings() throws IOException {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                p.skipChildren();
                return;
            }
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken() == JsonToken.VALUE_STRING) {
                    dumperWarnings.add(p.getText());
                } else {
                    p.skipChildren();
                }
            }
        }

        /** {@code dumper.name}: the producer ({@code heapload heapdump.lua}). */
        private void readDumper() throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                return;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                if ("name".equals(f) && t == JsonToken.VALUE_STRING) {
                    producer = p.getText();
                } else {
                    p.skipChildren();
                }
            }
        }

        private void readStats() throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                p.skipChildren();
                return;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                if ("gcCountKB".equals(f) && t.isNumeric()) {
                    vmTotalBytes = Math.round(p.getDoubleValue() * 1024);
                } else {
                    p.skipChildren();
                }
            }
        }

        /** The builder object id of a dump id (strings by content on 5.1-5.3, see the class doc). */
        private int object(String id) {
            if (!contentStringIds) {
                return b.objectId(id);
            }
            String a = stringAddress.get(id);
            return b.objectId(a != null ? a : id);
        }

        private boolean isString(int object) {
            return b.isDefined(object) && "string".equals(b.type(object));
        }

        private void readObjects() throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw error("\"objects\" is not an object");
            }
            long records = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String id = p.currentName();
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw error("record " + id + " is not an object");
                }
                readRecord(id);
                if ((++records & 0xfff) == 0) {
                    progress.step(in.storedBytesRead());
                }
            }
        }

        private void ref(int target, int kind, int name, int flag) {
            rTarget.add(target);
            rKind.add(kind);
            rName.add(name);
            rFlag.add(flag);
            rFrame.add(currentFrame);
        }

        /** The current record's field names. */
        private final dev.heapload.io.SeenNames fields = new dev.heapload.io.SeenNames();

        private void readRecord(String id) throws IOException {
            rTarget.clear();
            rKind.clear();
            rName.clear();
            rFlag.clear();
            rFrame.clear();
            String type = null;
            String what = null;
            String source = null;
            long line = -1;
            long size = 0;
            String value = null;
            String hex = null;
            String label = null;
            String weak = null;
            String status = null;
            int nups = -1;
            int listedUpvalues = 0;
            boolean builtin = false;
            boolean payloadUnknown = false;
            boolean ctype = false;
            int site = -1;
            fields.clear();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                if (!fields.add(f)) {
                    throw error("record " + id + " has a second \"" + f + "\" field");
                }
                JsonToken t = p.nextToken();
                switch (f) {
                    case "type" -> type = p.getText();
                    case "size" -> size = p.getLongValue();
                    case "site" -> {
                        if (t != JsonToken.VALUE_NUMBER_INT || p.getLongValue() < 0 || p.getLongValue() > Integer.MAX_VALUE) {
                            throw error("record " + id + ": \"site\" is not a site index");
                        }
                        site = p.getIntValue();
                    }
                    case "value" -> value = t == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "hex" -> hex = p.getText();
                    case "what" -> what = p.getText();
                    case "source" -> source = p.getText();
                    case "linedefined" -> line = p.getLongValue();
                    case "name", "repr" -> label = t == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "status" -> status = p.getText();
                    case "weak" -> weak = p.getText();
                    case "metatable" -> valueRef(kMeta, HeapSnapshot.NO_NAME, 0);
                    case "env" -> valueRef(kEnv, HeapSnapshot.NO_NAME, 0);
                    case "pairs" -> readPairs(weak);
                    case "upvalues" -> listedUpvalues = readUpvalues();
                    case "nups" -> nups = p.getIntValue();
                    case "builtin" -> builtin = t == JsonToken.VALUE_TRUE;
                    case "payloadSizeUnknown" -> payloadUnknown = t == JsonToken.VALUE_TRUE;
                    case "ctype" -> ctype = t == JsonToken.VALUE_STRING;
                    case "frames" -> label = readFrames(null);
                    case "uservalues" -> readUservalues();
                    default -> p.skipChildren();
                }
            }
            if (type == null) {
                throw error("record " + id + " has no \"type\"");
            }
            if ("string".equals(type)) {
                if (contentStringIds && !id.startsWith("0x")) {
                    String address = contentAddress(value, hex);
                    stringAddress.put(id, address);
                    id = address;
                }
                label = value;
            } else if ("function".equals(type)) {
                if ("C".equals(what)) {
                    type = "cfunction";
                    // upvalues the debug library could not read (Lua 5.1 ldblib auxupvalue: "cannot touch C upvalues
                    // from Lua"): nups from the dumper, or for dumps without it, from its C closure size 40 + 16n
                    int count = nups >= 0 ? nups
                        : "lua5.1".equals(vm) && size > 40 && (size - 40) % 16 == 0 ? (int) ((size - 40) / 16) : 0;
                    if (count > listedUpvalues && !builtin) {
                        hiddenUpvalueClosures++;
                    }
                }
                label = source == null ? null : source + ":" + line;
            } else if ("thread".equals(type)) {
                label = status + (label == null ? "" : " " + label);
            } else if ("userdata".equals(type)) {
                unknownPayloads += payloadUnknown ? 1 : 0;
            } else if ("cdata".equals(type)) {
                unsizedCdata += ctype ? 0 : 1;
            } else if (!"table".equals(type) && !"userdata".equals(type) && !"cdata".equals(type)) {
                if (unknownTypes++ == 0) {
                    firstUnknown = "\"" + type + "\" at byte " + p.currentTokenLocation().getByteOffset();
                }
                rTarget.clear();
            }
            objectBytes += size;
            int o;
            try {
                o = b.defineObject(stringAddress.getOrDefault(id, id), type, size, -1, label);
            } catch (IllegalStateException e) {
                throw error("object " + id + " is defined twice");
            }
            if (site >= 0) {
                b.setSite(o, site);
                maxSite = Math.max(maxSite, site);
            }
            for (int i = 0; i < rTarget.size(); i++) {
                int r = b.addReference(rTarget.get(i), rKind.get(i), rName.get(i), rFlag.get(i));
                if (rFrame.get(i) >= 0) {
                    b.setReferenceFrame(r, rFrame.get(i));
                }
            }
            assert o >= 0;
        }

        /** A value token: an object id (string) makes a reference; others nothing. Returns the target or -1. */
        private int valueRef(int kind, int name, int flag) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                int target = object(p.getText());
                ref(target, kind, name, flag);
                return target;
            }
            p.skipChildren();
            return -1;
        }

        private void readPairs(String weak) throws IOException {
            boolean weakKeys = weak != null && weak.indexOf('k') >= 0;
            boolean weakValues = weak != null && weak.indexOf('v') >= 0;
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw error("\"pairs\" is not an array");
            }
            while (p.nextToken() == JsonToken.START_ARRAY) {
                JsonToken kt = p.nextToken();
                int key = -1;
                int name;
                int keyType;
                boolean collectableKey = false;
                if (kt == JsonToken.VALUE_STRING) {
                    key = object(p.getText());
                    boolean str = isString(key);
                    collectableKey = !str;
                    ref(key, kKey, HeapSnapshot.NO_NAME, weakKeys && !str ? HeapSnapshot.WEAK : 0);
                    name = str ? HeapSnapshotBuilder.nameFromObject(key) : b.name("[" + p.getText() + "]");
                    keyType = str ? HeapSnapshot.KEY_STRING : HeapSnapshot.KEY_OBJECT;
                } else if (kt == JsonToken.START_OBJECT) {
                    name = b.name("[" + specialText() + "]");
                    keyType = HeapSnapshot.KEY_OTHER;
                } else if (kt == JsonToken.END_ARRAY) {
                    throw error("a \"pairs\" entry is empty");
                } else {
                    name = b.name("[" + p.getText() + "]");
                    keyType = kt == JsonToken.VALUE_TRUE || kt == JsonToken.VALUE_FALSE ? HeapSnapshot.KEY_BOOLEAN
                        : kt == JsonToken.VALUE_NUMBER_INT || kt == JsonToken.VALUE_NUMBER_FLOAT ? HeapSnapshot.KEY_NUMBER
                        : HeapSnapshot.KEY_OTHER;
                }
                JsonToken vt = p.nextToken();
                if (vt == JsonToken.VALUE_STRING) {
                    int target = object(p.getText());
                    int flag = 0;
                    if (!isString(target)) {
                        if (weakValues) {
                            flag = HeapSnapshot.WEAK;
                        } else if (weakKeys && collectableKey) {
                            flag = ephemerons ? HeapSnapshot.EPHEMERON_VALUE : HeapSnapshot.WEAK_KEY_VALUE;
                        }
                    }
                    ref(target, kValue, name, flag | HeapSnapshot.keyTypeFlag(keyType));
                } else if (vt == JsonToken.START_OBJECT || vt == JsonToken.START_ARRAY) {
                    p.skipChildren();
                } else if (vt == JsonToken.END_ARRAY) {
                    throw error("a \"pairs\" entry has no value");
                }
                if (p.nextToken() != JsonToken.END_ARRAY) {
                    throw error("a \"pairs\" entry has more than two elements");
                }
            }
            if (p.currentToken() != JsonToken.END_ARRAY) {
                throw error("\"pairs\" has an element that is not a [key, value] array");
            }
        }

        /** Text of a special value object ({"num":"nan"}, {"lightcfunction":"0x…"}, {"lud":"0x…"}). */
        private String specialText() throws IOException {
            StringBuilder sb = new StringBuilder();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                p.nextToken();
                if (sb.length() > 0) {
                    sb.append(' ');
                }
                sb.append(f).append(' ').append(p.currentToken().isScalarValue() ? p.getText() : "?");
                p.skipChildren();
            }
            return sb.toString();
        }

        /** @return how many upvalues the array lists */
        private int readUpvalues() throws IOException {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw error("\"upvalues\" is not an array");
            }
            int listed = 0;
            while (p.nextToken() == JsonToken.START_OBJECT) {
                listed++;
                String name = null;
                String target = null;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String f = p.currentName();
                    JsonToken t = p.nextToken();
                    if ("name".equals(f)) {
                        name = p.getText();
                    } else if ("value".equals(f) && t == JsonToken.VALUE_STRING) {
                        target = p.getText();
                    } else {
                        p.skipChildren();
                    }
                }
                if (target != null) {
                    ref(object(target), kUpvalue, name == null || name.isEmpty() ? HeapSnapshot.NO_NAME : b.name(name), 0);
                }
            }
            return listed;
        }

        private void readUservalues() throws IOException {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw error("\"uservalues\" is not an array");
            }
            int n = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                n++;
                valueRef(kUservalue, b.name("[" + n + "]"), 0);
            }
        }

        /**
         * Reads a {@code frames} array. With {@code rootRefs} null the references go to the current record, the
         * locals and varargs with their frame ({@link #frameText}); otherwise (the callstack of a thread that is no
         * object) they are collected as named roots. A frame's {@code source}, {@code line}, {@code linedefined},
         * {@code what} and {@code name} come before its {@code func}, {@code locals} and {@code varargs} (the dumper
         * writes them so).
         *
         * @return a label: the top frame as {@code source:line}, or null
         */
        private String readFrames(List<Map.Entry<String, String>> rootRefs) throws IOException {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw error("\"frames\" is not an array");
            }
            String top = null;
            while (p.nextToken() == JsonToken.START_OBJECT) {
                String source = "?";
                long line = -1;
                long defined = -1;
                String what = null;
                String function = null;
                int frame = -1;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String f = p.currentName();
                    JsonToken t = p.nextToken();
                    String where = source + ":" + line;
                    if (frame < 0 && rootRefs == null && ("locals".equals(f) || "varargs".equals(f))) {
                        frame = b.name(frameText(what, function, source, line, defined));
                    }
                    switch (f) {
                        case "source" -> source = p.getText();
                        case "line" -> line = p.getLongValue();
                        case "linedefined" -> defined = t.isNumeric() ? p.getLongValue() : -1;
                        case "what" -> what = t == JsonToken.VALUE_STRING ? p.getText() : null;
                        case "name" -> function = t == JsonToken.VALUE_STRING ? p.getText() : null;
                        case "func" -> frameValue(rootRefs, kFrameFunction, where, where, -1);
                        case "locals" -> {
                            while (p.nextToken() == JsonToken.START_OBJECT) {
                                String name = null;
                                while (p.nextToken() == JsonToken.FIELD_NAME) {
                                    String lf = p.currentName();
                                    p.nextToken();
                                    if ("name".equals(lf)) {
                                        name = p.getText();
                                    } else if ("value".equals(lf)) {
                                        frameValue(rootRefs, kLocal, name, where + " " + name, frame);
                                    } else {
                                        p.skipChildren();
                                    }
                                }
                            }
                        }
                        case "varargs" -> {
                            int n = 0;
                            while (p.nextToken() != JsonToken.END_ARRAY) {
                                n++;
                                frameValue(rootRefs, kVararg, "[vararg " + n + "]", where + " [vararg " + n + "]", frame);
                            }
                        }
                        default -> p.skipChildren();
                    }
                    if (t == null) {
                        break;
                    }
                }
                if (top == null && !"[C]".equals(source)) {
                    top = source + ":" + line;
                }
            }
            return top;
        }

        /**
         * A frame's local or vararg: a reference of the current record (with its frame, a name id, when {@code frame}
         * is not negative) or, with {@code rootRefs}, a root.
         */
        private void frameValue(List<Map.Entry<String, String>> rootRefs, int kind, String name, String rootName,
            int frame) throws IOException {
            if (rootRefs == null) {
                currentFrame = frame;
                try {
                    valueRef(kind, name == null ? HeapSnapshot.NO_NAME : b.name(name), 0);
                } finally {
                    currentFrame = -1;
                }
            } else if (p.currentToken() == JsonToken.VALUE_STRING) {
                rootRefs.add(Map.entry("stack " + rootName, p.getText()));
            } else {
                p.skipChildren();
            }
        }

        /** Reads {@code roots} into an ordered map: name → id text, or a list of (name, id) for the stack. */
        private Map<String, Object> readRoots() throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw error("\"roots\" is not an object");
            }
            Map<String, Object> roots = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_STRING) {
                    roots.put(f, p.getText());
                } else if ("typeMetatables".equals(f) && t == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String type = p.currentName();
                        if (p.nextToken() == JsonToken.VALUE_STRING) {
                            roots.put("metatable(" + type + ")", p.getText());
                        } else {
                            p.skipChildren();
                        }
                    }
                } else if ("callstack".equals(f) && t == JsonToken.START_OBJECT) {
                    String thread = null;
                    List<Map.Entry<String, String>> stack = new ArrayList<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String cf = p.currentName();
                        JsonToken ct = p.nextToken();
                        if ("thread".equals(cf) && ct == JsonToken.VALUE_STRING) {
                            thread = p.getText();
                        } else if ("frames".equals(cf)) {
                            readFrames(stack);
                        } else {
                            p.skipChildren();
                        }
                    }
                    if (thread != null) {
                        roots.put("callstack", thread);
                    } else {
                        roots.put("callstack", stack);
                    }
                } else {
                    p.skipChildren();
                }
            }
            return roots;
        }

        @SuppressWarnings("unchecked")
        private void addRoots(Map<String, Object> roots) {
            for (Map.Entry<String, Object> r : roots.entrySet()) {
                if (r.getValue() instanceof String id) {
                    b.addRoot(r.getKey(), object(id));
                } else {
                    for (Map.Entry<String, String> s : (List<Map.Entry<String, String>>) r.getValue()) {
                        b.addRoot(s.getKey(), object(s.getValue()));
                    }
                }
            }
        }
    }

    /** Objects adding up to less than this share of the VM's own total are "far below" it ({@link #belowVmTotal}). */
    static final double FAR_BELOW_SHARE = 0.25;

    /** ... and only when at least this many bytes are missing (a small state is mostly prototypes and the VM's own). */
    static final long FAR_BELOW_BYTES = 1L << 20;

    /**
     * The warning for a dump whose objects add up to far less than the VM's own total ({@code collectgarbage("count")}):
     * under {@link #FAR_BELOW_SHARE} of it with at least {@link #FAR_BELOW_BYTES} missing. It names the cause when the
     * dump shows one (cdata written by a dumper that counted each as 16 bytes), else the memory no object of a dump
     * shows (garbage, prototypes, JIT traces, the main thread's stack on 5.1/LuaJIT, objects awaiting finalization, C
     * allocations through the Lua allocator), and the userdata whose payload sizes the dump does not know; null when
     * the objects are not far below.
     *
     * @param objectBytes      the sum of the objects' sizes
     * @param vmTotal          the VM's total in bytes, or -1
     * @param vm               {@code lua5.1} … {@code luajit}
     * @param unknownPayloads  userdata whose payload size the dump does not know
     * @param unsizedCdata     cdata without a ctype (older dumper)
     */
    static String belowVmTotal(long objectBytes, long vmTotal, String vm, int unknownPayloads, int unsizedCdata) {
        if (vmTotal <= 0 || objectBytes >= vmTotal * FAR_BELOW_SHARE || vmTotal - objectBytes < FAR_BELOW_BYTES) {
            return null;
        }
        boolean old = "lua5.1".equals(vm) || "luajit".equals(vm);
        String cause;
        if (unsizedCdata > 0) {
            cause = String.format(Locale.ROOT, "likely cause: %,d cdata counted as 16 bytes each by a heapdump.lua without"
                + " cdata sizes: dump again with the current dumpers/lua/heapdump.lua (it sizes each cdata as LuaJIT"
                + " allocates it)", unsizedCdata);
        } else {
            cause = "the rest is memory no object of this dump shows: garbage not collected yet (collectgarbage(\"collect\")"
                + " before dumping), function prototypes and their constants, " + ("luajit".equals(vm) ? "JIT traces, " : "")
                + (old ? "the main thread's stack (no object on " + vm + " without heapdump_native), " : "")
                + "objects awaiting finalization, or C code allocating through the Lua allocator"
                + (unknownPayloads > 0 ? String.format(Locale.ROOT, "; and the payloads of %,d userdata, whose sizes a dump"
                    + " without the C helper heapdump_native does not know (docs/reference/lua-dumper-format.md)", unknownPayloads) : "");
        }
        return String.format(Locale.ROOT, "the objects add up to %,d bytes, %.1f%% of the VM's own total of %,d bytes"
            + " (collectgarbage(\"count\")); %s", objectBytes, 100.0 * objectBytes / vmTotal, vmTotal, cause);
    }

    /**
     * The text of a stack frame, shown after a local's hop ({@code session in thread frame handle (program.lua:11)}),
     * in the words of Lua's own traceback (lauxlib.c {@code luaL_traceback}): the function by the name it was called
     * under, else {@code main chunk}, else {@code function <source:linedefined>}, followed by the frame's current
     * position; a C function as {@code yield [C]} (Luau's {@code tree} wording), {@code [C]} without a name.
     *
     * @param what     the frame's {@code what} ({@code Lua}, {@code main}, {@code C}), or null
     * @param function the name it was called under ({@code debug.getinfo} {@code name}), or null
     * @param source   {@code short_src}
     * @param line     the current line, or -1
     * @param defined  the line the function is defined at, or -1 (dumps before frames carried it)
     * @return e.g. {@code handle (program.lua:11)}, {@code main chunk (program.lua:14)},
     *         {@code function <program.lua:2> (program.lua:4)}, {@code (anonymous) (program.lua:4)}, {@code yield [C]}
     */
    static String frameText(String what, String function, String source, long line, long defined) {
        if ("C".equals(what) || ("[C]".equals(source) && what == null)) {
            return function == null ? "[C]" : function + " [C]";
        }
        String name = function != null ? function
            : "main".equals(what) ? "main chunk"
            : defined > 0 ? "function <" + source + ":" + defined + ">"
            : "(anonymous)";
        return name + " (" + source + (line >= 0 ? ":" + line : "") + ")";
    }

    /**
     * The address a string gets when the dump identifies strings by content (Lua 5.1-5.3): {@code 0x} + hex
     * of 2^62 + the low 62 bits of the 64-bit FNV-1a hash of its bytes (the exact bytes from {@code hex}
     * when present, else the UTF-8 of {@code value}).
     */
    static String contentAddress(String value, String hex) {
        byte[] bytes = hex != null ? HexFormat.of().parseHex(hex)
            : (value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8));
        long h = 0xcbf29ce484222325L;
        for (byte x : bytes) {
            h ^= x & 0xff;
            h *= 0x100000001b3L;
        }
        return "0x" + Long.toHexString(STRING_ADDRESS_BASE | (h & (STRING_ADDRESS_BASE - 1))).toLowerCase(Locale.ROOT);
    }
}
