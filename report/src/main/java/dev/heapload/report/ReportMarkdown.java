package dev.heapload.report;

import java.util.List;
import java.util.Locale;

import dev.heapload.queries.SafeText;

/**
 * The Markdown form of a {@link LeakReport}, for pull-request comments: verdict, headline numbers, the leak groups
 * (each with its retention path in a code block), known and resolved groups. The query sections are left to the HTML
 * and JSON forms. Strings from dumps are escaped for Markdown ({@link #text}) or put in code blocks whose fence is
 * longer than any run of backticks inside; either way control and bidi characters are shown escaped
 * ({@link SafeText#visible}: {@code \x1b}, <code>&#92;u202e</code>, {@code \\}).
 */
public final class ReportMarkdown {

    private ReportMarkdown() {
    }

    /** The Markdown text. */
    public static String render(LeakReport r) {
        StringBuilder b = new StringBuilder();
        LeakReport.Headline hl = r.headline();
        b.append("## ").append(text(r.title())).append(": ").append(text(r.target().id())).append(" vs ")
            .append(text(r.baseline().id())).append("\n\n");
        if (r.gates().isEmpty()) {
            // no gate decides: listed leak groups are a warning, never a pass
            int n = hl.leakGroups();
            b.append(n > 0 ? String.format(Locale.ROOT, "**WARNING**: %,d leak group(s) to review", n) : "No leak groups")
                .append(String.format(Locale.ROOT, " (%,d known); no gates given (--fail-on).%n%n", hl.knownLeakGroups()));
        } else {
            b.append(r.passed() ? "**PASSED**" : "**FAILED**").append("\n\n");
            for (LeakReport.GateResult g : r.gates()) {
                b.append("- ").append(g.failed() ? "failed" : "passed").append(": ").append(code(g.expression()))
                    .append(String.format(Locale.ROOT, " (%s = %,d)", g.metric(), g.actual())).append('\n');
            }
            b.append('\n');
        }
        if (hl.crossProcess()) {
            b.append(LeakReport.Headline.CROSS_PROCESS).append("\n\n");
        }
        b.append("| VM | new objects | new bytes | new retained bytes | leak groups | known |\n");
        b.append("|---|---:|---:|---:|---:|---:|\n");
        b.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %,d |%n%n", text(hl.vm()), hl.newObjects(),
            hl.newBytes(), hl.newRetainedBytes(), hl.leakGroups(), hl.knownLeakGroups()));
        list(b, "Leak groups", r.unknownGroups(), r.target().id());
        list(b, "Known leaks", r.knownGroups(), r.target().id());
        if (r.resolved() != null) {
            b.append("### Resolved since the previous report (").append(r.resolved().size()).append(")\n\n");
            for (LeakReport.Resolved g : r.resolved()) {
                b.append("- ").append(code(g.fingerprint())).append(' ').append(text(g.name())).append('\n');
            }
            b.append('\n');
        }
        return b.toString();
    }

    private static void list(StringBuilder b, String title, List<LeakReport.Group> groups, String target) {
        if (groups.isEmpty() && title.startsWith("Known")) {
            return;
        }
        b.append("### ").append(title).append(" (").append(groups.size()).append(")\n\n");
        int shown = 0;
        for (LeakReport.Group g : groups) {
            if (shown++ == ReportHtml.MAX_GROUPS) {
                b.append(groups.size() - ReportHtml.MAX_GROUPS).append(" more in the JSON report.\n\n");
                break;
            }
            b.append(String.format(Locale.ROOT, "**#%d** %s%,d %s head(s), %,d objects, %,d new bytes, %,d retained bytes, "
                    + "fingerprint %s%s%s%n%n", g.rank(), g.status() == null ? "" : "(" + g.status() + ") ", g.heads(),
                text(g.headType()), g.objects(), g.newBytes(), g.retainedBytes(), code(g.fingerprint()),
                g.known() ? ", known: " + code(g.knownBy()) : "",
                g.brokenGates().isEmpty() ? "" : ", breaks " + code(String.join(", ", g.brokenGates()))));
            b.append(block(String.join("\n", g.path().stream().map(SafeText::visible).toList()))).append('\n');
            if (g.example() != null) {
                b.append("Example head ").append(code(g.example())).append(" (largest retained size):\n\n")
                    .append(block(g.whyAliveCommand(target) + "\n" + g.pathsCommand(target))).append('\n');
            }
        }
    }

    /** Text with Markdown's and HTML's special characters escaped (table pipes too), on one line ({@link SafeText#markdown}). */
    public static String text(String s) {
        return SafeText.markdown(s);
    }

    /** Inline code: escaped text in an HTML {@code <code>} element (backticks cannot break out of it). */
    public static String code(String s) {
        return "<code>" + SafeText.xml(SafeText.visible(s), false).replace("|", "&#124;") + "</code>";
    }

    /**
     * A fenced code block whose fence is longer than the longest run of backticks in {@code s}; {@code s} is lines
     * already in their {@link SafeText#visible} form, joined by LF.
     */
    public static String block(String s) {
        int longest = 0;
        int run = 0;
        for (char c : s.toCharArray()) {
            run = c == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String fence = "`".repeat(Math.max(3, longest + 1));
        return fence + "\n" + s + "\n" + fence + "\n";
    }
}
