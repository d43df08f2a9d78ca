package dev.heapload.luau;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A byte filter that turns the output of the Luau VM's heap dump writer ({@code luaC_dump} /
 * {@code lua_memorydump}, VM/src/lgcdebug.cpp) into valid JSON, keeping the bytes the VM wrote.
 *
 * <p>The writer emits invalid JSON in known places (spec shared/docs/formats/luau-luaC_dump.md §7):
 * <ol>
 *   <li>fields printed with {@code %s} and no escaping: a function record's {@code name}, a memory
 *       category's {@code name} and the entries of a thread's {@code stacknames} can hold raw quotes,
 *       backslashes, control characters and invalid UTF-8;</li>
 *   <li>{@code class} records: the {@code name} value is not quoted at all, and the
 *       {@code staticmembers} array has no closing {@code ]};</li>
 *   <li>VMs built with {@code LUA_VECTOR_DOUBLE}: a vector's record is empty, {@code "0x…":,}.</li>
 * </ol>
 * The writer never writes a backslash escape anywhere (escaped fields use {@code ?}, spec §4), so
 * every backslash in the input is a literal byte and is written as <code>&#92;&#92;</code>. Control characters
 * are written as <code>&#92;u00XX</code>. A byte that does not start a well-formed UTF-8 sequence
 * (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) is written as the Latin-1
 * character <code>&#92;u00XX</code>; well-formed sequences are kept. These three rules apply to every
 * string. Inside the unescaped fields of (1), a quote ends the string only when it is followed by the
 * bytes that can end that field: for a {@code name}, a comma (optionally a space) and the next key
 * ({@code ","proto":}, {@code ", "size":}) or the closing brace of the record (<code>"&#125;</code> followed
 * by {@code ,} or a line break); for a {@code stacknames} entry, {@code ,"} or {@code ,null} before
 * the last entry and <code>"]&#125;</code> after it (the number of entries equals the number of {@code stack}
 * elements, spec §4). Any other quote is literal and written as <code>&#92;"</code>. An unquoted class name is
 * wrapped in quotes (it ends before {@code ,"<key>":}); an unterminated {@code staticmembers} array is
 * closed before the first {@code ,"<key>":} found inside it; an empty record gets the value
 * {@code {"type":"vector"}}.
 *
 * <p>To recognise those places the filter tracks the JSON structure (objects/arrays, keys, the
 * {@code type} of the current record); it does not validate it: Jackson does.
 *
 * <p>One change is not a repair but a reshaping for speed: the {@code objects} member, an object keyed
 * by address, is handed on as an array of alternating address strings and records (<code>&#123;</code> → {@code [},
 * each {@code :} → {@code ,}, the closing brace → {@code ]}; same length, so no offset moves). Jackson
 * then reads addresses as string values, which cost no {@link String} and no symbol-table entry,
 * instead of millions of distinct field names.
 *
 * <p>Every repaired spot is counted per {@link Repair kind}, with the offset of the first one;
 * {@link #originalOffset(long)} maps an offset of the repaired output back to the input, so errors can
 * be reported in offsets of the dump as written.
 *
 * <p>Works on byte arrays in bulk; the caller should read with buffers of at least a few KiB. Not
 * thread-safe.
 */
final class LuauJsonRepair extends InputStream {

    /** Kinds of repaired spots. */
    enum Repair {
        UNESCAPED_QUOTE("field(s) with unescaped quotes inside names", "quote(s)", ", kept as literal quotes"),
        LITERAL_BACKSLASH("field(s) with literal backslashes (the VM writes no escapes)", "backslash(es)",
            ", kept as backslashes"),
        CONTROL_CHARACTER("field(s) with raw control characters inside strings", "character(s)", ""),
        INVALID_UTF8("field(s) with bytes that are not valid UTF-8", "byte(s)", ", read as Latin-1 characters"),
        UNQUOTED_CLASS_NAME("unquoted class name(s)", null, ""),
        UNTERMINATED_STATIC_MEMBERS("unterminated \"staticmembers\" array(s)", null, ""),
        EMPTY_VECTOR_RECORD("empty record(s) \"<address>\":, (LUA_VECTOR_DOUBLE vectors), read as type vector, size 0",
            null, "");

        final String description;
        /** For repairs inside a string: what one repaired spot is (counted apart from the fields); else null. */
        final String unit;
        final String outcome;

        Repair(String description, String unit, String outcome) {
            this.description = description;
            this.unit = unit;
            this.outcome = outcome;
        }
    }

    /** Bytes of input that must be visible beyond the current byte to decide a repair. */
    private static final int LOOKAHEAD = 64;
    /** Most bytes one step can write ({@code {"type":"vector"}} is the longest). */
    private static final int MAX_EMIT = 32;
    /** Containers deeper than this are not tracked (a Luau dump nests 4 deep). */
    private static final int MAX_TRACKED_DEPTH = 64;
    /** Longest key recognised by {@link #keyAt}. */
    private static final int MAX_KEY = 40;

    private static final boolean[] SPECIAL = new boolean[256];
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] VECTOR_RECORD = bytes("{\"type\":\"vector\"}");

    static {
        for (int b = 0; b < 0x20; b++) {
            SPECIAL[b] = true;
        }
        SPECIAL['"'] = true;
        SPECIAL['\\'] = true;
        for (int b = 0x80; b < 0x100; b++) {
            SPECIAL[b] = true;
        }
    }

    // lexer states
    private static final int STRUCT = 0;
    private static final int STRING = 1;
    private static final int UNQUOTED = 2;

    // kinds of strings
    private static final int S_PLAIN = 0;
    private static final int S_KEY = 1;
    private static final int S_TYPE = 2;
    private static final int S_NAME = 3;
    private static final int S_STACKNAME = 4;

    // container roles
    private static final byte R_OTHER = 0;
    private static final byte R_ROOT = 1;
    private static final byte R_OBJECTS = 2;
    private static final byte R_RECORD = 3;
    private static final byte R_STACK = 4;
    private static final byte R_STACKNAMES = 5;
    private static final byte R_STATIC = 6;
    private static final byte R_STATS = 7;
    private static final byte R_CATEGORIES = 8;
    private static final byte R_CATEGORY = 9;

    // keys that matter
    private static final byte K_OTHER = 0;
    private static final byte K_OBJECTS = 1;
    private static final byte K_STATS = 2;
    private static final byte K_CATEGORIES = 3;
    private static final byte K_NAME = 4;
    private static final byte K_TYPE = 5;
    private static final byte K_STACK = 6;
    private static final byte K_STACKNAMES = 7;
    private static final byte K_STATICMEMBERS = 8;
    private static final byte[][] KEY_TEXT = {
        null, bytes("objects"), bytes("stats"), bytes("categories"), bytes("name"), bytes("type"),
        bytes("stack"), bytes("stacknames"), bytes("staticmembers"),
    };
    private static final byte[] CLASS = bytes("class");
    private static final byte[] NULL = bytes("null");

    private final InputStream in;
    private final byte[] ib = new byte[1 << 16];
    private int ip;
    private int il;
    private boolean eof;
    /** Offset in the input of {@code ib[0]}. */
    private long inBase;

    private byte[] out;
    private int op;
    private int outStart;
    private int outLimit;
    /** Bytes of output handed out before the current {@link #produce} call. */
    private long outTotal;

    private final byte[] small = new byte[4096];
    private int smallPos;
    private int smallEnd;

    private int state = STRUCT;
    private int stringKind;
    private final byte[] cap = new byte[16];
    private int capLen;

    private int depth;
    private final byte[] role = new byte[MAX_TRACKED_DEPTH];
    private final boolean[] isObject = new boolean[MAX_TRACKED_DEPTH];
    private final boolean[] expectKey = new boolean[MAX_TRACKED_DEPTH];
    private final byte[] key = new byte[MAX_TRACKED_DEPTH];

    private volatile boolean reshapedObjects;
    private boolean recordIsClass;
    private int stackCount;
    private int stackNameIndex;

    private final long[] counts = new long[Repair.values().length];
    /** Per kind: fields (strings) with at least one repaired spot; for the kinds without a unit, = counts. */
    private final long[] fieldCounts = new long[Repair.values().length];
    /** Per kind: {@link #stringSerial} of the last string a spot of it was repaired in. */
    private final long[] lastString = new long[Repair.values().length];
    /** Number of the string being read (incremented at each opening quote). */
    private long stringSerial;
    private final long[] firstAt = new long[Repair.values().length];

    /** Offset map: output offset {@code mapOut[k]} corresponds to input offset {@code mapIn[k]}. */
    private long[] mapOut = new long[32];
    private long[] mapIn = new long[32];
    private int mapSize;

    /** @param in the dump's bytes (already decompressed) */
    LuauJsonRepair(InputStream in) {
        this.in = in;
    }

    @Override
    public int read() throws IOException {
        if (smallPos >= smallEnd && !refillSmall()) {
            return -1;
        }
        return small[smallPos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (smallPos < smallEnd || len < 4 * MAX_EMIT) {
            if (smallPos >= smallEnd && !refillSmall()) {
                return -1;
            }
            int n = Math.min(len, smallEnd - smallPos);
            System.arraycopy(small, smallPos, b, off, n);
            smallPos += n;
            return n;
        }
        return produce(b, off, len);
    }

    private boolean refillSmall() throws IOException {
        int n = produce(small, 0, small.length);
        smallPos = 0;
        smallEnd = Math.max(n, 0);
        return n > 0;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /**
     * True once the {@code objects} object was opened and is being handed on as an array (see the class
     * doc). May be read from another thread than the one reading this stream.
     */
    boolean reshapedObjects() {
        return reshapedObjects;
    }

    /** Number of input bytes read from the underlying stream so far. */
    long inputBytesRead() {
        return inBase + il;
    }

    /**
     * Maps an offset in the repaired output to the offset of the byte in the input that produced it
     * (for bytes inserted by a repair: the input offset of the repaired spot).
     */
    long originalOffset(long outputOffset) {
        int lo = 0;
        int hi = mapSize - 1;
        int k = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (mapOut[mid] <= outputOffset) {
                k = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (k < 0) {
            return outputOffset;
        }
        long o = mapIn[k] + (outputOffset - mapOut[k]);
        if (k + 1 < mapSize) {
            // inside a repaired spot: clamp to the spot's last input byte (or its position, for insertions)
            long limit = mapIn[k + 1] > mapIn[k] ? mapIn[k + 1] - 1 : mapIn[k + 1];
            o = Math.min(o, limit);
        }
        return o;
    }

    /** How many fields (strings) had at least one spot of this kind repaired; for kinds outside strings, the spots. */
    long fieldCount(Repair kind) {
        return fieldCounts[kind.ordinal()];
    }

    /** How many spots of this kind were repaired. */
    long count(Repair kind) {
        return counts[kind.ordinal()];
    }

    /** Input offset of the first repaired spot of this kind, or {@code -1}. */
    long firstOffset(Repair kind) {
        return counts[kind.ordinal()] == 0 ? -1 : firstAt[kind.ordinal()];
    }

    /**
     * One line per kind of repaired spot: the fields repaired (one string with three stray quotes is one field), what,
     * the spots in brackets, offset of the first (spec §7).
     */
    List<String> warnings() {
        List<String> lines = new ArrayList<>();
        for (Repair r : Repair.values()) {
            long n = counts[r.ordinal()];
            if (n > 0) {
                lines.add("invalid JSON repaired (Luau spec §7): " + fieldCounts[r.ordinal()] + " " + r.description
                    + (r.unit == null ? "" : " (" + n + " " + r.unit + ")") + r.outcome
                    + ", first at byte " + firstAt[r.ordinal()]);
            }
        }
        return lines;
    }

    // ------------------------------------------------------------------------------------------
    // production

    private int produce(byte[] target, int off, int len) throws IOException {
        out = target;
        op = off;
        outStart = off;
        outLimit = off + len - MAX_EMIT;
        while (op < outLimit) {
            if (il - ip < LOOKAHEAD && !eof) {
                fill();
                continue;
            }
            if (ip >= il) {
                break;
            }
            switch (state) {
                case STRUCT -> structural();
                case STRING -> string();
                default -> unquoted();
            }
        }
        int n = op - off;
        outTotal += n;
        out = null;
        return n == 0 ? -1 : n;
    }

    private void fill() throws IOException {
        if (ip > 0) {
            int rest = il - ip;
            System.arraycopy(ib, ip, ib, 0, rest);
            inBase += ip;
            ip = 0;
            il = rest;
        }
        while (il - ip < LOOKAHEAD && !eof) {
            int n = in.read(ib, il, ib.length - il);
            if (n < 0) {
                eof = true;
            } else {
                il += n;
            }
        }
    }

    /** Byte at {@code i} of the input buffer, or -1 past the end of the input. */
    private int at(int i) {
        return i < il ? ib[i] & 0xff : -1;
    }

    private long outOffset() {
        return outTotal + (op - outStart);
    }

    private long inOffset() {
        return inBase + ip;
    }

    // ------------------------------------------------------------------------------------------
    // structure

    private void structural() {
        int b = ib[ip] & 0xff;
        switch (b) {
            case '"' -> {
                stringSerial++;
                stringKind = classifyString();
                capLen = 0;
                state = STRING;
                out[op++] = '"';
                ip++;
            }
            case '{', '[' -> {
                push(b == '{');
                if (topRole() == R_OBJECTS) {
                    reshapedObjects = true;
                }
                out[op++] = (byte) (topRole() == R_OBJECTS ? '[' : b);
                ip++;
            }
            case '}', ']' -> {
                out[op++] = (byte) (topRole() == R_OBJECTS ? ']' : b);
                if (depth > 0) {
                    depth--;
                }
                ip++;
            }
            case ':' -> {
                out[op++] = (byte) (topRole() == R_OBJECTS ? ',' : ':');
                ip++;
                colon();
            }
            case ',' -> comma();
            default -> {
                out[op++] = (byte) b;
                ip++;
            }
        }
    }

    private byte topRole() {
        return depth == 0 || depth > MAX_TRACKED_DEPTH ? R_OTHER : role[depth - 1];
    }

    private int classifyString() {
        if (depth == 0 || depth > MAX_TRACKED_DEPTH) {
            return S_PLAIN;
        }
        int d = depth - 1;
        byte r = role[d];
        if (isObject[d]) {
            if (expectKey[d]) {
                return r == R_ROOT || r == R_STATS || r == R_RECORD || r == R_CATEGORY ? S_KEY : S_PLAIN;
            }
            byte k = key[d];
            if (r == R_RECORD && k == K_TYPE) {
                return S_TYPE;
            }
            if ((r == R_RECORD || r == R_CATEGORY) && k == K_NAME) {
                return S_NAME;
            }
            return S_PLAIN;
        }
        if (r == R_STACKNAMES) {
            return S_STACKNAME;
        }
        if (r == R_STACK) {
            stackCount++;
        }
        return S_PLAIN;
    }

    private void push(boolean object) {
        byte r = R_OTHER;
        if (depth == 0) {
            r = object ? R_ROOT : R_OTHER;
        } else if (depth <= MAX_TRACKED_DEPTH) {
            int d = depth - 1;
            byte k = isObject[d] ? key[d] : K_OTHER;
            switch (role[d]) {
                case R_ROOT -> r = !object ? R_OTHER : k == K_OBJECTS ? R_OBJECTS : k == K_STATS ? R_STATS : R_OTHER;
                case R_OBJECTS -> {
                    if (object) {
                        r = R_RECORD;
                        recordIsClass = false;
                        stackCount = 0;
                        stackNameIndex = 0;
                    }
                }
                case R_RECORD -> {
                    if (!object) {
                        r = k == K_STACK ? R_STACK : k == K_STACKNAMES ? R_STACKNAMES
                            : k == K_STATICMEMBERS ? R_STATIC : R_OTHER;
                    }
                }
                case R_STATS -> r = object && k == K_CATEGORIES ? R_CATEGORIES : R_OTHER;
                case R_CATEGORIES -> r = object ? R_CATEGORY : R_OTHER;
                default -> r = R_OTHER;
            }
        }
        if (depth < MAX_TRACKED_DEPTH) {
            role[depth] = r;
            isObject[depth] = object;
            expectKey[depth] = object;
            key[depth] = K_OTHER;
        }
        depth++;
    }

    private void colon() {
        if (depth == 0 || depth > MAX_TRACKED_DEPTH) {
            return;
        }
        int d = depth - 1;
        if (!isObject[d]) {
            return;
        }
        expectKey[d] = false;
        byte r = role[d];
        if (r == R_OBJECTS) {
            int next = at(ip);
            if (next == ',' || next == '}') {
                record(Repair.EMPTY_VECTOR_RECORD);
                insert(VECTOR_RECORD);
            }
        } else if (r == R_RECORD && key[d] == K_NAME) {
            int next = at(ip);
            if (next >= 0 && next != '"' && (recordIsClass || !startsJsonValue(next))) {
                record(Repair.UNQUOTED_CLASS_NAME);
                stringSerial++;
                insertByte('"');
                state = UNQUOTED;
            }
        }
    }

    private void comma() {
        if (depth > 0 && depth <= MAX_TRACKED_DEPTH) {
            int d = depth - 1;
            byte r = role[d];
            if (r == R_STATIC && keyAt(ip + 1)) {
                record(Repair.UNTERMINATED_STATIC_MEMBERS);
                insertByte(']');
                depth--;
                d--;
            } else if (r == R_STACKNAMES) {
                stackNameIndex++;
            }
            if (d >= 0 && isObject[d]) {
                expectKey[d] = true;
            }
        }
        out[op++] = ',';
        ip++;
    }

    private static boolean startsJsonValue(int c) {
        return c == '"' || c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f'
            || c == 'n' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    // ------------------------------------------------------------------------------------------
    // strings

    private void string() {
        final byte[] src = ib;
        final byte[] dst = out;
        int i = ip;
        int o = op;
        final int iend = il;
        final int oend = outLimit;
        if (stringKind == S_KEY || stringKind == S_TYPE) {
            while (i < iend && o < oend) {
                byte b = src[i];
                if (SPECIAL[b & 0xff]) {
                    break;
                }
                if (capLen < cap.length) {
                    cap[capLen] = b;
                }
                if (capLen != Integer.MAX_VALUE) {
                    capLen++;
                }
                dst[o++] = b;
                i++;
            }
        } else {
            while (i < iend && o < oend) {
                byte b = src[i];
                if (SPECIAL[b & 0xff]) {
                    break;
                }
                dst[o++] = b;
                i++;
            }
        }
        ip = i;
        op = o;
        if (i >= iend || o >= oend || (iend - i < LOOKAHEAD && !eof)) {
            return; // need more input, more room or more lookahead
        }
        int b = src[i] & 0xff;
        if (b == '"') {
            boolean end = switch (stringKind) {
                case S_NAME -> nameEndsAt(i);
                case S_STACKNAME -> stackNameEndsAt(i);
                default -> true;
            };
            if (end) {
                endString();
                out[op++] = '"';
                ip++;
                state = STRUCT;
            } else {
                record(Repair.UNESCAPED_QUOTE);
                replace(1, '\\', '"');
            }
            return;
        }
        capLen = Integer.MAX_VALUE; // a key with escapes is none of the keys we look for
        special(b);
    }

    private void endString() {
        if (stringKind == S_KEY) {
            int d = depth - 1;
            key[d] = identifyKey();
        } else if (stringKind == S_TYPE) {
            recordIsClass = captured(CLASS);
        }
    }

    private byte identifyKey() {
        if (capLen < 4 || capLen > 13) {
            return K_OTHER; // the keys we look for are 4..13 bytes
        }
        byte k = switch (cap[0]) {
            case 'o' -> K_OBJECTS;
            case 'c' -> K_CATEGORIES;
            case 'n' -> K_NAME;
            case 't' -> K_TYPE;
            case 's' -> capLen == 10 ? K_STACKNAMES : capLen == 13 ? K_STATICMEMBERS
                : cap[3] == 't' ? K_STATS : K_STACK;
            default -> K_OTHER;
        };
        return k != K_OTHER && captured(KEY_TEXT[k]) ? k : K_OTHER;
    }

    private boolean captured(byte[] text) {
        return capLen == text.length && Arrays.equals(cap, 0, capLen, text, 0, text.length);
    }

    /** Escapes a backslash, a control character or a byte >= 0x80 at {@code ip}. */
    private void special(int b) {
        if (b == '\\') {
            record(Repair.LITERAL_BACKSLASH);
            replace(1, '\\', '\\');
        } else if (b < 0x20) {
            record(Repair.CONTROL_CHARACTER);
            replaceWithUnicodeEscape(b);
        } else {
            int n = utf8Length(ip);
            if (n > 0) {
                System.arraycopy(ib, ip, out, op, n);
                op += n;
                ip += n;
            } else {
                record(Repair.INVALID_UTF8);
                replaceWithUnicodeEscape(b);
            }
        }
    }

    /** Length of the well-formed UTF-8 sequence starting at {@code i} (RFC 3629 table 3-7), or 0. */
    private int utf8Length(int i) {
        int b0 = ib[i] & 0xff;
        if (b0 < 0xC2 || b0 > 0xF4) {
            return 0;
        }
        int b1 = at(i + 1);
        if (b0 < 0xE0) {
            return isContinuation(b1) ? 2 : 0;
        }
        int lo = 0x80;
        int hi = 0xBF;
        if (b0 == 0xE0) {
            lo = 0xA0;
        } else if (b0 == 0xED) {
            hi = 0x9F;
        } else if (b0 == 0xF0) {
            lo = 0x90;
        } else if (b0 == 0xF4) {
            hi = 0x8F;
        }
        if (b1 < lo || b1 > hi || !isContinuation(at(i + 2))) {
            return 0;
        }
        if (b0 < 0xF0) {
            return 3;
        }
        return isContinuation(at(i + 3)) ? 4 : 0;
    }

    private static boolean isContinuation(int b) {
        return b >= 0x80 && b <= 0xBF;
    }

    /** Does the quote at {@code q} end a raw {@code name} value (function or category)? */
    private boolean nameEndsAt(int q) {
        int c = at(q + 1);
        if (c == ',') {
            return keyAt(q + 2) || (at(q + 2) == ' ' && keyAt(q + 3));
        }
        if (c == '}') {
            int d = at(q + 2);
            return d == ',' || d == '\n' || d == '\r' || d == '}' || d < 0;
        }
        return false;
    }

    /** Does the quote at {@code q} end the current raw {@code stacknames} entry? */
    private boolean stackNameEndsAt(int q) {
        int c = at(q + 1);
        boolean beforeNext = c == ',' && (at(q + 2) == '"' || matches(q + 2, NULL));
        int d = at(q + 2);
        boolean last = c == ']' && (d == '}' || d == ',' || d < 0);
        if (stackCount > 0 && stackNameIndex < stackCount - 1) {
            return beforeNext;
        }
        if (stackCount > 0 && stackNameIndex == stackCount - 1) {
            return last;
        }
        return beforeNext || last;
    }

    /** Is there a {@code "<identifier>":} at {@code i}? */
    private boolean keyAt(int i) {
        if (at(i) != '"') {
            return false;
        }
        int c = at(++i);
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            return false;
        }
        int n = 0;
        do {
            c = at(++i);
            n++;
        } while (n < MAX_KEY && (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')));
        return c == '"' && at(i + 1) == ':';
    }

    private boolean matches(int i, byte[] text) {
        for (int k = 0; k < text.length; k++) {
            if (at(i + k) != text[k]) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------
    // unquoted class name

    private void unquoted() {
        int b = ib[ip] & 0xff;
        if ((b == ',' && keyAt(ip + 1)) || b == '}' || b == '\n' || b == '\r') {
            insertByte('"');
            state = STRUCT;
        } else if (b == '"') {
            record(Repair.UNESCAPED_QUOTE);
            replace(1, '\\', '"');
        } else if (SPECIAL[b]) {
            special(b);
        } else {
            out[op++] = (byte) b;
            ip++;
        }
    }

    // ------------------------------------------------------------------------------------------
    // output with offset bookkeeping

    private void record(Repair kind) {
        int k = kind.ordinal();
        if (counts[k]++ == 0) {
            firstAt[k] = inOffset();
            lastString[k] = -1;
        }
        if (kind.unit == null || lastString[k] != stringSerial) {
            fieldCounts[k]++;
            lastString[k] = stringSerial;
        }
    }

    private void replace(int inputLength, char c1, char c2) {
        mark();
        out[op++] = (byte) c1;
        out[op++] = (byte) c2;
        ip += inputLength;
        mark();
    }

    private void replaceWithUnicodeEscape(int b) {
        mark();
        out[op++] = '\\';
        out[op++] = 'u';
        out[op++] = '0';
        out[op++] = '0';
        out[op++] = HEX[b >> 4];
        out[op++] = HEX[b & 15];
        ip++;
        mark();
    }

    private void insert(byte[] text) {
        mark();
        System.arraycopy(text, 0, out, op, text.length);
        op += text.length;
        mark();
    }

    private void insertByte(char c) {
        mark();
        out[op++] = (byte) c;
        mark();
    }

    private void mark() {
        long o = outOffset();
        long i = inOffset();
        if (mapSize > 0 && mapOut[mapSize - 1] == o) {
            mapIn[mapSize - 1] = i;
            return;
        }
        if (mapSize == mapOut.length) {
            mapOut = Arrays.copyOf(mapOut, mapSize * 2);
            mapIn = Arrays.copyOf(mapIn, mapSize * 2);
        }
        mapOut[mapSize] = o;
        mapIn[mapSize] = i;
        mapSize++;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
