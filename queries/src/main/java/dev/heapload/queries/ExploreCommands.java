package dev.heapload.queries;

/**
 * The command lines that the leak answer and the reports print for following up one object: {@code heapload query
 * why-alive} and {@code heapload query paths} with the snapshot id and address filled in, shell-quoted, and shown in
 * their {@link SafeText#visible} form (a snapshot id or address with control characters cannot write to the
 * terminal; such a line then shows the escapes rather than a runnable word).
 */
public final class ExploreCommands {

    private ExploreCommands() {
    }

    /**
     * {@code heapload query why-alive -p snapshot=S -p address=A} plus {@code storeOptions}.
     *
     * @param snapshot     the snapshot id
     * @param address      the object's address as stored (or a placeholder such as {@code ADDRESS})
     * @param storeOptions options naming the store, with a leading space ({@code " --db DIR"}), or empty
     */
    public static String whyAlive(String snapshot, String address, String storeOptions) {
        return command("why-alive", snapshot, address, storeOptions);
    }

    /** {@code heapload query paths -p snapshot=S -p address=A} plus {@code storeOptions}; as {@link #whyAlive}. */
    public static String paths(String snapshot, String address, String storeOptions) {
        return command("paths", snapshot, address, storeOptions);
    }

    private static String command(String query, String snapshot, String address, String storeOptions) {
        return "heapload query " + query + " -p " + shellWord("snapshot=" + snapshot) + " -p "
            + shellWord("address=" + address) + storeOptions;
    }

    /**
     * {@code word} as one POSIX shell word: as is when it holds only characters the shell leaves alone, else in single
     * quotes; then made {@link SafeText#visible}.
     */
    public static String shellWord(String word) {
        String quoted = word.matches("[A-Za-z0-9_./:=@%+-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
        return SafeText.visible(quoted);
    }
}
