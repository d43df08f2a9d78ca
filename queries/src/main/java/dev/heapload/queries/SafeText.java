package dev.heapload.queries;

/**
 * The one place that makes strings from dumps safe to show: on a terminal, in text and CSV files, in Markdown and in
 * XML/HTML/SVG. A dump is untrusted input; its category names, table keys, function names and labels may hold escape
 * sequences that drive a terminal (ESC {@code [2J} clears the screen, OSC {@code ]0;…BEL} sets the window title), a
 * CR that overwrites what was printed, bidi controls that reorder what is shown (U+202E), or text that a spreadsheet
 * runs as a formula ({@code =cmd()}, {@code @SUM(1)}).
 *
 * <p><b>Visible form</b> ({@link #visible}), used for every terminal and text output:
 * <ul>
 *   <li>a backslash is doubled ({@code \\}), so an escape below is never confused with the same characters in a
 *       name;</li>
 *   <li>TAB, LF, CR become {@code \t}, {@code \n}, {@code \r};</li>
 *   <li>the other C0 controls (U+0000–U+001F), DEL (U+007F) and the C1 controls (U+0080–U+009F) become
 *       {@code \xNN} (two lower-case hex digits: ESC is {@code \x1b});</li>
 *   <li>the bidi controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, the line and paragraph separators
 *       U+2028/U+2029, the invisible format characters U+200B (zero width space), U+2060–U+2064 (word joiner,
 *       invisible operators) and U+FEFF (zero width no-break space), which would make {@code a}U+200B{@code b} look
 *       like {@code ab}, and unpaired surrogates become <code>&#92;uNNNN</code> (four lower-case hex digits: <code>&#92;u202e</code>);</li>
 *   <li>everything else, non-ASCII letters included, is kept.</li>
 * </ul>
 * JSON output does not use this class: a JSON writer escapes control characters itself and the values stay exact.
 *
 * <p><b>CSV cells</b> ({@link #csvCell}): the visible form, and a cell that then starts with {@code =}, {@code +},
 * {@code -}, {@code @}, TAB or CR gets a leading single quote (OWASP's CSV-injection rule: a spreadsheet shows the
 * text instead of evaluating it); the caller quotes such a cell. Only string cells: numbers are written as numbers.
 * With {@code raw} (the {@code --csv-raw} option) the string is kept exactly.
 *
 * <p>Source of the formula rule: OWASP, "CSV Injection" (owasp.org/www-community/attacks/CSV_Injection).
 */
public final class SafeText {

    private SafeText() {
    }

    /**
     * The visible form of {@code s} (see the class comment); {@code null} gives {@code ""}.
     *
     * @param s any string, e.g. a name read from a dump
     * @return a string with no control, bidi or separator character and no unpaired surrogate
     */
    public static String visible(String s) {
        if (s == null) {
            return "";
        }
        if (clean(s)) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
                continue;
            }
            appendVisible(b, c);
        }
        return b.toString();
    }

    /**
     * {@link #visible} applied to each line of a multi-line text: the LF between lines are kept, everything else
     * (a CR included) is made visible. For texts such as a printed heap map.
     */
    public static String visibleLines(String s) {
        if (s == null) {
            return "";
        }
        String[] lines = s.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            lines[i] = visible(lines[i]);
        }
        return String.join("\n", lines);
    }

    /**
     * The text of one CSV cell holding the string {@code s}, before RFC 4180 quoting: {@link #visible} and the OWASP
     * formula prefix, or {@code s} unchanged when {@code raw}.
     *
     * @param s a string value (not a number); {@code null} gives {@code ""}
     * @param raw true for {@code --csv-raw}: no escapes, no prefix
     * @return the cell text; the caller must quote it when {@link #csvNeedsQuotes} says so
     */
    public static String csvCell(String s, boolean raw) {
        if (s == null) {
            return "";
        }
        if (raw) {
            return s;
        }
        return formulaSafe(visible(s));
    }

    /**
     * OWASP's CSV-injection rule on a cell text that is already visible: a single quote before a leading
     * {@code = + - @}, TAB or CR, else {@code cell} unchanged. For string cells only (a number such as {@code -123}
     * stays a number).
     */
    public static String formulaSafe(String cell) {
        return startsLikeFormula(cell) ? "'" + cell : cell;
    }

    /**
     * Whether a CSV cell must be quoted: it holds a comma, a quote or a line break (RFC 4180), or it was neutralised
     * by {@link #csvCell} (starts with the single quote added before {@code = + - @}, so spreadsheets that drop the
     * quote on import still see a text cell).
     */
    public static boolean csvNeedsQuotes(String cell) {
        return cell.indexOf(',') >= 0 || cell.indexOf('"') >= 0 || cell.indexOf('\n') >= 0 || cell.indexOf('\r') >= 0
            || cell.length() > 1 && cell.charAt(0) == '\'' && startsLikeFormula(cell.substring(1));
    }

    /** Whether {@code s} starts with a character a spreadsheet reads as the start of a formula (OWASP). */
    static boolean startsLikeFormula(String s) {
        if (s.isEmpty()) {
            return false;
        }
        char c = s.charAt(0);
        return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
    }

    /**
     * {@code s} for XML 1.0, HTML and SVG text and attribute values: {@code & < > " '} as entities, control, bidi and
     * separator characters visible as in {@link #visible} (XML 1.0 forbids most C0 controls outright). TAB, LF and
     * CR are kept when {@code keepLineBreaks} (they are legal there and callers use LF between lines), else made
     * visible too. A backslash stays single here: these outputs are not read on a terminal.
     *
     * @param s any string; {@code null} gives {@code ""}
     */
    public static String xml(String s, boolean keepLineBreaks) {
        return markup(s, keepLineBreaks, true);
    }

    /**
     * {@code s} for an XML writer that escapes {@code & < > "} itself (StAX's {@code XMLStreamWriter}): the same
     * visible form as {@link #xml} (control, bidi and separator characters visible; TAB, LF, CR kept when
     * {@code keepLineBreaks}; U+FFFE and U+FFFF replaced) but without entities, so that the text is legal XML 1.0
     * character data once the writer has escaped it.
     *
     * @param s any string; {@code null} gives {@code ""}
     */
    public static String xmlText(String s, boolean keepLineBreaks) {
        return markup(s, keepLineBreaks, false);
    }

    private static String markup(String s, boolean keepLineBreaks, boolean entities) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!entities && (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'')) {
                b.append(c);
                continue;
            }
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                case '\\' -> b.append('\\');
                case '\t', '\n', '\r' -> {
                    if (keepLineBreaks) {
                        b.append(c);
                    } else {
                        appendVisible(b, c);
                    }
                }
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if (c == 0xFFFE || c == 0xFFFF) {
                        b.append('\uFFFD');
                    } else {
                        appendVisible(b, c);
                    }
                }
            }
        }
        return b.toString();
    }

    /**
     * {@code s} for Markdown running text and table cells: {@link #visible}, then every Markdown punctuation
     * character backslash-escaped (the table pipe {@code |} included) and {@code < > &} as HTML entities.
     */
    public static String markdown(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : visible(s).toCharArray()) {
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                default -> {
                    if ("\\`*_{}[]()#+-.!|~\"'".indexOf(c) >= 0) {
                        b.append('\\');
                    }
                    b.append(c);
                }
            }
        }
        return b.toString();
    }

    private static boolean clean(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (special(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Characters {@link #visible} rewrites (surrogates are checked for pairing by the caller). */
    private static boolean special(char c) {
        return c < 0x20 || c == '\\' || (c >= 0x7f && c <= 0x9f) || bidiOrSeparator(c) || Character.isSurrogate(c);
    }

    private static boolean bidiOrSeparator(char c) {
        return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069)
            || c == 0x2028 || c == 0x2029 || c == 0x200B || (c >= 0x2060 && c <= 0x2064) || c == 0xFEFF;
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static void appendVisible(StringBuilder b, char c) {
        switch (c) {
            case '\\' -> b.append("\\\\");
            case '\t' -> b.append("\\t");
            case '\n' -> b.append("\\n");
            case '\r' -> b.append("\\r");
            default -> {
                if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
                    b.append("\\x").append(HEX[c >> 4]).append(HEX[c & 15]);
                } else if (bidiOrSeparator(c) || Character.isSurrogate(c)) {
                    b.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 15]).append(HEX[(c >> 4) & 15])
                        .append(HEX[c & 15]);
                } else {
                    b.append(c);
                }
            }
        }
    }
}
