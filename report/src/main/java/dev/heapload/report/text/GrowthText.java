package dev.heapload.report.text;

import java.util.List;
import java.util.Locale;

import dev.heapload.queries.SafeText;

/**
 * The lines of the leak answer that say what grows (docs/analysis.md, "Net growth"): a leak group's verdict with its
 * net growth, a replaced group in one line, the headline of a pair with no growth, and the warning for a pair that
 * looks swapped. Every string from a dump (types, path lines, ids) is printed in its {@link SafeText#visible} form;
 * numbers with thousands separators, signed where they are growth.
 */
public final class GrowthText {

    private GrowthText() {
    }

    /**
     * The line under a leak group: its verdict and net growth, e.g. {@code growing: net +152 objects, +19,608 bytes;
     * 'before' had 2 table(s) at this path, 0 of them freed} or {@code new: nothing at this path in 'before'}.
     *
     * @param verdict       {@code growing}, {@code new} or {@code replaced}; {@code null} (a graph of an older
     *                      heapload) gives {@code null}
     * @param baselineHeads the baseline's objects at the heads' path, or {@code null} when unknown
     * @param baseline      the baseline's id
     */
    public static String verdict(String verdict, long netObjects, long netBytes, Long baselineHeads, long freedHeads,
                                 long freedObjects, long freedBytes, String headType, String baseline) {
        if (verdict == null) {
            return null;
        }
        String b = "'" + SafeText.visible(baseline) + "'";
        if ("new".equals(verdict)) {
            return "new: nothing at this path in " + b;
        }
        StringBuilder line = new StringBuilder(verdict).append(": net ").append(signed(netObjects)).append(" objects, ")
            .append(signed(netBytes)).append(" bytes");
        if (baselineHeads != null) {
            line.append(String.format(Locale.ROOT, "; %s had %,d %s(s) at this path, %,d of them freed", b,
                baselineHeads, SafeText.visible(headType), freedHeads));
            if (freedHeads > 0) {
                line.append(String.format(Locale.ROOT, " (%,d objects, %,d bytes)", freedObjects, freedBytes));
            }
        }
        return line.toString();
    }

    /**
     * One replaced group in one line: {@code 20 table head(s): 40 new objects (2,340 bytes) in place of 40 freed
     * (2,300 bytes), net +0 objects, +40 bytes; path root registry (table) > history in table > [array] in table}.
     *
     * @param path the retention path, one line per hop, not escaped
     */
    public static String replaced(long heads, String headType, long objects, long newBytes, long freedObjects,
                                  long freedBytes, List<String> path) {
        return String.format(Locale.ROOT, "%,d %s head(s): %,d new objects (%,d bytes) in place of %,d freed (%,d "
                + "bytes), net %s objects, %s bytes; path %s", heads, SafeText.visible(headType), objects, newBytes,
            freedObjects, freedBytes, signed(objects - freedObjects), signed(newBytes - freedBytes), oneLine(path));
    }

    /** The heading of the replaced groups, listed apart from the leaks. */
    public static String replacedHeading(int groups) {
        return String.format(Locale.ROOT, "replaced, not leaks (churn: new objects took the place of freed ones at the "
            + "same path), %,d group(s):", groups);
    }

    /**
     * The headline of a pair whose new reachable objects all replaced freed ones ("no growth").
     *
     * @param objects new reachable objects of the replaced groups
     * @param bytes   their shallow bytes
     * @param groups  the replaced groups
     */
    public static String noGrowth(String baseline, String target, long objects, long bytes, int groups) {
        return String.format(Locale.ROOT, "leaks: %s relative to %s: no growth: 0 leak groups; the %,d new reachable "
                + "objects (%,d bytes) took the place of freed ones at the same paths (%,d replaced group(s), below)",
            SafeText.visible(target), SafeText.visible(baseline), objects, bytes, groups);
    }

    /**
     * The one line for a pair that looks swapped ({@code dev.heapload.analysis.PairOrder}).
     *
     * @param reason  why, as {@code PairOrder.swapped} says it
     * @param reverse the command that gives the pair the other way round
     */
    public static String swapped(String reason, String reverse) {
        return "may be swapped: " + SafeText.visible(reason) + "; the baseline (older dump) goes first, the target "
            + "last; the other way round: " + reverse;
    }

    /**
     * A path's lines joined into one: {@code root registry (table) > cache in table > [value] in table}; each hop
     * {@link SafeText#visible} and cut at {@link dev.heapload.queries.TextTable#CELL_WIDTH} columns
     * ({@link dev.heapload.queries.TextTable#clip}: a key of 300,000 characters shows its start and its length).
     */
    public static String oneLine(List<String> path) {
        StringBuilder b = new StringBuilder();
        for (String hop : path) {
            if (b.length() > 0) {
                b.append(" > ");
            }
            b.append(hopLine(hop));
        }
        return b.toString();
    }

    /**
     * One hop of a retention path as the text answers print it: {@link SafeText#visible}, cut at
     * {@link dev.heapload.queries.TextTable#CELL_WIDTH} columns with its full length said.
     */
    public static String hopLine(String hop) {
        return dev.heapload.queries.TextTable.clip(SafeText.visible(hop), dev.heapload.queries.TextTable.CELL_WIDTH);
    }

    /** {@code +1,234}, {@code -5}, {@code +0}. */
    public static String signed(long n) {
        return String.format(Locale.ROOT, "%+,d", n);
    }
}
