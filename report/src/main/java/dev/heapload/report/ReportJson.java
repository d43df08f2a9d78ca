package dev.heapload.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import dev.heapload.analysis.PathHop;
import dev.heapload.queries.SafeText;

/**
 * The JSON form of a {@link LeakReport}: one object as {@code report.schema.json} (next to this class) describes,
 * {@code schemaVersion} {@value LeakReport#SCHEMA_VERSION}. Also reads the leak groups of a previous report for
 * {@code --previous}.
 */
public final class ReportJson {

    /** Classpath location of the JSON Schema. */
    public static final String SCHEMA_RESOURCE = "dev/heapload/report/report.schema.json";

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReportJson() {
    }

    /** Writes the report as JSON (UTF-8). */
    public static void write(LeakReport r, OutputStream out) throws IOException {
        MAPPER.writeValue(out, tree(r));
    }

    /** The report as maps and lists in schema order. */
    public static Map<String, Object> tree(LeakReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("schemaVersion", LeakReport.SCHEMA_VERSION);
        m.put("report", r.reportName());
        m.put("title", r.title());
        m.put("generatedAt", r.generatedAt());
        m.put("tool", r.tool());
        m.put("baseline", snapshot(r.baseline()));
        m.put("target", snapshot(r.target()));
        LeakReport.Headline h = r.headline();
        Map<String, Object> head = new LinkedHashMap<>();
        head.put("vm", h.vm());
        head.put("newObjects", h.newObjects());
        head.put("newBytes", h.newBytes());
        head.put("reusedAddresses", h.reusedAddresses());
        head.put("leakObjects", h.leakObjects());
        head.put("leakBytes", h.leakBytes());
        head.put("newRetainedBytes", h.newRetainedBytes());
        head.put("leakGroups", h.leakGroups());
        head.put("knownLeakGroups", h.knownLeakGroups());
        head.put("crossProcess", h.crossProcess());
        head.put("netObjects", h.netObjects());
        head.put("netBytes", h.netBytes());
        head.put("replacedGroups", h.replacedGroups());
        m.put("headline", head);
        m.put("passed", r.passed());
        List<Object> gates = new ArrayList<>();
        for (LeakReport.GateResult g : r.gates()) {
            Map<String, Object> gm = new LinkedHashMap<>();
            gm.put("expression", g.expression());
            gm.put("metric", g.metric());
            gm.put("operator", g.operator());
            gm.put("limit", g.limit());
            gm.put("actual", g.actual());
            gm.put("failed", g.failed());
            gates.add(gm);
        }
        m.put("gates", gates);
        List<Object> groups = new ArrayList<>();
        for (LeakReport.Group g : r.groups()) {
            Map<String, Object> gm = new LinkedHashMap<>();
            gm.put("rank", g.rank());
            gm.put("fingerprint", g.fingerprint());
            gm.put("name", SafeText.visible(g.name()));
            gm.put("objects", g.objects());
            gm.put("newBytes", g.newBytes());
            gm.put("retainedBytes", g.retainedBytes());
            gm.put("heads", g.heads());
            gm.put("headType", g.headType());
            if (g.verdict() != null) {
                gm.put("verdict", g.verdict());
            }
            gm.put("netObjects", g.netObjects());
            gm.put("netBytes", g.netBytes());
            gm.put("freedObjects", g.freedObjects());
            gm.put("freedBytes", g.freedBytes());
            if (g.baselineHeads() != null) {
                gm.put("baselineHeads", g.baselineHeads());
            }
            // lines to print: escaped, one per hop; the hops themselves as data
            gm.put("path", g.path().stream().map(SafeText::visible).toList());
            List<Object> hops = new ArrayList<>();
            for (PathHop hop : g.hops()) {
                Map<String, Object> hm = new LinkedHashMap<>();
                hm.put("name", hop.name());
                hm.put("kind", hop.kind());
                hm.put("keyType", hop.keyType());
                hm.put("type", hop.type());
                hops.add(hm);
            }
            gm.put("hops", hops);
            gm.put("known", g.known());
            if (g.known()) {
                gm.put("knownBy", g.knownBy());
            }
            if (g.status() != null) {
                gm.put("status", g.status());
            }
            gm.put("brokenGates", g.brokenGates());
            if (r.leakHistory() != null) {
                gm.put("growing", g.growing());
            }
            if (g.example() != null) {
                gm.put("example", g.example());
                gm.put("whyAlive", g.whyAliveCommand(r.target().id()));
                gm.put("paths", g.pathsCommand(r.target().id()));
            }
            groups.add(gm);
        }
        m.put("leakGroups", groups);
        if (r.leakHistory() != null) {
            Map<String, Object> hm = new LinkedHashMap<>();
            hm.put("growingNights", r.growingNights());
            hm.put("snapshots", r.leakHistory().snapshots());
            List<Object> series = new ArrayList<>();
            for (LeakHistory.Series s : r.leakHistory().groups()) {
                Map<String, Object> sm = new LinkedHashMap<>();
                sm.put("fingerprint", s.fingerprint());
                sm.put("headType", s.headType());
                sm.put("path", s.path().stream().map(SafeText::visible).toList());
                sm.put("appeared", s.appeared());
                sm.put("growing", s.growing());
                List<Object> nights = new ArrayList<>();
                for (LeakHistory.Night n : s.nights()) {
                    Map<String, Object> nm = new LinkedHashMap<>();
                    nm.put("snapshot", n.snapshot());
                    nm.put("comparedWith", n.comparedWith());
                    nm.put("objects", n.objects());
                    nm.put("newBytes", n.newBytes());
                    nights.add(nm);
                }
                sm.put("nights", nights);
                series.add(sm);
            }
            hm.put("groups", series);
            m.put("leakHistory", hm);
        }
        if (r.resolved() != null) {
            List<Object> resolved = new ArrayList<>();
            for (LeakReport.Resolved g : r.resolved()) {
                Map<String, Object> gm = new LinkedHashMap<>();
                gm.put("fingerprint", g.fingerprint());
                gm.put("name", g.name());
                gm.put("objects", g.objects());
                gm.put("newBytes", g.newBytes());
                gm.put("retainedBytes", g.retainedBytes());
                gm.put("headType", g.headType());
                gm.put("path", g.path());
                gm.put("status", "resolved");
                resolved.add(gm);
            }
            m.put("resolvedLeakGroups", resolved);
        }
        List<Object> sections = new ArrayList<>();
        for (LeakReport.Section s : r.sections()) {
            Map<String, Object> sm = new LinkedHashMap<>();
            sm.put("what", s.what());
            sm.put("title", s.title());
            if (s.result() != null) {
                sm.put("parameters", s.parameters());
                sm.put("columns", s.result().columns());
                sm.put("rows", s.result().rows());
                sm.put("totalRows", s.totalRows());
            }
            sections.add(sm);
        }
        m.put("sections", sections);
        return m;
    }

    private static Map<String, Object> snapshot(LeakReport.Snapshot s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.id());
        m.put("vm", s.vm());
        m.put("source", s.source());
        m.put("sha256", s.sha256());
        m.put("objects", s.objects());
        m.put("totalBytes", s.totalBytes());
        return m;
    }

    /**
     * The leak groups of a previous report ({@code --previous}), as {@link LeakReport.Resolved} entries in its order.
     *
     * @throws IOException (one line naming the file) when it cannot be read, is not JSON, or is not a heapload report
     *                     of schema version {@value LeakReport#SCHEMA_VERSION}
     */
    public static List<LeakReport.Resolved> previousGroups(Path file) throws IOException {
        JsonNode root;
        try {
            root = MAPPER.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new IOException(file + ": not JSON (" + e.getOriginalMessage() + " at line "
                + (e.getLocation() == null ? "?" : e.getLocation().getLineNr()) + ")");
        }
        if (root == null || !root.isObject() || root.path("schemaVersion").asInt(-1) != LeakReport.SCHEMA_VERSION
            || !root.path("leakGroups").isArray()) {
            throw new IOException(file + ": not a heapload report of schemaVersion " + LeakReport.SCHEMA_VERSION
                + " (no schemaVersion or leakGroups)");
        }
        List<LeakReport.Resolved> out = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (JsonNode g : root.path("leakGroups")) {
            String fp = g.path("fingerprint").asText("");
            if (fp.isEmpty()) {
                throw new IOException(file + ": a leak group without a fingerprint");
            }
            if (!seen.add(fp)) {
                continue;
            }
            List<String> path = new ArrayList<>();
            g.path("path").forEach(p -> path.add(p.asText()));
            out.add(new LeakReport.Resolved(fp, g.path("name").asText(""), g.path("headType").asText(""), path,
                g.path("objects").asLong(), g.path("newBytes").asLong(), g.path("retainedBytes").asLong()));
        }
        return out;
    }
}
