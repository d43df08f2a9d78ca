package dev.heapload.model;

import java.util.Arrays;
import java.util.Locale;

/**
 * The references of a dump whose other end has no object record ("references to nothing"), counted per
 * {@link Reason} and, when the reader was asked to keep them ({@code --keep-dangling}), listed one by one so the
 * store can write them as {@code (:Missing {address, reason})} nodes and the graph's reference count equals the
 * producer's.
 *
 * <h2>Shape</h2>
 * {@link #count(Reason)} per reason; {@link #total()} their sum; {@link #producerReferences()} = the references of
 * the model + {@link #total()} (every reference the dump wrote). When kept: {@link #missingCount()} distinct missing
 * addresses ({@link #missingAddress}, {@link #missingReason}) and {@link #keptCount()} references, each between an
 * object of the model ({@link #object}) and a missing address ({@link #missing}), with kind, name and flags as in the
 * dump; {@link #incoming} when the missing address is the source (lua-snapshot parent lines name the referrer).
 *
 * <p>Immutable.
 */
public final class DanglingReferences {

    /** Why an address has no object. */
    public enum Reason {
        /** A value the VM or the producer uses for "no object": 0/NULL in any spelling, or a sentinel the reader names. */
        SENTINEL("sentinel"),
        /** An address outside every heap area (the reader's areas, else the span of the dump's object addresses). */
        OUTSIDE_HEAP("outside every heap area"),
        /** An address inside the heap where the dump has no object (freed before the dump, or a forged/corrupt value). */
        NO_OBJECT("inside the heap but no object");

        private final String text;

        Reason(String text) {
            this.text = text;
        }

        /** The words the summary and the {@code Missing.reason} property use. */
        public String text() {
            return text;
        }
    }

    /** No references to nothing. */
    public static final DanglingReferences NONE = new DanglingReferences(new long[3], 0, new String[0], new byte[0],
        new int[0], new int[0], new String[0], new String[0], new byte[0], new boolean[0]);

    private final long[] counts;
    private final long modelReferences;
    private final String[] missingAddresses;
    private final byte[] missingReasons;
    private final int[] objects;
    private final int[] missing;
    private final String[] kinds;
    private final String[] names;
    private final byte[] flags;
    private final boolean[] incoming;

    DanglingReferences(long[] counts, long modelReferences, String[] missingAddresses, byte[] missingReasons,
                       int[] objects, int[] missing, String[] kinds, String[] names, byte[] flags, boolean[] incoming) {
        this.counts = counts.clone();
        this.modelReferences = modelReferences;
        this.missingAddresses = missingAddresses;
        this.missingReasons = missingReasons;
        this.objects = objects;
        this.missing = missing;
        this.kinds = kinds;
        this.names = names;
        this.flags = flags;
        this.incoming = incoming;
    }

    /** References to nothing for one reason. */
    public long count(Reason reason) {
        return counts[reason.ordinal()];
    }

    /** References to nothing, all reasons. */
    public long total() {
        return Arrays.stream(counts).sum();
    }

    /** Every reference the dump wrote: the model's references plus {@link #total()}. */
    public long producerReferences() {
        return modelReferences + total();
    }

    /** {@link #total()} / {@link #producerReferences()}, 0 when the dump has no references. */
    public double share() {
        long all = producerReferences();
        return all == 0 ? 0 : (double) total() / all;
    }

    /** Number of distinct missing addresses kept (0 unless kept). */
    public int missingCount() {
        return missingAddresses.length;
    }

    /** The address text of missing address {@code i}, as the dump spelled it. */
    public String missingAddress(int i) {
        return missingAddresses[i];
    }

    /** Why missing address {@code i} has no object. */
    public Reason missingReason(int i) {
        return Reason.values()[missingReasons[i]];
    }

    /** Number of references kept (0 unless kept; then {@link #total()}). */
    public int keptCount() {
        return objects.length;
    }

    /** The object end (an id of the model) of kept reference {@code r}. */
    public int object(int r) {
        return objects[r];
    }

    /** The missing end (index of {@link #missingAddress}) of kept reference {@code r}. */
    public int missing(int r) {
        return missing[r];
    }

    /** The reference kind of kept reference {@code r}, e.g. {@code value}. */
    public String kind(int r) {
        return kinds[r];
    }

    /** The name of kept reference {@code r}, or {@code null}. */
    public String name(int r) {
        return names[r];
    }

    /** The flag bits ({@link HeapSnapshot#WEAK} …) of kept reference {@code r}. */
    public int flags(int r) {
        return flags[r];
    }

    /** True when the missing address is the source of kept reference {@code r} (it refers to the object). */
    public boolean incoming(int r) {
        return incoming[r];
    }

    /**
     * The summary line: {@code references to nothing: 3 of 120 (2.5 %): 1 sentinel, 1 outside every heap area, 1 inside
     * the heap but no object; kept as Missing nodes} (or {@code dropped (--keep-dangling keeps them as Missing nodes)}),
     * or {@code null} when there are none.
     */
    public String summaryLine() {
        if (total() == 0) {
            return null;
        }
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "references to nothing: %,d of %,d (%.1f %%):",
            total(), producerReferences(), share() * 100));
        String sep = " ";
        for (Reason r : Reason.values()) {
            s.append(sep).append(String.format(Locale.ROOT, "%,d ", count(r))).append(r.text());
            sep = ", ";
        }
        s.append(keptCount() > 0 ? "; kept as Missing nodes" : "; dropped (--keep-dangling keeps them as Missing nodes)");
        return s.toString();
    }

    // codec access (HeapSnapshotFile)

    long[] countColumn() {
        return counts;
    }

    long modelReferences() {
        return modelReferences;
    }

    String[] missingAddressColumn() {
        return missingAddresses;
    }

    byte[] missingReasonColumn() {
        return missingReasons;
    }

    int[] objectColumn() {
        return objects;
    }

    int[] missingColumn() {
        return missing;
    }

    String[] kindColumn() {
        return kinds;
    }

    String[] nameColumn() {
        return names;
    }

    byte[] flagColumn() {
        return flags;
    }

    boolean[] incomingColumn() {
        return incoming;
    }
}
