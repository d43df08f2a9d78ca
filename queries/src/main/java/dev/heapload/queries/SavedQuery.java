package dev.heapload.queries;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A saved Cypher query: a {@code .cypher} file whose leading {@code //} comment lines form a header.
 *
 * <pre>
 * // name: largest-retainers
 * // description: The objects with the largest retained size, with their retention path.
 * // param: snapshot string
 * // param: top integer = 20
 * // columns: address, type, label, size, retainedSize, path
 * MATCH ...
 * </pre>
 *
 * <ul>
 *   <li>{@code name} (required): letters, digits and {@code -}; unique in a library.</li>
 *   <li>{@code description} (required): one line.</li>
 *   <li>{@code param} (any number): {@code NAME TYPE [= DEFAULT]}, TYPE one of {@code string}, {@code integer},
 *       {@code boolean}; without a default the parameter is required. A string default is the rest of the line
 *       ({@code = } alone: the empty string).</li>
 *   <li>{@code columns} (required): the names of the returned columns, comma-separated, in order.</li>
 * </ul>
 * Other {@code //} lines in the header are free comments. The whole file (header included) is the query text;
 * values are always passed as Cypher parameters.
 *
 * @param name        the query's name
 * @param description one line
 * @param parameters  declared parameters, in header order
 * @param columns     declared result columns, in order
 * @param text        the Cypher text
 * @param source      where it was read from (file path or classpath resource), for messages
 */
public record SavedQuery(String name, String description, List<QueryParameter> parameters, List<String> columns,
                         String text, String source) {

    private static final Pattern FIELD = Pattern.compile("^//\\s*(name|description|param|columns)\\s*:\\s*(.*?)\\s*$");
    private static final Pattern PARAM = Pattern.compile("^([A-Za-z_][A-Za-z0-9_]*)\\s+([A-Za-z]+)\\s*(?:=\\s?(.*))?$");
    private static final Pattern NAME = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9-]*$");

    /**
     * Parses a query file's text.
     *
     * @param text   the file's content
     * @param source the file's path or resource name, used in messages
     * @throws QueryFormatException when the header lacks name, description or columns, declares a parameter
     *                              twice, or has a malformed {@code param} line or default value
     */
    public static SavedQuery parse(String text, String source) throws QueryFormatException {
        String name = null;
        String description = null;
        List<String> columns = null;
        List<QueryParameter> params = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String raw : text.split("\\R")) {
            String line = raw.strip();
            if (line.isEmpty()) {
                continue;
            }
            if (!line.startsWith("//")) {
                break;
            }
            Matcher m = FIELD.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String value = m.group(2);
            switch (m.group(1)) {
                case "name" -> {
                    if (!NAME.matcher(value).matches()) {
                        throw new QueryFormatException(source + ": invalid query name '" + value + "'");
                    }
                    name = value;
                }
                case "description" -> description = value;
                case "columns" -> {
                    columns = new ArrayList<>();
                    for (String c : value.split(",")) {
                        if (!c.isBlank()) {
                            columns.add(c.strip());
                        }
                    }
                }
                default -> {
                    QueryParameter p = parseParam(value, source);
                    if (!seen.add(p.name())) {
                        throw new QueryFormatException(source + ": parameter '" + p.name() + "' declared twice");
                    }
                    params.add(p);
                }
            }
        }
        if (name == null) {
            throw new QueryFormatException(source + ": header has no '// name:' line");
        }
        if (description == null || description.isEmpty()) {
            throw new QueryFormatException(source + ": header has no '// description:' line");
        }
        if (columns == null || columns.isEmpty()) {
            throw new QueryFormatException(source + ": header has no '// columns:' line");
        }
        return new SavedQuery(name, description, List.copyOf(params), List.copyOf(columns), text, source);
    }

    private static QueryParameter parseParam(String value, String source) throws QueryFormatException {
        Matcher m = PARAM.matcher(value);
        if (!m.matches()) {
            throw new QueryFormatException(source + ": malformed parameter '" + value
                + "' (expected: NAME string|integer|boolean [= DEFAULT])");
        }
        QueryParameter.Type type;
        try {
            type = QueryParameter.Type.valueOf(m.group(2).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new QueryFormatException(source + ": parameter '" + m.group(1) + "' has unknown type '" + m.group(2)
                + "' (string, integer or boolean)");
        }
        Object def = null;
        if (m.group(3) != null) {
            QueryParameter untyped = new QueryParameter(m.group(1), type, null);
            try {
                def = untyped.convert(type == QueryParameter.Type.STRING ? m.group(3) : m.group(3).strip());
            } catch (IllegalArgumentException e) {
                throw new QueryFormatException(source + ": default of " + e.getMessage());
            }
        }
        return new QueryParameter(m.group(1), type, def);
    }

    /** The declared parameter called {@code name}, or {@code null}. */
    public QueryParameter parameter(String name) {
        for (QueryParameter p : parameters) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }
}
