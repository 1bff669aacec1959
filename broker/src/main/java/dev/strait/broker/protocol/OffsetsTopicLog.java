package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupError;
import dev.strait.broker.group.OffsetsLog;
import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ProducerBatch;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.partition.TopicConfigs;
import dev.strait.time.Time;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * The group coordinator's {@link OffsetsLog}: the internal topic {@value #TOPIC}, created on first start with
 * {@code offsets.topic.num.partitions} partitions of {@code offsets.topic.replication.factor} replicas (created
 * only once that many brokers are registered, as Kafka), {@code cleanup.policy=compact} and
 * {@code segment.bytes=offsets.topic.segment.bytes} (as Kafka), written through the replica layer's
 * {@code PartitionLog}s as ordinary Kafka v2 batches (one batch per append, uncompressed, so the log cleaner can
 * compact them: the latest commit per group and partition survives). Appends are acks=all; a write is durable once
 * the partition's high watermark passed it, which {@link #awaitReplication} waits for in the produce purgatory.
 * Record timestamps come from the replica manager's clock.
 */
public final class OffsetsTopicLog implements OffsetsLog {

    public static final String TOPIC = "__consumer_offsets";

    /** How long a write of the coordinator waits to be replicated before its client hears so (Kafka's default). */
    static final long OFFSETS_COMMIT_TIMEOUT_MS = 5_000;

    private final ReplicaManager replicaManager;
    private final Time time;

    private final int configuredPartitions;
    private final int replicationFactor;
    private final Map<String, String> configs;

    /**
     * Brings an existing offsets topic's configs in line; a missing topic is created by {@link #ensureCreated()},
     * which the broker calls once it is registered: in a cluster the topic's replicas need registered brokers.
     */
    public OffsetsTopicLog(ReplicaManager replicaManager, int numPartitions, int segmentBytes) {
        this(replicaManager, numPartitions, -1, segmentBytes);
    }

    /** @param replicationFactor replicas per partition when the topic is created; -1 for the cluster default */
    public OffsetsTopicLog(ReplicaManager replicaManager, int numPartitions, int replicationFactor, int segmentBytes) {
        this.replicaManager = replicaManager;
        this.time = replicaManager.time();
        this.configuredPartitions = numPartitions;
        this.replicationFactor = replicationFactor;
        this.configs = Map.of(TopicConfigs.CLEANUP_POLICY, "compact", "segment.bytes", Integer.toString(segmentBytes));
        Optional<TopicMetadata> existing = replicaManager.topic(TOPIC);
        if (existing.isPresent()) {
            // Topics created before compaction existed had retention.ms=-1 only; bring them (and a changed
            // offsets.topic.segment.bytes) in line so that committed offsets stop growing without bound, keeping
            // any other override an operator set.
            Map<String, String> merged = new HashMap<>(existing.get().configs());
            merged.putAll(configs);
            if (!merged.equals(existing.get().configs())) {
                replicaManager.changeTopicConfigs(TOPIC, existing.get().configs(), merged, false);
            }
        }
    }

    /**
     * Creates the offsets topic if it does not exist yet. Until it does, FindCoordinator answers
     * COORDINATOR_NOT_AVAILABLE and clients retry, as with Kafka, which also creates it on demand.
     *
     * @return true once the topic exists; false if the cluster cannot place it yet (too few brokers registered)
     */
    public boolean ensureCreated() {
        if (replicaManager.topic(TOPIC).isPresent()) {
            return true;
        }
        try {
            replicaManager.createTopic(TOPIC, configuredPartitions, replicationFactor, configs, false);
            return true;
        } catch (TopicExistsException e) {
            return true;
        } catch (InvalidReplicationFactorException e) {
            return false;
        }
    }

    /** The number of partitions of the existing topic (it wins over the config after the first start). */
    public int numPartitions() {
        return replicaManager.topic(TOPIC).map(TopicMetadata::partitions).orElse(configuredPartitions);
    }

    @Override
    public Appended append(int partition, List<Entry> records) {
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, simpleRecords(records));
        try {
            return appendAsLeader(partition, batch, List.of());
        } catch (RuntimeException e) {
            throw new AppendFailedException(
                    ApiErrors.forCoordinatorWrite(ApiErrors.forException(e)), e.getMessage(), e);
        }
    }

    /**
     * One transactional batch of the producer, appended with its producer fields so that the partition's producer
     * state checks it like a producer's own batch: an epoch older than one that wrote here is fenced. The producer
     * sends nothing else to this partition, so the sequence is the one that state expects next: 0 for an epoch it
     * has not seen (or a producer it does not know), else one past the last. The coordinator's shard loop is the only
     * writer of the producer's data batches here (markers carry no sequence), so the state cannot move in between.
     */
    @Override
    public Appended appendTransactional(int partition, long producerId, short producerEpoch, List<Entry> records) {
        TopicPartition tp = new TopicPartition(TOPIC, partition);
        try {
            int baseSequence = nextSequence(tp, producerId, producerEpoch);
            int lastSequence = (int) ((baseSequence + (long) records.size() - 1) % (1L << 31));
            MemoryRecords batch = MemoryRecords.withTransactionalRecords(
                    Compression.NONE, producerId, producerEpoch, baseSequence, simpleRecords(records));
            return appendAsLeader(
                    partition,
                    batch,
                    List.of(new ProducerBatch(producerId, producerEpoch, baseSequence, lastSequence, records.size())));
        } catch (RuntimeException e) {
            Errors error = ApiErrors.forException(e);
            throw new AppendFailedException(
                    switch (error) {
                        case INVALID_PRODUCER_EPOCH -> GroupError.INVALID_PRODUCER_EPOCH;
                        // Only if the sequence above is wrong: not the client's doing, and it cannot retry it.
                        case OUT_OF_ORDER_SEQUENCE_NUMBER -> GroupError.UNKNOWN_SERVER_ERROR;
                        default -> ApiErrors.forCoordinatorWrite(error);
                    },
                    e.getMessage(),
                    e);
        }
    }

    private int nextSequence(TopicPartition tp, long producerId, short producerEpoch) {
        Optional<Partition> local = replicaManager.partition(tp);
        if (local.isEmpty()) {
            return 0; // the append fails as for any write
        }
        for (Partition.ProducerView producer : local.get().producers()) {
            if (producer.producerId() == producerId) {
                boolean sameEpoch = producer.epoch() == producerEpoch;
                return sameEpoch && producer.lastSequence() >= 0 && producer.lastSequence() < Integer.MAX_VALUE
                        ? producer.lastSequence() + 1
                        : 0;
            }
        }
        return 0;
    }

    private SimpleRecord[] simpleRecords(List<Entry> records) {
        SimpleRecord[] simple = new SimpleRecord[records.size()];
        long now = time.milliseconds();
        for (int i = 0; i < simple.length; i++) {
            simple[i] =
                    new SimpleRecord(now, records.get(i).key(), records.get(i).value());
        }
        return simple;
    }

    /** As Kafka's coordinator writes: acks=all, so min.insync.replicas applies. */
    private Appended appendAsLeader(int partition, MemoryRecords batch, List<ProducerBatch> producerBatches) {
        Partition.LeaderAppend append = replicaManager.appendRecords(
                new TopicPartition(TOPIC, partition), batch.buffer(), producerBatches, true);
        return new Appended(append.result().lastOffset() + 1, append.leaderEpoch());
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
                OFFSETS_COMMIT_TIMEOUT_MS,
                onChange);
    }

    @Override
    public long replay(int partition, RecordConsumer consumer) {
        Optional<Partition> local = replicaManager.partition(new TopicPartition(TOPIC, partition));
        if (local.isEmpty() || !local.get().isLeader()) {
            return 0; // the shard is served by the partition's leader, which loads it
        }
        Partition log = local.get();
        long offset = log.logStartOffset();
        while (offset < log.logEndOffset()) {
            // Up to the log end: the coordinator serves none of it before the high watermark passed it.
            LogReadResult read = log.readForFollower(offset, 1 << 20);
            if (read.records().isEmpty()) {
                break;
            }
            MemoryRecords records = MemoryRecords.readableRecords(read.records().readAll());
            long next = offset;
            for (RecordBatch batch : records.batches()) {
                for (Record record : batch) {
                    if (record.offset() >= offset) {
                        replayRecord(batch, record, consumer);
                    }
                }
                next = Math.max(next, batch.nextOffset());
            }
            if (next == offset) {
                break;
            }
            offset = next;
        }
        return offset;
    }

    /** A record as the coordinator's replay needs it: plain, of a producer's transaction, or a transaction marker. */
    private static void replayRecord(RecordBatch batch, Record record, RecordConsumer consumer) {
        if (batch.isControlBatch()) {
            ControlRecordType type = ControlRecordType.parse(record.key());
            if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                consumer.acceptMarker(record.offset(), batch.producerId(), type == ControlRecordType.COMMIT);
            }
            return; // other control records carry nothing for the coordinator
        }
        byte[] key = bytes(record.key());
        byte[] value = record.hasValue() ? bytes(record.value()) : null;
        if (batch.isTransactional()) {
            consumer.acceptTransactional(record.offset(), batch.producerId(), key, value);
        } else {
            consumer.accept(record.offset(), key, value);
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] result = new byte[buffer.remaining()];
        buffer.duplicate().get(result);
        return result;
    }
}
