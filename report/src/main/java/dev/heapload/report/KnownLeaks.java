package dev.heapload.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A known-leaks file ({@code --known}): leak groups that are accepted for now. They are listed apart in every report
 * format and never fail a gate. UTF-8 text, one entry per line; blank lines and lines starting with {@code #} are
 * ignored, and {@code " #"} starts a comment at the end of a line. An entry is either
 *
 * <ul>
 *   <li>a fingerprint: 16 hex digits ({@link LeakFingerprint}), or</li>
 *   <li>a retention-path pattern: names separated by {@code /}, matched against the group's path segments
 *       ({@link LeakFingerprint#segments}: the root's name, then each hop's reference name, e.g.
 *       {@code registry/_MODULES/EventBus/ThemeChanged/handlers/[array]}). In a segment {@code *} matches any
 *       characters; a segment {@code **} matches any number (also none) of segments; a {@code *} as the last segment
 *       matches one or more segments, so {@code registry/_MODULES/EventBus/*} matches everything held below
 *       {@code EventBus}. A pattern must match the whole path.</li>
 * </ul>
 */
public final class KnownLeaks {

    private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-fA-F]{" + LeakFingerprint.LENGTH + "}");

    /** One entry, with its text as written (what reports show as the reason a group is known). */
    public record Entry(String text, String fingerprint, List<String> pattern) {
    }

    private final List<Entry> entries;

    private KnownLeaks(List<Entry> entries) {
        this.entries = entries;
    }

    /** No known leaks. */
    public static KnownLeaks none() {
        return new KnownLeaks(List.of());
    }

    /**
     * Reads a known-leaks file.
     *
     * @throws IOException when it cannot be read, or (one line naming file and line) an entry is empty after
     *                     comments are removed or has an empty segment
     */
    public static KnownLeaks read(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf(" #");
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (FINGERPRINT.matcher(line).matches()) {
                entries.add(new Entry(line, line.toLowerCase(java.util.Locale.ROOT), null));
                continue;
            }
            List<String> pattern = List.of(line.split("/", -1));
            if (pattern.stream().anyMatch(String::isEmpty)) {
                throw new IOException(file + ":" + (i + 1) + ": pattern '" + line + "' has an empty segment "
                    + "(names are separated by one /)");
            }
            entries.add(new Entry(line, null, pattern));
        }
        return new KnownLeaks(List.copyOf(entries));
    }

    /** The entries, in file order. */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * The first entry that matches a group, or {@code null}.
     *
     * @param fingerprint the group's fingerprint
     * @param segments    the group's path segments ({@link LeakFingerprint#segments})
     */
    public Entry match(String fingerprint, List<String> segments) {
        for (Entry e : entries) {
            if (e.fingerprint != null ? e.fingerprint.equals(fingerprint) : matches(e.pattern, 0, segments, 0)) {
                return e;
            }
        }
        return null;
    }

    private static boolean matches(List<String> pattern, int p, List<String> names, int n) {
        if (p == pattern.size()) {
            return n == names.size();
        }
        String seg = pattern.get(p);
        if (seg.equals("**")) {
            for (int k = n; k <= names.size(); k++) {
                if (matches(pattern, p + 1, names, k)) {
                    return true;
                }
            }
            return false;
        }
        if (seg.equals("*") && p == pattern.size() - 1) {
            return n < names.size();
        }
        return n < names.size() && glob(seg, names.get(n)) && matches(pattern, p + 1, names, n + 1);
    }

    /** {@code *} in {@code glob} matches any characters; everything else matches itself. */
    public static boolean glob(String glob, String text) {
        String[] parts = glob.split("\\*", -1);
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(parts[i]));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(text).matches();
    }
}
