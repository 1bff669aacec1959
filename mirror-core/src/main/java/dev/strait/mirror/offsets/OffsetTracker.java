package dev.strait.mirror.offsets;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What one stream has polled per source partition, and what it may commit.
 *
 * <p>Invariant: an offset handed out by {@link #commitOffsets} never passes a record that the target has
 * not acknowledged. The caller guarantees that every send before the call has completed (the producer was
 * flushed) and passes the first failed source offset of each partition; the commit offset is then the
 * first failed offset, or one past the last polled record, with the leader epoch of the record before it.
 *
 * <p>Not thread-safe: owned by the stream's thread.
 */
public final class OffsetTracker {
    private static final class Progress {
        long nextOffset = -1;
        long committedOffset = -1;
        /**
         * The leader epoch of the records read, keyed by the first offset each one covers: an entry per epoch
         * change (rare), so a commit held back at any offset can name the epoch of the record before it. Entries
         * below the last commit are dropped.
         */
        final TreeMap<Long, Optional<Integer>> epochs = new TreeMap<>();

        void epochAt(long offset, Optional<Integer> epoch) {
            Map.Entry<Long, Optional<Integer>> covering = epochs.floorEntry(offset);
            if (covering == null || !covering.getValue().equals(epoch)) {
                // A later entry would contradict the records read in order; a seek clears them first.
                epochs.tailMap(offset, false).clear();
                epochs.put(offset, epoch);
            }
        }
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
        p.epochAt(lastOffset, leaderEpoch);
    }

    /**
     * The record at {@code offset} of {@code tp} was written in {@code leaderEpoch}. The stream reports the first
     * record of every poll's batch and every record whose epoch differs from the one before it, before it hands
     * the record over; that is all a commit held back inside a batch needs.
     */
    public void leaderEpochAt(TopicPartition tp, long offset, Optional<Integer> leaderEpoch) {
        partitions.computeIfAbsent(tp, k -> new Progress()).epochAt(offset, leaderEpoch);
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
        // The position's epoch is the epoch of the record before it (the last one the consumer read).
        p.epochAt(next.offset() - 1, next.leaderEpoch());
    }

    /**
     * The partition was assigned and the consumer starts at the group's committed offset {@code committed}: a
     * commit held back at it names its epoch again rather than none.
     */
    public void startedAt(TopicPartition tp, OffsetAndMetadata committed) {
        Progress p = new Progress();
        p.nextOffset = committed.offset();
        p.committedOffset = committed.offset();
        p.epochs.put(committed.offset() - 1, committed.leaderEpoch());
        partitions.put(tp, p);
    }

    /** The position moved by a seek (offset reset or truncation handling): nothing before it is owed. */
    public void seeked(TopicPartition tp, long offset) {
        seeked(tp, offset, Optional.empty());
    }

    /** A seek to a position whose leader epoch is known (e.g. the point where the source log diverged). */
    public void seeked(TopicPartition tp, long offset, Optional<Integer> leaderEpoch) {
        Progress p = partitions.computeIfAbsent(tp, k -> new Progress());
        p.nextOffset = offset;
        p.epochs.clear();
        p.epochs.put(offset - 1, leaderEpoch);
    }

    /** The leader epoch of the record before {@code offset} of {@code tp}, as far as the records read tell. */
    public Optional<Integer> leaderEpochBefore(TopicPartition tp, long offset) {
        Progress p = partitions.get(tp);
        Map.Entry<Long, Optional<Integer>> e = p == null ? null : p.epochs.floorEntry(offset - 1);
        return e == null ? Optional.empty() : e.getValue();
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
            if (offset == p.committedOffset) {
                continue;
            }
            // KIP-320: the consumer that resumes here asks the source leader where this epoch ended; an end
            // before the committed offset means the log was truncated (an unclean election). A commit without
            // an epoch skips that check, so a commit held back at an owed record names the epoch of the record
            // before it, as a commit at the position does.
            Map.Entry<Long, Optional<Integer>> before = p.epochs.floorEntry(offset - 1);
            // Unknown only when the partition had no committed offset to start from (see startedAt) and nothing
            // before this offset was read: there is no epoch to name, and none to lose.
            out.put(tp, new OffsetAndMetadata(offset, before == null ? Optional.empty() : before.getValue(), ""));
        }
        return out;
    }

    public void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((tp, om) -> {
            Progress p = partitions.get(tp);
            if (p != null) {
                p.committedOffset = om.offset();
                Long covering = p.epochs.floorKey(om.offset() - 1);
                if (covering != null) {
                    p.epochs.headMap(covering, false).clear();
                }
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
