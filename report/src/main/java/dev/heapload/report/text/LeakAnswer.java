package dev.heapload.report.text;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.ExploreCommands;
import dev.heapload.queries.SafeText;

/**
 * The leak answer a load prints for a pair of snapshots: totals, the five largest leak groups with their retention
 * paths one hop per line and each group's example head with the command that lists all its paths, then the next
 * commands to run. Fed by the leak groups of the comparison the load made in memory
 * ({@link SnapshotComparison#leakGroups}), so it prints before any graph is written; the rows are those of the saved
 * query {@code leak-groups} on the stored pair (same order, same example head). Every string from the dump (ids,
 * types, path lines, addresses) is printed in its {@link SafeText#visible} form.
 */
public final class LeakAnswer {

    /** How many groups are printed; the others are counted in one line. */
    public static final int SHOWN = 5;

    private LeakAnswer() {
    }

    /**
     * One leak group as the answer shows it.
     *
     * @param objects       new objects under its heads (heads included)
     * @param newBytes      their shallow bytes
     * @param retainedBytes sum of the heads' retained sizes, bytes
     * @param heads         number of heads
     * @param headType      the heads' type
     * @param path          the retention path, one line per hop from the root
     * @param example       address of the head with the largest retained size, or null
     * @param verdict       {@code growing}, {@code new} or {@code replaced} ({@link SnapshotComparison.Verdict#label})
     * @param baselineHeads heads of the baseline at the same path key
     * @param freedHeads    of those, the ones gone in the target
     * @param freedObjects  objects of the baseline at the path that are gone
     * @param freedBytes    their shallow bytes
     * @param headsText     the heads' class and memory category ({@link #headsText}), or null when they have neither
     * @param sites         where its new objects were allocated, largest first (empty when the dump tracked no
     *                      allocations; {@link SnapshotComparison.SiteCount#site} null: allocated while not tracking)
     */
    public record Group(long objects, long newBytes, long retainedBytes, long heads, String headType, List<String> path,
                        String example, String verdict, long baselineHeads, long freedHeads, long freedObjects,
                        long freedBytes, String headsText, List<SnapshotComparison.SiteCount> sites) {

        /** Whether the group is churn (replaced), listed apart and never counted as a leak. */
        public boolean replaced() {
            return SnapshotComparison.Verdict.REPLACED.label().equals(verdict);
        }
    }

    /** How many classes and memory categories a group's {@code heads:} line names; the rest are counted. */
    public static final int HEADS_NAMES_SHOWN = 5;

    /** Columns at which a class or memory category name in the {@code heads:} line is cut (its length said). */
    public static final int HEADS_NAME_WIDTH = 40;

    /** How many replaced groups are listed, one line each ({@code leak-groups} has them all). */
    public static final int REPLACED_SHOWN = 10;

    /** The groups of {@code comparison}, whose target is {@code target} (for the example heads' addresses). */
    public static List<Group> groups(SnapshotComparison comparison, HeapSnapshot target) {
        List<Group> groups = new ArrayList<>(comparison.leakGroups().size());
        for (SnapshotComparison.LeakGroup g : comparison.leakGroups()) {
            groups.add(new Group(g.objects(), g.newBytes(), g.retainedBytes(), g.heads(), g.headType(), g.path(),
                g.example() < 0 ? null : target.address(g.example()), g.verdict().label(), g.baselineHeads(),
                g.freedHeads(), g.freedObjects(), g.freedBytes(), headsText(g, target), g.sites()));
        }
        return groups;
    }

    /**
     * What a leak group's heads are: their class ({@link dev.heapload.analysis.ObjectClasses}) and memory category,
     * e.g. {@code class Enemy; memory category 0 (main)}; several: {@code classes Enemy ×10, Entity ×6}, {@code memory
     * categories 2 (ui) ×3, 5 ×1}; heads without a class: {@code ×N without a class} after the others. Dump strings are
     * shown escaped ({@link SafeText#visible}).
     *
     * @return the text, or null when no head has a class and the VM has no memory categories
     */
    public static String headsText(SnapshotComparison.LeakGroup g, HeapSnapshot target) {
        List<String> parts = new ArrayList<>();
        var classes = g.headClasses();
        if (!classes.isEmpty()) {
            long with = classes.stream().mapToLong(java.util.Map.Entry::getValue).sum();
            if (classes.size() == 1 && with == g.heads()) {
                parts.add("class " + name(classes.get(0).getKey()));
            } else {
                StringBuilder sb = new StringBuilder(classes.size() == 1 ? "class " : "classes ");
                int shown = Math.min(classes.size(), HEADS_NAMES_SHOWN);
                for (int i = 0; i < shown; i++) {
                    sb.append(i == 0 ? "" : ", ").append(name(classes.get(i).getKey())).append(" ×")
                        .append(classes.get(i).getValue());
                }
                if (shown < classes.size()) {
                    sb.append(String.format(Locale.ROOT, ", \u2026 %,d more", classes.size() - shown));
                }
                if (with < g.heads()) {
                    sb.append(String.format(Locale.ROOT, ", ×%,d without a class", g.heads() - with));
                }
                parts.add(sb.toString());
            }
        }
        var categories = g.headCategories();
        if (!categories.isEmpty()) {
            StringBuilder sb = new StringBuilder(categories.size() == 1 ? "memory category " : "memory categories ");
            int shown = Math.min(categories.size(), HEADS_NAMES_SHOWN);
            for (int i = 0; i < shown; i++) {
                int id = categories.get(i).getKey();
                var c = target.info().categories().get(id);
                sb.append(i == 0 ? "" : ", ").append(id);
                if (c != null && c.name() != null) {
                    sb.append(" (").append(name(c.name())).append(')');
                }
                if (categories.size() > 1) {
                    sb.append(" ×").append(categories.get(i).getValue());
                }
            }
            if (shown < categories.size()) {
                sb.append(String.format(Locale.ROOT, ", \u2026 %,d more", categories.size() - shown));
            }
            parts.add(sb.toString());
        }
        return parts.isEmpty() ? null : String.join("; ", parts);
    }

    /** A class or category name from the dump as the {@code heads:} line prints it: visible, cut, length said. */
    private static String name(String dumpText) {
        return dev.heapload.queries.TextTable.clip(SafeText.visible(dumpText), HEADS_NAME_WIDTH);
    }

    /**
     * The line printed before the answer when the pair looks like two processes
     * ({@link SnapshotComparison#crossProcess}): the comparison is then by retention path. Nothing otherwise.
     *
     * @param baselineObjects the baseline's object count
     */
    public static void printCrossProcess(SnapshotComparison comparison, String baseline, long baselineObjects,
                                         String target, PrintStream out) {
        if (comparison.crossProcess()) {
            out.printf(Locale.ROOT, "cross-process pair: %,d of the %,d objects of %s are in %s at the same "
                    + "address, no root is (two runs?): compared by retention path, type and memory category instead%n",
                comparison.sameObjects(), baselineObjects, SafeText.visible(baseline), SafeText.visible(target));
        }
    }

    /**
     * Prints the answer for {@code target} relative to {@code baseline}.
     *
     * @param groups       the pair's leak groups, largest first
     * @param storeOptions the options naming the store for the printed commands, with a leading space
     *                     ({@code " --db DIR"}), or empty
     * @param command      the command the user runs heapload by ({@code heapload}, {@code ./heapload})
     * @param served       whether {@code heapload serve} can serve the store (an embedded store): adds its line
     */
    public static void print(String baseline, String target, List<Group> groups, String storeOptions, String command,
                             boolean served, PrintStream out) {
        // replaced groups (churn: the new objects took the place of freed ones) are listed apart, never as leaks
        List<Group> leaks = new ArrayList<>();
        List<Group> replaced = new ArrayList<>();
        for (Group g : groups) {
            (g.replaced() ? replaced : leaks).add(g);
        }
        if (leaks.isEmpty() && !replaced.isEmpty()) {
            long o = 0;
            long b = 0;
            for (Group g : replaced) {
                o += g.objects();
                b += g.newBytes();
            }
            out.println(GrowthText.noGrowth(baseline, target, o, b, replaced.size()));
        } else {
            long totalObjects = 0;
            long totalBytes = 0;
            for (Group g : leaks) {
                totalObjects += g.objects();
                totalBytes += g.newBytes();
            }
            out.printf(Locale.ROOT, "leaks: %s relative to %s: %,d new reachable objects, %,d bytes, in %,d leak group(s)%s%n",
                SafeText.visible(target), SafeText.visible(baseline), totalObjects, totalBytes, leaks.size(),
                replaced.isEmpty() ? "" : String.format(Locale.ROOT, "; %,d replaced group(s) listed apart", replaced.size()));
        }
        int shown = 0;
        for (Group g : leaks) {
            if (shown++ == SHOWN) {
                out.printf(Locale.ROOT, "  … %,d more group(s)%n", leaks.size() - SHOWN);
                break;
            }
            out.printf(Locale.ROOT, "  group %d: %,d objects, %,d new bytes, %,d retained bytes, %,d %s head(s), path:%n",
                shown, g.objects(), g.newBytes(), g.retainedBytes(), g.heads(), SafeText.visible(g.headType()));
            for (String hop : g.path()) {
                out.println("      " + GrowthText.hopLine(hop));
            }
            if (g.headsText() != null) {
                out.println("    heads: " + g.headsText());
            }
            if (g.example() != null) {
                out.println("    example head " + SafeText.visible(g.example()) + " (largest retained size), all its paths:");
                out.println("      " + named(ExploreCommands.paths(target, g.example(), storeOptions), command));
            }
            if (!g.sites().isEmpty()) {
                out.println("    allocated at (its new objects; heapdump.track):");
                for (SnapshotComparison.SiteCount c : g.sites()) {
                    out.printf(Locale.ROOT, "      %s: %,d objects, %,d bytes%n",
                        c.site() == null ? "no site (allocated while not tracking)" : SafeText.visible(c.site()),
                        c.objects(), c.bytes());
                }
            }
            if (g.verdict() != null) {
                out.println("    " + GrowthText.verdict(g.verdict(), g.objects() - g.freedObjects(),
                    g.newBytes() - g.freedBytes(), g.baselineHeads(), g.freedHeads(), g.freedObjects(), g.freedBytes(),
                    g.headType(), baseline));
            }
        }
        if (!replaced.isEmpty()) {
            out.println(GrowthText.replacedHeading(replaced.size()));
            int listed = 0;
            for (Group g : replaced) {
                if (listed++ == REPLACED_SHOWN) {
                    out.printf(Locale.ROOT, "  … %,d more replaced group(s)%n", replaced.size() - REPLACED_SHOWN);
                    break;
                }
                out.println("  " + GrowthText.replaced(g.heads(), g.headType(), g.objects(), g.newBytes(),
                    g.freedObjects(), g.freedBytes(), g.path()));
            }
        }
        groups = leaks;
        String exampleAddress = groups.stream().map(Group::example).filter(a -> a != null).findFirst().orElse(null);
        out.println("next:");
        out.println("  " + command + " query leak-groups -p " + ExploreCommands.shellWord("baseline=" + baseline) + " -p "
            + ExploreCommands.shellWord("target=" + target) + storeOptions);
        out.println("  " + command + " query new-objects -p " + ExploreCommands.shellWord("baseline=" + baseline) + " -p "
            + ExploreCommands.shellWord("target=" + target) + storeOptions);
        out.println("  " + named(ExploreCommands.whyAlive(target, exampleAddress == null ? "ADDRESS" : exampleAddress,
            storeOptions), command));
        if (served) {
            out.println("  " + command + " serve" + storeOptions + "      (Neo4j Browser on the store)");
        }
    }

    /** {@code line} (a {@code heapload ...} command) with {@code heapload} replaced by {@code command}. */
    private static String named(String line, String command) {
        return line.startsWith("heapload ") ? command + line.substring("heapload".length()) : line;
    }
}
