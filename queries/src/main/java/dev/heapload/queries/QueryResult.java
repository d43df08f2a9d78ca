package dev.heapload.queries;

import java.util.List;

/**
 * The rows a saved query returned.
 *
 * @param columns   column names, in the query's order
 * @param rows      rows, each with one value per column: {@code null}, {@link String}, {@link Long},
 *                  {@link Double}, {@link Boolean}, or a {@link List} or {@link java.util.Map} of those
 * @param truncated true when the row limit cut the result short (more rows existed)
 */
public record QueryResult(List<String> columns, List<List<Object>> rows, boolean truncated) {
}
