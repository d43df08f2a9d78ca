package dev.heapload.model;

/**
 * Receives progress of a long phase (reading, analysing, writing) so a front end can draw a progress
 * bar. Units are the phase's own (bytes read, objects processed); {@code total} is {@code -1} when
 * unknown. Calls come from the working thread.
 */
public interface Progress {

    /** Does nothing. */
    Progress NONE = new Progress() {
        @Override
        public void start(String phase, long total, String unit) {
        }

        @Override
        public void step(long done) {
        }

        @Override
        public void end() {
        }
    };

    /** A phase starts; {@code unit} is e.g. {@code "B"} or {@code "objects"}. */
    void start(String phase, long total, String unit);

    /** {@code done} units of the current phase are complete (absolute, not a delta). */
    void step(long done);

    /** The current phase ended. */
    void end();
}
