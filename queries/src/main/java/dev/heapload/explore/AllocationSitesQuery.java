package dev.heapload.explore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.analysis.SnapshotDiff;
import dev.heapload.model.AllocationSites;
import dev.heapload.model.ByteSums;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.queries.QueryResult;

/**
 * The saved query {@code allocation-sites} (cypher/allocation-sites.cypher) from the models: the objects of a
 * snapshot by allocation site ({@link HeapSnapshot#sites}, dumps taken with {@code heapdump.track}), with their
 * shallow bytes, the bytes they retain and, relative to a baseline, how many are new.
 *
 * <p>Per site: {@code objects}, {@code bytes} (shallow), {@code retainedBytes} (the retained sizes of the site's
 * objects whose immediate dominator is not an object of the same site, so that a structure built at one line counts
 * once), {@code newObjects} and {@code newBytes} (objects with no counterpart in the baseline by the identity rule of
 * {@link SnapshotDiff}; null without a baseline). Objects allocated while the dumper was not tracking are one row
 * with site null. Rows by bytes (largest first), objects, site (null last).
 */
public final class AllocationSitesQuery {

    /** Name of the saved query. */
    public static final String NAME = "allocation-sites";

    /** Its columns. */
    public static final List<String> COLUMNS = List.of("site", "objects", "bytes", "retainedBytes", "newObjects",
        "newBytes");

    private AllocationSitesQuery() {
    }

    /**
     * The rows for {@code target} (analysed: {@code analysis}), new objects counted against {@code baseline} when it is
     * not null.
     *
     * @param limit at most this many rows (0: all)
     */
    public static QueryResult run(HeapSnapshot target, HeapAnalysis analysis, HeapSnapshot baseline, long limit) {
        AllocationSites sites = target.sites();
        int n = target.objectCount();
        boolean[] isNew = baseline == null ? null : SnapshotDiff.compare(baseline, target).isNew();
        int[] idom = analysis.immediateDominator();
        long[] retained = analysis.retainedSize();
        // per site (index + 1; 0 = no site): objects, bytes, retained, new objects, new bytes
        long[][] sum = new long[sites.siteCount() + 1][5];
        for (int o = 0; o < n; o++) {
            int site = sites.site(o);
            long[] s = sum[site + 1];
            s[0]++;
            s[1] = ByteSums.add(s[1], target.shallowSize(o));
            int d = idom[o];
            if (d < 0 || site == AllocationSites.NO_SITE || sites.site(d) != site) {
                s[2] = ByteSums.add(s[2], retained[o]);
            }
            if (isNew != null && isNew[o]) {
                s[3]++;
                s[4] = ByteSums.add(s[4], target.shallowSize(o));
            }
        }
        // sites of equal text (the same line reached under two names is two sites) are kept apart by their index
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < sum.length; i++) {
            long[] s = sum[i];
            if (s[0] == 0) {
                continue;
            }
            String site = i == 0 ? null : sites.text(i - 1);
            rows.add(new ArrayList<>(Arrays.asList(site, s[0], s[1], s[2], isNew == null ? null : s[3],
                isNew == null ? null : s[4])));
        }
        rows.sort(Comparator.comparing((List<Object> r) -> (Long) r.get(2), Comparator.reverseOrder())
            .thenComparing(r -> (Long) r.get(1), Comparator.reverseOrder())
            .thenComparing(r -> (String) r.get(0), Comparator.nullsLast(Comparator.naturalOrder())));
        return ModelRows.limited(COLUMNS, rows, limit);
    }
}
