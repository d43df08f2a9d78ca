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
        b.append("| VM | new objects | new bytes | new retained bytes | leak groups | net objects | net bytes | known | replaced |\n");
        b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        b.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %,d | %+,d | %+,d | %,d | %,d |%n%n", text(hl.vm()),
            hl.newObjects(), hl.newBytes(), hl.newRetainedBytes(), hl.leakGroups(), hl.netObjects(), hl.netBytes(),
            hl.knownLeakGroups(), hl.replacedGroups()));
        list(b, "Leak groups", r.unknownGroups(), r.target().id());
        list(b, "Known leaks", r.knownGroups(), r.target().id());
        if (!r.replacedGroups().isEmpty()) {
            b.append("### Replaced, not leaks (").append(r.replacedGroups().size())
                .append("; churn: new objects took the place of freed ones at the same path)\n\n");
            int shown = 0;
            for (LeakReport.Group g : r.replacedGroups()) {
                if (shown++ == ReportHtml.MAX_GROUPS) {
                    b.append(r.replacedGroups().size() - ReportHtml.MAX_GROUPS).append(" more in the JSON report.\n");
                    break;
                }
                b.append("- ").append(text(g.replacedLine())).append('\n');
            }
            b.append('\n');
        }
        if (r.leakHistory() != null) {
            history(b, r);
        }
        if (r.resolved() != null) {
            b.append("### Resolved since the previous report (").append(r.resolved().size()).append(")\n\n");
            for (LeakReport.Resolved g : r.resolved()) {
                b.append("- ").append(code(g.fingerprint())).append(' ').append(text(g.name())).append('\n');
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** The leak-history section: per group, new objects per night (the last 10 snapshots), appeared, growing. */
    private static void history(StringBuilder b, LeakReport r) {
        LeakHistory h = r.leakHistory();
        b.append("### Leak history (").append(h.groups().size()).append(" group(s), growing: gained objects in each of the last ")
            .append(r.growingNights()).append(" nights)\n\n");
        if (h.groups().isEmpty()) {
            b.append("No leak group in the store's history.\n\n");
            return;
        }
        int from = Math.max(0, h.snapshots().size() - ReportHtml.HISTORY_NIGHTS);
        b.append("| fingerprint | head type | appeared | growing |");
        for (String id : h.snapshots().subList(from, h.snapshots().size())) {
            b.append(' ').append(text(id)).append(" |");
        }
        b.append("\n|---|---|---|---|").append("---:|".repeat(h.snapshots().size() - from)).append('\n');
        for (LeakHistory.Series s : h.groups()) {
            b.append("| ").append(code(s.fingerprint())).append(" | ").append(text(s.headType())).append(" | ")
                .append(s.appeared() == null ? "" : text(s.appeared())).append(" | ")
                .append(s.growing() ? "**growing**" : "").append(" |");
            for (LeakHistory.Night n : s.nights().subList(from, s.nights().size())) {
                b.append(' ').append(n.objects() == null ? "–" : String.format(Locale.ROOT, "%,d", n.objects())).append(" |");
            }
            b.append('\n');
        }
        b.append("\nNew objects of each group per snapshot relative to the one before it; ")
            .append("`heapload trend --leak FINGERPRINT` shows bytes too.\n\n");
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
            b.append(String.format(Locale.ROOT, "**#%d** %s%s%,d %s head(s), %,d objects, %,d new bytes, %,d retained bytes, "
                    + "fingerprint %s%s%s%n%n", g.rank(), g.growing() ? "**growing** " : "",
                g.status() == null ? "" : "(" + g.status() + ") ", g.heads(),
                text(g.headType()), g.objects(), g.newBytes(), g.retainedBytes(), code(g.fingerprint()),
                g.known() ? ", known: " + code(g.knownBy()) : "",
                g.brokenGates().isEmpty() ? "" : ", breaks " + code(String.join(", ", g.brokenGates()))));
            if (g.growthSummary() != null) {
                b.append(text(g.growthSummary())).append("\n\n");
            }
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
