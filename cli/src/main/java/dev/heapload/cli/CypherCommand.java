package dev.heapload.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.heapload.queries.QueryParameter;
import dev.heapload.queries.SavedQuery;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload cypher 'MATCH …' [-p key=value]... [--format table|csv|json] [--csv-raw] [--limit N] [--db DIR]}:
 * runs one ad-hoc Cypher statement (or {@code -}: the statement from standard input) on the store with the rules of
 * {@code heapload query} ({@link QueryOptions}): read-only (a write is refused, exit 1, nothing changed), no
 * {@code LOAD CSV} from files or URLs, the transaction timeout with its watchdog and the memory limit, the same output
 * formats. {@code -p} values are typed by their text: an integer ({@code -?[0-9]+}) as an integer, {@code true} and
 * {@code false} as booleans, anything else as a string; the statement refers to them as {@code $key}.
 */
@Command(name = "cypher", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs one ad-hoc read-only Cypher statement on the store (graph schema: docs/reference/schema.md).",
        "Example: heapload cypher 'MATCH (o:Object {snapshot: $s}) RETURN o.type AS type, count(*) AS n' -p s=after"})
final class CypherCommand implements Callable<Integer> {

    /** The name the ad-hoc query has in messages ("query 'ad-hoc' would change the graph …"). */
    static final String NAME = "ad-hoc";

    @Parameters(index = "0", paramLabel = "CYPHER",
        description = "The Cypher statement ('-': read it from standard input).")
    String statement;

    @CommandLine.Mixin
    QueryOptions options = new QueryOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        options.runAndPrint(adHoc(spec.commandLine(), statement, options.params));
        return 0;
    }

    /**
     * The ad-hoc query for {@code statement} ({@code -}: standard input), declaring one parameter per
     * {@code -p} key, typed by its value as the class comment says.
     *
     * @throws CommandLine.ParameterException when the statement is empty (usage error)
     */
    static SavedQuery adHoc(CommandLine commandLine, String statement, Map<String, String> params) throws IOException {
        String text = "-".equals(statement) ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8) : statement;
        if (text.isBlank()) {
            throw new CommandLine.ParameterException(commandLine, "the Cypher statement is empty");
        }
        List<QueryParameter> declared = new ArrayList<>();
        for (Map.Entry<String, String> p : params.entrySet()) {
            String value = p.getValue();
            QueryParameter.Type type = value.matches("-?[0-9]{1,18}") ? QueryParameter.Type.INTEGER
                : value.equals("true") || value.equals("false") ? QueryParameter.Type.BOOLEAN
                : QueryParameter.Type.STRING;
            declared.add(new QueryParameter(p.getKey(), type, null));
        }
        return new SavedQuery(NAME, "ad-hoc Cypher", List.copyOf(declared), List.of(), text, "the command line");
    }
}
