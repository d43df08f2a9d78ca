package dev.heapload.report;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A CI gate ({@code --fail-on}): {@code METRIC OPERATOR NUMBER[UNIT]}, e.g. {@code new-retained-bytes>100KiB} or
 * {@code leak-groups>0}. The gate fails when the comparison is true. Metrics, all over the leak groups that are not
 * known leaks ({@link KnownLeaks}) and not replaced (churn: their new objects took the place of freed ones):
 * {@code leak-groups} (count), {@code new-objects} (new reachable objects in them), {@code new-bytes} (their shallow
 * bytes), {@code new-retained-bytes} (the retained sizes of their heads), {@code net-objects} and {@code net-bytes}
 * (new minus freed objects and bytes at their paths: the growth). Operators
 * {@code > >= < <= ==}; units for the byte metrics {@code B}, {@code KiB}, {@code MiB}, {@code GiB} (powers of 1024;
 * none means bytes).
 *
 * @param expression the text as given
 * @param metric     the metric name
 * @param operator   the operator
 * @param limit      the number, in bytes for the byte metrics
 */
public record Gate(String expression, String metric, String operator, long limit) {

    private static final Pattern SYNTAX = Pattern.compile(
        "\\s*(new-retained-bytes|new-bytes|new-objects|net-bytes|net-objects|leak-groups)\\s*(>=|<=|==|>|<)\\s*([0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]*)\\s*");

    /**
     * Parses a gate expression.
     *
     * @throws IllegalArgumentException (one line) when it is not {@code METRIC OP NUMBER[UNIT]} with a known metric,
     *                                  operator and unit
     */
    public static Gate parse(String expression) {
        Matcher m = SYNTAX.matcher(expression);
        if (!m.matches()) {
            throw new IllegalArgumentException("--fail-on '" + expression + "': expected METRIC OP NUMBER[UNIT] with METRIC "
                + "new-retained-bytes, new-bytes, new-objects, net-bytes, net-objects or leak-groups, OP > >= < <= or ==, e.g. 'new-retained-bytes>100KiB'");
        }
        String metric = m.group(1);
        String unit = m.group(4);
        boolean bytes = metric.endsWith("bytes");
        long factor;
        switch (unit) {
            case "" -> factor = 1;
            case "B" -> factor = 1;
            case "KiB" -> factor = 1024;
            case "MiB" -> factor = 1024 * 1024;
            case "GiB" -> factor = 1024L * 1024 * 1024;
            default -> throw new IllegalArgumentException("--fail-on '" + expression + "': unknown unit '" + unit
                + "' (B, KiB, MiB or GiB)");
        }
        if (!bytes && !unit.isEmpty()) {
            throw new IllegalArgumentException("--fail-on '" + expression + "': " + metric + " is a count and takes no unit");
        }
        double value = Double.parseDouble(m.group(3)) * factor;
        if (value != Math.rint(value) || value > Long.MAX_VALUE) {
            throw new IllegalArgumentException("--fail-on '" + expression + "': the limit must be a whole number of "
                + (bytes ? "bytes" : "items"));
        }
        return new Gate(expression.strip(), metric, m.group(2), (long) value);
    }

    /** True when {@code actual OPERATOR limit} holds, i.e. the gate fails. */
    public boolean fails(long actual) {
        return switch (operator) {
            case ">" -> actual > limit;
            case ">=" -> actual >= limit;
            case "<" -> actual < limit;
            case "<=" -> actual <= limit;
            default -> actual == limit;
        };
    }

    /**
     * The metric's value for a set of groups, with net = new (nothing freed).
     *
     * @param groups        number of groups
     * @param objects       their new reachable objects
     * @param newBytes      their shallow bytes
     * @param retainedBytes their heads' retained bytes
     */
    public long measure(long groups, long objects, long newBytes, long retainedBytes) {
        return measure(groups, objects, newBytes, retainedBytes, objects, newBytes);
    }

    /**
     * The metric's value for a set of groups.
     *
     * @param groups        number of groups
     * @param objects       their new reachable objects
     * @param newBytes      their shallow bytes
     * @param retainedBytes their heads' retained bytes
     * @param netObjects    their net objects (new minus freed at their paths)
     * @param netBytes      their net bytes
     */
    public long measure(long groups, long objects, long newBytes, long retainedBytes, long netObjects, long netBytes) {
        return switch (metric) {
            case "leak-groups" -> groups;
            case "new-objects" -> objects;
            case "new-bytes" -> newBytes;
            case "net-objects" -> netObjects;
            case "net-bytes" -> netBytes;
            default -> retainedBytes;
        };
    }

    /** {@code "3 > 0"}: the measured value, the operator and the limit, for messages. */
    public String describe(long actual) {
        return String.format(Locale.ROOT, "%s = %,d %s %,d", metric, actual, operator, limit);
    }
}
