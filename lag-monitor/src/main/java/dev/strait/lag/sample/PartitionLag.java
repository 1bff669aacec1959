package dev.strait.lag.sample;

/**
 * Every lag figure of one mirrored source partition at one moment. Offsets not known are -1; lags not
 * known are -1. Immutable.
 *
 * @param lastMirroredOffset the source offset carried by the newest mirrored record on the target
 * @param exactLag           sourceEnd − (lastMirroredOffset + 1): records the target does not have yet
 * @param committedLag       sourceEnd − committed: what kafka-consumer-groups shows
 * @param consumerLag        sourceEnd − the mirror's read position (from its metrics endpoint)
 * @param timeLagMs          age of the oldest source record not yet on the target (0 when caught up)
 */
public record PartitionLag(
        String topic,
        int partition,
        String targetTopic,
        long sourceStart,
        long sourceEnd,
        long targetEnd,
        long committed,
        long position,
        long lastMirroredOffset,
        long exactLag,
        long committedLag,
        long consumerLag,
        long timeLagMs) {

    /** The lag that best reflects what the target is missing: exact where known, else the committed lag. */
    public long bestLag() {
        return exactLag >= 0 ? exactLag : committedLag;
    }
}
