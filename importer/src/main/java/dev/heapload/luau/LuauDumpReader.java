package dev.heapload.luau;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.ZipException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.JsonEOFException;

import org.eclipse.collections.impl.list.mutable.primitive.IntArrayList;
import org.eclipse.collections.impl.map.mutable.primitive.IntObjectHashMap;

import dev.heapload.io.DumpInput;
import dev.heapload.io.InputLimits;
import dev.heapload.io.SeenNames;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;

/**
 * Reads a Luau heap dump, the JSON written by {@code lua_memorydump} / {@code luaC_dump}
 * (luau-lang/luau VM/src/lgcdebug.cpp; format: shared/docs/formats/luau-luaC_dump.md, "the spec"),
 * into a {@link HeapSnapshot}.
 *
 * <h2>Input</h2>
 * A plain {@code .json} file or a gzip file (recognised by its magic bytes {@code 1f 8b}, not by its
 * name). The file is read once, as a stream, on a helper thread that also computes its SHA-256 and
 * decompresses it; a repairing filter ({@code LuauJsonRepair}) fixes the invalid JSON the VM writes in
 * known cases (spec §7: unescaped C function / category / stack names, unquoted class names,
 * unterminated {@code staticmembers}, empty {@code "<addr>":,} vector records); Jackson's streaming
 * byte parser tokenises the result. No tree of the document is built.
 *
 * <h2>Output</h2>
 * <ul>
 *   <li><b>Objects</b>: one per record of {@code objects} except the sentinel {@code "0"}, in file order.
 *       Type = the record's {@code type} as written ({@code table}, {@code function}, {@code string},
 *       {@code userdata}, {@code thread}, {@code proto}, {@code upvalue}, {@code buffer}, {@code class},
 *       {@code object}; {@code vector} for an empty double-vector record); shallow size = {@code size}
 *       in bytes (the writer's estimate, spec §4; 0 for vectors); category = {@code cat} (-1 for vectors:
 *       not written). Address = the record's key, verbatim. Label: string → its {@code data}; function
 *       and class → {@code name}; proto and thread → {@code source:line} when the record has a
 *       source; userdata → {@code tag N} when the record has a {@code tag} (spec §4: 0 {@code lua_newuserdata}, 1-127
 *       {@code lua_newuserdatatagged}, 128 {@code lua_newuserdatadtor}, 129 {@code newproxy()}); otherwise none.</li>
 *   <li><b>References</b>, in the dump's order, kind in brackets: table {@code pairs} → [key] and
 *       [value], {@code array} → [array], {@code metatable} → [metatable]; function {@code env} → [env],
 *       {@code proto} → [proto], {@code upvalues} → [upvalue]; userdata {@code metatable} → [metatable];
 *       thread {@code env} → [env], {@code stack} → [stack]; proto {@code constants} → [constant],
 *       {@code protos} → [child-proto]; upvalue {@code object} → [upvalue-object]; object {@code class}
 *       → [class], {@code members} → [member]; class {@code super} → [super], {@code membernames} →
 *       [member-name], {@code staticmembers} → [static-member], {@code instancemetatable} →
 *       [instance-metatable], {@code memberstooffset} → [members-to-offset]. {@code null} elements
 *       (non-GC values) make no reference.</li>
 *   <li><b>Reference names</b>: a table value under a string key is named by that string's text (key type
 *       {@link HeapSnapshot#KEY_STRING}; values under other keys have no name); a
 *       stack slot by its {@code stacknames} entry, verbatim ({@code frame:@main.luau:5:handleRequest},
 *       a local's name; {@code null} = no name); the upvalues of a Lua closure by its proto's
 *       {@code source} (as Luau's tools/heapgraph.py groups them, spec §9). Other references have no
 *       name.</li>
 *   <li><b>Weak references</b> ({@link HeapSnapshot#WEAK}), decided after the whole file is read (the
 *       dump does not say which tables are weak, spec §4, §8):
 *       <ul>
 *         <li>a table is weak when its metatable has a string-keyed field {@code __mode} whose value is a
 *             string: {@code k} in it makes the keys weak, {@code v} the values (per Luau VM/src/lgc.cpp
 *             {@code traversetable}: the mode is {@code gfasttm(g, h->metatable, TM_MODE)} if
 *             {@code ttisstring}, then {@code strchr(mode, 'k')} / {@code strchr(mode, 'v')});</li>
 *         <li>weak keys: the [key] references are weak; weak values: the [value] <em>and</em> [array]
 *             references are (lgc.cpp marks neither the hash values nor the array part of a weak-valued
 *             table);</li>
 *         <li>a reference whose target is a string is never weak (lgc.cpp {@code iscleared}: "strings
 *             are values, so are never weak");</li>
 *         <li>no ephemerons: Luau keeps Lua 5.1 semantics, the values of a weak-key table are strong
 *             (spec §8), so {@link HeapSnapshot#EPHEMERON_VALUE} is never set.</li>
 *       </ul></li>
 *   <li><b>Roots</b>: the members of {@code roots} in file order ({@code mainthread}, {@code registry}).</li>
 *   <li><b>Info</b>: vm {@code luau}; source = the path as given; SHA-256 of the file's bytes as stored
 *       (compressed bytes for gzip); vmTotalBytes = {@code stats.size}; categories from
 *       {@code stats.categories} (id, name or null, bytes), the sentinel {@code "none"} skipped. The VM
 *       prints these byte counts as 32-bit {@code int}s, so counts above 2 GiB wrap negative (spec §6); a
 *       negative count is corrected by adding 2^32, which is exact modulo 2^32 (a count above 4 GiB
 *       cannot be recovered), with a warning. Warnings also list each kind of repaired invalid JSON
 *       (count and byte offset of the first), ignored unknown fields and references to addresses that
 *       have no record.</li>
 * </ul>
 * Record fields not kept in the model: upvalue {@code open}. A record whose {@code type} this
 * reader does not know (a newer VM's) is kept with its type as written; each of its other fields that holds an
 * address ({@code 0x…} or 16 upper-case hex digits), or an array of them, becomes references of kind
 * {@code unknown-field} named by the field, counted in a warning; its other fields are ignored. A memory category
 * whose name the VM printed as {@code (null)} (a NULL name on glibc, spec §7.2) is named
 * {@code unnamed category N}.
 *
 * <h2>Errors</h2>
 * Every problem with the file's content is a {@link DumpFormatException} with a one-line message
 * naming the file and, where there is one, the byte offset in the dump as written (uncompressed),
 * e.g. {@code x.json: byte 0: empty file}, {@code x.json: byte 51234: unexpected end of input
 * (truncated dump?)}, {@code x.json: not a Luau heap dump: no "objects" member}. A missing file is
 * also a {@link DumpFormatException} ({@code x.json: no such file}), not a
 * {@link NoSuchFileException}; so is a directory, a pipe or an unreadable file. So are a value over the limits of
 * {@link InputLimits} (string length, name length, nesting, gzip expansion), a record field given twice ({@code x.json:
 * byte 40: the record of "0x1" has a second "size" field}) and a second top-level member ({@code a second top-level
 * "objects" member}), at the byte offset of the offending token. Other I/O errors (a failing
 * disk) are thrown as the {@link IOException} the JDK reports.
 *
 * <p>Instances hold no state between calls and may be shared; each {@link #read} uses one extra
 * thread while it runs.
 */
public final class LuauDumpReader {

    /** VM name in {@link SnapshotInfo#vm()}. */
    public static final String VM = "luau";

    private static final JsonFactory JSON = JsonFactory.builder()
        // field names are a small fixed vocabulary (addresses reach the parser as string values, see
        // LuauJsonRepair): canonicalised, they cost no String each; String.intern is not needed
        .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
        // a string's data is written in full (a 1 GiB string is a 1 GiB line, spec §4): strings, names, numbers
        // and nesting are bounded by InputLimits (64 Mi characters per string)
        .streamReadConstraints(InputLimits.jsonConstraints())
        .build();

    static final String[] TYPES = {
        "table", "function", "string", "userdata", "thread", "proto", "upvalue", "buffer", "class", "object", "vector",
    };

    // indexes into KINDS
    private static final int KEY = 0;
    private static final int VALUE = 1;
    private static final int ARRAY = 2;
    private static final int METATABLE = 3;
    private static final int ENV = 4;
    private static final int PROTO = 5;
    private static final int UPVALUE = 6;
    private static final int UPVALUE_OBJECT = 7;
    private static final int STACK = 8;
    private static final int CONSTANT = 9;
    private static final int CHILD_PROTO = 10;
    private static final int CLASS = 11;
    private static final int MEMBER = 12;
    private static final int SUPER = 13;
    private static final int MEMBER_NAME = 14;
    private static final int STATIC_MEMBER = 15;
    private static final int INSTANCE_METATABLE = 16;
    private static final int MEMBERS_TO_OFFSET = 17;
    private static final int UNKNOWN_FIELD = 18;

    /** Reference kinds, in the order their ids are assigned (indexes: the constants above). */
    static final String[] KINDS = {
        "key", "value", "array", "metatable", "env", "proto", "upvalue", "upvalue-object", "stack", "constant",
        "child-proto", "class", "member", "super", "member-name", "static-member", "instance-metatable",
        "members-to-offset", "unknown-field",
    };

    /** Creates a reader. */
    public LuauDumpReader() {
    }

    private boolean keepDangling;

    /**
     * Keeps the references to addresses with no record one by one (the store writes them as {@code Missing} nodes)
     * instead of only counting them ({@link dev.heapload.model.HeapSnapshot#danglingReferences()}).
     *
     * @return this reader
     */
    public LuauDumpReader keepDangling(boolean keep) {
        this.keepDangling = keep;
        return this;
    }

    /**
     * Reads one Luau heap dump.
     *
     * @param file       a {@code .json} dump, plain or gzip-compressed
     * @param snapshotId the id the snapshot gets ({@link SnapshotInfo#id()})
     * @param progress   receives one phase, {@code "read <file name>"}, in bytes of the file as stored
     *                   (compressed bytes for gzip), total = the file's size
     * @return the snapshot
     * @throws DumpFormatException when the file is missing, empty, truncated, not JSON, not a Luau dump or
     *                             broken beyond the known repairs (see the class doc)
     * @throws IOException         when reading fails for another reason
     */
    public HeapSnapshot read(Path file, String snapshotId, Progress progress) throws DumpFormatException, IOException {
        String name = file.toString();
        InputStream in = DumpInput.openStored(file);
        long size = Files.size(file);
        Path fileName = file.getFileName();
        progress.start("read " + (fileName == null ? name : fileName.toString()), size, "B");
        try (RepairedChunks chunks = new RepairedChunks(in, name, size, DumpInput.statedGzipSize(file),
            "luau-dump-reader", progress::step)) {
            Parse parse = new Parse(name, chunks, progress, size);
            parse.b.keepDangling(keepDangling);
            parse.expect(DumpInput.contentSizeHint(file));
            return parse.run(snapshotId);
        } finally {
            progress.end();
        }
    }

    /** State of one read. */
    private static final class Parse {

        /**
         * Decoded dump bytes per object, a little under what Luau's own dumps take: 134 in the 2.4M-object
         * entity-system-large dump (320,971,333 bytes), 113 in event-listeners/after.json (98,734 bytes, 871
         * objects). An underestimate only means the model grows at the end of the read.
         */
        static final long BYTES_PER_OBJECT = 130;
        /** References per object: 3.67 in entity-system-large (8,800,974 for 2,400,622 objects). */
        static final double REFERENCES_PER_OBJECT = 3.75;

        private final String file;
        private final RepairedChunks chunks;
        private final Progress progress;
        private final long fileSize;
        private JsonParser p;
        private final CharSlice slice = new CharSlice();
        private final HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        /** Builder kind ids, indexed by the constants KEY, VALUE, … */
        private final int[] kind = new int[KINDS.length];

        /** Bit r set: reference r is a table value whose key is reference r-1 (same pair). */
        private final BitSet pairedValue = new BitSet();
        /** Lua closures with upvalues: (first upvalue reference, count, proto object) triples. */
        private final IntArrayList closureUpvalues = new IntArrayList();
        private final IntObjectHashMap<String> protoSource = new IntObjectHashMap<>();
        private final IntArrayList pendingStack = new IntArrayList();

        private final Map<Integer, MemoryCategory> categories = new TreeMap<>();
        private long vmTotalBytes = -1;
        private final List<String> wrapped = new ArrayList<>();
        private final Set<String> unknownFields = new LinkedHashSet<>();
        private final Set<String> unknownTypes = new LinkedHashSet<>();
        /** TYPE.field of records of unknown type whose field held addresses (kept as unknown-field references). */
        private final Set<String> unknownFieldRecords = new LinkedHashSet<>();
        private long unknownFieldReferences;
        private int nullCategoryNames;
        private int stackNameMismatches;
        private boolean sawObjects;
        private boolean sawRoots;
        private boolean sawStats;
        private int negativeObjectSizes;

        // current record
        private final CharSlice address = new CharSlice();
        private char[] addressChars = new char[32];
        private long recordOffset = -1;
        private String type;
        /** The current record's field names. */
        private final SeenNames fields = new SeenNames();

        Parse(String file, RepairedChunks chunks, Progress progress, long fileSize) throws IOException {
            this.file = file;
            this.chunks = chunks;
            this.progress = progress;
            this.fileSize = fileSize;
            for (int i = 0; i < KINDS.length; i++) {
                kind[i] = b.kind(KINDS[i]);
            }
        }

        /**
         * Sizes the model for a dump of {@code contentBytes} decoded bytes (-1: unknown, nothing to do): one
         * object per {@link #BYTES_PER_OBJECT} bytes and {@link #REFERENCES_PER_OBJECT} references each
         * ({@link HeapSnapshotBuilder#expect} bounds what that allocates).
         */
        void expect(long contentBytes) {
            if (contentBytes <= 0) {
                return;
            }
            long objects = Math.min(contentBytes / BYTES_PER_OBJECT, 1 << 28);
            b.expect((int) objects, (int) (objects * REFERENCES_PER_OBJECT));
        }

        HeapSnapshot run(String snapshotId) throws IOException {
            try (JsonParser parser = JSON.createParser(chunks)) { // reads the first bytes
                p = parser;
                try {
                    document();
                } catch (StreamConstraintsException e) {
                    // here, not after the parser is closed: a closed parser's location is its buffer's end
                    throw errorAt(p.currentLocation().getByteOffset(), InputLimits.reason(e));
                }
            } catch (JsonEOFException e) {
                throw error(e.getLocation(), "unexpected end of input (truncated dump?)");
            } catch (StreamReadException e) {
                throw error(e.getLocation(), "invalid JSON: " + oneLine(e.getOriginalMessage()));
            } catch (RuntimeException e) {
                // defence in depth: whatever the input, the user gets one line naming the file
                long at = p == null ? -1 : p.currentLocation().getByteOffset();
                throw new DumpFormatException(file, -1, "cannot read this dump" + (at >= 0 ? " (near decoded byte " + at + ")" : "")
                    + ": " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + oneLine(e.getMessage())));
            } catch (RepairedChunks.SourceFailure e) {
                IOException cause = e.getCause();
                if (cause instanceof EOFException) {
                    throw new DumpFormatException(file, e.decodedOffset(), "unexpected end of gzip data (truncated file?)");
                }
                if (cause instanceof ZipException) {
                    throw new DumpFormatException(file, e.decodedOffset(), "corrupt gzip data: " + oneLine(cause.getMessage()));
                }
                throw cause;
            }
            postPass();
            List<String> warnings = new ArrayList<>(chunks.repair().warnings());
            addWarnings(warnings);
            SnapshotInfo info = new SnapshotInfo(snapshotId, VM, file, chunks.sha256(), vmTotalBytes, categories, warnings);
            progress.step(fileSize);
            return b.build(info);
        }

        // ------------------------------------------------------------------------------------------
        // token plumbing

        private JsonToken next() throws IOException {
            return p.nextToken();
        }

        /** Skips the value whose first token is current. */
        private void skip(JsonToken t) throws IOException {
            if (t != JsonToken.START_OBJECT && t != JsonToken.START_ARRAY) {
                return;
            }
            int depth = 1;
            while (depth > 0) {
                t = next();
                if (t == null) {
                    throw error(p.currentLocation(), "unexpected end of input (truncated dump?)");
                }
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    depth++;
                } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    depth--;
                }
            }
        }

        private DumpFormatException error(JsonLocation at, String reason) throws IOException {
            return errorAt(at == null ? -1 : at.getByteOffset(), reason);
        }

        /** @param offset an offset in the repaired stream Jackson reads, or -1 */
        private DumpFormatException errorAt(long offset, String reason) throws IOException {
            chunks.close(); // stop the producer so its offset map is stable
            long original = -1;
            if (offset >= 0 && chunks.repair() != null) {
                original = chunks.repair().originalOffset(offset);
            }
            return new DumpFormatException(file, original, reason);
        }

        private DumpFormatException fail(String reason) throws IOException {
            return error(p.currentTokenLocation(), reason);
        }

        /** Fails at the start of the current record (its address). */
        private DumpFormatException failRecord(String reason) throws IOException {
            return errorAt(recordOffset, reason);
        }

        private static String oneLine(String s) {
            return s == null ? "" : s.replaceAll("\\s+", " ").trim();
        }

        private static String describe(JsonToken t) {
            if (t == null) {
                return "missing";
            }
            return switch (t) {
                case START_OBJECT -> "an object";
                case START_ARRAY -> "an array";
                case VALUE_STRING -> "a string";
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
                case VALUE_TRUE, VALUE_FALSE -> "a boolean";
                case VALUE_NULL -> "null";
                default -> t.toString();
            };
        }

        // ------------------------------------------------------------------------------------------
        // document

        private void document() throws IOException {
            JsonToken t = next();
            if (t == null) {
                LuauJsonRepair repair = chunks.repair();
                boolean nothing = fileSize == 0 || (repair != null && repair.inputBytesRead() == 0);
                throw new DumpFormatException(file, 0, nothing ? "empty file" : "no JSON value (only whitespace)");
            }
            if (t != JsonToken.START_OBJECT) {
                throw fail("not a Luau heap dump: the top-level JSON value is " + describe(t)
                    + ", expected an object with \"objects\", \"roots\" and \"stats\"");
            }
            SeenNames members = new SeenNames();
            while ((t = next()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                if (!members.add(field)) {
                    throw fail("not a Luau heap dump: a second top-level \"" + field + "\" member");
                }
                switch (field) {
                    case "objects" -> objects();
                    case "roots" -> roots();
                    case "stats" -> stats();
                    default -> {
                        unknownFields.add(field);
                        skip(next());
                    }
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw fail("invalid JSON: unexpected " + describe(t));
            }
            t = next();
            if (t != null) {
                throw fail("unexpected data after the end of the dump");
            }
            if (!sawObjects) {
                throw new DumpFormatException(file, -1, "not a Luau heap dump: no \"objects\" member");
            }
            if (!sawRoots) {
                throw new DumpFormatException(file, -1, "not a Luau heap dump: no \"roots\" member");
            }
        }

        private void objects() throws IOException {
            sawObjects = true;
            JsonToken t = next();
            // the repair filter hands the objects map on as an array [addr, record, addr, record, …]
            if (t != JsonToken.START_ARRAY || !chunks.repair().reshapedObjects()) {
                throw fail("not a Luau heap dump: \"objects\" is " + describe(t) + ", not an object");
            }
            while ((t = next()) != JsonToken.END_ARRAY) {
                if (t != JsonToken.VALUE_STRING) {
                    throw fail("invalid JSON: unexpected " + describe(t) + " in \"objects\"");
                }
                int n = p.getTextLength();
                if (n > addressChars.length) {
                    addressChars = new char[Math.max(n, 2 * addressChars.length)];
                }
                System.arraycopy(p.getTextCharacters(), p.getTextOffset(), addressChars, 0, n);
                address.set(addressChars, 0, n);
                recordOffset = tokenOffset();
                t = next();
                if (n == 1 && addressChars[0] == '0') {
                    skip(t); // sentinel record "to avoid issues with trailing ," (spec §2)
                    continue;
                }
                if (t != JsonToken.START_OBJECT) {
                    throw fail("not a Luau heap dump: the record of \"" + address + "\" is " + describe(t) + ", not an object");
                }
                record();
            }
        }

        // ------------------------------------------------------------------------------------------
        // one object record

        private void record() throws IOException {
            type = null;
            int cat = -1;
            long size = 0;
            int id = -1;
            String label = null;
            String source = null;
            long line = -1;
            long tag = -1;
            int proto = -1;
            int firstUpvalue = -1;
            int upvalues = 0;
            pendingStack.clear();
            boolean stackPending = false;
            JsonToken t;
            fields.clear();
            while ((t = next()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                if (!fields.add(field)) {
                    throw fail("the record of \"" + address + "\" has a second \"" + field + "\" field");
                }
                JsonToken v = next();
                if (id < 0) {
                    switch (field) {
                        case "type" -> {
                            type = typeName(v);
                            continue;
                        }
                        case "cat" -> {
                            cat = (int) integer(v, field);
                            continue;
                        }
                        case "size" -> {
                            size = integer(v, field);
                            if (size < 0) {
                                negativeObjectSizes++;
                                size = unwrap(size);
                            }
                            continue;
                        }
                        default -> id = define(size, cat);
                    }
                }
                if (stackPending && !field.equals("stacknames")) {
                    flushStack(0);
                    stackPending = false;
                }
                switch (field) {
                    case "data", "name" -> label = text(v, field);
                    case "source" -> source = text(v, field);
                    case "line" -> line = integer(v, field);
                    case "tag" -> tag = integer(v, field);
                    case "open" -> {
                        if (v != JsonToken.VALUE_TRUE && v != JsonToken.VALUE_FALSE) {
                            throw fail("\"open\" of " + address + " is " + describe(v) + ", expected a boolean");
                        }
                    }
                    case "pairs" -> pairs(v);
                    case "array" -> addresses(v, field, kind[ARRAY]);
                    case "metatable" -> reference(v, field, kind[METATABLE]);
                    case "env" -> reference(v, field, kind[ENV]);
                    case "proto" -> proto = reference(v, field, kind[PROTO]);
                    case "upvalues" -> {
                        firstUpvalue = b.referenceCount();
                        upvalues = addresses(v, field, kind[UPVALUE]);
                    }
                    case "object" -> reference(v, field, kind[UPVALUE_OBJECT]);
                    case "stack" -> {
                        stack(v);
                        stackPending = true;
                    }
                    case "stacknames" -> {
                        stackNames(v);
                        stackPending = false;
                    }
                    case "constants" -> addresses(v, field, kind[CONSTANT]);
                    case "protos" -> addresses(v, field, kind[CHILD_PROTO]);
                    case "class", "classobj" -> reference(v, field, kind[CLASS]);
                    case "members" -> addresses(v, field, kind[MEMBER]);
                    case "super" -> reference(v, field, kind[SUPER]);
                    case "membernames" -> addresses(v, field, kind[MEMBER_NAME]);
                    case "staticmembers" -> addresses(v, field, kind[STATIC_MEMBER]);
                    case "instancemetatable" -> reference(v, field, kind[INSTANCE_METATABLE]);
                    case "memberstooffset" -> reference(v, field, kind[MEMBERS_TO_OFFSET]);
                    default -> {
                        int kept = isUnknownType() ? unknownField(v, field) : -1;
                        if (kept > 0) {
                            unknownFieldRecords.add(type + "." + field);
                        } else {
                            unknownFields.add(type + "." + field);
                            if (kept < 0) {
                                skip(v);
                            }
                        }
                    }
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw fail("invalid JSON: unexpected " + describe(t) + " in the record of " + address);
            }
            if (id < 0) {
                id = define(size, cat);
            }
            if (stackPending) {
                flushStack(0);
            }
            boolean hasSource = source != null;
            if (("proto".equals(type) || "thread".equals(type)) && hasSource) {
                label = line >= 0 ? source + ":" + line : source;
            } else if ("userdata".equals(type) && tag >= 0) {
                label = "tag " + tag;
            } else if (!"string".equals(type) && !"function".equals(type) && !"class".equals(type)) {
                label = null;
            }
            if (label != null) {
                b.setLabel(id, label);
            }
            if ("proto".equals(type) && hasSource) {
                protoSource.put(id, source);
            }
            if (proto >= 0 && upvalues > 0) {
                closureUpvalues.add(firstUpvalue);
                closureUpvalues.add(upvalues);
                closureUpvalues.add(proto);
            }
        }

        private int define(long size, int cat) throws IOException {
            if (type == null) {
                throw failRecord("not a Luau heap dump: the record of \"" + address + "\" has no \"type\"");
            }
            try {
                return b.defineObject(address, type, size, cat, null);
            } catch (IllegalStateException e) {
                // the builder's limits: an address defined twice, more than 256 types
                throw failRecord(oneLine(e.getMessage()));
            }
        }

        /** Byte offset (in the repaired stream) where the current token starts. */
        private long tokenOffset() {
            return p.currentTokenLocation().getByteOffset();
        }

        private String typeName(JsonToken v) throws IOException {
            if (v != JsonToken.VALUE_STRING) {
                throw fail("\"type\" of " + address + " is " + describe(v) + ", expected a string");
            }
            slice.set(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
            for (String known : TYPES) {
                if (slice.contentEquals(known)) {
                    return known;
                }
            }
            String unknown = p.getText();
            unknownTypes.add(unknown);
            return unknown;
        }

        private long integer(JsonToken v, String field) throws IOException {
            if (v != JsonToken.VALUE_NUMBER_INT) {
                throw fail("\"" + field + "\" of " + address + " is " + describe(v) + ", expected an integer");
            }
            return p.getLongValue();
        }

        private String text(JsonToken v, String field) throws IOException {
            if (v == JsonToken.VALUE_NULL) {
                return null;
            }
            if (v != JsonToken.VALUE_STRING) {
                throw fail("\"" + field + "\" of " + address + " is " + describe(v) + ", expected a string");
            }
            return p.getText();
        }

        /** The object id of the address that is the current token. */
        private int target() throws IOException {
            return b.objectId(slice.set(p.getTextCharacters(), p.getTextOffset(), p.getTextLength()));
        }

        /** True when the current record's type is none of {@link #TYPES} (a newer VM's record). */
        private boolean isUnknownType() {
            return type != null && unknownTypes.contains(type);
        }

        /**
         * A field of a record of unknown type: an address, or an array of them (other elements skipped), becomes
         * references of kind {@code unknown-field} named by the field.
         *
         * @return how many addresses the field held; -1 when it is neither a string nor an array (not consumed: the
         *         caller skips it)
         */
        private int unknownField(JsonToken v, String field) throws IOException {
            if (v == JsonToken.VALUE_STRING) {
                if (!addressLike()) {
                    return 0;
                }
                b.addReference(target(), kind[UNKNOWN_FIELD], b.name(field), 0);
                unknownFieldReferences++;
                return 1;
            }
            if (v != JsonToken.START_ARRAY) {
                return -1;
            }
            int n = 0;
            JsonToken t;
            while ((t = next()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    throw fail("unexpected end of input (truncated dump?)");
                }
                if (t == JsonToken.VALUE_STRING && addressLike()) {
                    b.addReference(target(), kind[UNKNOWN_FIELD], b.name(field), 0);
                    unknownFieldReferences++;
                    n++;
                } else {
                    skip(t);
                }
            }
            return n;
        }

        /** The current string token is spelled like an address ({@code %p}: {@code 0x} + hex, or 16 upper-case hex digits). */
        private boolean addressLike() throws IOException {
            char[] c = p.getTextCharacters();
            int from = p.getTextOffset();
            int n = p.getTextLength();
            if (n >= 3 && n <= 18 && c[from] == '0' && c[from + 1] == 'x') {
                for (int i = from + 2; i < from + n; i++) {
                    if (Character.digit(c[i], 16) < 0 || Character.isUpperCase(c[i])) {
                        return false;
                    }
                }
                return true;
            }
            if (n == 16) {
                for (int i = from; i < from + n; i++) {
                    if (Character.digit(c[i], 16) < 0 || Character.isLowerCase(c[i])) {
                        return false;
                    }
                }
                return true;
            }
            return false;
        }

        /** One address or null; adds a reference; returns the target or -1. */
        private int reference(JsonToken v, String field, int kindId) throws IOException {
            if (v == JsonToken.VALUE_NULL) {
                return -1;
            }
            if (v != JsonToken.VALUE_STRING) {
                throw fail("\"" + field + "\" of " + address + " is " + describe(v) + ", expected an address");
            }
            int target = target();
            b.addReference(target, kindId, HeapSnapshot.NO_NAME, 0);
            return target;
        }

        /** An array of addresses (nulls skipped); adds references; returns how many. */
        private int addresses(JsonToken v, String field, int kindId) throws IOException {
            if (v != JsonToken.START_ARRAY) {
                throw fail("\"" + field + "\" of " + address + " is " + describe(v) + ", expected an array");
            }
            int n = 0;
            JsonToken t;
            while ((t = next()) != JsonToken.END_ARRAY) {
                if (t == JsonToken.VALUE_STRING) {
                    b.addReference(target(), kindId, HeapSnapshot.NO_NAME, 0);
                    n++;
                } else if (t != JsonToken.VALUE_NULL) {
                    throw fail("an element of \"" + field + "\" of " + address + " is " + describe(t) + ", expected an address");
                }
            }
            return n;
        }

        /** {@code pairs}: flat [k0, v0, k1, v1, …], null = not a GC object (spec §4). */
        private void pairs(JsonToken v) throws IOException {
            if (v != JsonToken.START_ARRAY) {
                throw fail("\"pairs\" of " + address + " is " + describe(v) + ", expected an array");
            }
            JsonToken t;
            while ((t = next()) != JsonToken.END_ARRAY) {
                int key = pairElement(t);
                t = next();
                if (t == JsonToken.END_ARRAY) {
                    throw fail("\"pairs\" of " + address + " has an odd number of elements");
                }
                int value = pairElement(t);
                if (key >= 0) {
                    b.addReference(key, kind[KEY], HeapSnapshot.NO_NAME, 0);
                }
                if (value >= 0) {
                    int r = b.addReference(value, kind[VALUE], HeapSnapshot.NO_NAME, 0);
                    if (key >= 0) {
                        pairedValue.set(r);
                    }
                }
            }
        }

        private int pairElement(JsonToken t) throws IOException {
            if (t == JsonToken.VALUE_STRING) {
                return target();
            }
            if (t == JsonToken.VALUE_NULL) {
                return -1;
            }
            throw fail("an element of \"pairs\" of " + address + " is " + describe(t) + ", expected an address or null");
        }

        private void stack(JsonToken v) throws IOException {
            if (v != JsonToken.START_ARRAY) {
                throw fail("\"stack\" of " + address + " is " + describe(v) + ", expected an array");
            }
            pendingStack.clear();
            JsonToken t;
            while ((t = next()) != JsonToken.END_ARRAY) {
                if (t != JsonToken.VALUE_STRING) {
                    throw fail("an element of \"stack\" of " + address + " is " + describe(t) + ", expected an address");
                }
                pendingStack.add(target());
            }
        }

        /** {@code stacknames}: one entry per {@code stack} element, same order (spec §4). */
        private void stackNames(JsonToken v) throws IOException {
            if (v != JsonToken.START_ARRAY) {
                throw fail("\"stacknames\" of " + address + " is " + describe(v) + ", expected an array");
            }
            int i = 0;
            JsonToken t;
            while ((t = next()) != JsonToken.END_ARRAY) {
                String name;
                if (t == JsonToken.VALUE_STRING) {
                    name = p.getText();
                } else if (t == JsonToken.VALUE_NULL) {
                    name = null;
                } else {
                    throw fail("an element of \"stacknames\" of " + address + " is " + describe(t) + ", expected a string or null");
                }
                if (i < pendingStack.size()) {
                    b.addReference(pendingStack.get(i), kind[STACK], b.name(name), 0);
                }
                i++;
            }
            if (i != pendingStack.size()) {
                stackNameMismatches++;
            }
            flushStack(Math.min(i, pendingStack.size()));
        }

        private void flushStack(int from) {
            for (int i = from; i < pendingStack.size(); i++) {
                b.addReference(pendingStack.get(i), kind[STACK], HeapSnapshot.NO_NAME, 0);
            }
            pendingStack.clear();
        }

        // ------------------------------------------------------------------------------------------
        // roots and stats

        private void roots() throws IOException {
            sawRoots = true;
            JsonToken t = next();
            if (t != JsonToken.START_OBJECT) {
                throw fail("not a Luau heap dump: \"roots\" is " + describe(t) + ", not an object");
            }
            while ((t = next()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                t = next();
                if (t == JsonToken.VALUE_STRING) {
                    b.addRoot(name, target());
                } else if (t != JsonToken.VALUE_NULL) {
                    throw fail("root \"" + name + "\" is " + describe(t) + ", expected an address");
                }
            }
        }

        private void stats() throws IOException {
            sawStats = true;
            JsonToken t = next();
            if (t != JsonToken.START_OBJECT) {
                throw fail("not a Luau heap dump: \"stats\" is " + describe(t) + ", not an object");
            }
            while ((t = next()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = next();
                switch (field) {
                    case "size" -> vmTotalBytes = statsBytes(v, "stats.size", "stats.size");
                    case "categories" -> categories(v);
                    default -> {
                        unknownFields.add("stats." + field);
                        skip(v);
                    }
                }
            }
        }

        private void categories(JsonToken v) throws IOException {
            if (v != JsonToken.START_OBJECT) {
                throw fail("\"stats.categories\" is " + describe(v) + ", expected an object");
            }
            JsonToken t;
            while ((t = next()) == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                t = next();
                if (key.equals("none")) {
                    skip(t); // sentinel (spec §2)
                    continue;
                }
                int id;
                try {
                    id = Integer.parseInt(key);
                } catch (NumberFormatException e) {
                    throw fail("memory category key \"" + key + "\" is not a number");
                }
                if (t != JsonToken.START_OBJECT) {
                    throw fail("memory category " + key + " is " + describe(t) + ", expected an object");
                }
                String name = null;
                long bytes = Long.MIN_VALUE;
                while ((t = next()) == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken fv = next();
                    switch (field) {
                        case "name" -> {
                            if (fv == JsonToken.VALUE_STRING) {
                                name = p.getText();
                            } else if (fv != JsonToken.VALUE_NULL) {
                                throw fail("the name of memory category " + key + " is " + describe(fv) + ", expected a string");
                            }
                        }
                        case "size" -> bytes = statsBytes(fv, "category " + key, "the size of memory category " + key);
                        default -> {
                            unknownFields.add("stats.categories." + field);
                            skip(fv);
                        }
                    }
                }
                if (bytes == Long.MIN_VALUE) {
                    throw fail("memory category " + key + " has no \"size\"");
                }
                if ("(null)".equals(name)) {
                    // the category callback returned NULL and glibc's printf wrote (null) (spec §7.2)
                    name = "unnamed category " + id;
                    nullCategoryNames++;
                }
                categories.put(id, new MemoryCategory(id, name, bytes));
            }
        }

        private long statsBytes(JsonToken v, String what, String description) throws IOException {
            if (v != JsonToken.VALUE_NUMBER_INT) {
                throw fail(description + " is " + describe(v) + ", expected an integer");
            }
            long n = p.getLongValue();
            if (n < 0) {
                long fixed = unwrap(n);
                wrapped.add(what + " " + n + " -> " + fixed);
                return fixed;
            }
            return n;
        }

        /** A 32-bit int printed with %d that wrapped negative: the true value modulo 2^32 (spec §6). */
        private static long unwrap(long n) {
            return n >= Integer.MIN_VALUE ? n + (1L << 32) : n;
        }

        // ------------------------------------------------------------------------------------------
        // after the whole file: names that need later records, weakness

        private void postPass() {
            int refs = b.referenceCount();
            int objects = b.objectCount();
            int keyKind = kind[KEY];
            int valueKind = kind[VALUE];
            int arrayKind = kind[ARRAY];
            int metatableKind = kind[METATABLE];

            // table values under string keys are named by the key's text; find __mode fields
            byte[] metatableMode = null;
            for (int r = pairedValue.nextSetBit(0); r >= 0; r = pairedValue.nextSetBit(r + 1)) {
                int key = b.referenceTarget(r - 1);
                if (!isString(key)) {
                    continue;
                }
                b.setReferenceName(r, HeapSnapshotBuilder.nameFromObject(key));
                b.addFlags(r, HeapSnapshot.keyTypeFlag(HeapSnapshot.KEY_STRING));
                if ("__mode".equals(b.label(key))) {
                    int value = b.referenceTarget(r);
                    int mode = isString(value) ? mode(b.label(value)) : 0;
                    if (mode != 0) {
                        if (metatableMode == null) {
                            metatableMode = new byte[objects];
                        }
                        metatableMode[b.referenceSource(r)] = (byte) mode;
                    }
                }
            }
            if (metatableMode != null) {
                byte[] tableMode = new byte[objects];
                boolean any = false;
                for (int r = 0; r < refs; r++) {
                    if (b.referenceKind(r) == metatableKind) {
                        int mode = metatableMode[b.referenceTarget(r)];
                        int source = b.referenceSource(r);
                        if (mode != 0 && "table".equals(b.type(source))) {
                            tableMode[source] = (byte) mode;
                            any = true;
                        }
                    }
                }
                for (int r = 0; any && r < refs; r++) {
                    int mode = tableMode[b.referenceSource(r)];
                    if (mode == 0) {
                        continue;
                    }
                    int k = b.referenceKind(r);
                    boolean weak = (k == keyKind && (mode & 1) != 0)
                        || ((k == valueKind || k == arrayKind) && (mode & 2) != 0);
                    if (weak && !isString(b.referenceTarget(r))) {
                        b.addFlags(r, HeapSnapshot.WEAK);
                    }
                }
            }

            // upvalues of Lua closures are named by their proto's source (heapgraph.py, spec §9)
            for (int i = 0; i < closureUpvalues.size(); i += 3) {
                String source = protoSource.get(closureUpvalues.get(i + 2));
                if (source == null) {
                    continue;
                }
                int name = b.name(source);
                int first = closureUpvalues.get(i);
                int end = first + closureUpvalues.get(i + 1);
                for (int r = first; r < end; r++) {
                    b.setReferenceName(r, name);
                }
            }
        }

        private boolean isString(int object) {
            return b.isDefined(object) && "string".equals(b.type(object));
        }

        /** Bit 1: weak keys ({@code k}), bit 2: weak values ({@code v}). */
        private static int mode(String text) {
            if (text == null) {
                return 0;
            }
            return (text.indexOf('k') >= 0 ? 1 : 0) | (text.indexOf('v') >= 0 ? 2 : 0);
        }

        private void addWarnings(List<String> warnings) {
            if (!wrapped.isEmpty()) {
                warnings.add("stats: " + wrapped.size() + " byte count(s) printed negative by the VM (32-bit int"
                    + " overflow above 2 GiB, spec §6), corrected by adding 2^32 (exact modulo 2^32): "
                    + String.join(", ", wrapped));
            }
            if (negativeObjectSizes > 0) {
                warnings.add(negativeObjectSizes + " object size(s) printed negative, corrected by adding 2^32");
            }
            if (nullCategoryNames > 0) {
                warnings.add(nullCategoryNames + " memory category name(s) printed \"(null)\" by the VM (its category"
                    + " callback returned NULL, spec §7.2), named \"unnamed category N\"");
            }
            if (!sawStats) {
                warnings.add("the dump has no \"stats\" member: VM total and memory categories unknown");
            }
            if (stackNameMismatches > 0) {
                warnings.add(stackNameMismatches + " thread record(s) whose \"stacknames\" length differs from"
                    + " \"stack\"; names given in order, extra entries ignored");
            }
            if (!unknownTypes.isEmpty()) {
                warnings.add("record type(s) unknown to this reader: " + String.join(", ", unknownTypes)
                    + (unknownFieldReferences == 0 ? "; none of their unknown fields holds an address"
                        : "; " + unknownFieldReferences + " address(es) in their unknown fields kept as references of kind"
                        + " unknown-field, named by the field (" + String.join(", ", unknownFieldRecords) + ")"));
            }
            if (!unknownFields.isEmpty()) {
                List<String> shown = new ArrayList<>(unknownFields).subList(0, Math.min(10, unknownFields.size()));
                warnings.add("ignored unknown field(s): " + String.join(", ", shown)
                    + (unknownFields.size() > shown.size() ? " and " + (unknownFields.size() - shown.size()) + " more" : ""));
            }
        }
    }
}
