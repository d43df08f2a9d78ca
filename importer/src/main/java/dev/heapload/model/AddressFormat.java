package dev.heapload.model;

/**
 * How a dump spells object addresses. Addresses are kept as {@code long}s and re-spelled on output, so
 * the text written to Neo4j is exactly the text of the dump.
 *
 * <p>Per the Luau spec (shared/docs/formats/luau-luaC_dump.md §3): glibc/macOS {@code %p} prints
 * {@code 0x} + lower-case hex without padding; MSVC prints 16 upper-case zero-padded hex digits. Any
 * other spelling is {@link #OPAQUE}: kept verbatim per object.
 */
public enum AddressFormat {
    /** {@code 0x} + lower-case hex, no padding (glibc, macOS). */
    PREFIXED_HEX,
    /** 16 upper-case hex digits, zero-padded, no prefix (MSVC). */
    PADDED_HEX,
    /** Anything else: the text is stored per object. */
    OPAQUE;

    String format(long value, String[] opaque, int object) {
        if (opaque != null && opaque[object] != null) {
            return opaque[object];
        }
        return switch (this) {
            case PREFIXED_HEX -> "0x" + Long.toHexString(value);
            case PADDED_HEX -> {
                String hex = Long.toHexString(value).toUpperCase(java.util.Locale.ROOT);
                yield "0".repeat(Math.max(0, 16 - hex.length())) + hex;
            }
            case OPAQUE -> throw new IllegalStateException("opaque address without text for object " + object);
        };
    }

    /**
     * Parses {@code text} if it is the canonical spelling of this format.
     *
     * @return the address value, or {@code -1} when {@code text} is not canonical for this format
     */
    long parse(CharSequence text) {
        int n = text.length();
        switch (this) {
            case PREFIXED_HEX: {
                if (n < 3 || n > 18 || text.charAt(0) != '0' || text.charAt(1) != 'x') {
                    return -1;
                }
                if (text.charAt(2) == '0' && n > 3) {
                    return -1;
                }
                return hex(text, 2, n, false);
            }
            case PADDED_HEX: {
                if (n != 16) {
                    return -1;
                }
                return hex(text, 0, n, true);
            }
            default:
                return -1;
        }
    }

    private static long hex(CharSequence s, int from, int to, boolean upper) {
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            int d;
            if (c >= '0' && c <= '9') {
                d = c - '0';
            } else if (!upper && c >= 'a' && c <= 'f') {
                d = c - 'a' + 10;
            } else if (upper && c >= 'A' && c <= 'F') {
                d = c - 'A' + 10;
            } else {
                return -1;
            }
            v = (v << 4) | d;
        }
        return v < 0 ? -1 : v;
    }

    /** Guesses the format from the first address of a dump. */
    static AddressFormat detect(CharSequence first) {
        for (AddressFormat f : new AddressFormat[] {PREFIXED_HEX, PADDED_HEX}) {
            if (f.parse(first) >= 0) {
                return f;
            }
        }
        return OPAQUE;
    }
}
