package dev.heapload.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * "Did you mean" for mistyped command names, option names and saved query names: the candidates within a small
 * edit distance (Levenshtein, commons-text) of what was typed, closest first, plus those that start with it.
 */
final class Suggestions {

    private Suggestions() {
    }

    /**
     * The candidates close to {@code typed}: edit distance at most 2 (at most 1 for words of up to 4 characters),
     * or starting with {@code typed} when it has 3 characters or more; case is ignored. Closest first, then in
     * the candidates' order; at most 3.
     *
     * @param typed      what the user typed, e.g. {@code reprot}
     * @param candidates the known names, e.g. the command names
     * @return the close names, possibly empty
     */
    static List<String> closest(String typed, Collection<String> candidates) {
        String word = typed.toLowerCase(Locale.ROOT);
        int limit = word.length() <= 4 ? 1 : 2;
        LevenshteinDistance distance = new LevenshteinDistance(limit);
        record Scored(String name, int distance, int order) {
        }
        List<Scored> close = new ArrayList<>();
        int order = 0;
        for (String candidate : candidates) {
            String c = candidate.toLowerCase(Locale.ROOT);
            int d = distance.apply(word, c);
            if (d < 0 && word.length() >= 3 && c.startsWith(word)) {
                d = limit + 1;
            }
            if (d >= 0 && !c.equals(word)) {
                close.add(new Scored(candidate, d, order));
            }
            order++;
        }
        close.sort(Comparator.comparingInt(Scored::distance).thenComparingInt(Scored::order));
        return close.stream().limit(3).map(Scored::name).distinct().toList();
    }

    /**
     * {@code "; did you mean A?"} or {@code "; did you mean A or B?"} for the {@link #closest} names, or
     * {@code ""} when none is close.
     */
    static String didYouMean(String typed, Collection<String> candidates) {
        List<String> close = closest(typed, candidates);
        if (close.isEmpty()) {
            return "";
        }
        if (close.size() == 1) {
            return "; did you mean " + close.get(0) + "?";
        }
        return "; did you mean " + String.join(", ", close.subList(0, close.size() - 1)) + " or "
            + close.get(close.size() - 1) + "?";
    }
}
