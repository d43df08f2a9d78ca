package dev.heapload.report;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

import dev.heapload.analysis.PathHop;
import dev.heapload.queries.SafeText;

/**
 * The stable identity of a leak group across runs of a program: a hash of the group's retention path (names and
 * types, one line per hop: {@link PathHop#line} of the {@code LeakGroup} hops, control characters made visible) and
 * its head type, never of addresses.
 *
 * <p>Normalisation, so that two runs of the same program give the same fingerprint: in every path line and in the
 * head type, hexadecimal numbers ({@code 0x} followed by hex digits) become {@code 0x#} and every other run of decimal
 * digits becomes {@code #}, because names such as {@code widget_17}, {@code Settings 3 #42} or
 * {@code frame:@main.luau:12:f} embed counters, ids, addresses or line numbers that change between runs. The
 * fingerprint is the first 16 hex digits (64 bits) of the SHA-256 of {@code "heapload-leak-v1\n" + headType + "\n" +
 * line1 + "\n" + line2 ...} after normalisation. Two groups whose paths differ only in digits get the same fingerprint.
 */
public final class LeakFingerprint {

    /** Length of a fingerprint in hex digits. */
    public static final int LENGTH = 16;

    private static final Pattern HEX = Pattern.compile("0[xX][0-9A-Fa-f]+");
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    private LeakFingerprint() {
    }

    /** One path line (or type) with addresses and counters replaced as the class comment says. */
    public static String normalize(String line) {
        String s = HEX.matcher(line).replaceAll("0x#");
        return DIGITS.matcher(s).replaceAll("#");
    }

    /**
     * The fingerprint of a group.
     *
     * @param headType the type of the group's heads
     * @param path     the retention path, one line per hop from the root
     * @return 16 lowercase hex digits
     */
    public static String of(String headType, List<String> path) {
        StringBuilder text = new StringBuilder("heapload-leak-v1\n").append(normalize(headType));
        for (String line : path) {
            text.append('\n').append(normalize(line));
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash).substring(0, LENGTH);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    /**
     * The fingerprint of a group from its hops: {@link #of} over the hops' leak-trace lines ({@link PathHop#line})
     * in their {@link SafeText#visible} form, so a name holding a newline stays inside its one line. For names
     * without control characters or backslashes, the same fingerprint as the lines that earlier versions stored.
     */
    public static String ofHops(String headType, List<PathHop> hops) {
        return of(SafeText.visible(headType), lines(hops));
    }

    /** The hops' leak-trace lines in their {@link SafeText#visible} form, one per hop: what reports print. */
    public static List<String> lines(List<PathHop> hops) {
        List<String> out = new ArrayList<>(hops.size());
        for (PathHop h : hops) {
            out.add(SafeText.visible(h.line()));
        }
        return out;
    }

    /**
     * The names along a retention path, one per hop, in their {@link SafeText#visible} form: the root's name, then
     * each hop's {@link PathHop#displayName} ({@code [kind]} without a name, a string key starting with {@code [}
     * in double quotes); what known-leak patterns are matched against. Taken from the hops, never parsed from text,
     * so a name holding {@code " in "}, a newline or a {@code root …} line is one segment.
     */
    public static List<String> segments(List<PathHop> hops) {
        return rawSegments(hops).stream().map(SafeText::visible).toList();
    }

    /** {@link #segments} before {@link SafeText#visible}: the root's name, then each hop's display name. */
    public static List<String> rawSegments(List<PathHop> hops) {
        List<String> out = new ArrayList<>(hops.size());
        for (PathHop h : hops) {
            out.add(PathHop.ROOT_KIND.equals(h.kind()) ? String.valueOf(h.name()) : h.displayName());
        }
        return out;
    }
}
