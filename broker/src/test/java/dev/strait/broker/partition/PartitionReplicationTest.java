package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.replication.ProduceCheck;
import dev.strait.broker.replication.ReplicationConfig;
import dev.strait.broker.replication.TruncationRule;
import dev.strait.time.Time;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Partition} over a real log: the broker side of the replication state machine. */
class PartitionReplicationTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private final List<Partition> opened = new java.util.ArrayList<>();

    private Partition open(int localId, int minInsync) {
        PartitionLog log = PartitionLog.open(dir.resolve("t-0-" + localId), LogConfig.defaults(), Time.SYSTEM);
        Partition partition = new Partition(
                TP,
                Uuid.randomUuid(),
                log,
                localId,
                new ReplicationConfig(30_000, minInsync, TruncationRule.LEADER_EPOCH));
        partition.loadProducerState();
        opened.add(partition);
        return partition;
    }

    @AfterEach
    void close() {
        for (Partition partition : opened) {
            partition.close();
        }
    }

    /** One fetch round trip of {@code follower} at {@code leader} in {@code epoch}, as the replica fetcher does it. */
    private static void fetch(Partition leader, Partition follower, int followerId, int epoch) {
        long offset = follower.fetchOffset(epoch).orElseThrow();
        leader.onFollowerFetch(followerId, -1, offset, 0);
        ByteBuffer records = leader.readForFollower(offset, 1 << 20).records().readAll();
        follower.appendAsFollower(epoch, offset, records, leader.highWatermark(), leader.logStartOffset());
    }

    /** A follower's truncation round in {@code epoch}: OffsetForLeaderEpoch at the leader, then truncation. */
    private static void truncate(Partition leader, Partition follower, int epoch) {
        int asked = follower.epochToQuery(epoch).orElseThrow();
        follower.onEpochEndOffset(epoch, leader.endOffsetForEpoch(asked));
    }

    private static SimpleRecord[] records(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1_000L + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return records;
    }

    private static ByteBuffer batch(int count) {
        return MemoryRecords.withRecords(Compression.NONE, records(count)).buffer();
    }

    private static ProducerBatch plain(int count) {
        return new ProducerBatch(-1, (short) -1, -1, -1, count);
    }

    @Test
    void acksAllIsRefusedBeforeAppendingWhenTheIsrIsBelowMinInsync() {
        // Given
        Partition p = open(0, 2);
        p.applyAssignment(new PartitionState(0, 3, List.of(0, 1, 2), List.of(0), 1), 0);
        // When / Then
        assertThatThrownBy(() -> p.appendAsLeader(batch(1), List.of(plain(1)), true))
                .isInstanceOfSatisfying(
                        PartitionRoleException.class,
                        e -> assertThat(e.reason()).isEqualTo(PartitionRoleException.Reason.NOT_ENOUGH_REPLICAS));
        assertThat(p.logEndOffset()).isZero();
        assertThat(p.appendAsLeader(batch(1), List.of(plain(1)), false).leaderEpoch())
                .isEqualTo(3);
        // KIP-966 (issue 22): below min.insync.replicas the high watermark stays, even for acks=1 records.
        assertThat(p.highWatermark()).isZero();
    }

    @Test
    void theHighWatermarkWaitsForEveryIsrMemberAndThenCompletesAcksAll() {
        // Given
        Partition p = open(0, 2);
        p.applyAssignment(new PartitionState(0, 1, List.of(0, 1, 2), List.of(0, 1, 2), 0), 0);
        Partition.LeaderAppend append = p.appendAsLeader(batch(3), List.of(plain(3)), true);
        assertThat(p.checkProduceCompletion(append.result().lastOffset(), append.leaderEpoch()))
                .isEqualTo(ProduceCheck.PENDING);
        // When
        assertThat(p.onFollowerFetch(1, -1, 3, 10).highWatermarkMoved()).isFalse();
        Partition.FollowerFetch second = p.onFollowerFetch(2, -1, 3, 10);
        // Then
        assertThat(second.highWatermarkMoved()).isTrue();
        assertThat(p.highWatermark()).isEqualTo(3);
        assertThat(p.checkProduceCompletion(2, append.leaderEpoch())).isEqualTo(ProduceCheck.OK);
        assertThat(p.readForFollower(0, 1 << 20).records().sizeBytes()).isPositive();
    }

    @Test
    void aFollowerFencesRequestsAndAppendsOnlyInTheEpochItFollows() {
        // Given
        Partition p = open(1, 1);
        p.applyAssignment(new PartitionState(0, 2, List.of(0, 1), List.of(0, 1), 0), 0);
        assertThatThrownBy(() -> p.checkLeader(2))
                .isInstanceOfSatisfying(
                        PartitionRoleException.class,
                        e -> assertThat(e.reason()).isEqualTo(PartitionRoleException.Reason.NOT_LEADER));
        assertThat(p.epochToQuery(2)).hasValue(-1);
        p.onEpochEndOffset(2, EpochEndOffset.UNDEFINED);
        assertThat(p.fetchOffset(2)).hasValue(0);
        assertThat(p.fetchOffset(1)).isEmpty();
        // When: data for an epoch the replica left is dropped; data for its epoch is appended as it is
        ByteBuffer fromLeader =
                MemoryRecords.withRecords(0L, Compression.NONE, 2, records(4)).buffer();
        p.appendAsFollower(1, 0, fromLeader.duplicate(), 4, 0);
        assertThat(p.logEndOffset()).isZero();
        p.appendAsFollower(2, 0, fromLeader.duplicate(), 3, 0);
        // Then
        assertThat(p.logEndOffset()).isEqualTo(4);
        assertThat(p.highWatermark()).isEqualTo(3);
    }

    @Test
    void aNewLeaderRecognisesARetriedBatchThatItsPredecessorReplicatedToIt() {
        // Given: a follower got an idempotent batch from the leader
        Partition p = open(1, 1);
        p.applyAssignment(new PartitionState(0, 0, List.of(0, 1), List.of(0, 1), 0), 0);
        p.onEpochEndOffset(0, EpochEndOffset.UNDEFINED);
        ByteBuffer replicated = MemoryRecords.withIdempotentRecords(Compression.NONE, 42L, (short) 0, 0, records(2))
                .buffer();
        p.appendAsFollower(0, 0, replicated, 2, 0);
        // When: it leads, and the producer retries the batch whose acknowledgement it never got
        p.applyAssignment(new PartitionState(1, 1, List.of(0, 1), List.of(1), 1), 0);
        Partition.LeaderAppend retried =
                p.appendAsLeader(idempotent(42L, 0, 2), List.of(new ProducerBatch(42L, (short) 0, 0, 1, 2)), true);
        // Then: a duplicate at the original offsets, and nothing appended
        assertThat(retried.result().firstOffset()).isZero();
        assertThat(retried.result().lastOffset()).isEqualTo(1);
        assertThat(p.logEndOffset()).isEqualTo(2);
    }

    /**
     * Issue 11, defect 1: leader A appends a batch, is cut off from its followers, the delayed produce times out and
     * the idempotent producer resends. The retry must not be acknowledged from the producer state while the batch
     * is still only on A: it waits for the high watermark exactly like the first attempt did.
     */
    @Test
    void aRetriedBatchThatIsNotReplicatedYetWaitsForTheHighWatermarkLikeTheFirstAttempt() {
        // Given: the leader appended an idempotent acks=all batch that no follower fetched yet
        Partition p = open(0, 2);
        p.applyAssignment(new PartitionState(0, 1, List.of(0, 1, 2), List.of(0, 1, 2), 0), 0);
        p.appendAsLeader(batch(2), List.of(plain(2)), true);
        ProducerBatch fields = new ProducerBatch(42L, (short) 0, 0, 2, 3);
        Partition.LeaderAppend first = p.appendAsLeader(idempotent(42L, 0, 3), List.of(fields), true);
        assertThat(p.checkProduceCompletion(first.result().lastOffset(), first.leaderEpoch()))
                .isEqualTo(ProduceCheck.PENDING);
        // When: the producer's request timed out and it sends the same batch again
        Partition.LeaderAppend retried = p.appendAsLeader(idempotent(42L, 0, 3), List.of(fields), true);
        // Then: nothing is appended, and the retry waits for the original offsets to be replicated
        assertThat(retried.result().firstOffset()).isEqualTo(2);
        assertThat(retried.result().lastOffset()).isEqualTo(4);
        assertThat(p.logEndOffset()).isEqualTo(5);
        assertThat(p.checkProduceCompletion(retried.result().lastOffset(), retried.leaderEpoch()))
                .isEqualTo(ProduceCheck.PENDING);
        p.onFollowerFetch(1, -1, 5, 10);
        assertThat(p.checkProduceCompletion(retried.result().lastOffset(), retried.leaderEpoch()))
                .isEqualTo(ProduceCheck.PENDING);
        p.onFollowerFetch(2, -1, 5, 10);
        assertThat(p.checkProduceCompletion(retried.result().lastOffset(), retried.leaderEpoch()))
                .isEqualTo(ProduceCheck.OK);
    }

    @Test
    void aWaitingRetriedBatchFailsRetriablyWhenLeadershipMoves() {
        // Given: a retried batch waits for the high watermark
        Partition p = open(0, 2);
        p.applyAssignment(new PartitionState(0, 1, List.of(0, 1, 2), List.of(0, 1, 2), 0), 0);
        ProducerBatch fields = new ProducerBatch(7L, (short) 0, 0, 0, 1);
        p.appendAsLeader(idempotent(7L, 0, 1), List.of(fields), true);
        Partition.LeaderAppend retried = p.appendAsLeader(idempotent(7L, 0, 1), List.of(fields), true);
        // When: the controller elects another replica
        p.applyAssignment(new PartitionState(1, 2, List.of(0, 1, 2), List.of(0, 1, 2), 1), 0);
        // Then: NOT_LEADER (NOT_LEADER_OR_FOLLOWER on the wire, which the producer retries at the new leader)
        assertThat(p.checkProduceCompletion(retried.result().lastOffset(), retried.leaderEpoch()))
                .isEqualTo(ProduceCheck.NOT_LEADER);
    }

    /**
     * Issue 11, defect 3: A was elected in epoch 2 and lost leadership before appending anything (paused past the
     * session timeout); B, which never heard of epoch 2, leads epoch 3 with records of epoch 1 that A lacks. The
     * epoch entry (2, 3) A wrote when it became leader must not stop it from taking those records.
     */
    @Test
    void aReplicaThatLedWithoutAppendingTakesTheNewLeadersOlderEpochRecords() {
        // Given: B leads epoch 1; A has offsets 0-2 of it, B also 3-4
        Partition a = open(0, 1);
        Partition b = open(1, 1);
        PartitionState epoch1 = new PartitionState(1, 1, List.of(0, 1), List.of(0, 1), 0);
        b.applyAssignment(epoch1, 0);
        a.applyAssignment(epoch1, 0);
        truncate(b, a, 1);
        for (int i = 0; i < 3; i++) {
            b.appendAsLeader(batch(1), List.of(plain(1)), false);
        }
        fetch(b, a, 0, 1);
        b.appendAsLeader(batch(1), List.of(plain(1)), false);
        b.appendAsLeader(batch(1), List.of(plain(1)), false);
        // A leads epoch 2 without appending; B never learns of it, and leads epoch 3
        a.applyAssignment(new PartitionState(0, 2, List.of(0, 1), List.of(0, 1), 1), 0);
        PartitionState epoch3 = new PartitionState(1, 3, List.of(0, 1), List.of(0, 1), 2);
        b.applyAssignment(epoch3, 0);
        a.applyAssignment(epoch3, 0);

        // When: A truncates where its log agrees with B's (its own log end) and fetches
        truncate(b, a, 3);
        fetch(b, a, 0, 3);

        // Then: A has B's records of epoch 1, and its epoch cache agrees with B's
        assertThat(a.logEndOffset()).isEqualTo(5);
        assertThat(a.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 5));
        b.appendAsLeader(batch(2), List.of(plain(2)), false);
        fetch(b, a, 0, 3);
        fetch(b, a, 0, 3);
        assertThat(a.logEndOffset()).isEqualTo(7);
        assertThat(a.highWatermark()).isEqualTo(7);
        assertThat(a.endOffsetForEpoch(2)).isEqualTo(b.endOffsetForEpoch(2));
    }

    @Test
    void anEpochBelowTheLeadersFirstKnownEpochEndsWhereThatEpochStarts() {
        // Given: A led epoch 1 (offsets 0-4); B has all five but learned a high watermark of 3
        Partition a = open(0, 1);
        Partition b = open(1, 1);
        PartitionState epoch1 = new PartitionState(0, 1, List.of(0, 1), List.of(0, 1), 0);
        a.applyAssignment(epoch1, 0);
        b.applyAssignment(epoch1, 0);
        truncate(a, b, 1);
        a.appendAsLeader(batch(3), List.of(plain(3)), false);
        fetch(a, b, 1, 1);
        fetch(a, b, 1, 1);
        a.appendAsLeader(batch(2), List.of(plain(2)), false);
        fetch(a, b, 1, 1);
        assertThat(b.logEndOffset()).isEqualTo(5);
        assertThat(b.highWatermark()).isEqualTo(3);
        // A leads epoch 2 alone, appends offsets 5-9, and DeleteRecords drops epoch 1 from its log and epoch cache
        PartitionState epoch2 = new PartitionState(0, 2, List.of(0, 1), List.of(0), 1);
        a.applyAssignment(epoch2, 0);
        a.appendAsLeader(batch(5), List.of(plain(5)), false);
        a.deleteRecordsBefore(7);

        // When: OffsetForLeaderEpoch for epoch 1, below the first epoch A still knows
        EpochEndOffset answer = a.endOffsetForEpoch(1);

        // Then: as Kafka, the requested epoch ending where A's first known epoch starts (not UNDEFINED, which
        // made B throw away its records above its high watermark)
        assertThat(answer).isEqualTo(new EpochEndOffset(1, 7));
        b.applyAssignment(epoch2, 0);
        truncate(a, b, 2);
        assertThat(b.fetchOffset(2)).hasValue(5);
    }

    @Test
    void aFollowerFetchCheckedInAnOldEpochNeitherMovesTheHighWatermarkNorCountsTowardTheIsr() {
        // Given: node 0 leads epoch 1 with ISR {0, 1, 2} and offsets 0-2; followers 1 and 2 fetch at 3 in epoch 1
        Partition p = open(0, 2);
        p.applyAssignment(new PartitionState(0, 1, List.of(0, 1, 2), List.of(0, 1, 2), 0), 0);
        p.appendAsLeader(batch(3), List.of(plain(3)), true);
        p.checkLeader(1); // the fetches of epoch 1 were valid when they arrived ...
        // ... and then the leader changes (node 0 leads again, in epoch 2, with ISR {0, 1}) before the fetches count
        p.applyAssignment(new PartitionState(0, 2, List.of(0, 1, 2), List.of(0, 1), 1), 0);

        // When: the two fetches of epoch 1 are counted (the old code checked the epoch in FetchHandler, then
        // counted the offset in a second call that took no epoch)
        for (int follower : new int[] {1, 2}) {
            assertThatThrownBy(() -> p.onFollowerFetch(follower, 1, 3, 10))
                    .isInstanceOfSatisfying(
                            PartitionRoleException.class,
                            e -> assertThat(e.reason()).isEqualTo(PartitionRoleException.Reason.FENCED_EPOCH));
        }

        // Then: fetches of epoch 1 say nothing about what the followers hold in epoch 2
        assertThat(p.highWatermark()).isZero();
        assertThat(p.maximalIsr()).containsExactlyInAnyOrder(0, 1);
    }

    private static ByteBuffer idempotent(long producerId, int baseSequence, int count) {
        return MemoryRecords.withIdempotentRecords(
                        Compression.NONE, producerId, (short) 0, baseSequence, records(count))
                .buffer();
    }
}
