package dev.heapload.io;

import java.util.HashSet;

/**
 * The member names of one JSON object seen so far, to refuse a name given twice (a duplicate field in a record, a
 * second top-level {@code "objects"}), which a reader would otherwise merge silently. Cheaper than Jackson's
 * {@code STRICT_DUPLICATE_DETECTION} for heapload's shapes: that one tracks every object's names, the millions of
 * addresses of {@code "objects"} included, where the readers check each record's few fields (compared by identity
 * first: Jackson hands canonicalised names) and the few top-level members. Past {@value #LINEAR} names it switches to a
 * hash set, so a record of many fields stays linear.
 */
public final class SeenNames {

    private static final int LINEAR = 32;

    private final String[] names = new String[LINEAR];
    private int count;
    private HashSet<String> many;

    /** Creates an empty set. */
    public SeenNames() {
    }

    /** Forgets every name (for the next record). */
    public void clear() {
        count = 0;
        many = null;
    }

    /**
     * Adds {@code name}.
     *
     * @return false when it was added before, since the last {@link #clear()}
     */
    public boolean add(String name) {
        if (many != null) {
            return many.add(name);
        }
        for (int i = 0; i < count; i++) {
            String s = names[i];
            if (s == name || s.equals(name)) {
                return false;
            }
        }
        if (count == LINEAR) {
            many = new HashSet<>();
            for (String s : names) {
                many.add(s);
            }
            return many.add(name);
        }
        names[count++] = name;
        return true;
    }
}
