package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.log.TimestampAndOffset;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.replication.ReplicationConfig;
import dev.strait.broker.replication.TruncationRule;
import dev.strait.time.Time;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a client's ListOffsets sees of a partition right after a leader change (issue 22, D3; KIP-207). The new
 * leader learns the high watermark from its followers' fetches, so for a while it lags the end the old leader
 * already reported; until it reaches the start offset of the new epoch, Kafka's {@code
 * Partition.fetchOffsetForTimestamp} answers OFFSET_NOT_AVAILABLE (retried by the client) rather than an end
 * offset that goes backwards.
 */
class ListOffsetsAfterLeaderChangeTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private final List<Partition> opened = new ArrayList<>();

    private Partition open(int localId) {
        PartitionLog log = PartitionLog.open(dir.resolve("t-0-" + localId), LogConfig.defaults(), Time.SYSTEM);
        Partition partition = new Partition(
                TP, Uuid.randomUuid(), log, localId, new ReplicationConfig(30_000, 1, TruncationRule.LEADER_EPOCH));
        partition.loadProducerState();
        opened.add(partition);
        return partition;
    }

    @AfterEach
    void close() {
        opened.forEach(Partition::close);
    }

    private static ByteBuffer batch(long firstTimestampMs, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(firstTimestampMs + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records).buffer();
    }

    private static ProducerBatch plain(int count) {
        return new ProducerBatch(-1, (short) -1, -1, -1, count);
    }

    /** One fetch round trip of follower {@code followerId} at {@code leader} in {@code epoch}. */
    private static void fetch(Partition leader, Partition follower, int followerId, int epoch) {
        long offset = follower.fetchOffset(epoch).orElseThrow();
        leader.onFollowerFetch(followerId, -1, offset, 0);
        ByteBuffer records = leader.readForFollower(offset, 1 << 20).records().readAll();
        follower.appendAsFollower(epoch, offset, records, leader.highWatermark(), leader.logStartOffset());
    }

    private static void assertOffsetNotAvailable(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        PartitionRoleException.class,
                        e -> assertThat(e.reason())
                                .isEqualTo(PartitionRoleException.Reason.HIGH_WATERMARK_BEHIND_EPOCH_START));
    }

    /**
     * Replica 1 has records 0..2 but learned a high watermark of 0: replica 2's fetch moved the old leader's high
     * watermark to 3 after replica 1 had fetched. Replica 1 becomes leader in epoch 2, starting at offset 3.
     */
    private Partition newLeaderWithLaggingHighWatermark() {
        Partition oldLeader = open(0);
        Partition b = open(1);
        Partition c = open(2);
        PartitionState epoch1 = new PartitionState(0, 1, List.of(0, 1, 2), List.of(0, 1, 2), 0);
        oldLeader.applyAssignment(epoch1, 0);
        b.applyAssignment(epoch1, 0);
        c.applyAssignment(epoch1, 0);
        b.onEpochEndOffset(1, oldLeader.endOffsetForEpoch(b.epochToQuery(1).orElseThrow()));
        c.onEpochEndOffset(1, oldLeader.endOffsetForEpoch(c.epochToQuery(1).orElseThrow()));
        oldLeader.appendAsLeader(batch(1_000, 3), List.of(plain(3)), true);
        fetch(oldLeader, b, 1, 1);
        fetch(oldLeader, c, 2, 1);
        fetch(oldLeader, b, 1, 1);
        fetch(oldLeader, c, 2, 1);
        assertThat(oldLeader.latestOffsetForClient()).isEqualTo(3);
        assertThat(b.highWatermark()).isZero();
        assertThat(b.logEndOffset()).isEqualTo(3);
        b.applyAssignment(new PartitionState(1, 2, List.of(0, 1, 2), List.of(1, 2), 1), 0);
        assertThat(b.isLeader()).isTrue();
        return b;
    }

    @Test
    void latestIsNotAvailableUntilTheHighWatermarkReachesTheEpochStartOffset() {
        // Given: a client saw LATEST = 3 at the old leader
        Partition leader = newLeaderWithLaggingHighWatermark();

        // When / Then: 0 would take the client's end offset backwards
        assertOffsetNotAvailable(leader::latestOffsetForClient);

        // When: the other ISR member fetches from the epoch start, the high watermark reaches it
        leader.onFollowerFetch(2, -1, 3, 0);

        // Then
        assertThat(leader.highWatermark()).isEqualTo(3);
        assertThat(leader.latestOffsetForClient()).isEqualTo(3);
    }

    @Test
    void aTimestampLookupAtOrAboveTheLaggingHighWatermarkIsNotAvailableEither() {
        // Given
        Partition leader = newLeaderWithLaggingHighWatermark();

        // When / Then: records 0..2 have timestamps 1000..1002 and are all at or above the high watermark 0
        assertOffsetNotAvailable(() -> leader.offsetForTimestamp(1_001));
        assertOffsetNotAvailable(leader::offsetOfMaxTimestamp);
        // no record that late: still unknown while committed records may be missing from the answer
        assertOffsetNotAvailable(() -> leader.offsetForTimestamp(9_999));

        // When
        leader.onFollowerFetch(2, -1, 3, 0);

        // Then
        assertThat(leader.offsetForTimestamp(1_001)).contains(new TimestampAndOffset(1_001, 1));
        assertThat(leader.offsetOfMaxTimestamp()).contains(new TimestampAndOffset(1_002, 2));
        assertThat(leader.offsetForTimestamp(9_999)).isEmpty();
    }

    @Test
    void aTimestampLookupNeverAnswersAnUncommittedOffset() {
        // Given: a leader whose high watermark caught up, then two records the follower has not fetched yet
        Partition leader = newLeaderWithLaggingHighWatermark();
        leader.onFollowerFetch(2, -1, 3, 0);
        leader.appendAsLeader(batch(5_000, 2), List.of(plain(2)), true);
        assertThat(leader.highWatermark()).isEqualTo(3);

        // When / Then: offsets 3 and 4 may still be lost with this leader, so no client is told about them (Kafka
        // answers "no such offset", -1, as for a timestamp beyond the log)
        assertThat(leader.offsetForTimestamp(5_000)).isEmpty();
        assertThat(leader.offsetOfMaxTimestamp()).isEmpty();
        assertThat(leader.latestOffsetForClient()).isEqualTo(3);

        // When: committed
        leader.onFollowerFetch(2, -1, 5, 0);

        // Then
        assertThat(leader.offsetForTimestamp(5_000)).contains(new TimestampAndOffset(5_000, 3));
        assertThat(leader.offsetOfMaxTimestamp()).contains(new TimestampAndOffset(5_001, 4));
    }
}
