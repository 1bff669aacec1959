package dev.strait.lag.status;

/**
 * A partition's or a group's mirroring status, Burrow-style, in increasing severity. A group's status is
 * its worst partition's.
 */
public enum Status {
    /** Lag is zero or shrinking, commits move. */
    OK,
    /** Lag grew across the whole window: the mirror is falling behind. */
    WARN,
    /** The committed offset moved backwards (an offset reset or a rewound group). */
    REWIND,
    /** Lag is above zero and the committed offset did not move across the whole window. */
    STALL,
    /** Lag is above zero and no commit arrived for longer than the configured time. */
    STOP,
    /** A cluster could not be read. */
    ERR;

    public Status worst(Status other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}
