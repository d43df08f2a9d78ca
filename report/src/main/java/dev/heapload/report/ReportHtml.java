package dev.heapload.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;

import dev.heapload.queries.QueryResult;
import dev.heapload.queries.SafeText;
import dev.heapload.report.svg.IcicleSvg;
import dev.heapload.report.svg.TrendChartSvg;

/**
 * The HTML form of a {@link LeakReport}: one self-contained page (inline CSS and SVG; no external scripts, fonts,
 * images or network; a Content-Security-Policy forbids loading anything and allows only the icicle graph's own script,
 * by hash). The page is the Mustache template {@code report.html.mustache} (with the partial {@code groups.mustache}
 * and the style sheet {@code report.css}, all next to this class), filled from maps built here; the template engine
 * (mustache.java) escapes every {@code {{value}}} with {@link SafeText#xml} ({@code & < > " '} as entities, control
 * and bidi characters visible), the one escaping function of heapload's HTML, SVG and XML output. Only the SVG
 * figures, already escaped by their painters, are inserted raw ({@code {{{svg}}}}).
 *
 * <p>The {@code @history} section (element {@code <section id="history">}) holds the trend chart of every snapshot
 * in the store ({@link TrendChartSvg}) and the rows of the saved query {@code trend}.
 */
public final class ReportHtml {

    /** At most this many leak groups are shown per list (all are in the JSON). */
    public static final int MAX_GROUPS = 50;

    /** The leak history shows the last this many snapshots (all are in the JSON). */
    public static final int HISTORY_NIGHTS = 10;

    private static final String RESOURCES = "dev/heapload/report";

    /** Compiled once; rendering is thread-safe. */
    private static final Mustache TEMPLATE = new Escaping().compile("report.html.mustache");

    private static final String CSS = resource("report.css");

    private ReportHtml() {
    }

    /** The page. */
    public static String render(LeakReport r) {
        StringWriter w = new StringWriter(64 * 1024 + (r.icicleSvg() == null ? 0 : r.icicleSvg().length()));
        TEMPLATE.execute(w, page(r));
        return w.toString();
    }

    /** mustache.java with {@link SafeText#xml} as its escaping of {@code {{value}}}. */
    private static final class Escaping extends DefaultMustacheFactory {
        Escaping() {
            super(RESOURCES);
        }

        @Override
        public void encode(String value, Writer writer) {
            try {
                writer.write(SafeText.xml(value, true));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The template's data: maps and lists of plain strings (the template holds no logic beyond sections). */
    private static Map<String, Object> page(LeakReport r) {
        Map<String, Object> m = new HashMap<>();
        m.put("scriptHash", sha256Base64(IcicleSvg.SCRIPT));
        m.put("css", CSS);
        m.put("pageTitle", "heapload: " + r.title() + ": " + r.target().id() + " vs " + r.baseline().id());
        m.put("title", r.title());
        m.put("target", Map.of("id", r.target().id(), "source", String.valueOf(r.target().source())));
        m.put("baseline", Map.of("id", r.baseline().id(), "source", String.valueOf(r.baseline().source())));
        m.put("vm", r.headline().vm());
        m.put("generatedAt", r.generatedAt());
        m.put("tool", r.tool());
        m.put("verdict", verdict(r));
        List<Object> sections = new ArrayList<>();
        for (LeakReport.Section s : r.sections()) {
            Map<String, Object> sm = new HashMap<>();
            sm.put("id", s.what().startsWith("@") ? s.what().substring(1) : "q-" + s.what());
            sm.put("title", s.title());
            switch (s.what()) {
                case "@headline" -> sm.put("headline", headline(r));
                case "@leak-groups" -> sm.put("groups", groups(r));
                case "@icicle" -> {
                    Map<String, Object> ic = new HashMap<>();
                    ic.put("svg", r.icicleSvg());
                    ic.put("note", r.icicleSvg() == null ? r.icicleNote() : null);
                    sm.put("icicle", ic);
                }
                case "@micropython-heap" -> {
                    StringBuilder text = new StringBuilder();
                    for (List<Object> row : s.result().rows()) {
                        text.append(row.get(0)).append('\n');
                    }
                    sm.put("figures", Map.of("text", text.toString()));
                    sm.put("picture", s.svg());
                }
                case "@class-histogram" -> sm.put("table", table(new LeakReport.Section("class-histogram", s.title(),
                    s.parameters(), s.result(), s.totalRows(), null)));
                case "@history" -> {
                    sm.put("picture", s.svg());
                    sm.put("table", table(new LeakReport.Section("trend", s.title(), Map.of(), s.result(), s.totalRows(), null)));
                }
                default -> sm.put("table", table(s));
            }
            sections.add(sm);
        }
        m.put("sections", sections);
        return m;
    }

    private static Map<String, Object> verdict(LeakReport r) {
        Map<String, Object> v = new HashMap<>();
        if (r.gates().isEmpty()) {
            // no gate decides: a page listing leak groups is a warning to look at them, never a green pass
            int n = r.headline().leakGroups();
            v.put("cls", n > 0 ? "warn" : "neutral");
            v.put("text", (n > 0 ? String.format(Locale.ROOT, "%,d leak group(s) to review", n) : "No leak groups")
                + String.format(Locale.ROOT, " (%,d known); no gates given (--fail-on).", r.headline().knownLeakGroups()));
            v.put("gatesGiven", false);
            return v;
        }
        v.put("cls", r.passed() ? "pass" : "fail");
        v.put("text", r.passed() ? "PASSED" : "FAILED");
        v.put("gatesGiven", true);
        List<Object> gates = new ArrayList<>();
        for (LeakReport.GateResult g : r.gates()) {
            gates.add(Map.of("state", g.failed() ? "failed" : "passed", "expression", g.expression(),
                "measured", String.format(Locale.ROOT, "%s = %,d", g.metric(), g.actual())));
        }
        v.put("gates", gates);
        return v;
    }

    private static Map<String, Object> headline(LeakReport r) {
        LeakReport.Headline hl = r.headline();
        Map<String, Object> h = new HashMap<>();
        h.put("crossProcess", hl.crossProcess() ? LeakReport.Headline.CROSS_PROCESS : null);
        List<Object> numbers = new ArrayList<>();
        numbers.add(number("new objects", hl.newObjects(), "reachable or not; "
            + String.format(Locale.ROOT, "%,d", hl.reusedAddresses()) + " at reused addresses"));
        numbers.add(number("new bytes", hl.newBytes(), "shallow bytes of the new objects"));
        numbers.add(number("new retained bytes", hl.newRetainedBytes(),
            "retained by the heads of the leak groups (known leaks excluded)"));
        numbers.add(number("leak groups", hl.leakGroups(), String.format(Locale.ROOT, "%,d objects, %,d bytes; plus %,d known",
            hl.leakObjects(), hl.leakBytes(), hl.knownLeakGroups())));
        numbers.add(Map.of("label", "net growth", "value", String.format(Locale.ROOT, "%+,d", hl.netBytes()), "note",
            String.format(Locale.ROOT, "bytes, %+,d objects: new minus freed at the leak groups' paths; %,d replaced "
                + "group(s) (churn) not counted", hl.netObjects(), hl.replacedGroups())));
        numbers.add(Map.of("label", "VM", "value", hl.vm(), "note", String.format(Locale.ROOT,
            "baseline %,d objects, %,d bytes; target %,d objects, %,d bytes", r.baseline().objects(),
            r.baseline().totalBytes(), r.target().objects(), r.target().totalBytes())));
        h.put("numbers", numbers);
        return h;
    }

    private static Map<String, Object> number(String label, long value, String note) {
        return Map.of("label", label, "value", String.format(Locale.ROOT, "%,d", value), "note", note);
    }

    private static Map<String, Object> groups(LeakReport r) {
        List<LeakReport.Group> unknown = r.unknownGroups();
        List<LeakReport.Group> known = r.knownGroups();
        Map<String, Object> g = groupList(unknown, r.target().id());
        g.put("none", unknown.isEmpty() ? "No leak groups" + (known.isEmpty() ? "" : " apart from known leaks") + "." : null);
        if (!known.isEmpty()) {
            Map<String, Object> k = groupList(known, r.target().id());
            k.put("count", known.size());
            g.put("known", k);
        } else {
            g.put("known", null);
        }
        if (r.resolved() != null) {
            Map<String, Object> res = new HashMap<>();
            res.put("count", r.resolved().size());
            List<Object> list = new ArrayList<>();
            for (LeakReport.Resolved x : r.resolved().subList(0, Math.min(MAX_GROUPS, r.resolved().size()))) {
                list.add(Map.of("name", x.name(), "fingerprint", x.fingerprint(), "summary", String.format(Locale.ROOT,
                        "previously %,d objects, %,d new bytes, %,d retained bytes", x.objects(), x.newBytes(), x.retainedBytes()),
                    "path", pathText(x.path())));
            }
            res.put("list", list);
            res.put("more", r.resolved().size() > MAX_GROUPS ? r.resolved().size() - MAX_GROUPS : null);
            g.put("resolved", res);
        } else {
            g.put("resolved", null);
        }
        g.put("history", r.leakHistory() == null ? null : history(r));
        List<LeakReport.Group> replaced = r.replacedGroups();
        if (replaced.isEmpty()) {
            g.put("replaced", null);
        } else {
            Map<String, Object> rm = new HashMap<>();
            rm.put("count", replaced.size());
            rm.put("lines", replaced.subList(0, Math.min(MAX_GROUPS, replaced.size())).stream()
                .map(LeakReport.Group::replacedLine).toList());
            rm.put("more", replaced.size() > MAX_GROUPS ? replaced.size() - MAX_GROUPS : null);
            g.put("replaced", rm);
        }
        return g;
    }

    /** The leak-history table: per group its new objects in each of the last {@link #HISTORY_NIGHTS} snapshots. */
    private static Map<String, Object> history(LeakReport r) {
        LeakHistory h = r.leakHistory();
        Map<String, Object> m = new HashMap<>();
        m.put("nights", r.growingNights());
        m.put("count", h.groups().size());
        int from = Math.max(0, h.snapshots().size() - HISTORY_NIGHTS);
        m.put("snapshots", h.snapshots().subList(from, h.snapshots().size()));
        List<Object> rows = new ArrayList<>();
        for (LeakHistory.Series s : h.groups()) {
            Map<String, Object> row = new HashMap<>();
            row.put("fingerprint", s.fingerprint());
            row.put("headType", s.headType());
            row.put("appeared", s.appeared() == null ? "" : s.appeared());
            row.put("growing", s.growing() ? "growing" : null);
            List<Object> cells = new ArrayList<>();
            for (LeakHistory.Night n : s.nights().subList(from, s.nights().size())) {
                cells.add(n.objects() == null ? "–" : String.format(Locale.ROOT, "%,d", n.objects()));
            }
            row.put("cells", cells);
            rows.add(row);
        }
        m.put("rows", rows);
        m.put("hasRows", !rows.isEmpty());
        return m;
    }

    private static Map<String, Object> groupList(List<LeakReport.Group> groups, String target) {
        List<Object> list = new ArrayList<>();
        for (LeakReport.Group g : groups.subList(0, Math.min(MAX_GROUPS, groups.size()))) {
            Map<String, Object> gm = new HashMap<>();
            gm.put("cls", g.known() ? "group known" : g.brokenGates().isEmpty() ? "group" : "group broken");
            gm.put("fingerprint", g.fingerprint());
            gm.put("name", g.name());
            gm.put("rank", g.rank());
            gm.put("status", g.status());
            gm.put("growing", g.growing() ? "growing" : null);
            gm.put("growth", g.growthSummary());
            gm.put("summary", String.format(Locale.ROOT, "%,d %s head(s), %,d objects, %,d new bytes, %,d retained bytes",
                g.heads(), g.headType(), g.objects(), g.newBytes(), g.retainedBytes()));
            gm.put("knownBy", g.knownBy());
            gm.put("breaks", g.brokenGates().isEmpty() ? null : String.join(", ", g.brokenGates()));
            gm.put("path", pathText(g.path()));
            gm.put("example", g.example());
            gm.put("commands", g.example() == null ? null : g.whyAliveCommand(target) + "\n" + g.pathsCommand(target));
            list.add(gm);
        }
        Map<String, Object> m = new HashMap<>();
        m.put("list", list);
        m.put("more", groups.size() > MAX_GROUPS ? groups.size() - MAX_GROUPS : null);
        return m;
    }

    private static Map<String, Object> table(LeakReport.Section s) {
        QueryResult q = s.result();
        Map<String, Object> t = new HashMap<>();
        t.put("query", s.what());
        List<String> params = new ArrayList<>();
        for (Map.Entry<String, Object> e : s.parameters().entrySet()) {
            params.add(e.getKey() + "=" + e.getValue());
        }
        t.put("parameters", params);
        t.put("hasRows", !q.rows().isEmpty());
        t.put("columns", q.columns());
        List<Object> rows = new ArrayList<>();
        for (List<Object> row : q.rows()) {
            List<Object> cells = new ArrayList<>(row.size());
            for (Object v : row) {
                cells.add(Map.of("cls", v instanceof Number ? "n" : "t", "text", cell(v)));
            }
            rows.add(Map.of("cells", cells));
        }
        t.put("rows", rows);
        t.put("more", s.totalRows() > q.rows().size() ? s.totalRows() - q.rows().size() : null);
        return t;
    }

    /** A cell value as text: numbers with thousands separators, lists one item per line, null empty. */
    public static String cell(Object v) {
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

    private static String resource(String name) {
        try (InputStream in = ReportHtml.class.getClassLoader().getResourceAsStream(RESOURCES + "/" + name)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCES + "/" + name + " missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256Base64(String text) {
        try {
            return Base64.getEncoder().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Path lines joined by LF, for the template (which keeps line breaks): a TAB, LF or CR inside one line is shown as
     * {@code \t}, {@code \n}, {@code \r}, so a name holding a newline cannot start another path line.
     */
    private static String pathText(List<String> lines) {
        List<String> out = new ArrayList<>(lines.size());
        for (String l : lines) {
            out.add(l.replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r"));
        }
        return String.join("\n", out);
    }

}
