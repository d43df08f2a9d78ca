package dev.heapload.model;

import java.util.Arrays;

/**
 * Where each object of a snapshot was allocated, when the dumper tracked allocations (Lua: {@code heapdump.track}):
 * a table of sites (source, line, function name, as the dump's {@code tracking.sites} gives them) and, per object, the
 * index of its site or {@link #NO_SITE} (allocated while not tracking). Columns are primitive arrays indexed by object
 * id; the site strings are dump data.
 */
public final class AllocationSites {

    /** The site of an object allocated while the dumper was not tracking. */
    public static final int NO_SITE = -1;

    /** A snapshot whose dump tracked nothing: no sites at all. */
    public static final AllocationSites NONE = new AllocationSites(new String[0], new int[0], new String[0], null);

    private final String[] sources;
    private final int[] lines;
    private final String[] functions;
    private final int[] siteOf;

    /**
     * @param sources   per site, the chunk name (Lua's {@code short_src}, e.g. {@code program.lua})
     * @param lines     per site, the current line when the object was allocated (-1 when unknown)
     * @param functions per site, the function that ran: the name it was called under, {@code main chunk}, or
     *                  {@code function <source:line>}
     * @param siteOf    per object id, its site index or {@link #NO_SITE}; null when nothing was tracked
     */
    public AllocationSites(String[] sources, int[] lines, String[] functions, int[] siteOf) {
        if (sources.length != lines.length || lines.length != functions.length) {
            throw new IllegalArgumentException("site columns of different lengths");
        }
        this.sources = sources;
        this.lines = lines;
        this.functions = functions;
        this.siteOf = siteOf;
    }

    /** Whether the dump tracked allocations (it has a site table, possibly empty). */
    public boolean tracked() {
        return siteOf != null;
    }

    /** Number of sites. */
    public int siteCount() {
        return sources.length;
    }

    /** The site index of {@code object}, or {@link #NO_SITE}. */
    public int site(int object) {
        return siteOf == null || object >= siteOf.length ? NO_SITE : siteOf[object];
    }

    /** Chunk name of a site. */
    public String source(int site) {
        return sources[site];
    }

    /** Line of a site (-1 when unknown). */
    public int line(int site) {
        return lines[site];
    }

    /** Function name of a site. */
    public String function(int site) {
        return functions[site];
    }

    /** A site as one line of text, e.g. {@code program.lua:12 in make}; dump data, escape it where it is output. */
    public String text(int site) {
        return sources[site] + ":" + lines[site] + " in " + functions[site];
    }

    /** The per-object site column (object id → site index), or null when nothing was tracked; shared, not copied. */
    public int[] siteColumn() {
        return siteOf;
    }

    /** Number of objects that have a site. */
    public int objectsWithSite() {
        if (siteOf == null) {
            return 0;
        }
        return (int) Arrays.stream(siteOf).filter(s -> s != NO_SITE).count();
    }
}
