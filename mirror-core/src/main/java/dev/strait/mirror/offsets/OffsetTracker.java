package dev.strait.mirror.offsets;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What one stream has polled per source partition, and what it may commit.
 *
 * <p>Invariant: an offset handed out by {@link #commitOffsets} never passes a record that the target has
 * not acknowledged. The caller guarantees that every send before the call has completed (the producer was
 * flushed) and passes the first failed source offset of each partition; the commit offset is then the
 * first failed offset, or one past the last polled record.
 *
 * <p>Not thread-safe: owned by the stream's thread.
 */
public final class OffsetTracker {
    private static final class Progress {
        long nextOffset = -1;
        Optional<Integer> leaderEpoch = Optional.empty();
        long committedOffset = -1;
    }

    private final Map<TopicPartition, Progress> partitions = new HashMap<>();

    /** Records that {@code lastOffset} was the last record polled from {@code tp} (in order). */
    public void polled(TopicPartition tp, long lastOffset, Optional<Integer> leaderEpoch) {
        Progress p = partitions.computeIfAbsent(tp, k -> new Progress());
        if (lastOffset < p.nextOffset - 1) {
            throw new IllegalStateException("offset of " + tp + " went back from " + (p.nextOffset - 1) + " to "
                    + lastOffset + " without a seek");
        }
        p.nextOffset = lastOffset + 1;
        p.leaderEpoch = leaderEpoch;
    }

    /**
     * The consumer's position after a poll ({@code ConsumerRecords.nextOffsets()}), once every record of
     * the poll below it was handed to the producer. It can be past the last record: a transaction's commit
     * marker, or an aborted transaction's records, take offsets no record is returned for.
     */
    public void advanced(TopicPartition tp, OffsetAndMetadata next) {
        Progress p = partitions.computeIfAbsent(tp, k -> new Progress());
        if (next.offset() < p.nextOffset) {
            throw new IllegalStateException("position of " + tp + " went back from " + p.nextOffset + " to "
                    + next.offset() + " without a seek");
        }
        p.nextOffset = next.offset();
        p.leaderEpoch = next.leaderEpoch();
    }

    /** The position moved by a seek (offset reset or truncation handling): nothing before it is owed. */
    public void seeked(TopicPartition tp, long offset) {
        seeked(tp, offset, Optional.empty());
    }

    /** A seek to a position whose leader epoch is known (e.g. the point where the source log diverged). */
    public void seeked(TopicPartition tp, long offset, Optional<Integer> leaderEpoch) {
        Progress p = partitions.computeIfAbsent(tp, k -> new Progress());
        p.nextOffset = offset;
        p.leaderEpoch = leaderEpoch;
    }

    /** The position of {@code tp}, or -1 when none is known. */
    public long position(TopicPartition tp) {
        Progress p = partitions.get(tp);
        return p == null ? -1 : p.nextOffset;
    }

    /**
     * Offsets to commit for {@code which} partitions that moved since their last commit.
     *
     * @param firstFailed the lowest source offset per partition whose send failed and was not skipped
     */
    public Map<TopicPartition, OffsetAndMetadata> commitOffsets(
            Collection<TopicPartition> which, Map<TopicPartition, Long> firstFailed) {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (TopicPartition tp : which) {
            Progress p = partitions.get(tp);
            if (p == null || p.nextOffset < 0) {
                continue;
            }
            Long failed = firstFailed.get(tp);
            long offset = failed == null ? p.nextOffset : Math.min(failed, p.nextOffset);
            if (offset != p.committedOffset) {
                Optional<Integer> epoch = failed == null ? p.leaderEpoch : Optional.empty();
                out.put(tp, new OffsetAndMetadata(offset, epoch, ""));
            }
        }
        return out;
    }

    public void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((tp, om) -> {
            Progress p = partitions.get(tp);
            if (p != null) {
                p.committedOffset = om.offset();
            }
        });
    }

    /** Records polled but not yet committed, over all partitions (an upper bound on duplicates after a crash). */
    public long uncommitted() {
        long n = 0;
        for (Progress p : partitions.values()) {
            if (p.nextOffset >= 0 && p.committedOffset >= 0) {
                n += Math.max(0, p.nextOffset - p.committedOffset);
            }
        }
        return n;
    }

    /** The read position (one past the last polled record) of every partition that has one. */
    public Map<TopicPartition, Long> positions() {
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach((tp, p) -> {
            if (p.nextOffset >= 0) {
                out.put(tp, p.nextOffset);
            }
        });
        return out;
    }

    public void remove(Collection<TopicPartition> tps) {
        tps.forEach(partitions::remove);
    }

    public Collection<TopicPartition> tracked() {
        return partitions.keySet();
    }
}
