package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.replication.ReplicationConfig;
import dev.strait.broker.replication.TruncationRule;
import dev.strait.time.Time;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idempotent producer state across a restart (issue 22, defect 6): a producer whose last batch lies further back
 * than any fixed replay window is still known after the replica reopens, from the producer state snapshot written
 * at a segment roll or at a clean close. A retried batch of it is a duplicate, not a second append.
 */
class ProducerStateSnapshotTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final long PRODUCER_ID = 4242;
    private static final short PRODUCER_EPOCH = 3;
    /** More than the 100,000 offsets the old code replayed at open. */
    private static final int FILLER_RECORDS = 120_000;

    @TempDir
    Path root;

    private final List<Partition> opened = new ArrayList<>();

    private Path dir() {
        return root.resolve("t-0");
    }

    private Partition open(LogConfig config) {
        PartitionLog log = PartitionLog.open(dir(), config, Time.SYSTEM);
        Partition partition =
                new Partition(TP, TOPIC_ID, log, 1, new ReplicationConfig(30_000, 1, TruncationRule.LEADER_EPOCH));
        partition.loadProducerState();
        opened.add(partition);
        return partition;
    }

    private Partition openLeader(LogConfig config, int leaderEpoch) {
        Partition partition = open(config);
        partition.applyAssignment(new PartitionState(1, leaderEpoch, List.of(1), List.of(1), leaderEpoch), 0);
        assertThat(partition.isLeader()).isTrue();
        return partition;
    }

    @AfterEach
    void closeAll() {
        for (Partition partition : opened) {
            try {
                partition.close();
            } catch (RuntimeException ignored) {
                // closed by the test already
            }
        }
    }

    private static Partition.LeaderAppend appendIdempotent(Partition leader, int baseSequence, int count) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] =
                    new SimpleRecord(1_000L + i, null, ("p" + (baseSequence + i)).getBytes(StandardCharsets.UTF_8));
        }
        ByteBuffer buffer = MemoryRecords.withIdempotentRecords(
                        Compression.NONE, PRODUCER_ID, PRODUCER_EPOCH, baseSequence, records)
                .buffer();
        return leader.appendAsLeader(
                buffer,
                List.of(new ProducerBatch(PRODUCER_ID, PRODUCER_EPOCH, baseSequence, baseSequence + count - 1, count)),
                true);
    }

    /** Plain (non-idempotent) records from other clients, in batches of 10,000 one-byte records. */
    private static void appendFiller(Partition leader, int total) {
        int batchSize = 10_000;
        for (int done = 0; done < total; done += batchSize) {
            SimpleRecord[] records = new SimpleRecord[batchSize];
            for (int i = 0; i < batchSize; i++) {
                records[i] = new SimpleRecord(1_000L, null, new byte[] {1});
            }
            leader.appendAsLeader(
                    MemoryRecords.withRecords(Compression.NONE, records).buffer(),
                    List.of(new ProducerBatch(-1, (short) -1, -1, -1, batchSize)),
                    true);
        }
    }

    private List<Path> snapshotFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir())) {
            return files.filter(f -> f.getFileName().toString().endsWith(ProducerStateSnapshots.SUFFIX))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aRetriedBatchFurtherBackThanTheOldReplayWindowIsADuplicateAfterACleanRestart() {
        // Given: the producer's batch at offset 0, then 120,000 offsets of other records, one segment
        Partition leader = openLeader(LogConfig.defaults(), 0);
        Partition.LeaderAppend first = appendIdempotent(leader, 0, 2);
        appendFiller(leader, FILLER_RECORDS);
        long endBeforeRestart = leader.logEndOffset();
        leader.close();

        // When: the node restarts and the producer retries the batch (its acknowledgement was lost)
        Partition restarted = openLeader(LogConfig.defaults(), 1);
        Partition.LeaderAppend retry = appendIdempotent(restarted, 0, 2);

        // Then: recognised, answered with the original offsets, nothing appended
        assertThat(retry.duplicate())
                .as("a retried batch of a producer last seen %d offsets back must be a duplicate", FILLER_RECORDS)
                .isTrue();
        assertThat(retry.result().firstOffset()).isEqualTo(first.result().firstOffset());
        assertThat(restarted.logEndOffset()).isEqualTo(endBeforeRestart);
    }

    @Test
    void aSnapshotWrittenAtASegmentRollSurvivesACrash() throws IOException {
        // Given: small segments, so the log rolls while the filler is appended; no clean close
        LogConfig small = LogConfig.defaults().withSegmentBytes(64 * 1024);
        Partition leader = openLeader(small, 0);
        appendIdempotent(leader, 0, 1);
        appendFiller(leader, FILLER_RECORDS);
        assertThat(snapshotFiles()).as("snapshots written at segment rolls").isNotEmpty();
        opened.remove(leader); // a crash: the log is never closed, and no snapshot is written at close
        long end = leader.logEndOffset();
        Files.deleteIfExists(dir().resolve(ProducerStateSnapshots.fileName(end)));

        // When
        Partition restarted = openLeader(small, 1);

        // Then: the next sequence is accepted, a retried one is a duplicate, a gap is refused
        assertThat(appendIdempotent(restarted, 0, 1).duplicate()).isTrue();
        assertThat(appendIdempotent(restarted, 1, 1).duplicate()).isFalse();
        assertThat(restarted.logEndOffset()).isEqualTo(end + 1);
    }

    @Test
    void truncationBelowASnapshotForgetsTheBatchesAboveIt() throws IOException {
        // Given: the producer's batches 0 and 1 at offsets 0 and 1, a snapshot at offset 2 (clean close)
        Partition leader = openLeader(LogConfig.defaults(), 0);
        appendIdempotent(leader, 0, 1);
        appendIdempotent(leader, 1, 1);
        leader.close();
        assertThat(snapshotFiles()).containsExactly(dir().resolve(ProducerStateSnapshots.fileName(2)));

        // When: the replica reopens as a follower in epoch 1 whose leader's epoch 0 ended at offset 1
        Partition follower = open(LogConfig.defaults());
        follower.applyAssignment(new PartitionState(2, 1, List.of(1, 2), List.of(1, 2), 1), 0);
        follower.onEpochEndOffset(1, new EpochEndOffset(0, 1));
        assertThat(follower.logEndOffset()).isEqualTo(1);

        // Then: the snapshot above the log end is gone, and once this replica leads, sequence 1 is new again
        assertThat(snapshotFiles()).doesNotContain(dir().resolve(ProducerStateSnapshots.fileName(2)));
        follower.applyAssignment(new PartitionState(1, 2, List.of(1, 2), List.of(1), 2), 0);
        assertThat(follower.isLeader()).isTrue();
        assertThat(appendIdempotent(follower, 0, 1).duplicate()).isTrue();
        Partition.LeaderAppend again = appendIdempotent(follower, 1, 1);
        assertThat(again.duplicate()).isFalse();
        assertThat(again.result().firstOffset()).isEqualTo(1);
    }

    @Test
    void aTornSnapshotIsIgnoredAndTheStateComesFromAnOlderOneOrTheLog() throws IOException {
        // Given: a snapshot at a roll, then the latest one written at close is torn (half of it on disk)
        LogConfig small = LogConfig.defaults().withSegmentBytes(64 * 1024);
        Partition leader = openLeader(small, 0);
        appendIdempotent(leader, 0, 1);
        appendFiller(leader, FILLER_RECORDS);
        appendIdempotent(leader, 1, 1);
        long end = leader.logEndOffset();
        leader.close();
        Path latest = dir().resolve(ProducerStateSnapshots.fileName(end));
        assertThat(latest).exists();
        long size = Files.size(latest);
        try (FileChannel channel = FileChannel.open(latest, StandardOpenOption.WRITE)) {
            channel.truncate(size / 2);
        }

        // When: the replica reopens (no exception)
        Partition restarted = openLeader(small, 1);

        // Then: the torn file is dropped, and batch 1 (after the older snapshot) is known from the replayed log
        assertThat(latest).doesNotExist();
        Partition.LeaderAppend retry = appendIdempotent(restarted, 1, 1);
        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.result().firstOffset()).isEqualTo(end - 1);
        assertThat(appendIdempotent(restarted, 2, 1).duplicate()).isFalse();
    }

    @Test
    void aSnapshotWithAFlippedByteFailsItsChecksum() throws IOException {
        // Given: a clean close wrote one snapshot, then one byte of it rots
        Partition leader = openLeader(LogConfig.defaults(), 0);
        appendIdempotent(leader, 0, 1);
        leader.close();
        Path snapshot = dir().resolve(ProducerStateSnapshots.fileName(1));
        byte[] bytes = Files.readAllBytes(snapshot);
        bytes[bytes.length / 2] ^= 0x10;
        Files.write(snapshot, bytes);

        // When / Then: the checksum rejects it and the log (offset 0 onwards) is replayed instead
        Partition restarted = openLeader(LogConfig.defaults(), 1);
        assertThat(snapshot).doesNotExist();
        assertThat(appendIdempotent(restarted, 0, 1).duplicate()).isTrue();
    }
}
