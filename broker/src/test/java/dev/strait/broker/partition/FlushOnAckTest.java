package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** flush.on.ack: the high watermark, and so acks=all, counts only records every in-sync replica has fsynced. */
class FlushOnAckTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final PartitionState THREE_REPLICAS =
            new PartitionState(0, 1, List.of(0, 1, 2), List.of(0, 1, 2), 0);

    @TempDir
    Path dir;

    private final List<Partition> opened = new ArrayList<>();

    private Partition open(int localId, boolean flushOnAck) {
        return open("t-0-" + localId, localId, flushOnAck);
    }

    private Partition open(String dirName, int localId, boolean flushOnAck) {
        PartitionLog log =
                PartitionLog.open(dir.resolve(dirName), LogConfig.defaults().withFlushOnAck(flushOnAck), Time.SYSTEM);
        Partition partition = new Partition(
                TP, Uuid.randomUuid(), log, localId, new ReplicationConfig(30_000, 2, TruncationRule.LEADER_EPOCH));
        partition.loadProducerState();
        opened.add(partition);
        return partition;
    }

    @AfterEach
    void close() {
        opened.forEach(Partition::close);
    }

    private static ByteBuffer batch(int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(1_000L + i, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records).buffer();
    }

    private static List<ProducerBatch> plain(int count) {
        return List.of(new ProducerBatch(-1, (short) -1, -1, -1, count));
    }

    @Test
    void theLeadersHighWatermarkWaitsForItsOwnFsyncEvenWhenEveryFollowerHasTheRecords() {
        // Given
        Partition leader = open(0, true);
        leader.applyAssignment(THREE_REPLICAS, 0);
        Partition.LeaderAppend append = leader.appendAsLeader(batch(3), plain(3), true);
        // When: both followers fetch past the records, before the leader's flusher ran
        leader.onFollowerFetch(1, 1, 3, 0);
        leader.onFollowerFetch(2, 1, 3, 0);
        // Then
        assertThat(leader.highWatermark()).isZero();
        assertThat(leader.checkProduceCompletion(2, append.leaderEpoch())).isEqualTo(ProduceCheck.PENDING);
        assertThat(leader.flushForAck()).isTrue();
        assertThat(leader.flushedOffset()).isEqualTo(3);
        assertThat(leader.highWatermark()).isEqualTo(3);
        assertThat(leader.checkProduceCompletion(2, append.leaderEpoch())).isEqualTo(ProduceCheck.OK);
    }

    @Test
    void withoutTheModeTheHighWatermarkDoesNotWaitForAnyFsync() {
        Partition leader = open(0, false);
        leader.applyAssignment(THREE_REPLICAS, 0);
        leader.appendAsLeader(batch(3), plain(3), true);
        leader.onFollowerFetch(1, 1, 3, 0);
        leader.onFollowerFetch(2, 1, 3, 0);
        assertThat(leader.highWatermark()).isEqualTo(3);
        assertThat(leader.flushedOffset()).isZero();
    }

    @Test
    void aFollowerFsyncsWhatItFetchedBeforeItReportsItsNextFetchOffset() {
        // Given
        Partition leader = open(0, true);
        Partition follower = open(1, true);
        leader.applyAssignment(THREE_REPLICAS, 0);
        follower.applyAssignment(THREE_REPLICAS, 0);
        follower.onEpochEndOffset(
                1, leader.endOffsetForEpoch(follower.epochToQuery(1).orElseThrow()));
        leader.appendAsLeader(batch(4), plain(4), true);
        fetchAs(leader, follower, 1);
        assertThat(follower.logEndOffset()).isEqualTo(4);
        assertThat(follower.flushedOffset()).isZero();
        // When
        long reported = follower.fetchOffset(1).orElseThrow();
        // Then
        assertThat(reported).isEqualTo(4);
        assertThat(follower.flushedOffset()).isEqualTo(4);
    }

    @Test
    void theHighWatermarkNeverPassesWhatEveryIsrMemberHasFsyncedWhateverTheOrderOfAppendsFetchesAndFlushes() {
        Random random = new Random(22);
        for (int round = 0; round < 20; round++) {
            Partition leader = open(round + "-leader", 0, true);
            List<Partition> followers = List.of(open(round + "-f1", 1, true), open(round + "-f2", 2, true));
            leader.applyAssignment(THREE_REPLICAS, 0);
            for (Partition follower : followers) {
                follower.applyAssignment(THREE_REPLICAS, 0);
                follower.onEpochEndOffset(
                        1, leader.endOffsetForEpoch(follower.epochToQuery(1).orElseThrow()));
            }
            for (int step = 0; step < 60; step++) {
                int action = random.nextInt(4);
                if (action == 0) {
                    int count = 1 + random.nextInt(3);
                    leader.appendAsLeader(batch(count), plain(count), true);
                } else if (action == 1) {
                    leader.flushForAck();
                } else {
                    int f = random.nextInt(2);
                    fetchAs(leader, followers.get(f), f + 1);
                }
                long highWatermark = leader.highWatermark();
                assertThat(highWatermark).isLessThanOrEqualTo(leader.flushedOffset());
                for (Partition follower : followers) {
                    assertThat(highWatermark).isLessThanOrEqualTo(follower.flushedOffset());
                }
            }
            // Once everything is flushed and fetched, the high watermark reaches the log end.
            leader.flushForAck();
            for (int i = 0; i < 2; i++) { // the second fetch reports what the first one fetched
                fetchAs(leader, followers.get(0), 1);
                fetchAs(leader, followers.get(1), 2);
            }
            assertThat(leader.highWatermark()).isEqualTo(leader.logEndOffset());
        }
    }

    /** A follower's fetch round trip, as the replica fetcher makes it: fetch offset, leader's answer, append. */
    private static void fetchAs(Partition leader, Partition follower, int followerId) {
        long offset = follower.fetchOffset(1).orElseThrow();
        leader.onFollowerFetch(followerId, 1, offset, 0);
        ByteBuffer records = leader.readForFollower(offset, 1 << 20).records().readAll();
        follower.appendAsFollower(1, offset, records, leader.highWatermark(), leader.logStartOffset());
    }
}
