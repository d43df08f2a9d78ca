package dev.heapload.cli;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;

import dev.heapload.explore.ModelQueries;
import dev.heapload.explore.ClassHistogramQuery;
import dev.heapload.explore.PathsQuery;
import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.SavedQuery;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code heapload query NAME|FILE.cypher [-p key=value]... [--format table|csv|json] [--csv-raw] [--limit N] [--db DIR]}: runs
 * one saved query on the store, read-only, with its parameters passed as Cypher parameters (typed per the query's
 * header); {@code query -e 'MATCH …'} runs ad-hoc Cypher instead, as {@code heapload cypher} does. Exit 1 with one
 * line on stderr when the store or the snapshot is wrong, or when the query hits the transaction timeout or memory
 * limit; exit 2 on usage errors, an unknown query name or a wrong parameter included (naming the closest ones).
 * While {@code heapload serve} holds the store, the query runs over its Bolt port ({@link ServedStore}); while
 * another query holds it, this one waits for it (one line on stderr) and then runs
 * ({@link dev.heapload.store.embedded.GraphStore#openWaiting}); a load holding it is one line, exit 1.
 * Table and CSV show dump strings in their {@link dev.heapload.queries.SafeText} form (CSV formula cells
 * neutralised) unless {@code --csv-raw}.
 */
@Command(name = "query", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Runs a saved query (see: heapload queries) or any .cypher file with a saved-query header; "
        + "with -e, ad-hoc read-only Cypher (as: heapload cypher).",
        "Example: heapload query new-objects -p baseline=before -p target=after"})
final class QueryCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", completionCandidates = SavedQueryNames.class,
        description = "Saved query name, or a path to a .cypher file.")
    String name;

    @Option(names = {"-e", "--execute"}, paramLabel = "CYPHER",
        description = "Run this Cypher statement instead of a saved query ('-': read it from standard input).")
    String statement;

    @CommandLine.Mixin
    QueryOptions options = new QueryOptions();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if ((name == null) == (statement == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                "give a saved query NAME (heapload queries lists them), a .cypher file, or -e CYPHER");
        }
        if (statement == null && ModelQueries.answers(name) && !options.store.bolt.remote()) {
            // the embedded store answers these from its stored models, without Neo4j
            options.runFromModelsAndPrint(resolve(spec.commandLine(), name));
            return 0;
        }
        if (statement == null && PathsQuery.NAME.equals(name)) {
            options.runPathsAndPrint();
            return 0;
        }
        if (statement == null && ClassHistogramQuery.NAME.equals(name)) {
            options.runClassHistogramAndPrint();
            return 0;
        }
        SavedQuery query = statement != null
            ? CypherCommand.adHoc(spec.commandLine(), statement, options.params)
            : resolve(spec.commandLine(), name);
        options.runAndPrint(query);
        return 0;
    }

    /**
     * The saved query {@code name} or the query in the {@code .cypher} file {@code name}; an unknown name is a
     * usage error naming the closest saved queries.
     */
    static SavedQuery resolve(CommandLine commandLine, String name) throws Exception {
        QueryLibrary library = QueryLibrary.builtIn();
        if (!name.endsWith(".cypher") && library.get(name) == null) {
            throw new CommandLine.ParameterException(commandLine, "no saved query '" + name + "'"
                + Suggestions.didYouMean(name, names(library)) + " (heapload queries lists them; a path to a .cypher "
                + "file also works)");
        }
        return library.resolve(name);
    }

    private static List<String> names(QueryLibrary library) {
        List<String> names = new ArrayList<>();
        for (SavedQuery q : library.queries()) {
            names.add(q.name());
        }
        return names;
    }

    /** The saved query names, for shell completion and the usage help. */
    static final class SavedQueryNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            try {
                return names(QueryLibrary.builtIn()).iterator();
            } catch (Exception e) {
                return List.<String>of().iterator();
            }
        }
    }
}
