package dev.heapload.queries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Header parsing, parameter typing, the packaged library and the output formats, without a database. */
class SavedQueryTest {

    static final String HEADER = """
        // name: demo
        // description: A demo query.
        // a free comment
        // param: snapshot string
        // param: top integer = 20
        // param: weak boolean = false
        // param: note string =
        // columns: a, b
        MATCH (o) RETURN 1 AS a, 2 AS b
        """;

    @Test
    void parsesTheHeader() throws Exception {
        SavedQuery q = SavedQuery.parse(HEADER, "demo.cypher");
        assertEquals("demo", q.name());
        assertEquals("A demo query.", q.description());
        assertEquals(List.of("a", "b"), q.columns());
        assertEquals(List.of(new QueryParameter("snapshot", QueryParameter.Type.STRING, null),
            new QueryParameter("top", QueryParameter.Type.INTEGER, 20L),
            new QueryParameter("weak", QueryParameter.Type.BOOLEAN, false),
            new QueryParameter("note", QueryParameter.Type.STRING, "")), q.parameters());
        assertEquals(HEADER, q.text());
    }

    @Test
    void badHeadersAreOneLineErrorsNamingTheFile() {
        Map<String, String> bad = Map.of(
            "// description: d\n// columns: a\nRETURN 1 AS a", "header has no '// name:' line",
            "// name: x\n// columns: a\nRETURN 1 AS a", "header has no '// description:' line",
            "// name: x\n// description: d\nRETURN 1 AS a", "header has no '// columns:' line",
            "// name: x\n// description: d\n// param: n float\n// columns: a\nRETURN 1", "unknown type 'float'",
            "// name: x\n// description: d\n// param: n integer = ten\n// columns: a\nRETURN 1", "must be an integer",
            "// name: x\n// description: d\n// param: n string\n// param: n string\n// columns: a\nRETURN 1", "declared twice",
            "// name: x y\n// description: d\n// columns: a\nRETURN 1", "invalid query name");
        List<String> problems = new ArrayList<>();
        bad.forEach((text, expected) -> {
            QueryFormatException e = assertThrows(QueryFormatException.class, () -> SavedQuery.parse(text, "f.cypher"));
            if (!e.getMessage().startsWith("f.cypher: ") || !e.getMessage().contains(expected) || e.getMessage().contains("\n")) {
                problems.add(e.getMessage());
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void bindTypesValuesAndFillsDefaults() throws Exception {
        SavedQuery q = SavedQuery.parse(HEADER, "demo.cypher");
        assertEquals(Map.of("snapshot", "after", "top", 5L, "weak", true, "note", ""),
            QueryRunner.bind(q, Map.of("snapshot", "after", "top", "5", "weak", "TRUE")));
        assertEquals("query 'demo' needs -p snapshot=STRING (it takes: snapshot string, top integer = 20, "
            + "weak boolean = false, note string = \"\")",
            assertThrows(QueryFailedException.class, () -> QueryRunner.bind(q, Map.of())).getMessage());
        assertEquals("parameter 'top' must be an integer, not 'x'",
            assertThrows(QueryFailedException.class, () -> QueryRunner.bind(q, Map.of("snapshot", "a", "top", "x"))).getMessage());
        assertEquals("parameter 'weak' must be true or false, not 'yes'",
            assertThrows(QueryFailedException.class, () -> QueryRunner.bind(q, Map.of("snapshot", "a", "weak", "yes"))).getMessage());
        assertTrue(assertThrows(QueryFailedException.class, () -> QueryRunner.bind(q, Map.of("snapshot", "a", "limit", "1")))
            .getMessage().startsWith("query 'demo' has no parameter 'limit'"));
    }

    @Test
    void thePackagedLibraryEqualsTheCypherFolder() throws Exception {
        QueryLibrary packaged = QueryLibrary.builtIn();
        QueryLibrary folder = QueryLibrary.fromDirectory(Golden.cypherDir());
        List<String> names = packaged.queries().stream().map(SavedQuery::name).toList();
        assertEquals(List.of("allocation-sites", "categories", "growth", "largest-retainers", "leak-groups", "new-objects", "referrers", "snapshot",
            "summary", "trend", "trend-categories", "type-histogram", "type-histogram-diff", "unreachable", "weak-only",
            "why-alive"), names);
        for (SavedQuery q : folder.queries()) {
            assertEquals(q.text(), packaged.get(q.name()).text(), q.name());
        }
        assertEquals(names, folder.queries().stream().map(SavedQuery::name).toList());
    }

    @Test
    void duplicateNamesAndUnknownQueriesAreRefused(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.cypher"), "// name: same\n// description: d\n// columns: a\nRETURN 1 AS a");
        Files.writeString(dir.resolve("b.cypher"), "// name: same\n// description: d\n// columns: a\nRETURN 2 AS a");
        assertTrue(assertThrows(QueryFormatException.class, () -> QueryLibrary.fromDirectory(dir)).getMessage()
            .contains("query name 'same' is also used by"));
        QueryLibrary lib = QueryLibrary.builtIn();
        assertEquals("no saved query 'nope' (heapload queries lists them; a path to a .cypher file also works)",
            assertThrows(QueryFailedException.class, () -> lib.resolve("nope")).getMessage());
        assertEquals("same", lib.resolve(dir.resolve("a.cypher").toString()).name());
    }

    @Test
    void formats() throws Exception {
        QueryResult r = new QueryResult(List.of("name", "n", "path"),
            List.of(List.of("a,b", 12L, List.of("root", "x")), java.util.Arrays.asList("say \"hi\"", null, List.of())), false);
        assertEquals("name,n,path\n\"a,b\",12,\"root\nx\"\n\"say \"\"hi\"\"\",,\n", ResultWriter.csv(r));
        var json = new java.io.ByteArrayOutputStream();
        ResultWriter.write(r, ResultWriter.Format.JSON, json);
        assertEquals("[ {\n  \"name\" : \"a,b\",\n  \"n\" : 12,\n  \"path\" : [ \"root\", \"x\" ]\n}, {\n"
            + "  \"name\" : \"say \\\"hi\\\"\",\n  \"n\" : null,\n  \"path\" : [ ]\n} ]\n", json.toString(java.nio.charset.StandardCharsets.UTF_8));
        var table = new java.io.ByteArrayOutputStream();
        ResultWriter.write(r, ResultWriter.Format.TABLE, table);
        assertEquals("""
             name     |  n | path
            ----------+----+------
             a,b      | 12 | root
                      |    | x
             say "hi" |    |
            (2 rows)
            """, table.toString(java.nio.charset.StandardCharsets.UTF_8));
    }
}
