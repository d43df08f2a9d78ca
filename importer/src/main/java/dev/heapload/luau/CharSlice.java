package dev.heapload.luau;

/**
 * A reusable view of a range of a {@code char[]} (e.g. Jackson's text buffer), so an address can be
 * looked up without creating a {@link String}. Valid only until the underlying buffer changes.
 */
final class CharSlice implements CharSequence {

    private char[] chars = new char[0];
    private int offset;
    private int length;

    /** Points this view at {@code chars[offset .. offset+length)}. */
    CharSlice set(char[] chars, int offset, int length) {
        this.chars = chars;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /** True when the text equals {@code text}. */
    boolean contentEquals(String text) {
        if (text.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (chars[offset + i] != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public char charAt(int index) {
        if (index < 0 || index >= length) {
            throw new IndexOutOfBoundsException(index);
        }
        return chars[offset + index];
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return toString().substring(start, end);
    }

    @Override
    public String toString() {
        return new String(chars, offset, length);
    }
}
