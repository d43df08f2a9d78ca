package dev.heapload.queries;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.QuoteMode;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * Writes a {@link QueryResult} as an aligned text table, CSV (RFC 4180) or JSON.
 *
 * <ul>
 *   <li>table ({@link TextTable}): a header row, a rule, then the rows, columns separated by {@code |}; numbers
 *       right-aligned; a list value puts one element per line inside its cell; {@code null} is empty; strings in
 *       their {@link SafeText#visible} form (no control or bidi character reaches the terminal), wide characters
 *       taking two columns.</li>
 *   <li>csv (written by Apache Commons CSV): header row, then rows; CRLF-free ({@code \n}), fields quoted when
 *       they hold a comma, quote or line break ({@link SafeText#csvNeedsQuotes}); a list value is its elements
 *       joined by {@code \n}; {@code null} is empty. String cells are made safe
 *       by {@link SafeText#csvCell} (control characters visible; a cell starting with {@code = + - @} gets a leading
 *       {@code '} and is quoted) unless written raw ({@code --csv-raw}); numbers and booleans are written as they
 *       are.</li>
 *   <li>json: an array of objects, one per row, keys in column order, lists as arrays, {@code null} as null; strings
 *       exact (Jackson escapes control characters).</li>
 * </ul>
 */
public final class ResultWriter {

    /** Output formats. */
    public enum Format {
        TABLE, CSV, JSON;

        /**
         * The format named {@code text} (case-insensitive).
         *
         * @throws IllegalArgumentException with a one-line message for other names
         */
        public static Format of(String text) {
            try {
                return valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--format must be table, csv or json, not '" + text + "'");
            }
        }
    }

    /** A cell written as it is (it holds no comma, quote or line break), rows ended by LF. */
    private static final CSVFormat CSV_PLAIN = CSVFormat.RFC4180.builder().setQuote(null).setRecordSeparator("\n").get();

    /** A cell in double quotes, inner quotes doubled (RFC 4180). */
    private static final CSVFormat CSV_QUOTED = CSVFormat.RFC4180.builder().setQuoteMode(QuoteMode.ALL)
        .setRecordSeparator("\n").get();

    private ResultWriter() {
    }

    /**
     * Writes {@code result} to {@code out} in {@code format} (UTF-8).
     *
     * @throws IOException when writing fails
     */
    public static void write(QueryResult result, Format format, OutputStream out) throws IOException {
        write(result, format, false, out);
    }

    /**
     * Writes {@code result} to {@code out} in {@code format} (UTF-8); with {@code csvRaw} CSV string cells are
     * written exactly (no {@link SafeText} escapes or formula prefix; the {@code --csv-raw} option). Other formats
     * ignore {@code csvRaw}.
     *
     * @throws IOException when writing fails
     */
    public static void write(QueryResult result, Format format, boolean csvRaw, OutputStream out) throws IOException {
        switch (format) {
            case TABLE -> writeTable(result, out);
            case CSV -> writeCsv(result, csvRaw, out);
            case JSON -> writeJson(result, out);
            default -> throw new IllegalStateException();
        }
    }

    /** The CSV text of {@code result} (see the class comment), string cells made safe. */
    public static String csv(QueryResult result) {
        return csv(result, false);
    }

    /** The CSV text of {@code result}; {@code raw}: string cells exactly as they are ({@code --csv-raw}). */
    public static String csv(QueryResult result, boolean raw) {
        StringBuilder b = new StringBuilder();
        appendCsvRow(b, new ArrayList<>(result.columns()), raw);
        for (List<Object> row : result.rows()) {
            appendCsvRow(b, row, raw);
        }
        return b.toString();
    }

    private static void appendCsvRow(StringBuilder b, List<?> row, boolean raw) {
        try {
            for (int i = 0; i < row.size(); i++) {
                Object v = row.get(i);
                String f = text(v, "\n", raw);
                if (!raw && v != null && !(v instanceof Number || v instanceof Boolean)) {
                    f = SafeText.formulaSafe(f);
                }
                // the quoting decision is SafeText's (RFC 4180 plus OWASP's rule); Commons CSV writes the cell
                (SafeText.csvNeedsQuotes(f) ? CSV_QUOTED : CSV_PLAIN).print(f, b, i == 0);
            }
            CSV_PLAIN.println(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringBuilder does not throw
        }
    }

    private static void writeCsv(QueryResult result, boolean raw, OutputStream out) throws IOException {
        out.write(csv(result, raw).getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** The text of a value; strings (list elements, map keys and values) in their visible form unless raw. */
    private static String text(Object v, String listSeparator, boolean raw) {
        if (v == null) {
            return "";
        }
        if (v instanceof List<?> list) {
            List<String> parts = new ArrayList<>();
            for (Object o : list) {
                parts.add(text(o, ", ", raw));
            }
            return String.join(listSeparator, parts);
        }
        if (v instanceof Map<?, ?> m) {
            List<String> parts = new ArrayList<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                parts.add(text(String.valueOf(e.getKey()), ", ", raw) + ": " + text(e.getValue(), ", ", raw));
            }
            return "{" + String.join(", ", parts) + "}";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return raw ? v.toString() : SafeText.visible(v.toString());
    }

    private static void writeTable(QueryResult result, OutputStream out) {
        List<String> cols = result.columns();
        int n = cols.size();
        boolean[] numeric = new boolean[n];
        for (int c = 0; c < n; c++) {
            numeric[c] = !result.rows().isEmpty();
        }
        for (List<Object> row : result.rows()) {
            for (int c = 0; c < n; c++) {
                Object v = row.get(c);
                if (v != null && !(v instanceof Number)) {
                    numeric[c] = false;
                }
            }
        }
        TextTable table = new TextTable();
        for (int c = 0; c < n; c++) {
            table.column(SafeText.visible(cols.get(c)), numeric[c] ? TextTable.Align.RIGHT : TextTable.Align.LEFT);
        }
        for (List<Object> row : result.rows()) {
            String[] cells = new String[n];
            for (int c = 0; c < n; c++) {
                cells[c] = text(row.get(c), "\n", false);
            }
            table.row(cells);
        }
        PrintStream p = new PrintStream(out, false, StandardCharsets.UTF_8);
        p.print(table.render());
        p.println("(" + result.rows().size() + (result.rows().size() == 1 ? " row" : " rows")
            + (result.truncated() ? ", more cut off by --limit" : "") + ")");
        p.flush();
    }

    private static void writeJson(QueryResult result, OutputStream out) throws IOException {
        JsonFactory f = new JsonFactory();
        try (JsonGenerator g = f.createGenerator(new NonClosing(out), JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartArray();
            for (List<Object> row : result.rows()) {
                g.writeStartObject();
                for (int c = 0; c < result.columns().size(); c++) {
                    g.writeFieldName(result.columns().get(c));
                    json(g, row.get(c));
                }
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        out.write('\n');
        out.flush();
    }

    private static void json(JsonGenerator g, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof Double d) {
            g.writeNumber(d);
        } else if (v instanceof Boolean bo) {
            g.writeBoolean(bo);
        } else if (v instanceof List<?> list) {
            g.writeStartArray();
            for (Object o : list) {
                json(g, o);
            }
            g.writeEndArray();
        } else if (v instanceof Map<?, ?> m) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                json(g, e.getValue());
            }
            g.writeEndObject();
        } else {
            g.writeString(v.toString());
        }
    }

    /** Keeps the generator from closing the caller's stream. */
    private static final class NonClosing extends java.io.FilterOutputStream {
        NonClosing(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }
}
