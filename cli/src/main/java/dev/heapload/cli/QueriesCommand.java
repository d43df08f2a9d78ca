package dev.heapload.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import dev.heapload.explore.ClassHistogramQuery;
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
        boolean classes = false;
        for (SavedQuery q : QueryLibrary.builtIn().queries()) {
            if (!classes && q.name().compareTo(ClassHistogramQuery.NAME) > 0) {
                classHistogram(out);
                classes = true;
            }
            out.println(q.name());
            out.println("    " + q.description());
            List<String> params = new ArrayList<>();
            for (QueryParameter p : q.parameters()) {
                params.add(p.toString());
            }
            out.println("    parameters: " + (params.isEmpty() ? "none" : String.join(", ", params)));
            out.println("    columns:    " + String.join(", ", q.columns()));
        }
        if (!classes) {
            classHistogram(out);
        }
        return 0;
    }

    /** The entry of the built-in {@code class-histogram}, computed from the stored models (no Cypher file). */
    private static void classHistogram(PrintStream out) {
        out.println(ClassHistogramQuery.NAME);
        out.println("    Objects, shallow and retained bytes per class (Lua/Luau metatable, Luau userdata tag, LuaJIT cdata "
            + "ctype, MicroPython class); with a baseline, each class's change. Computed from the stored models.");
        out.println("    parameters: snapshot string, baseline string = \"\"");
        out.println("    columns:    " + String.join(", ", ClassHistogramQuery.COLUMNS));
        out.println("    with a baseline: " + String.join(", ", ClassHistogramQuery.DIFF_COLUMNS));
    }
}
