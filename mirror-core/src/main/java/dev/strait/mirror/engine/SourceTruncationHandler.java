package dev.strait.mirror.engine;

import java.util.Map;

import dev.strait.mirror.config.TruncationPolicy;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.offsets.OffsetTracker;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handles a position that is no longer on the source log. The consumer runs with
 * {@code auto.offset.reset=none}, so instead of resetting silently it reports the partition here; this
 * class works out how many records were lost before the mirror could copy them and either stops the
 * stream ({@link TruncationPolicy#FAIL}) or alerts and continues from the earliest offset.
 *
 * <p>Not thread-safe: runs on the stream's thread.
 */
final class SourceTruncationHandler {
    private static final Logger LOGGER = LoggerFactory.getLogger(SourceTruncationHandler.class);

    private final Consumer<byte[], byte[]> consumer;
    private final OffsetTracker offsets;
    private final TruncationPolicy policy;
    private final MirrorMetrics metrics;
    private final String logPrefix;

    SourceTruncationHandler(Consumer<byte[], byte[]> consumer, OffsetTracker offsets, TruncationPolicy policy,
                            MirrorMetrics metrics, String logPrefix) {
        this.consumer = consumer;
        this.offsets = offsets;
        this.policy = policy;
        this.metrics = metrics;
        this.logPrefix = logPrefix;
    }

    void handle(Map<TopicPartition, Long> outOfRange) {
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(outOfRange.keySet());
        Map<TopicPartition, Long> end = consumer.endOffsets(outOfRange.keySet());
        for (Map.Entry<TopicPartition, Long> e : outOfRange.entrySet()) {
            TopicPartition tp = e.getKey();
            long position = e.getValue();
            long first = begin.getOrDefault(tp, 0L);
            long last = end.getOrDefault(tp, 0L);
            if (position >= first && position <= last) {
                // In range again (the log moved between the fetch and now): carry on where we were.
                consumer.seek(tp, position);
                continue;
            }
            long lost;
            String what;
            if (position < first) {
                lost = first - position;
                what = "source partition " + tp + " no longer has offsets " + position + ".." + (first - 1) + ": "
                    + lost + " records were deleted on the source (retention) before the mirror copied them";
            } else {
                lost = -1;
                what = "the mirror's position " + position + " in source partition " + tp + " is past its log end " + last
                    + ": the topic was deleted and re-created, or the source lost records (unclean leader election); "
                    + "an unknown number of records may not have been copied";
            }
            if (policy == TruncationPolicy.FAIL) {
                throw new MirrorException(what + ". Stopping (--on.source.truncation=fail). To go on from the earliest "
                    + "available offset, restart with --on.source.truncation=skip-and-alert or reset the group's offsets "
                    + "with kafka-consumer-groups --reset-offsets");
            }
            if (lost > 0) {
                metrics.sourceRecordsLost(lost);
            }
            LOGGER.error("{}ALERT source records lost: {}. Continuing from offset {} (--on.source.truncation=skip-and-alert)",
                logPrefix, what, first);
            consumer.seek(tp, first);
            offsets.seeked(tp, first);
        }
    }
}
