package dev.heapload.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link SafeText} and its use in {@link ResultWriter}'s table and CSV. */
class SafeTextTest {

    static final String NASTY = "\u001b[2J\u001b]0;pwned\u0007a\rb\nc\td\u202eE\\f\u0085\u007f\u200f\u2066";

    @Test
    void invisibleFormatCharactersAreShownSoTwoIdsNeverLookAlike() {
        assertEquals("a\\u200bb", SafeText.visible("a\u200bb"));
        assertEquals("\\ufeffx\\u2060y\\u2064", SafeText.visible("\ufeffx\u2060y\u2064"));
        // joiners inside emoji and scripts that need them stay (U+200C, U+200D)
        assertEquals("\ud83d\udc68\u200d\ud83d\udc67 \u0645\u200c\u06cc", SafeText.visible("\ud83d\udc68\u200d\ud83d\udc67 \u0645\u200c\u06cc"));
    }

    @Test
    void visibleEscapesControlBidiAndBackslash() {
        assertEquals("\\x1b[2J\\x1b]0;pwned\\x07a\\rb\\nc\\td\\u202eE\\\\f\\x85\\x7f\\u200f\\u2066",
            SafeText.visible(NASTY));
        assertEquals("Größe→Breite 😀", SafeText.visible("Größe→Breite 😀"));
        assertEquals("x\\ud800y", SafeText.visible("x\ud800y"));
        assertEquals("", SafeText.visible(null));
        assertEquals("a\n\\rb", SafeText.visibleLines("a\n\rb"));
    }

    @Test
    void csvCellsNeutraliseFormulaStarts() {
        assertEquals("'=cmd()", SafeText.csvCell("=cmd()", false));
        assertEquals("'@SUM(1)", SafeText.csvCell("@SUM(1)", false));
        assertEquals("'+1", SafeText.csvCell("+1", false));
        assertEquals("'-1", SafeText.csvCell("-1", false));
        assertEquals("\\tx", SafeText.csvCell("\tx", false));
        assertEquals("=cmd()", SafeText.csvCell("=cmd()", true));
        assertEquals("\tx", SafeText.csvCell("\tx", true));
        assertEquals("'\tx", SafeText.formulaSafe("\tx"));
    }

    @Test
    void xmlAndMarkdown() {
        assertEquals("&lt;b&gt;\\x1b&amp;\\u202e\n\\x00", SafeText.xml("<b>\u001b&\u202e\n\u0000", true));
        assertEquals("\\n\\r\\t", SafeText.xml("\n\r\t", false));
        assertEquals("a\\|b \\\\x1b \\\\\\\\", SafeText.markdown("a|b \u001b \\"));
    }

    @Test
    void resultWriterTableAndCsv() throws Exception {
        QueryResult r = new QueryResult(List.of("name", "delta", "path"), List.of(
            Arrays.asList("=cmd()", -123L, List.of("@SUM(1)", "x\u001b[2Jy")),
            Arrays.asList("a\rb\u202e", 5L, null)), false);
        assertEquals("name,delta,path\n\"'=cmd()\",-123,\"'@SUM(1)\nx\\x1b[2Jy\"\na\\rb\\u202e,5,\n",
            ResultWriter.csv(r));
        assertEquals("name,delta,path\n=cmd(),-123,\"@SUM(1)\nx\u001b[2Jy\"\n\"a\rb\u202e\",5,\n",
            ResultWriter.csv(r, true));
        // a CSV reader (Commons CSV, RFC 4180) reads back the safe cell texts, line breaks inside cells included
        List<org.apache.commons.csv.CSVRecord> back = org.apache.commons.csv.CSVFormat.RFC4180.parse(
            new java.io.StringReader(ResultWriter.csv(r))).getRecords();
        assertEquals(List.of("name", "delta", "path"), back.get(0).toList());
        assertEquals(List.of("'=cmd()", "-123", "'@SUM(1)\nx\\x1b[2Jy"), back.get(1).toList());
        assertEquals(List.of("a\\rb\\u202e", "5", ""), back.get(2).toList());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ResultWriter.write(r, ResultWriter.Format.TABLE, out);
        assertEquals("""
             name       | delta | path
            ------------+-------+-----------
             =cmd()     |  -123 | @SUM(1)
                        |       | x\\x1b[2Jy
             a\\rb\\u202e |     5 |
            (2 rows)
            """, out.toString(StandardCharsets.UTF_8));
    }
}
