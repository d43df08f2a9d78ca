package dev.heapload.cli;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.heapload.queries.QueryResult;

/**
 * The HTML form of a {@link LeakReport}: one self-contained page (inline CSS and SVG; no external scripts, fonts,
 * images or network; a Content-Security-Policy forbids loading anything and allows only the icicle graph's own script,
 * by hash). Every string that comes from a dump or a file goes through {@link IcicleSvg#escape}, the one escaping
 * function of heapload's HTML, SVG and XML output.
 *
 * <p>The {@code @history} section (element {@code <section id="history">}) holds the trend chart of every snapshot
 * in the store ({@link TrendChartSvg}) and the rows of the saved query {@code trend}.
 */
final class ReportHtml {

    /** At most this many leak groups are shown per list (all are in the JSON). */
    static final int MAX_GROUPS = 50;

    private static final String CSS = """
        body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em auto;max-width:1260px;padding:0 1em;color:#1d1d1f}
        h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
        .meta{color:#555}.verdict{padding:.6em 1em;border-radius:6px;font-weight:bold}
        .pass{background:#e3f5e1;color:#14521a}.fail{background:#fde2e1;color:#8a1c14}
        .numbers{display:flex;flex-wrap:wrap;gap:1em}.numbers div{background:#f4f4f6;border-radius:6px;padding:.5em 1em;min-width:10em}
        .numbers b{display:block;font-size:1.4em}
        .group{border:1px solid #ddd;border-radius:6px;padding:.4em .8em;margin:.6em 0}
        .group.broken{border-color:#d33}.group.known{background:#f7f7f7}
        .group h3{font-size:1em;margin:.3em 0}.fp{font-family:monospace;color:#666;font-weight:normal}
        .tag{display:inline-block;border-radius:4px;padding:0 .4em;font-size:.85em;font-weight:normal;background:#eee}
        .tag.new{background:#fde2e1}.tag.persisting{background:#fff1c2}.tag.resolved{background:#e3f5e1}
        pre.cmd{margin:.3em 0;white-space:pre-wrap;word-break:break-all;background:#f3f6fa;padding:.4em}
        pre.path{margin:.3em 0;white-space:pre-wrap;word-break:break-all;background:#fafafa;padding:.4em}
        table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ddd;padding:.2em .5em;vertical-align:top}
        th{background:#f4f4f6}td.n{text-align:right;font-variant-numeric:tabular-nums}td.t{white-space:pre-wrap;word-break:break-all}
        .icicle svg{max-width:100%;height:auto}
        """;

    private ReportHtml() {
    }

    /** The page. */
    static String render(LeakReport r) {
        StringBuilder b = new StringBuilder(64 * 1024 + (r.icicleSvg() == null ? 0 : r.icicleSvg().length()));
        String scriptHash = sha256Base64(IcicleSvg.SCRIPT);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
        b.append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            + "img-src data:; script-src 'sha256-").append(scriptHash).append("'\">\n");
        b.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        b.append("<title>").append(h("heapload: " + r.title() + ": " + r.target().id() + " vs " + r.baseline().id()))
            .append("</title>\n<style>").append(CSS).append("</style></head>\n<body>\n");
        b.append("<h1>").append(h(r.title())).append("</h1>\n");
        b.append("<p class=\"meta\">target <b>").append(h(r.target().id())).append("</b> (").append(h(r.target().source()))
            .append(") relative to baseline <b>").append(h(r.baseline().id())).append("</b> (").append(h(r.baseline().source()))
            .append("); VM ").append(h(r.headline().vm())).append("; ").append(h(r.generatedAt())).append("; ")
            .append(h(r.tool())).append("</p>\n");
        verdict(b, r);
        for (LeakReport.Section s : r.sections()) {
            String id = s.what().startsWith("@") ? s.what().substring(1) : "q-" + s.what();
            b.append("<section id=\"").append(h(id)).append("\">\n<h2>").append(h(s.title())).append("</h2>\n");
            switch (s.what()) {
                case "@headline" -> headline(b, r);
                case "@leak-groups" -> groups(b, r);
                case "@icicle" -> {
                    if (r.icicleSvg() != null) {
                        b.append("<div class=\"icicle\">").append(r.icicleSvg()).append("</div>\n");
                    } else {
                        b.append("<p>").append(h(r.icicleNote())).append("</p>\n");
                    }
                }
                case "@micropython-heap" -> {
                    b.append("<pre class=\"path\">");
                    for (List<Object> row : s.result().rows()) {
                        b.append(h(String.valueOf(row.get(0)))).append('\n');
                    }
                    b.append("</pre>\n");
                    if (s.svg() != null) {
                        b.append("<div class=\"icicle\">").append(s.svg()).append("</div>\n");
                    }
                }
                case "@history" -> {
                    b.append("<div class=\"history\">").append(s.svg()).append("</div>\n");
                    table(b, new LeakReport.Section("trend", s.title(), Map.of(), s.result(), s.totalRows(), null));
                }
                default -> table(b, s);
            }
            b.append("</section>\n");
        }
        b.append("</body></html>\n");
        return b.toString();
    }

    private static void verdict(StringBuilder b, LeakReport r) {
        if (r.gates().isEmpty()) {
            b.append("<p class=\"verdict pass\">No gates given (--fail-on): ").append(r.headline().leakGroups())
                .append(" leak group(s), ").append(r.headline().knownLeakGroups()).append(" known.</p>\n");
            return;
        }
        b.append("<p class=\"verdict ").append(r.passed() ? "pass\">PASSED" : "fail\">FAILED").append("</p>\n<ul>\n");
        for (LeakReport.GateResult g : r.gates()) {
            b.append("<li>").append(g.failed() ? "failed: " : "passed: ").append("<code>").append(h(g.expression()))
                .append("</code> (").append(h(String.format(Locale.ROOT, "%s = %,d", g.metric(), g.actual()))).append(")</li>\n");
        }
        b.append("</ul>\n");
    }

    private static void headline(StringBuilder b, LeakReport r) {
        LeakReport.Headline hl = r.headline();
        if (hl.crossProcess()) {
            b.append("<p class=\"notice\">").append(h(LeakReport.Headline.CROSS_PROCESS)).append("</p>\n");
        }
        b.append("<div class=\"numbers\">\n");
        number(b, "new objects", hl.newObjects(), "reachable or not; " + String.format(Locale.ROOT, "%,d", hl.reusedAddresses())
            + " at reused addresses");
        number(b, "new bytes", hl.newBytes(), "shallow bytes of the new objects");
        number(b, "new retained bytes", hl.newRetainedBytes(), "retained by the heads of the leak groups (known leaks excluded)");
        number(b, "leak groups", hl.leakGroups(), String.format(Locale.ROOT, "%,d objects, %,d bytes; plus %,d known",
            hl.leakObjects(), hl.leakBytes(), hl.knownLeakGroups()));
        b.append("<div>VM<b>").append(h(hl.vm())).append("</b>").append(h(String.format(Locale.ROOT,
            "baseline %,d objects, %,d bytes; target %,d objects, %,d bytes", r.baseline().objects(), r.baseline().totalBytes(),
            r.target().objects(), r.target().totalBytes()))).append("</div>\n</div>\n");
    }

    private static void number(StringBuilder b, String label, long value, String note) {
        b.append("<div>").append(h(label)).append("<b>").append(String.format(Locale.ROOT, "%,d", value)).append("</b><small>")
            .append(h(note)).append("</small></div>\n");
    }

    private static void groups(StringBuilder b, LeakReport r) {
        List<LeakReport.Group> unknown = r.unknownGroups();
        List<LeakReport.Group> known = r.knownGroups();
        if (unknown.isEmpty()) {
            b.append("<p>No leak groups").append(known.isEmpty() ? "" : " apart from known leaks").append(".</p>\n");
        }
        groupList(b, unknown, r.target().id());
        if (!known.isEmpty()) {
            b.append("<h3 id=\"known\">Known leaks (").append(known.size()).append(", never fail a gate)</h3>\n");
            groupList(b, known, r.target().id());
        }
        if (r.resolved() != null) {
            b.append("<h3 id=\"resolved\">Resolved since the previous report (").append(r.resolved().size()).append(")</h3>\n");
            if (r.resolved().isEmpty()) {
                b.append("<p>None.</p>\n");
            }
            int shown = 0;
            for (LeakReport.Resolved g : r.resolved()) {
                if (shown++ == MAX_GROUPS) {
                    b.append("<p>").append(r.resolved().size() - MAX_GROUPS).append(" more in the JSON report.</p>\n");
                    break;
                }
                b.append("<div class=\"group\"><h3><span class=\"tag resolved\">resolved</span> ").append(h(g.name()))
                    .append(" <span class=\"fp\">").append(h(g.fingerprint())).append("</span></h3>").append(h(String.format(Locale.ROOT,
                        "previously %,d objects, %,d new bytes, %,d retained bytes", g.objects(), g.newBytes(), g.retainedBytes())))
                    .append("<pre class=\"path\">").append(h(String.join("\n", g.path()))).append("</pre></div>\n");
            }
        }
    }

    private static void groupList(StringBuilder b, List<LeakReport.Group> groups, String target) {
        int shown = 0;
        for (LeakReport.Group g : groups) {
            if (shown++ == MAX_GROUPS) {
                b.append("<p>").append(groups.size() - MAX_GROUPS).append(" more group(s) in the JSON report.</p>\n");
                break;
            }
            String cls = g.known() ? "group known" : g.brokenGates().isEmpty() ? "group" : "group broken";
            b.append("<div class=\"").append(cls).append("\" id=\"g-").append(h(g.fingerprint())).append("\"><h3>#")
                .append(g.rank()).append(' ');
            if (g.status() != null) {
                b.append("<span class=\"tag ").append(h(g.status())).append("\">").append(h(g.status())).append("</span> ");
            }
            b.append(h(String.format(Locale.ROOT, "%,d %s head(s), %,d objects, %,d new bytes, %,d retained bytes",
                g.heads(), g.headType(), g.objects(), g.newBytes(), g.retainedBytes())));
            b.append(" <span class=\"fp\">").append(h(g.fingerprint())).append("</span></h3>\n");
            if (g.known()) {
                b.append("<p>known leak: <code>").append(h(g.knownBy())).append("</code></p>\n");
            }
            if (!g.brokenGates().isEmpty()) {
                b.append("<p>breaks: <code>").append(h(String.join(", ", g.brokenGates()))).append("</code></p>\n");
            }
            b.append("<pre class=\"path\">").append(h(String.join("\n", g.path()))).append("</pre>\n");
            if (g.example() != null) {
                b.append("<p>example head <code>").append(h(g.example())).append("</code> (largest retained size):</p>")
                    .append("<pre class=\"cmd\">").append(h(g.whyAliveCommand(target) + "\n" + g.pathsCommand(target)))
                    .append("</pre>\n");
            }
            b.append("</div>\n");
        }
    }

    private static void table(StringBuilder b, LeakReport.Section s) {
        QueryResult q = s.result();
        b.append("<p class=\"meta\">saved query <code>").append(h(s.what())).append("</code>");
        for (Map.Entry<String, Object> e : s.parameters().entrySet()) {
            b.append(" <code>").append(h(e.getKey() + "=" + e.getValue())).append("</code>");
        }
        b.append("</p>\n");
        if (q.rows().isEmpty()) {
            b.append("<p>No rows.</p>\n");
            return;
        }
        b.append("<table><thead><tr>");
        for (String c : q.columns()) {
            b.append("<th>").append(h(c)).append("</th>");
        }
        b.append("</tr></thead><tbody>\n");
        for (List<Object> row : q.rows()) {
            b.append("<tr>");
            for (Object v : row) {
                b.append(v instanceof Number ? "<td class=\"n\">" : "<td class=\"t\">").append(h(cell(v))).append("</td>");
            }
            b.append("</tr>\n");
        }
        b.append("</tbody></table>\n");
        if (s.totalRows() > q.rows().size()) {
            b.append("<p>").append(s.totalRows() - q.rows().size()).append(" more row(s) in the JSON report.</p>\n");
        }
    }

    /** A cell value as text: numbers with thousands separators, lists one item per line, null empty. */
    static String cell(Object v) {
        if (v == null) {
            return "";
        }
        if (v instanceof Long || v instanceof Integer) {
            return String.format(Locale.ROOT, "%,d", ((Number) v).longValue());
        }
        if (v instanceof List<?> list) {
            StringBuilder s = new StringBuilder();
            for (Object o : list) {
                if (s.length() > 0) {
                    s.append('\n');
                }
                s.append(cell(o));
            }
            return s.toString();
        }
        return String.valueOf(v);
    }

    private static String h(String s) {
        return IcicleSvg.escape(s == null ? "" : s);
    }

    private static String sha256Base64(String text) {
        try {
            return Base64.getEncoder().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
