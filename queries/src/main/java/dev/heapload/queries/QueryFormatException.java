package dev.heapload.queries;

/** A saved query file whose header is missing or malformed; the message is one line naming the file. */
public final class QueryFormatException extends Exception {

    private static final long serialVersionUID = 1L;

    /** @param message one line, starting with the file's name */
    public QueryFormatException(String message) {
        super(message);
    }
}
