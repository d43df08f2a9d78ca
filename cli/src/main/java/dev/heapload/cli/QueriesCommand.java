package dev.heapload.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import dev.heapload.queries.QueryLibrary;
import dev.heapload.queries.QueryParameter;
import dev.heapload.queries.SavedQuery;
import picocli.CommandLine.Command;

/** {@code heapload queries}: lists the saved queries with their parameters and columns. */
@Command(name = "queries", mixinStandardHelpOptions = true,
    description = "Lists the saved queries (the cypher/ folder packaged with heapload): name, description, parameters, columns.")
final class QueriesCommand implements Callable<Integer> {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintStream out = Streams.out(spec);
        for (SavedQuery q : QueryLibrary.builtIn().queries()) {
            out.println(q.name());
            out.println("    " + q.description());
            List<String> params = new ArrayList<>();
            for (QueryParameter p : q.parameters()) {
                params.add(p.toString());
            }
            out.println("    parameters: " + (params.isEmpty() ? "none" : String.join(", ", params)));
            out.println("    columns:    " + String.join(", ", q.columns()));
        }
        return 0;
    }
}
