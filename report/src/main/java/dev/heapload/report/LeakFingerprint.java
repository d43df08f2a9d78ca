package dev.heapload.report;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The stable identity of a leak group across runs of a program: a hash of the group's retention path (names and
 * types, one line per hop, as the {@code LeakGroup.path} property spells them) and its head type, never of addresses.
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
     * The names along a retention path, one per hop: the root's name for the first line ({@code root NAME (TYPE)}),
     * the reference's name for the others ({@code NAME in TYPE}); what known-leak patterns are matched against.
     */
    public static List<String> segments(List<String> path) {
        List<String> out = new ArrayList<>(path.size());
        for (String line : path) {
            if (line.startsWith("root ") && line.endsWith(")") && line.lastIndexOf(" (") > 4) {
                out.add(line.substring(5, line.lastIndexOf(" (")));
            } else {
                int in = line.lastIndexOf(" in ");
                out.add(in >= 0 ? line.substring(0, in) : line);
            }
        }
        return out;
    }
}
