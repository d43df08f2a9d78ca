package dev.heapload.queries;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks every route of a saved query makes on its snapshot and address parameters before it runs, with the same
 * one-line refusals whether the rows then come from Cypher (embedded or Bolt) or from the stored model
 * ({@code dev.heapload.explore.ModelQueries}): an empty or unknown snapshot id, an address no object of the snapshot
 * has. Uses no Neo4j class.
 */
public final class SnapshotParameters {

    /** Parameters whose string values must name a snapshot in the store (when not empty), in the order checked. */
    public static final Set<String> SNAPSHOT_PARAMETERS = Collections.unmodifiableSet(
        new LinkedHashSet<>(List.of("snapshot", "baseline", "target")));

    private SnapshotParameters() {
    }

    /**
     * Resolves an {@code address} parameter (with a {@code snapshot} parameter, as in {@code why-alive}) to the
     * spelling the snapshot stores, trying the text as given and then its {@link #addressSpellings}: an address is
     * accepted in any case, with or without {@code 0x}, with or without leading zeros. Refuses an address that names
     * no object of that snapshot according to {@code exists}, instead of returning no rows without a word.
     *
     * @param params typed parameters; not changed
     * @param exists whether snapshot (first argument) has an object at the address (second argument)
     * @return {@code params}, or a copy whose {@code address} is the stored spelling
     * @throws QueryFailedException one line naming the address and the snapshot
     */
    public static Map<String, Object> checkAddress(Map<String, Object> params,
                                            java.util.function.BiPredicate<String, String> exists)
        throws QueryFailedException {
        if (params.get("address") instanceof String address && params.get("snapshot") instanceof String snapshot
            && !snapshot.isEmpty()) {
            for (String spelling : addressSpellings(address)) {
                if (exists.test(snapshot, spelling)) {
                    if (spelling.equals(address)) {
                        return params;
                    }
                    Map<String, Object> resolved = new LinkedHashMap<>(params);
                    resolved.put("address", spelling);
                    return resolved;
                }
            }
            throw new QueryFailedException("no object at address '" + SafeText.visible(address) + "' in snapshot '"
                + SafeText.visible(snapshot) + "' (give it as largest-retainers or the leak answer prints it; any case, "
                + "with or without 0x)");
        }
        return params;
    }

    /**
     * The spellings an address typed by a user may have in a snapshot: the text itself (trimmed), then, when it is
     * hexadecimal digits with or without {@code 0x}/{@code 0X}, the dumps' spellings of that value
     * ({@link dev.heapload.model.AddressFormat}): {@code 0x} + lower-case digits without leading zeros (glibc and
     * macOS {@code %p}, MicroPython, heapload's Lua dumper) and 16 upper-case zero-padded digits (MSVC), plus the
     * digits as typed in lower and upper case with and without {@code 0x}.
     *
     * @param text the address as given
     * @return distinct candidates, the text itself first
     */
    public static List<String> addressSpellings(String text) {
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>();
        out.add(text);
        String t = text.strip();
        out.add(t);
        String digits = t.startsWith("0x") || t.startsWith("0X") ? t.substring(2) : t;
        if (!digits.isEmpty() && digits.length() <= 16 && digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            String lower = digits.toLowerCase(java.util.Locale.ROOT);
            String upper = digits.toUpperCase(java.util.Locale.ROOT);
            String stripped = lower.replaceFirst("^0+(?=.)", "");
            out.add("0x" + stripped);
            out.add("0".repeat(16 - upper.length()) + upper);
            out.add("0x" + lower);
            out.add("0X" + upper);
            out.add(lower);
            out.add(upper);
            out.add("0x" + upper);
        }
        return List.copyOf(out);
    }

    /**
     * Refuses {@link #SNAPSHOT_PARAMETERS} values that are empty ({@code snapshot}, {@code target}; an empty
     * {@code baseline} means "none") or name no snapshot according to {@code exists}.
     *
     * @throws QueryFailedException one line naming the parameter or the id
     */
    public static void checkSnapshots(Map<String, Object> params, java.util.function.Predicate<String> exists)
        throws QueryFailedException {
        for (String name : SNAPSHOT_PARAMETERS) {
            if (!(params.get(name) instanceof String id)) {
                continue;
            }
            if (id.isEmpty() && !name.equals("baseline")) {
                throw new QueryFailedException("parameter '" + name + "' is empty: give a snapshot id "
                    + "(heapload snapshots lists them)");
            }
            if (!id.isEmpty() && !exists.test(id)) {
                throw new QueryFailedException("no snapshot '" + id + "' in the store (heapload snapshots lists them)");
            }
        }
    }
}
