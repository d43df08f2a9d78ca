package dev.heapload.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Objects whose shallow size cannot be true, and the snapshot with those sizes left out of every sum.
 *
 * <p>A size is <em>suspect</em> when the object is larger than the VM's own total of allocated bytes
 * ({@link SnapshotInfo#vmTotalBytes}, when the dump gives one: no object can outweigh every allocation), or, in a
 * Luau dump, when it is 2 GiB or more: Luau prints sizes as a 32-bit {@code int}, so such a size was printed negative
 * and corrected by adding 2^32 (shared/docs/formats/luau-luaC_dump.md §4, §6), and a real object of that size is
 * beyond its writer's formulas (a buffer is at most 1,073,741,832 bytes). Without a VM total (lua-snapshot's raw
 * tables), a size is judged against the other objects: 1 GiB or more and over {@value #OUTWEIGHS} times all other
 * objects together, or 2 GiB or more and over all of them, is suspect (lvzixun's lua-snapshot reports garbage userdata
 * sizes of about 2 GB: it reads the payload as the userdata header, lvzixun/lua-snapshot PR #6).
 *
 * <p>{@link #exclude} counts a suspect object as 0 bytes: it then weighs nothing in retained sizes, retainer rankings,
 * leak groups and gates; the snapshot's warnings list them with the size the dump gave. {@code --trust-sizes} skips
 * this.
 */
public final class SuspectSizes {

    /** 2 GiB: Luau sizes at or above it were printed negative. */
    public static final long TWO_GIB = 1L << 31;

    /** 1 GiB: without a VM total, a size this large that outweighs the other objects {@link #OUTWEIGHS} times is suspect. */
    public static final long ONE_GIB = 1L << 30;

    /** How many times an object without a VM total must outweigh all others together to be suspect at 1 GiB. */
    public static final int OUTWEIGHS = 4;

    /** How many suspect objects a warning names; the count is always complete. */
    public static final int LISTED = 10;

    /** The first words of the warning {@link #exclude} adds (for the load summary to find it). */
    public static final String WARNING_PREFIX = "suspect sizes:";

    private SuspectSizes() {
    }

    /** One suspect object: its id, and its size as the dump gave it, in bytes. */
    public record Suspect(int object, long size) {
    }

    /** The suspect objects of {@code s}, in object-id order (see the class comment). */
    public static List<Suspect> find(HeapSnapshot s) {
        long vmTotal = s.info().vmTotalBytes();
        boolean luau = "luau".equals(s.info().vm());
        long[] sizes = s.shallowSizeColumn();
        long total = s.totalShallowBytes();
        List<Suspect> out = new ArrayList<>();
        for (int o = 0; o < sizes.length; o++) {
            long size = sizes[o];
            boolean suspect;
            if (vmTotal >= 0 && size > vmTotal) {
                suspect = true;
            } else if (luau && size >= TWO_GIB) {
                suspect = true;
            } else {
                long others = total - size;
                suspect = vmTotal < 0 && ((size >= TWO_GIB && size > others)
                    || (size >= ONE_GIB && size / OUTWEIGHS > others));
            }
            if (suspect) {
                out.add(new Suspect(o, size));
            }
        }
        return out;
    }

    /**
     * {@code s} with the sizes of its suspect objects set to 0 and a warning listing them ({@value #WARNING_PREFIX}
     * count, then up to {@value #LISTED} as {@code address type size}); {@code s} itself when there is none. Call
     * before the analysis.
     */
    public static HeapSnapshot exclude(HeapSnapshot s) {
        List<Suspect> suspects = find(s);
        if (suspects.isEmpty()) {
            return s;
        }
        long[] sizes = s.shallowSizeColumn().clone();
        StringBuilder w = new StringBuilder(String.format(Locale.ROOT, "%s %,d object(s) %s: counted as 0 bytes in"
            + " retained sizes, rankings, leak groups and gates (--trust-sizes keeps them):", WARNING_PREFIX, suspects.size(),
            s.info().vmTotalBytes() >= 0
                ? String.format(Locale.ROOT, "larger than the VM's own total (%,d bytes) or printed negative",
                    s.info().vmTotalBytes())
                : "luau".equals(s.info().vm()) ? "larger than the VM's own total or printed negative"
                : "of a GiB or more outweighing all other objects together (no VM total to judge them by)"));
        for (int i = 0; i < suspects.size(); i++) {
            Suspect x = suspects.get(i);
            sizes[x.object()] = 0;
            if (i < LISTED) {
                w.append(String.format(Locale.ROOT, " %s %s %,d bytes;", s.address(x.object()), s.type(x.object()), x.size()));
            }
        }
        if (suspects.size() > LISTED) {
            w.append(String.format(Locale.ROOT, " and %,d more", suspects.size() - LISTED));
        } else {
            w.setLength(w.length() - 1);
        }
        SnapshotInfo info = s.info();
        List<String> warnings = new ArrayList<>(info.warnings());
        warnings.add(w.toString());
        SnapshotInfo out = info.withWarnings(warnings);
        HeapSnapshot copy = new HeapSnapshot(out, s.typeNames().toArray(String[]::new), s.referenceKinds().toArray(String[]::new),
            s.nameTable(), s.addressColumn(), s.addressFormat(), s.opaqueAddressColumn(), sizes, s.typeColumn(),
            s.categoryColumn(), s.labelColumn(), s.firstReferenceColumn(), s.referenceTargetColumn(),
            s.referenceKindColumn(), s.referenceFlagsColumn(), s.referenceNameColumn(), s.frameReferenceColumn(),
            s.frameNameColumn(), s.roots(), s.danglingReferences());
        copy.setSites(s.sites());
        return copy;
    }
}
