package dev.strait.broker.group;

import dev.strait.time.Time;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shards' durable write pipeline: appends the records an operation produced to the shard's offsets partition,
 * waits until the partition's high watermark passed them and every write before them ({@link PendingWrites}), and
 * only then completes the operation (its durable changes, then its responses). An operation that wrote nothing
 * still waits for the writes before it, so that no answer overtakes an earlier one that may yet fail. The replica
 * layer reports progress on its own thread; this handles it as a task on the shard's loop, so a shard's writes are
 * touched only there.
 *
 * <p>Not thread-safe: used on the shards' loops.
 */
final class DurableWrites {

    private static final Logger LOGGER = LoggerFactory.getLogger(DurableWrites.class);

    /** Queues a task to a shard's loop. */
    @FunctionalInterface
    interface ShardExecutor {
        void submit(GroupShard shard, Runnable task);
    }

    private final OffsetsLog log;
    private final Time clock;
    private final ShardExecutor loops;

    DurableWrites(OffsetsLog log, Time clock, ShardExecutor loops) {
        this.log = log;
        this.clock = clock;
        this.loops = loops;
    }

    /**
     * Carries out what an operation produced: appends its records and sends its responses once they (and all
     * earlier records) are durable; without records, once the earlier ones are.
     */
    void complete(GroupShard shard, GroupResult result) {
        if (result.isEmpty()) {
            return;
        }
        if (!result.records().isEmpty()) {
            OffsetsLog.Appended appended;
            GroupResult.Producer producer = result.producer();
            try {
                appended = producer == null
                        ? log.append(shard.index, result.records())
                        : log.appendTransactional(
                                shard.index, producer.producerId(), producer.producerEpoch(), result.records());
            } catch (OffsetsLog.AppendFailedException e) {
                LOGGER.info("group coordinator: write to offsets partition {} failed: {}", shard.index, e.getMessage());
                result.failResponses(e.error());
                result.runFailureHandlers(e.error(), clock.milliseconds());
                return;
            }
            // One batch, one offset per record: the records lie just below where the append ended.
            result.appendedAt(appended.endOffset() - result.records().size());
            enqueue(shard, appended, result, false);
        } else if (shard.writes.isEmpty()) {
            result.completeDurable();
        } else {
            enqueue(shard, shard.writes.last().orElseThrow(), result, false);
        }
    }

    /**
     * Completes {@code result} once the partition is durable up to {@code upTo}, however long that takes: it fails
     * only if this node stops leading the partition (a shard's load, which must not give up on a timeout).
     */
    void completeWhenDurable(GroupShard shard, OffsetsLog.Appended upTo, GroupResult result) {
        enqueue(shard, upTo, result, true);
    }

    /**
     * Completes the writes that are durable by now, without waiting for the replica layer's report: a caller that
     * learnt that the partition is durable past some offset (a transaction marker) sees their changes applied.
     */
    void drainDurable(GroupShard shard) {
        shard.writes.drain(log.position(shard.index), clock.milliseconds());
    }

    private void enqueue(GroupShard shard, OffsetsLog.Appended appended, GroupResult result, boolean untilDurable) {
        PendingWrites.Pending pending = shard.writes.add(appended, result, untilDurable);
        await(shard, pending);
        shard.writes.drain(log.position(shard.index), clock.milliseconds());
    }

    /** The replica layer calls back on its own thread; the progress is handled on the shard's loop. */
    private void await(GroupShard shard, PendingWrites.Pending pending) {
        log.awaitReplication(
                shard.index, pending.appended, () -> loops.submit(shard, () -> onReplicationProgress(shard, pending)));
    }

    /** The high watermark moved, leadership changed, or the commit timeout passed for {@code pending}. */
    private void onReplicationProgress(GroupShard shard, PendingWrites.Pending pending) {
        if (!shard.writes.contains(pending)) {
            return;
        }
        Optional<OffsetsLog.Position> position = log.position(shard.index);
        long now = clock.milliseconds();
        boolean stillLeading = position.isPresent() && position.get().leaderEpoch() == pending.appended.leaderEpoch();
        if (stillLeading && position.get().highWatermark() < pending.appended.endOffset()) {
            if (pending.untilDurable) {
                await(shard, pending);
            } else {
                shard.writes.timedOut(pending, now);
                await(shard, pending); // it may still become durable; then it applies
            }
        }
        shard.writes.drain(position, now);
    }
}
