package dev.heapload.lua;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.JsonEOFException;

import dev.heapload.io.DumpInput;
import dev.heapload.model.DumpFormatException;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;

/**
 * Reads the raw table of lua-snapshot (cloudwu/lua-snapshot and its fork lvzixun/lua-snapshot, the table
 * {@code snapshot()} returns: light userdata address → record text) saved as JSON (an object
 * {@code {"0x…": "record", …}}) or as a Lua table literal ({@code return { ["0x…"] = "record", … }} with
 * {@code %q} strings), into a {@link HeapSnapshot}. Facts per shared/docs/formats/lua-state-snapshots.md §1.
 *
 * <h2>Record text</h2>
 * A header line, then one line {@code PARENT : edge} per referrer, {@code PARENT} being {@code 0x…} or
 * {@code (nil)} (the walk's start, the registry). Headers: cloudwu {@code table}, {@code userdata},
 * {@code cfunction}, {@code func: SRC:LINE}, {@code <frames>thread: }; lvzixun the same kinds followed by
 * {@code  {SIZE}} (bytes): {@code table {56}}, {@code SRC:LINE {40}}, {@code thread <frames> {1048}},
 * {@code string {27}}. Types: {@code table}, {@code userdata}, {@code cfunction}, {@code function} (a Lua
 * closure, label {@code SRC:LINE}), {@code thread} (label: its frames), {@code string} (lvzixun built with
 * {@code -DDUMP_STRING}; no contents); any other header is kept as type {@code unknown} and counted in a
 * warning.
 *
 * <h2>References</h2>
 * Each line becomes a reference from the parent to the record's object, named by the edge text, kind:
 * {@code [metatable]} → metatable, {@code [key]} → key, {@code [uservalue]}/{@code [uservalue:n]} →
 * uservalue, {@code [environment]} → env, {@code [upvalue]} → upvalue, {@code name : SRC:LINE} (cloudwu) or
 * {@code name{#SRC:LINE}} (lvzixun) → local; other → value. {@code (nil) : [registry]} makes the object
 * the root {@code registry}. The tools follow weak-key values as strong and skip weak keys and weak
 * values, so every reference is strong.
 *
 * <h2>What is missing, and damage tolerated</h2>
 * No string contents, no scalar values, one edge name per (child, parent) pair, no sizes in cloudwu's
 * records (size 0), only shallow sizes in lvzixun's; these are listed in the snapshot's warnings. Edge
 * names are not escaped by the tools, so a key holding a newline spreads over several lines. A parent line is
 * only a line whose first token is an address spelled exactly as this dump's {@code %p} spells them (glibc/macOS
 * {@code 0x} + lower-case hex, NULL {@code (nil)}; MSVC/MinGW bare upper-case hex padded to 16 or 8 digits, NULL all
 * zeros; found from the first parent line) followed by {@code " : "}, and whose parent fits the record: it has a
 * record, is not a string, and is not already a parent in this record (the tools keep one edge name per child and
 * parent); a NULL parent only as a record's first line, {@code [registry]} (the walk's start; a NULL line later in a record
 * is text of a key holding a newline, forged to make its object a root: read as key text and warned). Any other line
 * continues the previous edge name. A fitting
 * parent line right after such a continuation (inside a key that holds a newline) is ambiguous: it is read as key
 * text and counted in a warning. Record keys are matched to parents by address value, whatever their spelling. A
 * first parent line whose address has no record is a reference to nothing
 * ({@link dev.heapload.model.HeapSnapshot#danglingReferences()}).
 */
public final class LuaSnapshotRawReader {

    private static final JsonFactory JSON = JsonFactory.builder()
        .disable(com.fasterxml.jackson.core.StreamReadFeature.AUTO_CLOSE_SOURCE) // the SHA-256 reads the rest
        .streamReadConstraints(dev.heapload.io.InputLimits.jsonConstraints())
        .build();

    private static final Pattern ADDRESS = Pattern.compile("(0x)?[0-9a-fA-F]+");
    private static final Pattern PARENT = Pattern.compile("^(0x[0-9a-f]+|\\(nil\\)) : (.*)$", Pattern.DOTALL);
    private static final Pattern SIZE = Pattern.compile("^(.*) \\{(\\d+)\\}$", Pattern.DOTALL);
    /** A Lua function's header: {@code SRC:LINE} (lvzixun; cloudwu writes {@code func: SRC:LINE}). */
    private static final Pattern FUNCTION = Pattern.compile("^.*:-?\\d+$", Pattern.DOTALL);
    private static final Pattern LOCAL = Pattern.compile("^(.*)\\{#.*\\}$|^(.*) : .*$", Pattern.DOTALL);

    /** Creates a reader; instances hold no state between reads. */
    public LuaSnapshotRawReader() {
    }

    private boolean keepDangling;

    /**
     * Keeps the references to addresses with no record one by one (the store writes them as {@code Missing} nodes)
     * instead of only counting them ({@link dev.heapload.model.HeapSnapshot#danglingReferences()}).
     *
     * @return this reader
     */
    public LuaSnapshotRawReader keepDangling(boolean keep) {
        this.keepDangling = keep;
        return this;
    }

    /** One record: address and text. */
    private record Entry(String address, String text, long offset) {
    }

    /**
     * Reads one raw table file.
     *
     * @param file       JSON or Lua-literal form, plain or gzip
     * @param snapshotId id of the snapshot
     * @param progress   receives the phase {@code read <file name>} in bytes of the file as stored
     * @return the snapshot (vm {@code lua}: the raw table does not say which version)
     * @throws DumpFormatException when the file is neither form (one line: file, byte, reason)
     */
    public HeapSnapshot read(Path file, String snapshotId, Progress progress) throws IOException {
        List<Entry> entries;
        String sha;
        String name;
        try (DumpInput in = DumpInput.open(file)) {
            name = in.name();
            Path fileName = file.getFileName();
            progress.start("read " + (fileName == null ? name : fileName.toString()), in.size(), "B");
            try {
                byte[] head = new byte[64];
                InputStream content = new java.io.PushbackInputStream(in.content(), 64);
                int n = content.readNBytes(head, 0, head.length);
                ((java.io.PushbackInputStream) content).unread(head, 0, n);
                int i = 0;
                while (i < n && Character.isWhitespace(head[i])) {
                    i++;
                }
                if (i < n && head[i] == '{') {
                    entries = readJson(name, content);
                } else if (new String(head, i, n - i, StandardCharsets.ISO_8859_1).startsWith("return")) {
                    entries = new LuaLiteral(name, content.readAllBytes()).entries();
                } else {
                    throw new DumpFormatException(name, i, "not a lua-snapshot raw table: neither a JSON object nor `return { … }`");
                }
                sha = in.sha256();
                progress.step(in.size());
            } finally {
                progress.end();
            }
        }
        return build(name, snapshotId, sha, entries);
    }

    private static List<Entry> readJson(String name, InputStream content) throws IOException {
        List<Entry> out = new ArrayList<>();
        try (JsonParser p = JSON.createParser(content)) {
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new DumpFormatException(name, 0, "not a lua-snapshot raw table");
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String address = p.currentName();
                    long at = p.currentTokenLocation().getByteOffset();
                    if (!ADDRESS.matcher(address).matches()) {
                        throw new DumpFormatException(name, at, "not a lua-snapshot raw table: member \"" + shortText(address)
                            + "\" is not an address");
                    }
                    if (p.nextToken() != JsonToken.VALUE_STRING) {
                        throw new DumpFormatException(name, p.currentTokenLocation().getByteOffset(),
                            "the record of " + address + " is not a string");
                    }
                    out.add(new Entry(address, p.getText(), at));
                }
                if (p.currentToken() != JsonToken.END_OBJECT) {
                    throw new DumpFormatException(name, p.currentTokenLocation().getByteOffset(), "unexpected " + p.currentToken());
                }
            } catch (JsonEOFException e) {
                throw new DumpFormatException(name, p.currentLocation().getByteOffset(), "unexpected end of input (truncated file?)");
            } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
                throw dev.heapload.io.InputLimits.error(name, p, e);
            } catch (StreamReadException e) {
                String msg = e.getOriginalMessage();
                int nl = msg == null ? -1 : msg.indexOf('\n');
                throw new DumpFormatException(name, e.getLocation() == null ? -1 : e.getLocation().getByteOffset(),
                    "not valid JSON: " + (nl >= 0 ? msg.substring(0, nl) : msg));
            }
        }
        return out;
    }

    private static String shortText(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "…" : s;
    }

    /** Parser of {@code return { ["key"] = "value", … }} with Lua string escapes (as {@code %q} writes them). */
    private static final class LuaLiteral {
        private final String name;
        private final byte[] s;
        private int i;

        LuaLiteral(String name, byte[] s) {
            this.name = name;
            this.s = s;
        }

        private DumpFormatException error(String reason) {
            return new DumpFormatException(name, i, reason);
        }

        private void space() {
            while (i < s.length) {
                byte c = s[i];
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    i++;
                } else if (c == '-' && i + 1 < s.length && s[i + 1] == '-') {
                    while (i < s.length && s[i] != '\n') {
                        i++;
                    }
                } else {
                    return;
                }
            }
        }

        private void expect(char c) throws DumpFormatException {
            space();
            if (i >= s.length) {
                throw error("unexpected end of input (truncated file?)");
            }
            if (s[i] != c) {
                throw error("expected '" + c + "'");
            }
            i++;
        }

        List<Entry> entries() throws DumpFormatException {
            space();
            if (!new String(s, i, Math.min(6, s.length - i), StandardCharsets.ISO_8859_1).equals("return")) {
                throw error("not a Lua table literal: no `return`");
            }
            i += 6;
            expect('{');
            List<Entry> out = new ArrayList<>();
            while (true) {
                space();
                if (i >= s.length) {
                    throw error("unexpected end of input (truncated file?)");
                }
                if (s[i] == '}') {
                    i++;
                    break;
                }
                long at = i;
                expect('[');
                space();
                String key = string();
                if (!ADDRESS.matcher(key).matches()) {
                    i = (int) at;
                    throw error("not a lua-snapshot raw table: key \"" + shortText(key) + "\" is not an address");
                }
                expect(']');
                expect('=');
                space();
                String value = string();
                out.add(new Entry(key, value, at));
                space();
                if (i < s.length && (s[i] == ',' || s[i] == ';')) {
                    i++;
                }
            }
            return out;
        }

        private String string() throws DumpFormatException {
            if (i >= s.length) {
                throw error("unexpected end of input (truncated file?)");
            }
            byte q = s[i];
            if (q != '"' && q != '\'') {
                throw error("expected a string");
            }
            i++;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long start = i - 1;
            while (true) {
                if (i >= s.length) {
                    throw error("unexpected end of input inside a string (truncated file?)");
                }
                if (out.size() > dev.heapload.io.InputLimits.MAX_STRING_CHARS) {
                    i = (int) start;
                    throw error("a string longer than " + String.format(java.util.Locale.ROOT, "%,d",
                        dev.heapload.io.InputLimits.MAX_STRING_CHARS) + " characters (64 MiB, limit of heapload's readers)");
                }
                byte c = s[i++];
                if (c == q) {
                    break;
                }
                if (c != '\\') {
                    out.write(c);
                    continue;
                }
                if (i >= s.length) {
                    throw error("unexpected end of input inside a string (truncated file?)");
                }
                byte e = s[i++];
                switch (e) {
                    case 'n' -> out.write('\n');
                    case 't' -> out.write('\t');
                    case 'r' -> out.write('\r');
                    case 'a' -> out.write(7);
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'v' -> out.write(11);
                    case '\n' -> {
                        out.write('\n');
                        if (i < s.length && s[i] == '\r') {
                            i++;
                        }
                    }
                    case '\r' -> {
                        out.write('\n');
                        if (i < s.length && s[i] == '\n') {
                            i++;
                        }
                    }
                    case 'x' -> {
                        if (i + 2 > s.length) {
                            throw error("bad \\x escape");
                        }
                        out.write(Integer.parseInt(new String(s, i, 2, StandardCharsets.ISO_8859_1), 16));
                        i += 2;
                    }
                    default -> {
                        if (e >= '0' && e <= '9') {
                            int v = e - '0';
                            for (int k = 0; k < 2 && i < s.length && s[i] >= '0' && s[i] <= '9'; k++) {
                                v = v * 10 + (s[i++] - '0');
                            }
                            if (v > 255) {
                                throw error("bad decimal escape");
                            }
                            out.write(v);
                        } else {
                            out.write(e); // \\ \" \' and anything else: the character itself
                        }
                    }
                }
            }
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        }
    }

    /** The value of an address token: hex digits with or without {@code 0x}, any case; 0 for {@code (nil)}; -1 if none. */
    static long addressValue(String token) {
        if (token.equals("(nil)")) {
            return 0;
        }
        String hex = token.startsWith("0x") || token.startsWith("0X") ? token.substring(2) : token;
        if (hex.isEmpty() || hex.length() > 16) {
            return -1;
        }
        try {
            return Long.parseUnsignedLong(hex, 16);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * How the C library that built the tool printed {@code %p} in parent lines, found from the first line after the
     * header of the first record that has one: glibc/macOS {@code 0x} + lower-case hex (NULL {@code (nil)} or
     * {@code 0x0}); MSVC/MinGW bare upper-case hex zero-padded to 16 (64-bit) or 8 (32-bit) digits (NULL all zeros).
     * A parent line is one whose first token has exactly this spelling.
     */
    private static Pattern parentPattern(List<Entry> entries) {
        for (Entry en : entries) {
            int nl = en.text().indexOf('\n');
            if (nl < 0) {
                continue;
            }
            String line = en.text().substring(nl + 1);
            if (line.matches("(?s)[0-9A-F]{16} : .*")) {
                return Pattern.compile("^([0-9A-F]{16}) : (.*)$", Pattern.DOTALL);
            }
            if (line.matches("(?s)[0-9A-F]{8} : .*")) {
                return Pattern.compile("^([0-9A-F]{8}) : (.*)$", Pattern.DOTALL);
            }
            break;
        }
        return PARENT;
    }

    /** An edge being read: its parent (an object id of the builder, or -1 for the registry line) and its name. */
    private static final class PendingEdge {
        final int parent;
        final int parentRecord;
        final StringBuilder name;

        PendingEdge(int parent, int parentRecord, String name) {
            this.parent = parent;
            this.parentRecord = parentRecord;
            this.name = new StringBuilder(name);
        }
    }

    private HeapSnapshot build(String name, String snapshotId, String sha, List<Entry> entries) throws DumpFormatException {
        HeapSnapshotBuilder b = new HeapSnapshotBuilder().keepDangling(keepDangling);
        int kValue = b.kind("value");
        int kKey = b.kind("key");
        int kMeta = b.kind("metatable");
        int kUser = b.kind("uservalue");
        int kEnv = b.kind("env");
        int kUp = b.kind("upvalue");
        int kLocal = b.kind("local");
        String[] types = new String[entries.size()];
        String[] labels = new String[entries.size()];
        long[] sizes = new long[entries.size()];
        boolean anySize = false;
        int unknown = 0;
        String firstUnknown = null;
        boolean anyString = false;
        // records by address value: keys may be spelled with or without 0x, in any case, padded or not
        org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap recordOf =
            new org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap();
        for (int e = 0; e < entries.size(); e++) {
            Entry en = entries.get(e);
            long value = addressValue(en.address());
            if (value < 0 || recordOf.containsKey(value)) {
                throw new DumpFormatException(name, en.offset(), "address " + en.address() + " has two records");
            }
            recordOf.put(value, e);
            int nl = en.text().indexOf('\n');
            String header = nl < 0 ? en.text() : en.text().substring(0, nl);
            Matcher sm = SIZE.matcher(header);
            long size = 0;
            if (sm.matches()) {
                header = sm.group(1);
                size = Long.parseLong(sm.group(2));
                anySize = true;
            }
            String type;
            String label = null;
            if (header.equals("table") || header.equals("userdata") || header.equals("cfunction") || header.equals("string")) {
                type = header;
            } else if (header.startsWith("func: ")) {
                type = "function";
                label = header.substring(6);
            } else if (header.startsWith("thread ") || header.endsWith("thread: ") || header.equals("thread")) {
                // thread headers of cloudwu end with "thread: "; frames never contain " : "
                type = "thread";
                label = header.startsWith("thread ") ? header.substring(7).trim()
                    : header.substring(0, header.length() - "thread: ".length()).trim();
            } else if (FUNCTION.matcher(header).matches()) {
                type = "function";
                label = header;
            } else {
                type = "unknown";
                label = header;
                if (unknown++ == 0) {
                    firstUnknown = "\"" + shortText(header) + "\" (record of " + en.address() + ", byte " + en.offset() + ")";
                }
            }
            anyString |= type.equals("string");
            types[e] = type;
            labels[e] = label;
            sizes[e] = size;
        }
        for (int e = 0; e < entries.size(); e++) {
            Entry en = entries.get(e);
            b.defineObject(en.address(), types[e], sizes[e], -1, labels[e]);
        }
        Pattern parentLine = parentPattern(entries);
        List<Integer> registry = new ArrayList<>();
        int continued = 0;
        int misfits = 0;
        int ambiguous = 0;
        String firstAmbiguous = null;
        int forgedRoots = 0;
        String firstForged = null;
        for (int e = 0; e < entries.size(); e++) {
            Entry en = entries.get(e);
            String[] lines = en.text().split("\n", -1);
            List<PendingEdge> edges = new ArrayList<>();
            org.eclipse.collections.impl.set.mutable.primitive.LongHashSet parents =
                new org.eclipse.collections.impl.set.mutable.primitive.LongHashSet();
            boolean insideKey = false;
            for (int k = 1; k < lines.length; k++) {
                String line = lines[k];
                if (k == lines.length - 1 && line.isEmpty()) {
                    break;
                }
                PendingEdge last = edges.isEmpty() ? null : edges.get(edges.size() - 1);
                Matcher m = parentLine.matcher(line);
                boolean shaped = m.matches();
                long value = shaped ? addressValue(m.group(1)) : -1;
                int record = value > 0 ? recordOf.getIfAbsent(value, -1) : -1;
                if (shaped && last == null) {
                    // the first line after the header is always a parent line: its parent may have no record
                    if (value == 0) {
                        edges.add(new PendingEdge(-1, -1, m.group(2)));
                    } else {
                        edges.add(new PendingEdge(record >= 0 ? b.objectId(entries.get(record).address())
                            : b.objectId(m.group(1)), record, m.group(2)));
                    }
                    parents.add(value);
                    continue;
                }
                // a parent line fits the record's structure: a record that can refer (not a string), named once per
                // record (the tools keep one edge name per child and parent); the NULL parent only for [registry]
                // a NULL parent line after a record's first line is never the tool's: the walk starts once, at the
                // registry, whose record it opens; a key holding a newline forges one, to make its object a root
                boolean fits = shaped && !parents.contains(value)
                    && value != 0 && record >= 0 && !types[record].equals("string");
                if (shaped && value == 0) {
                    if (forgedRoots++ == 0) {
                        firstForged = "record of " + en.address() + " at byte " + en.offset() + ", line " + (k + 1);
                    }
                }
                if (last == null) {
                    continued++;
                    continue;
                }
                if (!fits) {
                    // a key holding a newline: this line is the rest of the previous edge name
                    last.name.append('\n').append(line);
                    continued++;
                    misfits += shaped ? 1 : 0;
                    insideKey = true;
                    continue;
                }
                if (insideKey) {
                    // inside a key that holds a newline, a line shaped like a fitting parent line may be the key's
                    // text or a real referrer: read as key text, and said
                    last.name.append('\n').append(line);
                    continued++;
                    if (ambiguous++ == 0) {
                        firstAmbiguous = "record of " + en.address() + " at byte " + en.offset() + ", line " + (k + 1);
                    }
                    continue;
                }
                parents.add(value);
                edges.add(value == 0 ? new PendingEdge(-1, -1, m.group(2))
                    : new PendingEdge(b.objectId(entries.get(record).address()), record, m.group(2)));
            }
            int child = b.objectId(en.address());
            for (PendingEdge edge : edges) {
                String edgeName = edge.name.toString();
                if (edge.parent < 0) {
                    registry.add(e);
                    continue;
                }
                int kind = kValue;
                String parentType = edge.parentRecord >= 0 ? types[edge.parentRecord] : "";
                if (edgeName.equals("[metatable]")) {
                    kind = kMeta;
                } else if (edgeName.equals("[key]")) {
                    kind = kKey;
                } else if (edgeName.startsWith("[uservalue")) {
                    kind = kUser;
                } else if (edgeName.equals("[environment]")) {
                    kind = kEnv;
                } else if (edgeName.equals("[upvalue]")) {
                    kind = kUp;
                } else if (parentType.equals("thread") && LOCAL.matcher(edgeName).matches()) {
                    kind = kLocal;
                }
                b.addReference(edge.parent, child, kind, b.name(edgeName), 0);
            }
        }
        List<String> warnings = new ArrayList<>();
        warnings.add("lua-snapshot raw table (" + (anySize ? "lvzixun" : "cloudwu") + "): no string contents, no scalar values, "
            + "one edge name per (child, parent), weak-key table values recorded as strong by the tool"
            + (anySize ? ", shallow sizes only" : ", no sizes (all 0)") + (anyString ? "" : ", no string objects"));
        if (unknown > 0) {
            warnings.add(unknown + " record(s) with an unknown header kept as type \"unknown\" (first: " + firstUnknown + ")");
        }
        if (continued > 0) {
            warnings.add(continued + " record line(s) were read as the rest of the previous edge name (keys holding a "
                + "newline)" + (misfits > 0 ? ", " + misfits + " of them shaped like a parent line that does not fit the "
                + "record (no record at that address, a string, or a parent named twice)" : ""));
        }
        if (ambiguous > 0) {
            warnings.add(ambiguous + " line(s) inside keys holding a newline are shaped like parent lines of real objects "
                + "(first: " + firstAmbiguous + "): read as key text, not as references; the tool does not escape keys, so "
                + "check those objects' referrers by hand");
        }
        if (forgedRoots > 0) {
            warnings.add(forgedRoots + " line(s) naming no parent (" + (parentLine == PARENT ? "(nil)" : "all zeros")
                + ", the walk's start) after a record's first line (first: " + firstForged + "): only the registry's record"
                + " opens with one, so these are text inside keys holding a newline, forged to make an object a root; read"
                + " as key text");
        }
        if (registry.size() > 1) {
            warnings.add(registry.size() + " records open with the registry's line (" + (parentLine == PARENT ? "(nil)" : "all zeros")
                + " : [registry]), the walk has one start: all are kept as roots named registry; check the file");
        }
        for (int r : registry) {
            b.addRoot("registry", b.objectId(entries.get(r).address()));
        }
        if (registry.isEmpty()) {
            throw new DumpFormatException(name, -1, "not a lua-snapshot raw table: no record has the parent (nil) (the registry)");
        }
        SnapshotInfo info = new SnapshotInfo(snapshotId, "lua", name, sha, -1, Map.of(), warnings);
        return b.build(info);
    }
}
