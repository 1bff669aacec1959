package dev.strait.mirror.engine;

import dev.strait.mirror.config.TruncationPolicy;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.offsets.OffsetTracker;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handles a position that is no longer on the source log. The consumer runs with
 * {@code auto.offset.reset=none}, so instead of resetting silently it reports the partition here, in one
 * of two ways:
 * <ul>
 *   <li>diverged ({@code LogTruncationException}): the source lost records the mirror had already read,
 *   e.g. after an unclean leader election, and took new ones at the same offsets. The client knows where
 *   the logs parted (from the leader epoch of the position); the records from there to the position came
 *   from the lost branch. {@link TruncationPolicy#FAIL} stops and says which; skip-and-alert resumes at the
 *   divergence point, so the new branch is copied, and counts the diverged records.</li>
 *   <li>out of range: before the log start (retention deleted records not yet mirrored: counted as lost)
 *   or past the log end (the topic was re-created, then the new topic is copied from its start; or the log
 *   was truncated with no epoch to tell where, then the mirror resumes at the log end rather than copying
 *   the whole partition again).</li>
 * </ul>
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
    /** The source topic's id now (null when it cannot be told), to tell a re-created topic from a truncated one. */
    private final Function<String, String> topicIds;

    private final Map<String, String> knownIds = new HashMap<>();

    SourceTruncationHandler(
            Consumer<byte[], byte[]> consumer,
            OffsetTracker offsets,
            TruncationPolicy policy,
            MirrorMetrics metrics,
            String logPrefix,
            Function<String, String> topicIds) {
        this.consumer = consumer;
        this.offsets = offsets;
        this.policy = policy;
        this.metrics = metrics;
        this.logPrefix = logPrefix;
        this.topicIds = topicIds;
    }

    /**
     * Remembers the id of a topic the stream reads, the first time a partition of it is assigned. Kept across
     * later assignments: a topic re-created while the stream read it is often re-assigned before its first fetch
     * fails, and it is the id the stream read from that tells.
     */
    void assigned(String topic) {
        if (knownIds.containsKey(topic)) {
            return;
        }
        String id = topicIds.apply(topic);
        if (id != null) {
            knownIds.put(topic, id);
        }
    }

    /**
     * The source log diverged from what the mirror read: {@code divergent} holds, per partition, the first
     * offset of the lost branch with its leader epoch; {@code positions} the mirror's position in it.
     */
    void diverged(Map<TopicPartition, OffsetAndMetadata> divergent, Map<TopicPartition, Long> positions) {
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e : divergent.entrySet()) {
            TopicPartition tp = e.getKey();
            if (recreated(tp.topic())) {
                // A re-created topic can look like a diverged log (its leader epochs start over): it is a new log,
                // copied from its start.
                long first = consumer.beginningOffsets(java.util.List.of(tp)).getOrDefault(tp, 0L);
                String what = "source topic " + tp.topic() + " was deleted and re-created (its topic id changed): "
                        + "records of the old topic not yet copied are lost, the new topic is copied from its start";
                if (policy == TruncationPolicy.FAIL) {
                    throw new MirrorException(what + ". Stopping (--on.source.truncation=fail). To copy the new topic, "
                            + "restart with --on.source.truncation=skip-and-alert");
                }
                LOGGER.error(
                        "{}ALERT {}. Continuing from offset {} (--on.source.truncation=skip-and-alert)",
                        logPrefix,
                        what,
                        first);
                consumer.seek(tp, first);
                offsets.seeked(tp, first, Optional.empty());
                continue;
            }
            long at = e.getValue().offset();
            long position = positions.getOrDefault(tp, offsets.position(tp));
            long diverged = Math.max(0, position - at);
            String what = "source partition " + tp + " diverged at offset " + at + ": the source lost the records at "
                    + "offsets " + at + ".." + (position - 1) + " (" + diverged
                    + " records) after the mirror had read them "
                    + "(an unclean leader election), and holds other records at those offsets now; the target holds up to "
                    + diverged + " copies of records from the lost branch";
            if (policy == TruncationPolicy.FAIL) {
                throw new MirrorException(
                        what + ". Stopping (--on.source.truncation=fail). Decide what the target should "
                                + "hold, then restart with --on.source.truncation=skip-and-alert to copy the source's records from "
                                + "offset " + at + " on (the lost branch's copies stay on the target)");
            }
            metrics.sourceRecordsDiverged(diverged);
            LOGGER.error(
                    "{}ALERT source log diverged: {}. Continuing from offset {} (--on.source.truncation=skip-and-alert)",
                    logPrefix,
                    what,
                    at);
            consumer.seek(tp, e.getValue());
            offsets.seeked(tp, at, e.getValue().leaderEpoch());
        }
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
            long resumeAt;
            String what;
            if (position < first) {
                lost = first - position;
                resumeAt = first;
                what = "source partition " + tp + " no longer has offsets " + position + ".." + (first - 1) + ": "
                        + lost + " records were deleted on the source (retention) before the mirror copied them";
            } else if (recreated(tp.topic())) {
                lost = -1;
                resumeAt = first;
                what = "source topic " + tp.topic()
                        + " was deleted and re-created (its topic id changed): the mirror's "
                        + "position " + position + " in " + tp + " is past the new log end " + last
                        + "; records of the old "
                        + "topic not yet copied are lost, the new topic is copied from its start";
            } else {
                lost = position - last;
                resumeAt = last;
                what = "the mirror's position " + position + " in source partition " + tp + " is past its log end "
                        + last
                        + ": the source lost records (an unclean leader election without leader epochs to tell where its log "
                        + "diverged); " + lost
                        + " records the mirror had read are gone from the source, and records below "
                        + last + " may differ from what was copied";
            }
            if (policy == TruncationPolicy.FAIL) {
                throw new MirrorException(
                        what + ". Stopping (--on.source.truncation=fail). To go on from offset " + resumeAt
                                + ", restart with --on.source.truncation=skip-and-alert or reset the group's offsets with "
                                + "kafka-consumer-groups --reset-offsets");
            }
            if (lost > 0) {
                metrics.sourceRecordsLost(lost);
            }
            LOGGER.error(
                    "{}ALERT source records lost: {}. Continuing from offset {} (--on.source.truncation=skip-and-alert)",
                    logPrefix,
                    what,
                    resumeAt);
            consumer.seek(tp, resumeAt);
            offsets.seeked(tp, resumeAt, Optional.empty());
        }
    }

    private boolean recreated(String topic) {
        String before = knownIds.get(topic);
        String now = topicIds.apply(topic);
        if (now != null) {
            knownIds.put(topic, now);
        }
        // Unknown either way: assume re-created, which copies again (duplicates) rather than skipping (loss).
        return before == null || now == null || !Objects.equals(before, now);
    }
}
