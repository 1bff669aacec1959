package dev.strait.broker.protocol;

import dev.strait.broker.partition.DelayedOperation;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ReplicaManager;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/** A coordinator's wait, in the produce purgatory, for its own append to an internal topic to be replicated. */
final class ReplicationWait {

    private ReplicationWait() {}

    /**
     * Runs {@code onChange} once, on any thread, when the first of these happens: the partition's high watermark
     * reaches {@code endOffset}, this node stops leading it in {@code leaderEpoch}, or {@code timeoutMs} passes.
     */
    static void await(
            ReplicaManager replicaManager,
            TopicPartition partition,
            long endOffset,
            int leaderEpoch,
            long timeoutMs,
            Runnable onChange) {
        replicaManager
                .producePurgatory()
                .tryCompleteElseWatch(
                        new DelayedOperation() {
                            @Override
                            protected boolean isSatisfied() {
                                Optional<Partition.LeaderPosition> now =
                                        replicaManager.partition(partition).flatMap(Partition::leaderPosition);
                                return now.isEmpty()
                                        || now.get().leaderEpoch() != leaderEpoch
                                        || now.get().highWatermark() >= endOffset;
                            }

                            @Override
                            protected void onComplete() {
                                onChange.run();
                            }
                        },
                        List.of(partition),
                        timeoutMs);
    }
}
