package dev.strait.broker.replica;

import dev.strait.broker.log.AppendResult;
import dev.strait.broker.log.CompactionTask;
import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.log.OffsetOutOfRangeException;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.log.TimestampAndOffset;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.nio.ByteBuffer;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition led by this node, owning its {@link PartitionLog}. All log access goes through this object's lock
 * (the log is not thread-safe); returned slices are transferred outside it. On a single node the high watermark
 * is the log end offset, moved right after each append.
 */
public final class Partition {

    /** The leader epoch of every partition on a single node; replication will make it move. */
    public static final int SINGLE_NODE_LEADER_EPOCH = 0;

    private final TopicPartition topicPartition;
    private final PartitionLog log;
    private final int leaderEpoch = SINGLE_NODE_LEADER_EPOCH;
    private final ProducerStateTable producerState = new ProducerStateTable();

    Partition(TopicPartition topicPartition, PartitionLog log) {
        this.topicPartition = topicPartition;
        this.log = log;
        // Single node: this node is the whole ISR, so everything in the (recovered) log is committed. After an
        // unclean shutdown the checkpointed high watermark lags the recovered log end; without this the recovered
        // records stayed invisible to consumers until the next append.
        log.updateHighWatermark(log.logEndOffset());
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    /**
     * Appends as leader and advances the high watermark (single node: nothing to wait for).
     *
     * @param producerBatches the idempotence fields of each batch in {@code batches}, in order
     * @throws ProducerStateException for a duplicate (nothing appended) or a producer sequence/epoch error
     */
    public synchronized AppendResult appendAsLeader(ByteBuffer batches, List<ProducerBatch> producerBatches) {
        producerState.check(producerBatches);
        AppendResult result = log.append(batches, leaderEpoch);
        producerState.update(producerBatches, result.firstOffset());
        log.updateHighWatermark(log.logEndOffset());
        return result;
    }

    /** Reads committed data (below the high watermark) for a consumer. */
    public synchronized LogReadResult read(long offset, int maxBytes, boolean minOneBatch) {
        return log.read(offset, maxBytes, log.highWatermark(), minOneBatch);
    }

    public synchronized long logStartOffset() {
        return log.logStartOffset();
    }

    public synchronized long highWatermark() {
        return log.highWatermark();
    }

    public synchronized long logEndOffset() {
        return log.logEndOffset();
    }

    public synchronized Optional<TimestampAndOffset> offsetForTimestamp(long timestampMs) {
        return log.findOffsetByTimestamp(timestampMs);
    }

    /**
     * ListOffsets with MAX_TIMESTAMP: the first record carrying the largest timestamp in the log, found by a
     * binary search over {@link PartitionLog#findOffsetByTimestamp} (at most 64 index lookups; the log keeps no
     * per-log maximum). Empty if no record has a timestamp >= 0.
     */
    public synchronized Optional<TimestampAndOffset> offsetOfMaxTimestamp() {
        if (log.findOffsetByTimestamp(0).isEmpty()) {
            return Optional.empty();
        }
        long low = 0; // some record has a timestamp >= low
        long high = Long.MAX_VALUE; // no record has a timestamp > high
        while (low < high) {
            long mid = low + (high - low) / 2 + 1;
            if (log.findOffsetByTimestamp(mid).isPresent()) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return log.findOffsetByTimestamp(low);
    }

    public synchronized EpochEndOffset endOffsetForEpoch(int epoch) {
        return log.endOffsetForEpoch(epoch);
    }

    /**
     * Moves the log start offset up; -1 means the high watermark.
     *
     * @return the new log start offset
     * @throws OffsetOutOfRangeException if {@code offset} is another negative value or above the high watermark
     */
    synchronized long deleteRecordsBefore(long offset) {
        if (offset < -1) {
            throw new OffsetOutOfRangeException("[" + topicPartition + "] cannot delete records before offset "
                    + offset);
        }
        return log.deleteRecordsBefore(offset == -1 ? log.highWatermark() : offset);
    }

    /**
     * One compaction pass if the log is compacted and has dirty closed segments. The segments are read and
     * rewritten without this partition's lock; only the start and the swap take it, so produce and fetch continue.
     *
     * @return true if compacted segments were swapped in
     * @throws IOException if the pass failed before the swap (the log is unchanged; a segment it read may have been
     *                     deleted by retention meanwhile)
     */
    boolean compact(long maxMapBytes, CompactionTask.IoThrottle throttle) throws IOException, InterruptedException {
        Optional<CompactionTask> task;
        synchronized (this) {
            task = log.beginCompaction(maxMapBytes);
        }
        if (task.isEmpty()) {
            return false;
        }
        task.get().prepare(throttle);
        boolean swapped;
        synchronized (this) {
            swapped = log.completeCompaction(task.get());
        }
        return swapped;
    }

    public synchronized long sizeBytes() {
        return log.sizeBytes();
    }

    synchronized void updateConfig(LogConfig config) {
        log.updateConfig(config);
    }

    synchronized int deleteSegmentsForRetention() {
        return log.deleteSegmentsForRetention();
    }

    synchronized void close() {
        log.close();
    }

    java.nio.file.Path dir() {
        return log.dir();
    }

    @Override
    public String toString() {
        return "Partition[" + topicPartition + "]";
    }
}
