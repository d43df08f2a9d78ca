package dev.heapload.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link TextTable}: the layout, wide characters, cut cells; {@link ResultWriter}'s table through it. */
class TextTableTest {

    @Test
    void headerRuleAndRowsNumbersRightAligned() {
        String t = new TextTable().column("type", TextTable.Align.LEFT).column("n", TextTable.Align.RIGHT)
            .column("bytes", TextTable.Align.RIGHT)
            .row("table", "213", "43456").row("string", "7", "0").render();
        assertEquals("""
             type   |   n | bytes
            --------+-----+-------
             table  | 213 | 43456
             string |   7 |     0
            """, t);
    }

    @Test
    void wideCharactersTakeTwoColumnsAndStayAligned() {
        String t = new TextTable().column("name", TextTable.Align.LEFT).column("n", TextTable.Align.RIGHT)
            .row("漢字", "1").row("😀x", "22").row("e\u0301", "3").row("abcdef", "4").render();
        assertEquals("""
             name   |  n
            --------+----
             漢字   |  1
             😀x    | 22
             e\u0301      |  3
             abcdef |  4
            """, t);
    }

    @Test
    void longLinesAreCutWithAnEllipsisAndLinesBreakInsideACell() {
        String t = new TextTable().column("type", TextTable.Align.LEFT, 8).column("n", TextTable.Align.RIGHT)
            .row("VeryLongTypeNameIndeed", "1").row("a\nbb", null).row("漢字漢字漢字", "2").render();
        assertEquals("""
             type     | n
            ----------+---
             VeryLon… | 1
             a        |
             bb       |
             漢字漢…  | 2
            """, t);
        assertEquals("ab", TextTable.clip("ab", 2));
        assertEquals("a\u2026", TextTable.clip("abc", 2));
        // from 24 columns on, the cut also says the full length (code points)
        assertEquals("abcdefg\u2026 (300,000 chars)", TextTable.clip("abcdefghij".repeat(30_000), 24));
        assertEquals("漢".repeat(6) + "\u2026 (30 chars)", TextTable.clip("漢".repeat(30), 24));
        // a column without a width of its own cuts at CELL_WIDTH
        String cell = new TextTable().column("k", TextTable.Align.LEFT).row("x".repeat(150)).render().split("\n")[2];
        assertEquals(" " + "x".repeat(TextTable.CELL_WIDTH - 13) + "\u2026 (150 chars)", cell);
        assertThrows(IllegalArgumentException.class, () -> new TextTable().column("a", TextTable.Align.LEFT).row("1", "2"));
    }

    @Test
    void queryTableShowsDumpStringsVisibleAndListsOneElementPerLine() throws Exception {
        List<List<Object>> rows = new ArrayList<>();
        rows.add(Arrays.asList("red\u001b[31m", 12L, List.of("a", "b")));
        rows.add(Arrays.asList("名前", null, List.of()));
        QueryResult r = new QueryResult(List.of("name", "bytes", "path"), rows, false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ResultWriter.write(r, ResultWriter.Format.TABLE, out);
        assertEquals("""
             name        | bytes | path
            -------------+-------+------
             red\\x1b[31m |    12 | a
                         |       | b
             名前        |       |
            (2 rows)
            """, out.toString(StandardCharsets.UTF_8));
    }
}
