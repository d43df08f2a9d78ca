package dev.heapload.report.text;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.heapload.analysis.HeapAnalysis;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.MemoryCategory;
import dev.heapload.queries.SafeText;

/**
 * The text printed after a load: counts and bytes by type and memory category, roots, repairs. Computed
 * from the in-memory model (the same numbers were written to Neo4j). Every string from the dump (id, source, type,
 * category and root names, warnings) is printed in its {@link SafeText#visible} form.
 */
public final class LoadReport {

    private LoadReport() {
    }

    public static void print(HeapSnapshot s, PrintStream out) {
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
        out.println("  by type:");
        for (int t = 0; t < types; t++) {
            if (typeCount[t] > 0) {
                out.printf(Locale.ROOT, "    %-12s %,10d objects %,14d bytes%n", v(s.typeNames().get(t)), typeCount[t], typeBytes[t]);
            }
        }
        if (!info.categories().isEmpty() || byCategory.keySet().stream().anyMatch(c -> c >= 0)) {
            out.println("  by memory category:          objects   object bytes       VM bytes");
            TreeMap<Integer, Boolean> ids = new TreeMap<>();
            info.categories().keySet().forEach(k -> ids.put(k, true));
            byCategory.keySet().forEach(k -> ids.put(k, true));
            for (int id : ids.keySet()) {
                MemoryCategory mc = info.categories().get(id);
                long[] c = byCategory.getOrDefault(id, new long[2]);
                String name = mc != null && mc.name() != null ? v(mc.name()) : "";
                out.printf(Locale.ROOT, "    %3d %-20s %,10d %,14d %14s%n", id, clip(name, 20), c[0], c[1],
                    mc == null ? "-" : String.format(Locale.ROOT, "%,d", mc.bytes()));
            }
        }
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

    private static String v(String s) {
        return SafeText.visible(s);
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
