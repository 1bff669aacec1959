package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.group.GroupApi;
import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.GroupError;
import dev.strait.broker.group.OffsetsLog;
import dev.strait.broker.metadata.FileMetadataSource;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offsets topic's transactional writes on a one-node replica layer: a producer's batches pass the partition's
 * producer state (sequences it accepts, an older epoch fenced), and the replay tells ordinary records, transactional
 * ones with their producer, and the markers apart.
 */
class OffsetsTopicLogTransactionTest {

    @TempDir
    Path root;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static OffsetsLog.Entry entry(String key) {
        return new OffsetsLog.Entry(key.getBytes(StandardCharsets.UTF_8), new byte[] {1});
    }

    /** What a replay saw, one line per record. */
    private static final class Seen implements OffsetsLog.RecordConsumer {
        final List<String> lines = new ArrayList<>();

        @Override
        public void accept(long offset, byte[] key, byte @Nullable [] value) {
            lines.add(offset + " plain " + new String(key, StandardCharsets.UTF_8));
        }

        @Override
        public void acceptTransactional(long offset, long producerId, byte[] key, byte @Nullable [] value) {
            lines.add(offset + " txn " + producerId + " " + new String(key, StandardCharsets.UTF_8));
        }

        @Override
        public void acceptMarker(long offset, long producerId, boolean commit) {
            lines.add(offset + " marker " + producerId + " " + (commit ? "commit" : "abort"));
        }
    }

    @Test
    void transactionalBatchesPassTheProducerStateAndReplayWithTheirProducerAndMarkers() throws Exception {
        try (FileMetadataSource metadata = FileMetadataSource.open(root.resolve("meta"));
                ReplicaManager node =
                        new ReplicaManager(metadata, root.resolve("logs"), Map.of(), Time.SYSTEM, scheduler)) {
            node.startup();
            OffsetsTopicLog log = new OffsetsTopicLog(node, 1, 1 << 20);
            assertThat(log.ensureCreated()).isTrue();

            log.append(0, List.of(entry("a")));
            log.appendTransactional(0, 7, (short) 0, List.of(entry("b"), entry("c")));
            // The same epoch again: the sequence must follow the first batch's.
            log.appendTransactional(0, 7, (short) 0, List.of(entry("d")));
            node.appendRecords(
                    new TopicPartition(OffsetsTopicLog.TOPIC, 0),
                    MemoryRecords.withEndTransactionMarker(
                                    7, (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0))
                            .buffer(),
                    List.of(),
                    true);
            // A new epoch starts its sequence again; then the old one is fenced.
            log.appendTransactional(0, 7, (short) 1, List.of(entry("e")));
            assertThatThrownBy(() -> log.appendTransactional(0, 7, (short) 0, List.of(entry("f"))))
                    .isInstanceOfSatisfying(
                            OffsetsLog.AppendFailedException.class,
                            e -> assertThat(e.error()).isEqualTo(GroupError.INVALID_PRODUCER_EPOCH));
            node.appendRecords(
                    new TopicPartition(OffsetsTopicLog.TOPIC, 0),
                    MemoryRecords.withEndTransactionMarker(
                                    7, (short) 1, new EndTransactionMarker(ControlRecordType.ABORT, 0))
                            .buffer(),
                    List.of(),
                    true);

            Seen seen = new Seen();
            long end = log.replay(0, seen);

            assertThat(seen.lines)
                    .containsExactly(
                            "0 plain a",
                            "1 txn 7 b",
                            "2 txn 7 c",
                            "3 txn 7 d",
                            "4 marker 7 commit",
                            "5 txn 7 e",
                            "6 marker 7 abort");
            assertThat(end).isEqualTo(7);
        }
    }

    private static GroupApi.FetchResult fetch(GroupCoordinator coordinator, boolean requireStable) {
        CompletableFuture<GroupApi.FetchResult> result = new CompletableFuture<>();
        coordinator.fetchOffsets("g", null, -1, List.of(TP), requireStable, result::complete);
        return result.orTimeout(30, TimeUnit.SECONDS).join();
    }

    private static GroupCoordinator started(OffsetsTopicLog log) {
        GroupCoordinator coordinator =
                new GroupCoordinator(new GroupCoordinator.Config(1, 0, 1000, 60_000, 100), log, Time.SYSTEM);
        coordinator.startup();
        Await.until("the shard is served", Duration.ofSeconds(30), () -> coordinator.isActive(0));
        return coordinator;
    }

    private static final GroupApi.TopicPartitionKey TP = new GroupApi.TopicPartitionKey("t", 0);

    @Test
    void aCoordinatorOverTheTopicCommitsATransactionsOffsetsOnItsMarkerAndAnotherReplaysThem() throws Exception {
        try (FileMetadataSource metadata = FileMetadataSource.open(root.resolve("meta"));
                ReplicaManager node =
                        new ReplicaManager(metadata, root.resolve("logs"), Map.of(), Time.SYSTEM, scheduler)) {
            node.startup();
            OffsetsTopicLog log = new OffsetsTopicLog(node, 1, 1 << 20);
            assertThat(log.ensureCreated()).isTrue();
            GroupCoordinator first = started(log);
            CompletableFuture<GroupError> committed = new CompletableFuture<>();
            first.commitTransactionalOffsets(
                    "g",
                    7,
                    (short) 0,
                    "",
                    null,
                    -1,
                    Map.of(TP, new GroupApi.OffsetAndMetadata(10, -1, "", -1)),
                    committed::complete);
            assertThat(committed.get(30, TimeUnit.SECONDS)).isEqualTo(GroupError.NONE);
            assertThat(fetch(first, true).unstable()).containsExactly(TP);

            long marker = node.appendRecords(
                            new TopicPartition(OffsetsTopicLog.TOPIC, 0),
                            MemoryRecords.withEndTransactionMarker(
                                            7, (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0))
                                    .buffer(),
                            List.of(),
                            true)
                    .result()
                    .lastOffset();
            first.completeTransaction(0, 7, true, marker);

            Await.until(
                    "the transaction's offset is committed",
                    Duration.ofSeconds(30),
                    () -> fetch(first, false).offsets().containsKey(TP));
            assertThat(fetch(first, true).offsets().get(TP).offset()).isEqualTo(10);
            first.close();
            GroupCoordinator second = started(log);
            try {
                assertThat(fetch(second, true).offsets().get(TP).offset()).isEqualTo(10);
            } finally {
                second.close();
            }
        }
    }
}
