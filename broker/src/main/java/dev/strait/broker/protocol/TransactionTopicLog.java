package dev.strait.broker.protocol;

import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.partition.TopicConfigs;
import dev.strait.broker.txn.TransactionLog;
import dev.strait.broker.txn.TransactionRecords;
import dev.strait.broker.txn.TxnError;
import dev.strait.time.Time;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * The transaction coordinator's {@link TransactionLog}: the internal topic {@value #TOPIC}, compacted (the latest
 * value per transactional id survives), written through the replica layer as ordinary uncompressed Kafka v2
 * batches with acks=all, as {@link OffsetsTopicLog} writes the group coordinator's. Created when the first transactional producer looks
 * for its coordinator, as Kafka does.
 */
public final class TransactionTopicLog implements TransactionLog {

    public static final String TOPIC = "__transaction_state";

    /** How long a state write may take to replicate before the wait ends (the shard answers its own timeout). */
    private static final long WRITE_TIMEOUT_MS = 5_000;

    private final ReplicaManager replicaManager;
    private final Time time;
    private final int configuredPartitions;
    private final int replicationFactor;

    /** @param replicationFactor replicas per partition when the topic is created; -1 for the cluster default */
    public TransactionTopicLog(ReplicaManager replicaManager, int numPartitions, int replicationFactor) {
        this.replicaManager = replicaManager;
        this.time = replicaManager.time();
        this.configuredPartitions = numPartitions;
        this.replicationFactor = replicationFactor;
    }

    /**
     * Creates the topic if it does not exist yet.
     *
     * @return true once the topic exists; false if the cluster cannot place it yet (too few brokers registered)
     */
    public boolean ensureCreated() {
        if (replicaManager.topic(TOPIC).isPresent()) {
            return true;
        }
        try {
            replicaManager.createTopic(
                    TOPIC,
                    configuredPartitions,
                    replicationFactor,
                    Map.of(TopicConfigs.CLEANUP_POLICY, "compact"),
                    false);
            return true;
        } catch (TopicExistsException e) {
            return true;
        } catch (InvalidReplicationFactorException e) {
            return false;
        }
    }

    /** The number of partitions of the existing topic (it wins over the setting after the first start). */
    public int numPartitions() {
        return replicaManager.topic(TOPIC).map(TopicMetadata::partitions).orElse(configuredPartitions);
    }

    @Override
    public Appended append(int partition, TransactionRecords.Entry record) {
        MemoryRecords batch = MemoryRecords.withRecords(
                Compression.NONE, new SimpleRecord(time.milliseconds(), record.key(), record.value()));
        try {
            Partition.LeaderAppend append =
                    replicaManager.appendRecords(new TopicPartition(TOPIC, partition), batch.buffer(), List.of(), true);
            return new Appended(append.result().lastOffset() + 1, append.leaderEpoch());
        } catch (RuntimeException e) {
            Errors error = ApiErrors.forException(e);
            TxnError answer = error == Errors.NOT_LEADER_OR_FOLLOWER || error == Errors.UNKNOWN_TOPIC_OR_PARTITION
                    ? TxnError.NOT_COORDINATOR
                    : TxnError.COORDINATOR_NOT_AVAILABLE;
            throw new AppendFailedException(answer, e.getMessage());
        }
    }

    @Override
    public Optional<Position> position(int partition) {
        return replicaManager
                .partition(new TopicPartition(TOPIC, partition))
                .flatMap(Partition::leaderPosition)
                .map(p -> new Position(p.highWatermark(), p.logEndOffset(), p.leaderEpoch()));
    }

    @Override
    public void awaitReplication(int partition, Appended appended, Runnable onChange) {
        ReplicationWait.await(
                replicaManager,
                new TopicPartition(TOPIC, partition),
                appended.endOffset(),
                appended.leaderEpoch(),
                WRITE_TIMEOUT_MS,
                onChange);
    }

    /** The partition's records up to its log end, for {@code TransactionLoader.replay}; empty unless this node leads. */
    public List<TransactionRecords.Entry> replay(int partition) {
        List<TransactionRecords.Entry> entries = new ArrayList<>();
        Optional<Partition> local = replicaManager.partition(new TopicPartition(TOPIC, partition));
        if (local.isEmpty() || !local.get().isLeader()) {
            return entries;
        }
        Partition log = local.get();
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            LogReadResult read = log.readForFollower(offset, 1 << 20);
            if (read.records().isEmpty()) {
                break;
            }
            long next = offset;
            for (RecordBatch batch :
                    MemoryRecords.readableRecords(read.records().readAll()).batches()) {
                for (Record record : batch) {
                    if (record.offset() >= offset && record.hasKey()) {
                        entries.add(new TransactionRecords.Entry(
                                bytes(record.key()), record.hasValue() ? bytes(record.value()) : null));
                    }
                }
                next = Math.max(next, batch.nextOffset());
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
        return entries;
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] result = new byte[buffer.remaining()];
        buffer.duplicate().get(result);
        return result;
    }
}
