package dev.strait.broker.link;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The mirror-topic partitions this node leads, and the writes the mirror fetcher makes to them. Every write names
 * the leader epoch it was decided in and is refused ({@link dev.strait.broker.partition.PartitionRoleException}) once
 * leadership moved.
 */
public interface MirrorTargets {

    /** A mirror-topic partition led here, still copying. */
    record LedMirror(TopicPartition partition, int leaderEpoch, long logEndOffset, MirrorSpec spec) {}

    List<LedMirror> ledMirrors();

    /** Partitions led here of promoted mirror topics whose copy left a transaction open. */
    List<LedMirror> promotedWithOpenTransactions();

    /** Ends every open transaction of a promoted mirror partition with an abort marker; returns their producer ids. */
    List<Long> abortOpenTransactions(TopicPartition partition, int leaderEpoch);

    /** Appends copied batches at {@code requiredBaseOffset}; returns the new log end offset. */
    long append(TopicPartition partition, int leaderEpoch, long requiredBaseOffset, ByteBuffer records);

    /** Restarts the log, empty, at the source's log start if that lies past its end; returns whether it did. */
    boolean restartAt(TopicPartition partition, int leaderEpoch, long sourceLogStartOffset);

    /** Moves the log start up to the source's, as far as the committed copy goes. */
    void followSourceLogStart(TopicPartition partition, int leaderEpoch, long sourceLogStartOffset);

    /** Records the source topic's id in the mirror topic's configs, so a re-created source is never copied on top. */
    void pinSourceTopicId(String topic, Uuid sourceTopicId);

    /** The partition's source epoch lineage as the topic's configs hold it; empty if none is recorded. */
    Optional<MirrorLineage> lineage(TopicPartition partition);

    /**
     * Records the partition's source epoch lineage in the topic's configs, through the controller, while this node
     * leads it in {@code leaderEpoch} and the topic still copies; the fetcher calls it before it appends the first
     * batch of a new source epoch.
     *
     * @throws PartitionRoleException when leadership moved or the topic no longer copies
     */
    void recordLineage(TopicPartition partition, int leaderEpoch, MirrorLineage lineage);
}
