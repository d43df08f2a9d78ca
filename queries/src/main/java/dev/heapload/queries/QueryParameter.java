package dev.heapload.queries;

import java.util.Locale;

/**
 * One parameter of a saved query, as declared in its header ({@code // param: NAME TYPE [= DEFAULT]}).
 *
 * @param name         the Cypher parameter name, without {@code $}
 * @param type         the value type
 * @param defaultValue the typed default, or {@code null} when the parameter is required
 */
public record QueryParameter(String name, Type type, Object defaultValue) {

    /** Parameter value types: Cypher STRING, INTEGER (64-bit) and BOOLEAN. */
    public enum Type {
        STRING, INTEGER, BOOLEAN;

        /** The lower-case name used in headers ({@code string}, {@code integer}, {@code boolean}). */
        public String headerName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** True when the query cannot run without a value for this parameter. */
    public boolean required() {
        return defaultValue == null;
    }

    /**
     * Converts a command-line value to this parameter's type.
     *
     * @param text the value as given ({@code -p name=text})
     * @return a {@link String}, {@link Long} or {@link Boolean}
     * @throws IllegalArgumentException with a one-line message when {@code text} is not a value of the type
     */
    public Object convert(String text) {
        return switch (type) {
            case STRING -> text;
            case INTEGER -> {
                try {
                    yield Long.parseLong(text.strip());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("parameter '" + name + "' must be an integer, not '" + text + "'");
                }
            }
            case BOOLEAN -> {
                String t = text.strip().toLowerCase(Locale.ROOT);
                if (t.equals("true")) {
                    yield Boolean.TRUE;
                }
                if (t.equals("false")) {
                    yield Boolean.FALSE;
                }
                throw new IllegalArgumentException("parameter '" + name + "' must be true or false, not '" + text + "'");
            }
        };
    }

    /** The header form, e.g. {@code top integer = 20} or {@code snapshot string}; an empty string default shows as {@code ""}. */
    @Override
    public String toString() {
        String def = defaultValue == null ? "" : " = " + ("".equals(defaultValue) ? "\"\"" : defaultValue);
        return name + " " + type.headerName() + def;
    }
}
