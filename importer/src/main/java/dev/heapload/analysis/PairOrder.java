package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.heapload.model.HeapSnapshot;

/**
 * Whether a pair of snapshots looks given the wrong way round (the later dump as the baseline): a leak answer of a
 * swapped pair lists what the program <em>freed</em> and reads as "no leak". Told from what a pair carries:
 * <ul>
 *   <li>the snapshot ids (file names): a word of the later role in the baseline's and of the earlier role in the
 *       target's ({@code after}/{@code before}, {@code new}/{@code old}, {@code end}/{@code start} …, see
 *       {@link #ORDER_WORDS}), or ids that differ only in their numbers with the target's numbers the smaller
 *       ({@code dump2}/{@code dump1}, {@code heap-20261204}/{@code heap-20261203}: dates and sequence numbers);</li>
 *   <li>the sizes: the target has fewer objects <em>and</em> fewer shallow bytes than the baseline (a program whose
 *       memory grew has more of both later).</li>
 * </ul>
 * A hint, not a rule: a program that freed memory between two dumps also has a smaller target.
 */
public final class PairOrder {

    /** Words naming an earlier and a later snapshot, in pairs (earlier, later), compared case-blind as whole words. */
    public static final List<List<String>> ORDER_WORDS = List.of(List.of("before", "after"), List.of("old", "new"),
        List.of("start", "end"), List.of("begin", "end"), List.of("first", "last"), List.of("pre", "post"),
        List.of("baseline", "target"), List.of("early", "late"), List.of("earlier", "later"));

    private static final Pattern WORD = Pattern.compile("[A-Za-z]+");
    private static final Pattern NUMBER = Pattern.compile("[0-9]+");

    private PairOrder() {
    }

    /**
     * Why the pair looks swapped, as a clause naming the two ids (e.g. {@code 'before' has fewer objects (616 <
     * 871) and bytes (61,000 < 86,000) than 'after'}), or {@code null} when nothing says so.
     *
     * @param baseline the snapshot given first (the baseline)
     * @param target   the snapshot given last (the target)
     */
    public static String swapped(HeapSnapshot baseline, HeapSnapshot target) {
        List<String> reasons = new ArrayList<>();
        String b = baseline.info().id();
        String t = target.info().id();
        String names = byName(b, t);
        if (names != null) {
            reasons.add(names);
        }
        long bo = baseline.objectCount();
        long to = target.objectCount();
        long bb = baseline.totalShallowBytes();
        long tb = target.totalShallowBytes();
        if (to < bo && tb < bb) {
            reasons.add(String.format(Locale.ROOT, "'%s' has fewer objects (%,d < %,d) and bytes (%,d < %,d) than '%s'",
                t, to, bo, tb, bb, b));
        }
        return reasons.isEmpty() ? null : String.join("; ", reasons);
    }

    /**
     * Why the ids say the target is the earlier snapshot, or {@code null}.
     *
     * @param baseline the baseline's id
     * @param target   the target's id
     */
    public static String byName(String baseline, String target) {
        List<String> bw = words(baseline);
        List<String> tw = words(target);
        for (List<String> pair : ORDER_WORDS) {
            String earlier = pair.get(0);
            String later = pair.get(1);
            if (bw.contains(later) && !bw.contains(earlier) && tw.contains(earlier) && !tw.contains(later)) {
                return "the baseline is named '" + baseline + "' and the target '" + target + "'";
            }
        }
        // the same name but for its numbers: the first number that differs orders them
        if (!NUMBER.matcher(baseline).replaceAll("#").equals(NUMBER.matcher(target).replaceAll("#"))) {
            return null;
        }
        List<String> bn = numbers(baseline);
        List<String> tn = numbers(target);
        for (int i = 0; i < bn.size() && i < tn.size(); i++) {
            int c = compareNumbers(bn.get(i), tn.get(i));
            if (c > 0) {
                return "the baseline '" + baseline + "' is numbered after the target '" + target + "'";
            }
            if (c < 0) {
                return null;
            }
        }
        return null;
    }

    private static List<String> words(String id) {
        List<String> out = new ArrayList<>();
        // camel case splits too: afterLoad -> after, load
        Matcher m = WORD.matcher(id.replaceAll("([a-z])([A-Z])", "$1 $2"));
        while (m.find()) {
            out.add(m.group().toLowerCase(Locale.ROOT));
        }
        return out;
    }

    private static List<String> numbers(String id) {
        List<String> out = new ArrayList<>();
        Matcher m = NUMBER.matcher(id);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    /** Compares two digit strings as numbers of any length. */
    private static int compareNumbers(String a, String b) {
        String x = a.replaceFirst("^0+(?=.)", "");
        String y = b.replaceFirst("^0+(?=.)", "");
        return x.length() != y.length() ? Integer.compare(x.length(), y.length()) : x.compareTo(y);
    }
}
