package dev.heapload.report.svg;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import dev.heapload.queries.QueryResult;

/**
 * Draws the history of a store (the saved queries {@code trend} and {@code trend-categories}) as one
 * self-contained SVG element: a bytes panel (the snapshots' shallow bytes as a line with one point per snapshot, the
 * VM's own byte count as a dashed line, and per memory category one line: the five largest categories by their
 * largest byte count, the others summed as "other") above an objects panel (one bar per snapshot), with the
 * snapshots in load order along the x axis.
 *
 * <p>The SVG uses presentation attributes only (no style sheet, no script, no element ids, no external fonts or
 * images), so it can be written to a file or placed inline in an HTML page any number of times. Each point and bar
 * carries a {@code <title>} tooltip with the snapshot's figures. Every string from a dump or the store (snapshot
 * ids, category names, load times) is XML-escaped, and characters XML forbids become U+FFFD.
 *
 * <p>Shapes: points of the total line are {@code <circle class="snapshot-point">}, bars {@code <rect
 * class="snapshot-bar">}, category points {@code <circle class="category-point">}, one of each per snapshot.
 */
public final class TrendChartSvg {

    /** Width of the whole chart, in pixels. */
    public static final int WIDTH = 900;
    private static final int LEFT = 80;
    private static final int PLOT_WIDTH = 580;
    private static final int LEGEND_X = LEFT + PLOT_WIDTH + 30;
    private static final int TOP = 40;
    private static final int BYTES_HEIGHT = 220;
    private static final int PANEL_GAP = 40;
    private static final int OBJECTS_HEIGHT = 120;
    /** Categories drawn as lines of their own; the rest are summed into "other". */
    public static final int TOP_CATEGORIES = 5;
    /** At most this many x-axis labels; with more snapshots every k-th is labelled. */
    private static final int MAX_LABELS = 25;
    private static final int MAX_LABEL_CHARS = 20;
    private static final String[] PALETTE = {"#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00"};
    private static final String OTHER_COLOR = "#999999";
    private static final String TOTAL_COLOR = "#222222";

    private TrendChartSvg() {
    }

    /**
     * One snapshot of the history.
     *
     * @param snapshot the snapshot id
     * @param loadedAt when it was loaded (text, shown as given), or {@code null}
     * @param objects  objects (or the category's objects), or {@code null} when unknown
     * @param bytes    shallow bytes (or the category's), or {@code null} when unknown
     * @param vmBytes  the VM's own byte count (of the snapshot or the category), or {@code null} when unknown
     */
    public record Snapshot(String snapshot, String loadedAt, Long objects, Long bytes, Long vmBytes) {
        public Snapshot {
            Objects.requireNonNull(snapshot, "snapshot");
        }
    }

    /**
     * Bytes of one memory category in each snapshot.
     *
     * @param label the legend text, e.g. {@code "200 Plugin.Profiler"}
     * @param bytes shallow bytes per snapshot, in the order of the snapshots (0 where the category has no objects)
     */
    public record CategorySeries(String label, long[] bytes) {
        public CategorySeries {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(bytes, "bytes");
        }
    }

    /**
     * The chart of the rows of the saved queries.
     *
     * @param trend      rows of {@code trend} (columns {@code snapshot, loadedAt, objects, bytes, vmBytes} are
     *                   read by name; with {@code -p category=N} the chart shows that category)
     * @param categories rows of {@code trend-categories} (columns {@code snapshot, category, name, bytes}), or
     *                   {@code null} for no category lines; lines are drawn only when there are two or more
     *                   categories
     * @param title      the heading (escaped here)
     * @return the {@code <svg>} element (no XML declaration), UTF-8 text
     * @throws IllegalArgumentException when a needed column is missing
     */
    public static String render(QueryResult trend, QueryResult categories, String title) {
        List<Snapshot> snapshots = snapshots(trend);
        List<CategorySeries> series = categories == null ? List.of() : categorySeries(snapshots, categories);
        return render(snapshots, series, title);
    }

    /**
     * The snapshots of {@code trend} rows, in row order.
     *
     * @throws IllegalArgumentException when a column {@code snapshot, loadedAt, objects, bytes, vmBytes} is missing
     */
    public static List<Snapshot> snapshots(QueryResult trend) {
        int id = column(trend, "snapshot");
        int at = column(trend, "loadedAt");
        int objects = column(trend, "objects");
        int bytes = column(trend, "bytes");
        int vm = column(trend, "vmBytes");
        List<Snapshot> out = new ArrayList<>();
        for (List<Object> row : trend.rows()) {
            out.add(new Snapshot(String.valueOf(row.get(id)), row.get(at) == null ? null : String.valueOf(row.get(at)),
                number(row.get(objects)), number(row.get(bytes)), number(row.get(vm))));
        }
        return out;
    }

    /**
     * One series per category of {@code trend-categories} rows, aligned to {@code snapshots} (rows of other snapshots
     * are ignored): the {@value #TOP_CATEGORIES} categories with the largest byte count in any snapshot, in that
     * order, and when more remain one series "other (N categories)" with their sum. A single remaining category is
     * drawn as itself rather than as "other".
     *
     * @throws IllegalArgumentException when a column {@code snapshot, category, name, bytes} is missing
     */
    public static List<CategorySeries> categorySeries(List<Snapshot> snapshots, QueryResult categories) {
        int id = column(categories, "snapshot");
        int cat = column(categories, "category");
        int name = column(categories, "name");
        int bytes = column(categories, "bytes");
        Map<String, Integer> index = new LinkedHashMap<>();
        for (int i = 0; i < snapshots.size(); i++) {
            index.putIfAbsent(snapshots.get(i).snapshot(), i);
        }
        // per category id (null: the VM has no categories): the first name seen labels it
        Map<Long, String> labels = new LinkedHashMap<>();
        Map<Long, long[]> values = new LinkedHashMap<>();
        for (List<Object> row : categories.rows()) {
            Integer i = index.get(String.valueOf(row.get(id)));
            if (i == null) {
                continue;
            }
            Long c = number(row.get(cat));
            if (!labels.containsKey(c) || (row.get(name) != null && labels.get(c).equals(c == null ? "-" : c.toString()))) {
                String key = c == null ? "-" : c.toString();
                labels.put(c, row.get(name) == null ? key : key + " " + row.get(name));
            }
            Long b = number(row.get(bytes));
            values.computeIfAbsent(c, k -> new long[snapshots.size()])[i] += b == null ? 0 : b;
        }
        if (values.size() < 2) {
            return List.of();
        }
        List<Long> order = new ArrayList<>(values.keySet());
        order.sort(Comparator.<Long>comparingLong(c -> -max(values.get(c)))
            .thenComparingLong(c -> c == null ? -1 : c));
        int shown = order.size() <= TOP_CATEGORIES + 1 ? order.size() : TOP_CATEGORIES;
        List<CategorySeries> out = new ArrayList<>();
        for (int k = 0; k < shown; k++) {
            out.add(new CategorySeries(labels.get(order.get(k)), values.get(order.get(k))));
        }
        if (shown < order.size()) {
            long[] other = new long[snapshots.size()];
            for (int k = shown; k < order.size(); k++) {
                long[] v = values.get(order.get(k));
                for (int i = 0; i < other.length; i++) {
                    other[i] += v[i];
                }
            }
            out.add(new CategorySeries("other (" + (order.size() - shown) + " categories)", other));
        }
        return out;
    }

    /**
     * The chart of {@code snapshots} (in load order) with one line per entry of {@code categories}.
     *
     * @param snapshots  the snapshots, in load order (none: a chart saying so)
     * @param categories category lines (each with one value per snapshot), or an empty list
     * @param title      the heading (escaped here)
     * @return the {@code <svg>} element (no XML declaration)
     * @throws IllegalArgumentException when a series does not have one value per snapshot
     */
    public static String render(List<Snapshot> snapshots, List<CategorySeries> categories, String title) {
        for (CategorySeries s : categories) {
            if (s.bytes().length != snapshots.size()) {
                throw new IllegalArgumentException("category series '" + s.label() + "' has " + s.bytes().length
                    + " values for " + snapshots.size() + " snapshots");
            }
        }
        int n = snapshots.size();
        int objectsTop = TOP + BYTES_HEIGHT + PANEL_GAP;
        int longest = 0;
        for (Snapshot s : snapshots) {
            longest = Math.max(longest, Math.min(MAX_LABEL_CHARS, s.snapshot().codePointCount(0, s.snapshot().length())));
        }
        // rotated labels need about 3.8 px of height per character
        int height = objectsTop + OBJECTS_HEIGHT + Math.max(40, 24 + (int) Math.ceil(longest * 3.8));
        StringBuilder sb = new StringBuilder(4096 + n * 600 * (1 + categories.size()));
        sb.append(String.format(Locale.ROOT, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            + "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"11\" "
            + "class=\"heapload-trend\">\n", WIDTH, height, WIDTH, height));
        sb.append("<title>").append(esc(title)).append("</title>\n");
        sb.append(String.format(Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            WIDTH, height));
        sb.append("<text x=\"").append(LEFT).append("\" y=\"22\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">")
            .append(esc(title)).append("</text>\n");
        if (n == 0) {
            sb.append("<text x=\"").append(LEFT).append("\" y=\"").append(TOP + 40)
                .append("\" fill=\"#444444\">no snapshots in the store</text>\n</svg>\n");
            return sb.toString();
        }
        long bytesMax = 0;
        boolean vmLine = false;
        for (Snapshot s : snapshots) {
            bytesMax = Math.max(bytesMax, value(s.bytes()));
            bytesMax = Math.max(bytesMax, value(s.vmBytes()));
            vmLine |= s.vmBytes() != null && !s.vmBytes().equals(s.bytes());
        }
        for (CategorySeries c : categories) {
            bytesMax = Math.max(bytesMax, max(c.bytes()));
        }
        long objectsMax = 0;
        for (Snapshot s : snapshots) {
            objectsMax = Math.max(objectsMax, value(s.objects()));
        }
        Scale bytesScale = Scale.of(bytesMax, true);
        Scale objectsScale = Scale.of(objectsMax, false);
        double bytesTop = bytesScale.top();
        double objectsTopValue = objectsScale.top();
        double step = (double) PLOT_WIDTH / n;

        // bytes panel
        sb.append("<g class=\"bytes-panel\">\n");
        axis(sb, TOP, BYTES_HEIGHT, bytesScale);
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#444444\">bytes</text>\n", 8, TOP - 6));
        for (int k = 0; k < categories.size(); k++) {
            CategorySeries c = categories.get(k);
            String color = k == categories.size() - 1 && c.label().startsWith("other (") ? OTHER_COLOR
                : PALETTE[k % PALETTE.length];
            long[] v = c.bytes();
            Long[] boxed = new Long[v.length];
            for (int i = 0; i < v.length; i++) {
                boxed[i] = v[i];
            }
            line(sb, boxed, step, TOP, BYTES_HEIGHT, bytesTop, color, 1.5, null);
            for (int i = 0; i < n; i++) {
                double x = LEFT + step * (i + 0.5);
                double y = y(v[i], TOP, BYTES_HEIGHT, bytesTop);
                sb.append(String.format(Locale.ROOT,
                    "<circle class=\"category-point\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>", x, y, color));
                sb.append(esc(c.label())).append(" in ").append(esc(snapshots.get(i).snapshot())).append(": ")
                    .append(bytes(v[i]));
                if (i > 0) {
                    sb.append(" (").append(signedBytes(v[i] - v[i - 1])).append(")");
                }
                sb.append("</title></circle>\n");
            }
        }
        if (vmLine) {
            Long[] vm = snapshots.stream().map(Snapshot::vmBytes).toArray(Long[]::new);
            line(sb, vm, step, TOP, BYTES_HEIGHT, bytesTop, "#666666", 1.5, "6 4");
        }
        Long[] totals = snapshots.stream().map(Snapshot::bytes).toArray(Long[]::new);
        line(sb, totals, step, TOP, BYTES_HEIGHT, bytesTop, TOTAL_COLOR, 2.5, null);
        for (int i = 0; i < n; i++) {
            Snapshot s = snapshots.get(i);
            double x = LEFT + step * (i + 0.5);
            double y = s.bytes() == null ? TOP + BYTES_HEIGHT : y(s.bytes(), TOP, BYTES_HEIGHT, bytesTop);
            sb.append(String.format(Locale.ROOT,
                "<circle class=\"snapshot-point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#ffffff\" "
                    + "stroke-width=\"1\"><title>", x, y, s.bytes() == null ? "none" : TOTAL_COLOR));
            tooltip(sb, snapshots, i);
            sb.append("</title></circle>\n");
        }
        sb.append("</g>\n");

        // objects panel
        sb.append("<g class=\"objects-panel\">\n");
        axis(sb, objectsTop, OBJECTS_HEIGHT, objectsScale);
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#444444\">objects</text>\n", 8,
            objectsTop - 6));
        double barWidth = Math.max(1, Math.min(40, step * 0.6));
        for (int i = 0; i < n; i++) {
            Snapshot s = snapshots.get(i);
            double x = LEFT + step * (i + 0.5) - barWidth / 2;
            double top = y(value(s.objects()), objectsTop, OBJECTS_HEIGHT, objectsTopValue);
            sb.append(String.format(Locale.ROOT,
                "<rect class=\"snapshot-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#56B4E9\" "
                    + "stroke=\"#0072B2\" stroke-width=\"0.5\"><title>", x, top, barWidth, objectsTop + OBJECTS_HEIGHT - top));
            tooltip(sb, snapshots, i);
            sb.append("</title></rect>\n");
        }
        sb.append("</g>\n");

        // x axis labels: snapshot ids in load order
        int every = (n + MAX_LABELS - 1) / MAX_LABELS;
        int labelY = objectsTop + OBJECTS_HEIGHT + 14;
        for (int i = 0; i < n; i += every) {
            double x = LEFT + step * (i + 0.5);
            String id = snapshots.get(i).snapshot();
            String shown = id.codePointCount(0, id.length()) > MAX_LABEL_CHARS
                ? id.substring(0, id.offsetByCodePoints(0, MAX_LABEL_CHARS - 1)) + "\u2026" : id;
            sb.append(String.format(Locale.ROOT,
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" fill=\"#222222\" transform=\"rotate(-35 %.1f %d)\">"
                    + "<title>", x, labelY, x, labelY));
            sb.append(esc(id)).append("</title>").append(esc(shown)).append("</text>\n");
        }

        // legend
        int ly = TOP + 4;
        ly = legendLine(sb, ly, TOTAL_COLOR, null, 2.5, "object bytes (shallow)");
        if (vmLine) {
            ly = legendLine(sb, ly, "#666666", "6 4", 1.5, "VM bytes");
        }
        for (int k = 0; k < categories.size(); k++) {
            CategorySeries c = categories.get(k);
            String color = k == categories.size() - 1 && c.label().startsWith("other (") ? OTHER_COLOR
                : PALETTE[k % PALETTE.length];
            ly = legendLine(sb, ly, color, null, 1.5, c.label());
        }
        sb.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" fill=\"#56B4E9\" stroke=\"#0072B2\" stroke-width=\"0.5\"/>"
                + "<text x=\"%d\" y=\"%d\" fill=\"#222222\">objects</text>\n", LEGEND_X, objectsTop + 2, LEGEND_X + 22,
            objectsTop + 11));
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static int legendLine(StringBuilder sb, int y, String color, String dash, double width, String label) {
        String shown = label.codePointCount(0, label.length()) > 28
            ? label.substring(0, label.offsetByCodePoints(0, 27)) + "\u2026" : label;
        sb.append(String.format(Locale.ROOT,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%.1f\"%s/>", LEGEND_X, y + 5,
            LEGEND_X + 14, y + 5, color, width, dash == null ? "" : " stroke-dasharray=\"" + dash + "\""));
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#222222\"><title>", LEGEND_X + 22, y + 9))
            .append(esc(label)).append("</title>").append(esc(shown)).append("</text>\n");
        return y + 18;
    }

    /** Gridlines and value labels of one panel. */
    private static void axis(StringBuilder sb, int top, int height, Scale scale) {
        for (int t = 0; t <= scale.ticks(); t++) {
            double y = top + height - (double) height * t / scale.ticks();
            sb.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#444444\">%s</text>\n",
                LEFT, y, LEFT + PLOT_WIDTH, y, t == 0 ? "#888888" : "#e4e4e4", LEFT - 6, y + 4, scale.label(t)));
        }
    }

    /**
     * A value axis from 0 to {@code ticks × step} display units, gridlines every {@code step}: the step is the
     * smallest 1, 2 or 5 × 10^k at or above a fifth of the largest value, so there are at most 5 gridlines above 0,
     * all on round values.
     *
     * @param unit     bytes (or objects) per display unit: 1, 1024, 1024²…
     * @param unitName {@code B}, {@code KiB}, … for bytes; empty for counts
     */
    public record Scale(double unit, String unitName, double step, int ticks) {

        static Scale of(long max, boolean bytes) {
            double unit = 1;
            String name = "";
            if (bytes) {
                String[] names = {"B", "KiB", "MiB", "GiB", "TiB"};
                int u = 0;
                while (max / unit >= 1024 && u < names.length - 1) {
                    unit *= 1024;
                    u++;
                }
                name = names[u];
            }
            double m = max / unit;
            double target = m / 5;
            double step = 1;
            if (target > 0) {
                double p = Math.pow(10, Math.floor(Math.log10(target)));
                step = 10 * p;
                for (double k : new double[] {1, 2, 5}) {
                    if (k * p >= target * (1 - 1e-9)) {
                        step = k * p;
                        break;
                    }
                }
            }
            if (unit == 1) {
                step = Math.max(1, Math.round(step));
            }
            int ticks = (int) Math.max(1, Math.ceil(m / step - 1e-9));
            return new Scale(unit, name, step, ticks);
        }

        /** The largest value on the axis, in bytes (or objects). */
        double top() {
            return unit * step * ticks;
        }

        /** The label of gridline {@code t} (0 at the bottom). */
        String label(int t) {
            if (t == 0) {
                return "0";
            }
            double v = step * t;
            String number = v == Math.rint(v) ? String.format(Locale.ROOT, "%,d", (long) v)
                : String.format(Locale.ROOT, "%.1f", v);
            return unitName.isEmpty() ? number : number + " " + unitName;
        }
    }

    /** A polyline through the non-null values (a gap where a value is null). */
    private static void line(StringBuilder sb, Long[] values, double step, int top, int height, double maxValue,
                             String color, double width, String dash) {
        StringBuilder points = new StringBuilder();
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                if (points.length() > 0) {
                    parts.add(points.toString());
                    points.setLength(0);
                }
                continue;
            }
            points.append(String.format(Locale.ROOT, "%s%.1f,%.1f", points.length() == 0 ? "" : " ",
                LEFT + step * (i + 0.5), y(values[i], top, height, maxValue)));
        }
        if (points.length() > 0) {
            parts.add(points.toString());
        }
        for (String p : parts) {
            sb.append("<polyline points=\"").append(p).append("\" fill=\"none\" stroke=\"").append(color)
                .append(String.format(Locale.ROOT, "\" stroke-width=\"%.1f\" stroke-linejoin=\"round\"", width))
                .append(dash == null ? "" : " stroke-dasharray=\"" + dash + "\"").append("/>\n");
        }
    }

    private static void tooltip(StringBuilder sb, List<Snapshot> snapshots, int i) {
        Snapshot s = snapshots.get(i);
        sb.append(esc(s.snapshot()));
        if (s.loadedAt() != null) {
            sb.append(" (loaded ").append(esc(s.loadedAt())).append(")");
        }
        sb.append("\nobjects: ").append(s.objects() == null ? "unknown" : count(s.objects()));
        sb.append("\nbytes: ").append(s.bytes() == null ? "unknown" : bytes(s.bytes()));
        if (s.vmBytes() != null) {
            sb.append("\nVM bytes: ").append(bytes(s.vmBytes()));
        }
        if (i > 0) {
            Snapshot p = snapshots.get(i - 1);
            if (s.objects() != null && p.objects() != null && s.bytes() != null && p.bytes() != null) {
                long dObjects = s.objects() - p.objects();
                sb.append("\nchange from ").append(esc(p.snapshot())).append(": ")
                    .append(dObjects >= 0 ? "+" : "").append(count(dObjects)).append(" objects, ")
                    .append(signedBytes(s.bytes() - p.bytes()));
            }
        }
    }

    private static double y(long v, int top, int height, double maxValue) {
        return top + height - (maxValue <= 0 ? 0 : (double) v / maxValue * height);
    }

    private static long max(long[] values) {
        long m = 0;
        for (long v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    private static long value(Long v) {
        return v == null ? 0 : v;
    }

    private static Long number(Object o) {
        return o instanceof Number num ? num.longValue() : null;
    }

    private static int column(QueryResult r, String name) {
        int i = r.columns().indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("the rows have no column '" + name + "' (columns: "
                + String.join(", ", r.columns()) + ")");
        }
        return i;
    }

    /** Bytes with a binary unit: {@code 512 B}, {@code 65.2 KiB}, {@code 2.31 MiB}. */
    public static String bytes(long v) {
        long a = Math.abs(v);
        if (a < 1024) {
            return v + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double d = v / 1024.0;
        int u = 0;
        while (Math.abs(d) >= 1024 && u < units.length - 1) {
            d /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, Math.abs(d) >= 100 ? "%.0f %s" : Math.abs(d) >= 10 ? "%.1f %s" : "%.2f %s", d,
            units[u]);
    }

    private static String signedBytes(long v) {
        return (v >= 0 ? "+" : "") + bytes(v) + (Math.abs(v) >= 1024 ? String.format(Locale.ROOT, " (%,d B)", v) : "");
    }

    private static String count(long v) {
        return String.format(Locale.ROOT, "%,d", v);
    }

    private static String esc(String s) {
        return IcicleSvg.escape(s);
    }
}
