package dev.heapload.daemon;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.heapload.queries.QueryResult;

/**
 * The wire format between {@code heapload query}/{@code cypher} and the store's query daemon ({@link QueryDaemon}),
 * over the daemon's Unix domain socket: one request per connection, answered by frames.
 *
 * <p>Request: the int {@link #VERSION}, an operation string ({@link #QUERY}, {@link #PATHS}, {@link #STOP}), then
 * for {@code query} the query's name and Cypher text, its bound parameters (a map value), the row limit and the
 * timeout in milliseconds; for {@code paths} the bound parameters and the row limit. Strings are an int byte count
 * and UTF-8 bytes. Values are tagged: null, string, long, double, boolean, list, map with string keys (the plain
 * values of {@link QueryResult}).
 *
 * <p>Frames: {@link #ACCEPTED} (the daemon runs the request), {@link #NOTICE} + string (a one-line notice for
 * stderr), then one of {@link #RESULT} + columns, rows and the truncated flag, or {@link #ERROR} + the one-line
 * message (exit 1), or {@link #STOPPING} (answer to {@code stop}).
 *
 * <p>{@link #RUN} (a forwarded command line) is answered by {@link #DECLINED}, or by {@link #ACCEPTED}, then
 * {@link #OUT} and {@link #ERR} frames in the order the command printed, then {@link #EXIT}.
 */
public final class DaemonProtocol {

    public static final int VERSION = 1;
    public static final String QUERY = "query";
    public static final String PATHS = "paths";
    public static final String STOP = "stop";
    /**
     * A whole command line for the daemon to run ({@code heapload query|cypher|trend …} from the thin client):
     * the client's stdout and stderr charset names, its working directory, a map of its environment variables that
     * commands read as defaults, and the arguments (a list of strings).
     */
    public static final String RUN = "run";

    public static final byte ACCEPTED = 'A';
    public static final byte NOTICE = 'N';
    public static final byte RESULT = 'R';
    public static final byte ERROR = 'E';
    public static final byte STOPPING = 'S';
    /** {@link #RUN}: the daemon does not run this command line; the client runs it itself. */
    public static final byte DECLINED = 'D';
    /** {@link #RUN}: bytes for the client's standard output (an int count, the bytes). */
    public static final byte OUT = 'O';
    /** {@link #RUN}: bytes for the client's standard error (an int count, the bytes). */
    public static final byte ERR = 'W';
    /** {@link #RUN}: the command ended with this exit code (an int); the last frame. */
    public static final byte EXIT = 'X';

    /** Longest string accepted (a statement, a value): 64 MiB. */
    public static final int MAX_STRING = 64 << 20;

    private static final byte NULL = 0;
    private static final byte STRING = 1;
    private static final byte LONG = 2;
    private static final byte DOUBLE = 3;
    private static final byte BOOLEAN = 4;
    private static final byte LIST = 5;
    private static final byte MAP = 6;

    private DaemonProtocol() {
    }

    public static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    public static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_STRING) {
            throw new IOException("bad string length " + n);
        }
        return new String(in.readNBytes(n), StandardCharsets.UTF_8);
    }

    /**
     * Writes a plain value; lists and maps nest as deep as the query result's values do (Cypher values, not heap
     * depth: a path is a flat list of element ids).
     */
    public static void writeValue(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof String s) {
            out.writeByte(STRING);
            writeString(out, s);
        } else if (v instanceof Long l) {
            out.writeByte(LONG);
            out.writeLong(l);
        } else if (v instanceof Double d) {
            out.writeByte(DOUBLE);
            out.writeDouble(d);
        } else if (v instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof List<?> list) {
            out.writeByte(LIST);
            out.writeInt(list.size());
            for (Object o : list) {
                writeValue(out, o);
            }
        } else if (v instanceof Map<?, ?> map) {
            out.writeByte(MAP);
            out.writeInt(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                writeString(out, String.valueOf(e.getKey()));
                writeValue(out, e.getValue());
            }
        } else if (v instanceof Number n) {
            out.writeByte(LONG);
            out.writeLong(n.longValue());
        } else {
            out.writeByte(STRING);
            writeString(out, v.toString());
        }
    }

    public static Object readValue(DataInputStream in) throws IOException {
        byte tag = in.readByte();
        switch (tag) {
            case NULL:
                return null;
            case STRING:
                return readString(in);
            case LONG:
                return in.readLong();
            case DOUBLE:
                return in.readDouble();
            case BOOLEAN:
                return in.readBoolean();
            case LIST: {
                int n = count(in);
                List<Object> list = new ArrayList<>(Math.min(n, 1 << 16));
                for (int i = 0; i < n; i++) {
                    list.add(readValue(in));
                }
                return list;
            }
            case MAP: {
                int n = count(in);
                Map<String, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    String k = readString(in);
                    map.put(k, readValue(in));
                }
                return map;
            }
            default:
                throw new IOException("bad value tag " + tag);
        }
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("bad count " + n);
        }
        return n;
    }

    public static void writeResult(DataOutputStream out, QueryResult r) throws IOException {
        out.writeByte(RESULT);
        writeValue(out, r.columns());
        out.writeInt(r.rows().size());
        for (List<Object> row : r.rows()) {
            writeValue(out, row);
        }
        out.writeBoolean(r.truncated());
    }

    @SuppressWarnings("unchecked")
    public static QueryResult readResult(DataInputStream in) throws IOException {
        List<String> columns = (List<String>) readValue(in);
        int n = count(in);
        List<List<Object>> rows = new ArrayList<>(Math.min(n, 1 << 16));
        for (int i = 0; i < n; i++) {
            rows.add((List<Object>) readValue(in));
        }
        return new QueryResult(List.copyOf(columns), rows, in.readBoolean());
    }
}
