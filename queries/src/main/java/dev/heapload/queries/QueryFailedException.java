package dev.heapload.queries;

/**
 * A saved query that could not run or did not finish: a missing or mistyped parameter, an unknown snapshot,
 * the transaction timeout, the transaction memory limit ({@code db.memory.transaction.max}) or a Cypher error.
 * The message is one line, suitable for the terminal.
 */
public final class QueryFailedException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param message one line */
    public QueryFailedException(String message) {
        super(message);
    }
}
