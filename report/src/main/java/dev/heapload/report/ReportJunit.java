package dev.heapload.report;

import java.util.List;
import java.util.Locale;

import dev.heapload.queries.SafeText;

/**
 * The JUnit XML form of a {@link LeakReport} (the Ant/Surefire format CI servers read): a {@code <testsuites>} with
 * the suite {@code heapload.leak-groups}, one {@code <testcase>} per leak group (a {@code <failure>} when the group
 * alone breaks a failed gate, {@code <skipped>} when it is a known leak, else passed; its retention path in
 * {@code <system-out>}), and the suite {@code heapload.gates}, one test case per {@code --fail-on} gate. All text
 * goes through {@link SafeText#xml}: control and bidi characters, which XML 1.0 mostly forbids, are shown escaped
 * ({@code \x1b}, <code>&#92;u202e</code>); the retention path keeps one line per hop, a line break inside a name shows as
 * {@code \n}.
 */
public final class ReportJunit {

    private ReportJunit() {
    }

    /** The XML document. */
    public static String render(LeakReport r) {
        List<LeakReport.Group> groups = r.groups();
        long failures = groups.stream().filter(g -> !g.brokenGates().isEmpty()).count();
        long skipped = groups.stream().filter(LeakReport.Group::known).count();
        long gateFailures = r.gates().stream().filter(LeakReport.GateResult::failed).count();
        StringBuilder b = new StringBuilder();
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<testsuites name=\"").append(x("heapload report " + r.reportName() + ": " + r.target().id() + " vs "
            + r.baseline().id())).append("\" tests=\"").append(groups.size() + r.gates().size()).append("\" failures=\"")
            .append(failures + gateFailures).append("\" errors=\"0\" skipped=\"").append(skipped).append("\" time=\"0\">\n");
        String suite = "heapload.leak-groups";
        b.append(" <testsuite name=\"").append(suite).append("\" tests=\"").append(groups.size()).append("\" failures=\"")
            .append(failures).append("\" errors=\"0\" skipped=\"").append(skipped).append("\" time=\"0\" timestamp=\"")
            .append(x(r.generatedAt().replaceFirst("Z$", ""))).append("\">\n");
        for (LeakReport.Group g : groups) {
            String summary = String.format(Locale.ROOT, "%,d %s head(s), %,d objects, %,d new bytes, %,d retained bytes",
                g.heads(), g.headType(), g.objects(), g.newBytes(), g.retainedBytes());
            b.append("  <testcase classname=\"").append(suite).append("\" name=\"").append(x("#" + g.rank() + " " + g.name()
                + " [" + g.fingerprint() + "]")).append("\" time=\"0\">\n");
            if (g.known()) {
                b.append("   <skipped message=\"").append(x("known leak (" + g.knownBy() + "): " + summary)).append("\"/>\n");
            } else if (!g.brokenGates().isEmpty()) {
                b.append("   <failure type=\"gate\" message=\"").append(x("breaks " + String.join(", ", g.brokenGates())
                    + ": " + summary)).append("\">").append(lines(g.path())).append("</failure>\n");
            }
            b.append("   <system-out>").append(x(summary + (g.status() == null ? "" : " (" + g.status() + ")"))).append('\n')
                .append(lines(g.path())).append("</system-out>\n");
            b.append("  </testcase>\n");
        }
        b.append(" </testsuite>\n");
        b.append(" <testsuite name=\"heapload.gates\" tests=\"").append(r.gates().size()).append("\" failures=\"")
            .append(gateFailures).append("\" errors=\"0\" skipped=\"0\" time=\"0\">\n");
        for (LeakReport.GateResult g : r.gates()) {
            b.append("  <testcase classname=\"heapload.gates\" name=\"").append(x(g.expression())).append("\" time=\"0\">");
            if (g.failed()) {
                b.append("<failure type=\"gate\" message=\"").append(x(String.format(Locale.ROOT, "%s = %,d", g.metric(),
                    g.actual()))).append("\"/>");
            }
            b.append("</testcase>\n");
        }
        b.append(" </testsuite>\n</testsuites>\n");
        return b.toString();
    }

    /** One line of XML text: no raw line break or control character. */
    private static String x(String s) {
        return SafeText.xml(s, false);
    }

    /** The lines, each escaped by {@link #x}, joined by LF. */
    private static String lines(List<String> lines) {
        return String.join("\n", lines.stream().map(ReportJunit::x).toList());
    }
}
