package dev.heapload.report;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.heapload.analysis.PathHop;
import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.queries.QueryResult;
import dev.heapload.report.svg.TrendChartSvg;
import dev.heapload.queries.SafeText;

/**
 * The data of one {@code heapload report}: what every output format ({@link ReportJson}, {@link ReportHtml},
 * {@link ReportMarkdown}, {@link ReportJunit}) shows. Built from the results of saved queries ({@code snapshot},
 * {@code new-objects}, {@code leak-groups} and the report definition's sections) plus the fingerprints, known-leak
 * matches, gate results and the comparison with a previous report computed here. Sizes are in bytes.
 *
 * @param reportName      the report definition's name
 * @param title           its title
 * @param generatedAt     ISO-8601 UTC time of the run
 * @param tool            heapload's version line
 * @param baseline        the baseline snapshot
 * @param target          the target snapshot
 * @param headline        the headline numbers
 * @param groups          every leak group, ranked as {@code leak-groups} returns them (known ones included)
 * @param resolved        groups of the previous report that are gone ({@code null} without {@code --previous})
 * @param gates           the gates with their measured values
 * @param sections        the report definition's sections, in order, with query results where they are queries
 * @param icicleSvg       the icicle graph of the new objects as an SVG element without XML prolog, or {@code null}
 * @param icicleNote      why there is no icicle graph, or {@code null}
 * @param leakHistory     the store's leak groups night by night up to the target ({@link LeakHistory}), only those of
 *                        {@code groups} and the growing ones; {@code null} when the store's history was not at hand
 *                        (a report over Bolt)
 * @param growingNights   the number of last nights a growing group gained objects in (its {@code --growing-nights})
 */
public record LeakReport(String reportName, String title, String generatedAt, String tool, Snapshot baseline, Snapshot target,
                  Headline headline, List<Group> groups, List<Resolved> resolved, List<GateResult> gates,
                  List<Section> sections, String icicleSvg, String icicleNote, LeakHistory leakHistory,
                  int growingNights) {

    /** A report without a leak history. */
    public LeakReport(String reportName, String title, String generatedAt, String tool, Snapshot baseline,
                      Snapshot target, Headline headline, List<Group> groups, List<Resolved> resolved,
                      List<GateResult> gates, List<Section> sections, String icicleSvg, String icicleNote) {
        this(reportName, title, generatedAt, tool, baseline, target, headline, groups, resolved, gates, sections,
            icicleSvg, icicleNote, null, LeakHistory.DEFAULT_NIGHTS);
    }

    /** Version of the JSON document's schema ({@code report.schema.json}); bumped on incompatible changes. */
    public static final int SCHEMA_VERSION = 1;

    /** A snapshot's facts (saved query {@code snapshot}). */
    public record Snapshot(String id, String vm, String source, String sha256, long objects, long totalBytes) {
    }

    /**
     * The headline numbers.
     *
     * @param vm                the target's VM family
     * @param newObjects        objects of the target with no counterpart in the baseline (reachable or not)
     * @param newBytes          their shallow bytes
     * @param reusedAddresses   how many of them sit at an address the baseline used for another object
     * @param leakObjects       new reachable objects in leak groups that are not known leaks
     * @param leakBytes         their shallow bytes
     * @param newRetainedBytes  retained bytes of the heads of those groups
     * @param leakGroups        number of leak groups that are not known leaks (nor replaced)
     * @param knownLeakGroups   number of groups that are known leaks (not replaced)
     * @param crossProcess      the pair looked like two processes (almost no address shared, no root): new objects
     *                          were decided by retention path, type and category ({@code SnapshotComparison})
     * @param netObjects        net objects of the leak groups that are not known leaks ({@link Group#netObjects})
     * @param netBytes          their net bytes
     * @param replacedGroups    groups whose new objects replaced freed ones (churn, not leaks; known or not)
     */
    public record Headline(String vm, long newObjects, long newBytes, long reusedAddresses, long leakObjects, long leakBytes,
                    long newRetainedBytes, int leakGroups, int knownLeakGroups, boolean crossProcess, long netObjects,
                    long netBytes, int replacedGroups) {

        /** A headline without net growth (net = new, nothing replaced). */
        public Headline(String vm, long newObjects, long newBytes, long reusedAddresses, long leakObjects, long leakBytes,
                        long newRetainedBytes, int leakGroups, int knownLeakGroups, boolean crossProcess) {
            this(vm, newObjects, newBytes, reusedAddresses, leakObjects, leakBytes, newRetainedBytes, leakGroups,
                knownLeakGroups, crossProcess, leakObjects, leakBytes, 0);
        }

        /** The one line the reports show for a cross-process pair. */
        public static final String CROSS_PROCESS = "Cross-process pair: the snapshots share almost no addresses and no root "
            + "(two runs?); new objects are counted per retention path, type and memory category.";
    }

    /**
     * One leak group.
     *
     * @param rank          1-based rank among all groups ({@code leak-groups}' order: leaks by net bytes, replaced
     *                      groups after them)
     * @param objects       new reachable objects in the group
     * @param newBytes      their shallow bytes
     * @param retainedBytes sum of the heads' retained sizes
     * @param heads         number of heads (topmost new objects)
     * @param headType      their type
     * @param path          retention path, one line per hop from the root ({@link PathHop#line}), not escaped: every
     *                      output prints each line escaped on one line of its own ({@link SafeText})
     * @param hops          the same path as data (empty when the query gave no hop lists)
     * @param name          the path's names ({@link LeakFingerprint#rawSegments}) joined with {@code /}, not escaped
     * @param fingerprint   {@link LeakFingerprint}
     * @param knownBy       the known-leaks entry that matched, or {@code null}
     * @param status        {@code new} or {@code persisting} with {@code --previous}, else {@code null}
     * @param brokenGates   the expressions of the failed gates this group alone also breaks (empty for known groups)
     * @param example       address (as the target stores it) of the group's head with the largest retained size, or
     *                      {@code null} when the store did not say
     * @param growing       the group gained objects in each of the last nights of the store's history up to the target
     *                      ({@link LeakHistory}); false without a history
     * @param verdict       {@code growing}, {@code new} or {@code replaced} ({@code SnapshotComparison.Verdict}), or
     *                      {@code null} when the store did not say (a graph of an older heapload)
     * @param netObjects    new objects minus the freed ones they replaced at the group's path
     * @param netBytes      new bytes minus freed bytes
     * @param freedObjects  the freed objects at the group's path
     * @param freedBytes    their shallow bytes
     * @param baselineHeads the baseline's objects at the heads' path, or {@code null} when the store did not say
     */
    public record Group(int rank, long objects, long newBytes, long retainedBytes, long heads, String headType, List<String> path,
                 List<PathHop> hops, String name, String fingerprint, String knownBy, String status, List<String> brokenGates,
                 String example, boolean growing, String verdict, long netObjects, long netBytes, long freedObjects,
                 long freedBytes, Long baselineHeads) {

        /** A group not known to be growing. */
        public Group(int rank, long objects, long newBytes, long retainedBytes, long heads, String headType,
                     List<String> path, List<PathHop> hops, String name, String fingerprint, String knownBy,
                     String status, List<String> brokenGates, String example) {
            this(rank, objects, newBytes, retainedBytes, heads, headType, path, hops, name, fingerprint, knownBy,
                status, brokenGates, example, false, null, objects, newBytes, 0, 0, null);
        }

        /** The same group, flagged growing or not. */
        public Group withGrowing(boolean growing) {
            return new Group(rank, objects, newBytes, retainedBytes, heads, headType, path, hops, name, fingerprint,
                knownBy, status, brokenGates, example, growing, verdict, netObjects, netBytes, freedObjects, freedBytes,
                baselineHeads);
        }

        public boolean known() {
            return knownBy != null;
        }

        /**
         * Its verdict with the net growth, e.g. {@code growing: net +152 objects, +19,608 bytes}, {@code new: nothing
         * at this path in the baseline}, or {@code null} without a verdict.
         */
        public String growthSummary() {
            if (verdict == null) {
                return null;
            }
            if ("new".equals(verdict)) {
                return "new: nothing at this path in the baseline";
            }
            return String.format(java.util.Locale.ROOT, "%s: net %+,d objects, %+,d bytes%s", verdict, netObjects,
                netBytes, baselineHeads == null ? "" : String.format(java.util.Locale.ROOT,
                    " (%,d at this path in the baseline; %,d objects, %,d bytes freed)", baselineHeads, freedObjects,
                    freedBytes));
        }

        /**
         * A replaced group in one line: {@code 20 table head(s): 40 new objects (2,340 bytes) in place of 40 freed
         * (2,300 bytes), net +0 objects, +40 bytes; path root … > [array] in table} (path lines made visible).
         */
        public String replacedLine() {
            return dev.heapload.report.text.GrowthText.replaced(heads, headType, objects, newBytes, freedObjects,
                freedBytes, path);
        }

        /** Whether its new objects replaced freed ones (churn): listed apart, never a leak, never gated. */
        public boolean replaced() {
            return "replaced".equals(verdict);
        }

        /** {@code heapload query why-alive} for the example head in snapshot {@code target}, or {@code null}. */
        public String whyAliveCommand(String target) {
            return example == null ? null : dev.heapload.queries.ExploreCommands.whyAlive(target, example, "");
        }

        /** {@code heapload query paths} for the example head in snapshot {@code target}, or {@code null}. */
        public String pathsCommand(String target) {
            return example == null ? null : dev.heapload.queries.ExploreCommands.paths(target, example, "");
        }
    }

    /** A group of the previous report that this one does not have. */
    public record Resolved(String fingerprint, String name, String headType, List<String> path, long objects, long newBytes,
                    long retainedBytes) {
    }

    /** A gate with the measured value. */
    public record GateResult(String expression, String metric, String operator, long limit, long actual, boolean failed) {
    }

    /**
     * A section of the report definition.
     *
     * @param what       saved query name or {@code @figure}
     * @param title      heading
     * @param parameters the query's bound parameters (empty for figures)
     * @param result     the query's rows, at most the row cap ({@code null} for figures, except {@code @history}:
     *                   the rows of the saved query {@code trend})
     * @param totalRows  rows the query returned before the cap
     * @param svg        {@code @history} only: the trend chart ({@link TrendChartSvg}) as an SVG element; else null
     */
    public record Section(String what, String title, Map<String, Object> parameters, QueryResult result, int totalRows,
                   String svg) {
    }

    /** True when no gate failed. */
    public boolean passed() {
        return gates.stream().noneMatch(GateResult::failed);
    }

    /** Leak groups that are not known leaks (and not replaced). */
    public List<Group> unknownGroups() {
        return groups.stream().filter(g -> !g.known() && !g.replaced()).toList();
    }

    /** Groups that are known leaks (and not replaced). */
    public List<Group> knownGroups() {
        return groups.stream().filter(g -> g.known() && !g.replaced()).toList();
    }

    /** Groups whose new objects replaced freed ones (churn, not leaks), known or not. */
    public List<Group> replacedGroups() {
        return groups.stream().filter(Group::replaced).toList();
    }

    /**
     * Turns the rows of {@code leak-groups} into groups with fingerprints, known-leak matches, status and broken
     * gates, and evaluates the gates on the groups that are not known.
     *
     * @param rows               the query's result (columns objects, newBytes, retainedBytes, heads, headType, path;
     *                           with verdict, netObjects, netBytes, freedObjects, freedBytes, baselineHeads when the
     *                           query has them). Replaced groups (churn) and known leaks are not gated
     * @param known              known leaks
     * @param previousPrints     fingerprints of the previous report's groups, or {@code null}
     * @param gates              the gates
     * @param gateResults        filled with one result per gate
     * @return the groups in rank order
     */
    public static List<Group> groups(QueryResult rows, KnownLeaks known, Set<String> previousPrints, List<Gate> gates,
                              List<GateResult> gateResults) {
        List<String> c = rows.columns();
        record Raw(long objects, long newBytes, long retained, long heads, String headType, List<String> path,
                   List<PathHop> hops, String name, String fingerprint, String knownBy, String example, String verdict,
                   long netObjects, long netBytes, long freedObjects, long freedBytes, Long baselineHeads) {

            /** Counted by the gates: a leak (not replaced) that is not known. */
            boolean gated() {
                return knownBy == null && !"replaced".equals(verdict);
            }
        }
        int exampleColumn = c.indexOf("example");
        int verdictColumn = c.indexOf("verdict");
        int beforeColumn = c.indexOf("baselineHeads");
        List<Raw> raw = new ArrayList<>();
        for (List<Object> row : rows.rows()) {
            List<PathHop> hops = hops(c, row);
            String headType = String.valueOf(row.get(c.indexOf("headType")));
            List<String> path;
            String fp;
            List<String> segments;
            String name;
            if (hops != null) {
                path = SnapshotComparison.lines(hops);
                fp = LeakFingerprint.ofHops(headType, hops);
                segments = LeakFingerprint.segments(hops);
                name = String.join("/", LeakFingerprint.rawSegments(hops));
            } else {
                // a query without the hop lists (a custom definition): its lines, one segment each
                path = strings(row.get(c.indexOf("path")));
                fp = LeakFingerprint.of(SafeText.visible(headType), path.stream().map(SafeText::visible).toList());
                segments = path.stream().map(SafeText::visible).toList();
                name = String.join("/", path);
            }
            KnownLeaks.Entry k = known.match(fp, segments);
            long objects = num(row.get(c.indexOf("objects")));
            long newBytes = num(row.get(c.indexOf("newBytes")));
            String verdict = verdictColumn >= 0 && row.get(verdictColumn) instanceof String v ? v : null;
            // without the net columns (a custom definition, an older graph): net = new, nothing freed
            long netObjects = c.contains("netObjects") && row.get(c.indexOf("netObjects")) != null
                ? num(row.get(c.indexOf("netObjects"))) : objects;
            long netBytes = c.contains("netBytes") && row.get(c.indexOf("netBytes")) != null
                ? num(row.get(c.indexOf("netBytes"))) : newBytes;
            raw.add(new Raw(objects, newBytes,
                num(row.get(c.indexOf("retainedBytes"))), num(row.get(c.indexOf("heads"))), headType, List.copyOf(path),
                hops == null ? List.of() : hops, name, fp, k == null ? null : k.text(),
                exampleColumn >= 0 && row.get(exampleColumn) instanceof String a ? a : null, verdict, netObjects,
                netBytes, c.contains("freedObjects") ? num(row.get(c.indexOf("freedObjects"))) : 0,
                c.contains("freedBytes") ? num(row.get(c.indexOf("freedBytes"))) : 0,
                beforeColumn >= 0 && row.get(beforeColumn) instanceof Number b ? b.longValue() : null));
        }
        long n = 0;
        long objects = 0;
        long bytes = 0;
        long retained = 0;
        long netObjects = 0;
        long netBytes = 0;
        for (Raw r : raw) {
            if (r.gated()) {
                n++;
                objects += r.objects;
                bytes += r.newBytes;
                retained += r.retained;
                netObjects += r.netObjects;
                netBytes += r.netBytes;
            }
        }
        for (Gate g : gates) {
            long actual = g.measure(n, objects, bytes, retained, netObjects, netBytes);
            gateResults.add(new GateResult(g.expression(), g.metric(), g.operator(), g.limit(), actual, g.fails(actual)));
        }
        List<Group> out = new ArrayList<>();
        int rank = 0;
        for (Raw r : raw) {
            rank++;
            List<String> broken = new ArrayList<>();
            if (r.gated()) {
                for (int i = 0; i < gates.size(); i++) {
                    Gate g = gates.get(i);
                    if (gateResults.get(i).failed()
                        && g.fails(g.measure(1, r.objects, r.newBytes, r.retained, r.netObjects, r.netBytes))) {
                        broken.add(g.expression());
                    }
                }
            }
            String status = previousPrints == null ? null : previousPrints.contains(r.fingerprint) ? "persisting" : "new";
            out.add(new Group(rank, r.objects, r.newBytes, r.retained, r.heads, r.headType, r.path, r.hops,
                r.name, r.fingerprint, r.knownBy, status, List.copyOf(broken), r.example, false, r.verdict,
                r.netObjects, r.netBytes, r.freedObjects, r.freedBytes, r.baselineHeads));
        }
        return out;
    }

    /** Fingerprints of a list of groups. */
    public static Set<String> fingerprints(List<Group> groups) {
        Set<String> s = new HashSet<>();
        groups.forEach(g -> s.add(g.fingerprint()));
        return s;
    }

    /**
     * The hops of a {@code leak-groups} row from its columns {@code pathNames}, {@code pathKinds},
     * {@code pathKeyTypes}, {@code pathTypes} ({@code ""} name with {@code ""} key type: no name), or {@code null}
     * when the row has none of them or their lengths differ.
     */
    public static List<PathHop> hops(List<String> columns, List<Object> row) {
        int ni = columns.indexOf("pathNames");
        int ki = columns.indexOf("pathKinds");
        int ti = columns.indexOf("pathKeyTypes");
        int hi = columns.indexOf("pathTypes");
        if (ni < 0 || ki < 0 || ti < 0 || hi < 0) {
            return null;
        }
        List<String> names = strings(row.get(ni));
        List<String> kinds = strings(row.get(ki));
        List<String> keyTypes = strings(row.get(ti));
        List<String> types = strings(row.get(hi));
        int k = names.size();
        if (k == 0 || kinds.size() != k || keyTypes.size() != k || types.size() != k) {
            return null;
        }
        List<PathHop> hops = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            boolean none = keyTypes.get(i).isEmpty() && names.get(i).isEmpty();
            hops.add(new PathHop(none ? null : names.get(i), kinds.get(i), keyTypes.get(i), types.get(i)));
        }
        return List.copyOf(hops);
    }

    private static List<String> strings(Object value) {
        List<String> out = new ArrayList<>();
        if (value instanceof List<?> list) {
            list.forEach(o -> out.add(String.valueOf(o)));
        } else if (value != null) {
            out.add(String.valueOf(value));
        }
        return out;
    }

    public static long num(Object o) {
        return o instanceof Number x ? x.longValue() : 0;
    }
}
