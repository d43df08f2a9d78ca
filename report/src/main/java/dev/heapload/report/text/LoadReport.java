package dev.heapload.report.text;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.MemoryCategory;
import dev.heapload.queries.SafeText;
import dev.heapload.queries.TextTable;

/**
 * The text printed after a load: counts and bytes by type (largest first) and by memory category as
 * {@link TextTable}s, roots, repairs. Computed from the in-memory model (the same numbers were written to Neo4j).
 * Every string from the dump (id, source, type, category and root names, warnings) is printed in its
 * {@link SafeText#visible} form; type and category names longer than {@link #NAME_WIDTH} columns are cut.
 */
public final class LoadReport {

    private LoadReport() {
    }

    /** How many rows the by-type and by-category tables show; the others are counted in one line after the table. */
    public static final int TABLE_ROWS = 20;

    /** The full summary of snapshot {@code s} ({@link #print(HeapSnapshot, boolean, PrintStream)}, not brief). */
    public static void print(HeapSnapshot s, PrintStream out) {
        print(s, false, out);
    }

    /**
     * The summary of snapshot {@code s}: the headline, counts, VM total, reachability, then (unless {@code brief})
     * the by-type and by-category tables of at most {@link #TABLE_ROWS} rows each, then roots and repairs. A brief
     * summary (the snapshots of a load of several files, printed after the leak answer) leaves the tables out.
     */
    public static void print(HeapSnapshot s, boolean brief, PrintStream out) {
        int n = s.objectCount();
        int types = s.typeNames().size();
        long[] typeCount = new long[types];
        long[] typeBytes = new long[types];
        Map<Integer, long[]> byCategory = new TreeMap<>();
        long weak = 0;
        for (int r = 0; r < s.referenceCount(); r++) {
            if (s.isWeak(r)) {
                weak++;
            }
        }
        for (int o = 0; o < n; o++) {
            int t = s.typeId(o);
            typeCount[t]++;
            typeBytes[t] += s.shallowSize(o);
            long[] c = byCategory.computeIfAbsent(s.category(o), k -> new long[2]);
            c[0]++;
            c[1] += s.shallowSize(o);
        }
        var info = s.info();
        out.printf(Locale.ROOT, "snapshot %s (%s) from %s%n", v(info.id()), v(info.vm()), v(info.source()));
        out.printf(Locale.ROOT, "  objects     %,d (%,d bytes shallow)%n", n, s.totalShallowBytes());
        out.printf(Locale.ROOT, "  references  %,d (%,d strong, %,d weak)%n", s.referenceCount(),
            s.referenceCount() - weak, weak);
        String dangling = s.danglingReferences().summaryLine();
        if (dangling != null) {
            out.println("  " + dangling);
        }
        if (info.vmTotalBytes() >= 0 && "micropython".equals(info.vm())) {
            out.printf(Locale.ROOT, "  GC used     %,d bytes (gc_info: head and tail blocks of all allocations)%n",
                info.vmTotalBytes());
        } else if (info.vmTotalBytes() >= 0) {
            String what = !info.vm().equals("luau") && info.vm().startsWith("lua")
                ? "collectgarbage(\"count\") before the dump: every allocation, not only objects"
                : "stats.size: every allocation, not only objects";
            out.printf(Locale.ROOT, "  VM total    %,d bytes (%s)%n", info.vmTotalBytes(), what);
        }
        HeapAnalysis a = s.analysis();
        if (a != null) {
            long reachable = 0;
            long reachableBytes = 0;
            for (int o = 0; o < n; o++) {
                if (a.reachable()[o]) {
                    reachable++;
                    reachableBytes += s.shallowSize(o);
                }
            }
            out.printf(Locale.ROOT, "  reachable   %,d objects, %,d bytes; unreachable from exported roots %,d objects, %,d bytes%n",
                reachable, reachableBytes, n - reachable, s.totalShallowBytes() - reachableBytes);
        }
        if (brief) {
            printBriefEnd(s, out);
            return;
        }
        String all = "heapload query summary -p " + dev.heapload.queries.ExploreCommands.shellWord("snapshot=" + info.id())
            + " lists them all";
        out.println("  by type:");
        long[] typeRest = new long[3];
        printIndented(byType(s, typeCount, typeBytes, TABLE_ROWS, typeRest), out);
        if (typeRest[0] > 0) {
            out.printf(Locale.ROOT, "    \u2026 %,d more type(s): %,d objects, %,d bytes (%s)%n", typeRest[0], typeRest[1],
                typeRest[2], all);
        }
        if (!info.categories().isEmpty() || byCategory.keySet().stream().anyMatch(c -> c >= 0)) {
            TextTable table = new TextTable().column("id", TextTable.Align.RIGHT)
                .column("category", TextTable.Align.LEFT, NAME_WIDTH)
                .column("objects", TextTable.Align.RIGHT).column("object bytes", TextTable.Align.RIGHT)
                .column("VM bytes", TextTable.Align.RIGHT);
            TreeMap<Integer, Boolean> idSet = new TreeMap<>();
            info.categories().keySet().forEach(k -> idSet.put(k, true));
            byCategory.keySet().forEach(k -> idSet.put(k, true));
            List<Integer> ids = new ArrayList<>(idSet.keySet());
            boolean cut = ids.size() > TABLE_ROWS;
            // many categories: the largest (VM bytes, then object bytes) first, the rest counted in one line
            java.util.function.ToLongFunction<Integer> vmBytes = id -> {
                MemoryCategory mc = info.categories().get(id);
                return mc == null ? -1 : mc.bytes();
            };
            if (cut) {
                ids.sort(Comparator.<Integer>comparingLong(id -> -vmBytes.applyAsLong(id))
                    .thenComparingLong(id -> -byCategory.getOrDefault(id, new long[2])[1]).thenComparing(id -> id));
            }
            out.println(cut ? String.format(Locale.ROOT, "  by memory category (the %d largest of %,d):", TABLE_ROWS,
                ids.size()) : "  by memory category:");
            long[] rest = new long[3];
            for (int i = 0; i < ids.size(); i++) {
                int id = ids.get(i);
                MemoryCategory mc = info.categories().get(id);
                long[] c = byCategory.getOrDefault(id, new long[2]);
                if (i >= TABLE_ROWS) {
                    rest[0]++;
                    rest[1] += c[1];
                    rest[2] += Math.max(0, vmBytes.applyAsLong(id));
                    continue;
                }
                String name = mc != null && mc.name() != null ? v(mc.name()) : "";
                table.row(Integer.toString(id), name, number(c[0]), number(c[1]), mc == null ? "-" : number(mc.bytes()));
            }
            printIndented(table, out);
            if (cut) {
                out.printf(Locale.ROOT, "    \u2026 %,d more categories: %,d object bytes, %,d VM bytes (%s)%n", rest[0],
                    rest[1], rest[2], all);
            }
        }
        printBriefEnd(s, out);
    }

    /** Roots and repairs: the last lines of every summary. */
    private static void printBriefEnd(HeapSnapshot s, PrintStream out) {
        var info = s.info();
        StringBuilder roots = new StringBuilder("  roots:");
        for (HeapSnapshot.GcRoot root : s.roots()) {
            roots.append(' ').append(v(root.name())).append('=').append(s.address(root.object()));
        }
        out.println(roots);
        out.printf(Locale.ROOT, "  repaired spots: %s%n", info.warnings().isEmpty() ? "none" : info.warnings().size() + " kind(s)");
        for (String w : info.warnings()) {
            out.println("    warning: " + v(w));
        }
    }

    /** Type names longer than this many terminal columns are cut (ending in …) in the tables. */
    public static final int NAME_WIDTH = 40;

    /**
     * The by-type table: type, objects, bytes; the largest first (bytes descending, then objects descending, then the
     * name), types without objects left out, names {@link SafeText#visible} and cut at {@link #NAME_WIDTH} columns.
     */
    static TextTable byType(HeapSnapshot s, long[] typeCount, long[] typeBytes) {
        return byType(s, typeCount, typeBytes, Integer.MAX_VALUE, new long[3]);
    }

    /**
     * The by-type table of at most {@code rows} rows (the largest); {@code rest} gets the number of types left out,
     * their objects and their bytes.
     */
    static TextTable byType(HeapSnapshot s, long[] typeCount, long[] typeBytes, int rows, long[] rest) {
        List<Integer> order = new ArrayList<>();
        for (int t = 0; t < typeCount.length; t++) {
            if (typeCount[t] > 0) {
                order.add(t);
            }
        }
        order.sort(Comparator.<Integer>comparingLong(t -> -typeBytes[t]).thenComparingLong(t -> -typeCount[t])
            .thenComparing(t -> s.typeNames().get(t)));
        TextTable table = new TextTable().column("type", TextTable.Align.LEFT, NAME_WIDTH)
            .column("objects", TextTable.Align.RIGHT).column("bytes", TextTable.Align.RIGHT);
        for (int i = 0; i < order.size(); i++) {
            int t = order.get(i);
            if (i >= rows) {
                rest[0]++;
                rest[1] += typeCount[t];
                rest[2] += typeBytes[t];
                continue;
            }
            table.row(v(s.typeNames().get(t)), number(typeCount[t]), number(typeBytes[t]));
        }
        return table;
    }

    /** The table's lines, each after three blanks (the table's own leading blank makes the summary's 4). */
    private static void printIndented(TextTable table, PrintStream out) {
        for (String line : table.render().split("\n")) {
            out.println("   " + line);
        }
    }

    private static String number(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String v(String s) {
        return SafeText.visible(s);
    }
}
