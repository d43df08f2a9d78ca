package dev.heapload.queries;

import java.util.ArrayList;
import java.util.List;

import org.jline.utils.WCWidth;

import com.github.freva.asciitable.AsciiTable;
import com.github.freva.asciitable.Column;
import com.github.freva.asciitable.HorizontalAlign;
import com.github.freva.asciitable.Styler;

/**
 * A text table for the terminal, laid out by the ascii-table library (com.github.freva:ascii-table): a header row, a
 * rule, then the rows, columns separated by {@code " | "} (psql's look):
 *
 * <pre>
 *  type  |   n | bytes
 * -------+-----+-------
 *  table | 213 | 43456
 * </pre>
 *
 * <p>Cells are shown exactly as given: a dump string must be passed in its {@link SafeText#visible} form (no control
 * or bidi character then reaches the terminal); a {@code \n} in a cell starts a new line inside the cell. Widths are
 * terminal columns, not chars: a CJK character or an emoji takes two ({@link WCWidth}, JLine's {@code wcwidth}), so
 * such text stays aligned. Every line of a cell is at most {@link #CELL_WIDTH} columns, or the column's own maximum
 * width: a longer line is cut, ending in {@code …} and, where the width leaves room, its full length
 * ({@code … (300,000 chars)}), so a 300,000-character string from a dump never floods the terminal. Only the text
 * tables cut: CSV and JSON outputs keep the full values. Lines carry no trailing blanks and end with {@code \n}.
 */
public final class TextTable {

    /** How a column's cells sit in it. */
    public enum Align {
        LEFT, RIGHT
    }

    /** The most terminal columns a line of a cell takes in a column without a maximum width of its own. */
    public static final int CELL_WIDTH = 100;

    /** The narrowest cut that also says the full length; narrower cuts end in {@code …} alone. */
    private static final int LENGTH_MARKER_MIN_WIDTH = 24;

    private final List<String> headers = new ArrayList<>();
    private final List<Align> aligns = new ArrayList<>();
    private final List<Integer> maxWidths = new ArrayList<>();
    private final List<String[]> rows = new ArrayList<>();

    /** An empty table; add columns with {@link #column}, then rows. */
    public TextTable() {
    }

    /**
     * Adds a column.
     *
     * @param header   its header (display text, see the class comment)
     * @param align    where its cells (and its header) sit
     * @param maxWidth at most this many terminal columns per line of a cell (longer lines cut, see
     *                 {@link #clip}); 0 for {@link #CELL_WIDTH}
     * @return this table
     */
    public TextTable column(String header, Align align, int maxWidth) {
        if (!rows.isEmpty()) {
            throw new IllegalStateException("columns come before rows");
        }
        headers.add(header);
        aligns.add(align);
        maxWidths.add(maxWidth);
        return this;
    }

    /** Adds a column whose cells are cut at {@link #CELL_WIDTH} columns. */
    public TextTable column(String header, Align align) {
        return column(header, align, 0);
    }

    /**
     * Adds a row, one cell per column ({@code null} shows empty).
     *
     * @throws IllegalArgumentException when the number of cells is not the number of columns
     */
    public TextTable row(String... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.size() + " columns");
        }
        String[] r = new String[cells.length];
        for (int c = 0; c < cells.length; c++) {
            r[c] = clipLines(cells[c] == null ? "" : cells[c], maxWidths.get(c));
        }
        rows.add(r);
        return this;
    }

    /** The table's text: header, rule, rows; each line ends with {@code \n}. */
    public String render() {
        int n = headers.size();
        Column[] columns = new Column[n];
        for (int c = 0; c < n; c++) {
            String header = clipLines(headers.get(c), maxWidths.get(c));
            int width = maxLineWidth(header);
            for (String[] r : rows) {
                width = Math.max(width, maxLineWidth(r[c]));
            }
            HorizontalAlign a = aligns.get(c) == Align.RIGHT ? HorizontalAlign.RIGHT : HorizontalAlign.LEFT;
            // the library counts chars; a minimum of the widest line's terminal width (plus its padding of one
            // blank each side) leaves room to take the extra columns of wide characters out of the fill (Styler)
            columns[c] = new Column().header(header).headerAlign(a).dataAlign(a).minWidth(width + 2);
        }
        Object[][] data = rows.toArray(new Object[0][]);
        String text = AsciiTable.builder()
            .border(AsciiTable.BASIC_ASCII_NO_DATA_SEPARATORS_NO_OUTSIDE_BORDER)
            .lineSeparator("\n")
            .data(columns, data)
            .styler(new WideCharacters(aligns))
            .asString();
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (String line : text.split("\n", -1)) {
            out.append(line.stripTrailing()).append('\n');
        }
        return out.toString();
    }

    /**
     * The terminal width of {@code s}: the sum of {@link WCWidth#wcwidth} over its code points (2 for CJK and
     * emoji, 0 for combining marks); a code point {@code wcwidth} has no width for (a control character) counts 1.
     */
    public static int width(String s) {
        int w = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int cw = WCWidth.wcwidth(cp);
            w += cw < 0 ? 1 : cw;
            i += Character.charCount(cp);
        }
        return w;
    }

    /**
     * {@code s} cut to at most {@code max} terminal columns when it is wider: its start, then {@code …}, then (when
     * {@code max} is at least 24) its full length in characters (code points), e.g. {@code name… (300,000 chars)};
     * {@code s} when it fits or {@code max} is 0.
     */
    public static String clip(String s, int max) {
        if (max <= 0 || width(s) <= max) {
            return s;
        }
        String marker = "\u2026";
        if (max >= LENGTH_MARKER_MIN_WIDTH) {
            marker += String.format(java.util.Locale.ROOT, " (%,d chars)", s.codePointCount(0, s.length()));
        }
        int room = max - width(marker);
        StringBuilder b = new StringBuilder();
        int w = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int cw = Math.max(0, WCWidth.wcwidth(cp));
            if (w + cw > room) {
                break;
            }
            b.appendCodePoint(cp);
            w += cw;
            i += Character.charCount(cp);
        }
        return b.append(marker).toString();
    }

    private static String clipLines(String s, int max) {
        if (max <= 0) {
            max = CELL_WIDTH;
        }
        if (s.indexOf('\n') < 0) {
            return clip(s, max);
        }
        String[] lines = s.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            lines[i] = clip(lines[i], max);
        }
        return String.join("\n", lines);
    }

    private static int maxLineWidth(String s) {
        int max = 0;
        for (String line : s.split("\n", -1)) {
            max = Math.max(max, width(line));
        }
        return max;
    }

    /**
     * Takes the extra terminal columns of wide characters out of each padded line's fill (from its end in a
     * left-aligned column, from its start in a right-aligned one); adds fill for characters of no width.
     */
    private record WideCharacters(List<Align> aligns) implements Styler {

        @Override
        public List<String> styleCell(Column column, int row, int col, List<String> lines) {
            return narrowed(col, lines);
        }

        @Override
        public List<String> styleHeader(Column column, int col, List<String> lines) {
            return narrowed(col, lines);
        }

        private List<String> narrowed(int col, List<String> lines) {
            List<String> out = new ArrayList<>(lines.size());
            for (String line : lines) {
                int extra = width(line) - line.length();
                if (extra == 0) {
                    out.add(line);
                } else if (extra < 0) {
                    // combining marks take no column: more fill
                    String fill = " ".repeat(-extra);
                    out.add(aligns.get(col) == Align.RIGHT ? fill + line : line + fill);
                } else if (aligns.get(col) == Align.RIGHT) {
                    // " " + fill + text + " ": drop fill after the first blank
                    out.add(line.charAt(0) + line.substring(1 + extra));
                } else {
                    // " " + text + fill + " ": drop fill before the last blank
                    out.add(line.substring(0, line.length() - 1 - extra) + line.charAt(line.length() - 1));
                }
            }
            return out;
        }
    }
}
