package dev.strait.broker.link;

import org.apache.kafka.common.TopicPartition;

/**
 * Where one mirror-topic partition led here stands. Immutable.
 *
 * @param sourceHighWatermark the source partition's high watermark at the last fetch; -1 before one answered
 * @param behindSinceMs       when the copy last fell behind the source (it has not caught up since); -1 while it
 *                            is caught up
 * @param detail              what went wrong, for people; empty while copying
 */
public record MirrorStatus(
        TopicPartition partition,
        String sourceTopic,
        State state,
        long logEndOffset,
        long sourceHighWatermark,
        long lastFetchMs,
        long behindSinceMs,
        String detail) {

    public enum State {
        /** Copying; caught up or catching up. */
        COPYING,
        /** The source cluster did not answer. */
        SOURCE_UNREACHABLE,
        /** The source has no topic of that name. */
        SOURCE_TOPIC_MISSING,
        /** The source topic was deleted and re-created (another topic id): never copied on top of the old data. */
        SOURCE_TOPIC_RECREATED,
        /** The source topic has fewer partitions than the mirror topic. */
        SOURCE_PARTITION_MISSING,
        /** The source's log ends below what was copied (an unclean election there): copying stopped. */
        SOURCE_DIVERGED,
        /** The source refused this cluster's principal. */
        NOT_AUTHORIZED,
        /** The topic names a link this node has no settings for, or whose settings are wrong. */
        LINK_UNDEFINED,
        /** Paused (strait.mirror.state=paused): a failback is saving what only this side holds. */
        PAUSED
    }

    /** Seconds the copy has been behind the source at {@code nowMs}; 0 while caught up. */
    public double lagSeconds(long nowMs) {
        return behindSinceMs < 0 ? 0 : Math.max(0, nowMs - behindSinceMs) / 1000.0;
    }

    /** Records the copy is behind the source's high watermark; -1 when not known. */
    public long lag() {
        return sourceHighWatermark < 0 ? -1 : Math.max(0, sourceHighWatermark - logEndOffset);
    }
}
