package dev.strait.lag.sample;

/**
 * The three record-count lags from raw offsets, in one place so that the rules are stated once:
 * <ul>
 *   <li>exact: source end − (source offset of the newest record on the target + 1). When the target holds
 *   nothing from the partition yet, the records the mirror still owes start at the committed offset (or the
 *   source log start if the group never committed).</li>
 *   <li>committed: source end − committed offset.</li>
 *   <li>consumer: source end − the mirror's read position.</li>
 * </ul>
 * A lag is never negative: a position sampled a moment after the end offset can run ahead of it.
 */
public final class LagCalculator {
    private LagCalculator() {}

    public static long exactLag(long sourceStart, long sourceEnd, long lastMirroredOffset, long committed) {
        if (sourceEnd < 0) {
            return -1;
        }
        long next;
        if (lastMirroredOffset >= 0) {
            // The mirror commits only what the target acknowledged, so everything below the committed offset is
            // on the target: the committed lag is a proven upper bound, even when the newest target record
            // speaks for an older position (hash mode, a stale read).
            next = Math.max(lastMirroredOffset + 1, committed);
        } else if (committed >= 0) {
            next = committed;
        } else {
            next = Math.max(0, sourceStart);
        }
        return Math.max(0, sourceEnd - next);
    }

    public static long lag(long sourceEnd, long offset) {
        return sourceEnd < 0 || offset < 0 ? -1 : Math.max(0, sourceEnd - offset);
    }
}
