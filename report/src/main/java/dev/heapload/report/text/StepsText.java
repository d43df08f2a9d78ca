package dev.heapload.report.text;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.heapload.analysis.SnapshotComparison;
import dev.heapload.analysis.SurvivorView;
import dev.heapload.queries.SafeText;
import dev.heapload.report.LeakHistory;
import dev.heapload.store.SnapshotHistory;

/**
 * The answer over several snapshots of one process: the leak groups that grew at every step (LeakCanary's heap-growth
 * rule: net objects above 0 in each snapshot compared with the one before it, {@link LeakHistory}) with their growth
 * per step, and the survivor view of the three-snapshot method ({@link SurvivorView}: new in the second, still alive
 * in the last). Strings from dumps are printed in their {@link SafeText#visible} form.
 */
public final class StepsText {

    /** How many groups each part lists. */
    public static final int SHOWN = 10;

    private StepsText() {
    }

    /**
     * The leak history of the snapshots {@code ids} only, in that order (the comparisons their loads made with the one
     * before each), and which groups grew at every step.
     *
     * @param history the store's history ({@code GraphStore#history})
     * @param ids     at least two snapshot ids, in the order of the steps
     */
    public static LeakHistory steps(List<SnapshotHistory> history, List<String> ids) {
        List<SnapshotHistory> chosen = new ArrayList<>();
        for (String id : ids) {
            for (SnapshotHistory h : history) {
                if (h.snapshot().id().equals(id)) {
                    chosen.add(h);
                }
            }
        }
        return LeakHistory.of(chosen, null, Math.max(1, chosen.size() - 1));
    }

    /**
     * Prints the groups that grew at every step of {@code steps} ({@link #steps}): one line per group with its
     * growth per step, or one line saying none did.
     */
    public static void printGrowing(LeakHistory steps, PrintStream out) {
        List<String> ids = steps.snapshots();
        List<LeakHistory.Series> growing = steps.growing();
        out.printf(Locale.ROOT, "grew at every step (%s; LeakCanary's rule: net objects above 0 in each of the %,d "
            + "step(s)): %,d group(s)%n", String.join(" -> ", ids.stream().map(SafeText::visible).toList()),
            ids.size() - 1, growing.size());
        int shown = 0;
        for (LeakHistory.Series s : growing) {
            if (shown++ == SHOWN) {
                out.printf(Locale.ROOT, "  … %,d more group(s)%n", growing.size() - SHOWN);
                break;
            }
            List<String> perStep = new ArrayList<>();
            for (LeakHistory.Night n : s.nights()) {
                if (n.comparedWith() != null) {
                    perStep.add(String.format(Locale.ROOT, "%s %+,d objects, %+,d bytes", SafeText.visible(n.snapshot()),
                        n.netObjects(), n.netBytes()));
                }
            }
            out.printf(Locale.ROOT, "  %s head(s) at %s: %s%n", SafeText.visible(s.headType()),
                GrowthText.oneLine(s.path()), String.join("; ", perStep));
        }
    }

    /** Prints the survivor view: a headline, then its largest groups with their paths, one line each. */
    public static void printSurvivors(SurvivorView v, PrintStream out) {
        String head = String.format(Locale.ROOT, "survivors (three-snapshot method: new in %s relative to %s, still "
            + "alive in %s)", SafeText.visible(v.second()), SafeText.visible(v.first()), SafeText.visible(v.third()));
        if (v.crossProcess()) {
            out.println(head + ": not available, the snapshots look like two processes (nothing shares an address)");
            return;
        }
        out.printf(Locale.ROOT, "%s: %,d objects, %,d bytes, in %,d group(s)%n", head, v.objects(), v.bytes(),
            v.groups().size());
        int shown = 0;
        for (SnapshotComparison.LeakGroup g : v.groups()) {
            if (shown++ == SHOWN) {
                out.printf(Locale.ROOT, "  … %,d more group(s)%n", v.groups().size() - SHOWN);
                break;
            }
            out.printf(Locale.ROOT, "  %,d objects, %,d bytes, %,d %s head(s): %s%n", g.objects(), g.newBytes(),
                g.heads(), SafeText.visible(g.headType()), GrowthText.oneLine(g.path()));
        }
    }
}
