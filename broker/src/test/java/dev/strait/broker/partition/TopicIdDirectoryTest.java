package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.FileMetadataSource;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition directory remembers its topic id (KIP-516): data of a deleted topic left on a node that was down
 * while the topic was deleted and created again must not come back under the new topic.
 */
class TopicIdDirectoryTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path root;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private Path logDir() {
        return root.resolve("logs");
    }

    @Test
    void aPartitionDirectoryOfTheDeletedTopicIsNotServedUnderTheTopicCreatedAgainWhileTheNodeWasDown()
            throws Exception {
        // Given: topic t with three records on this node, which then stops
        Uuid oldId;
        try (FileMetadataSource before = FileMetadataSource.open(root.resolve("meta-before"));
                ReplicaManager node = new ReplicaManager(before, logDir(), Map.of(), Time.SYSTEM, scheduler)) {
            node.startup();
            oldId = node.createTopic("t", 1, Map.of(), false).topicId();
            node.appendRecords(
                    TP,
                    MemoryRecords.withRecords(Compression.NONE, record("a"), record("b"), record("c"))
                            .buffer(),
                    List.of(new ProducerBatch(-1, (short) -1, -1, -1, 3)));
        }

        // ... and a crash once left another partition's data moved aside but not deleted
        Files.createDirectories(logDir().resolve("t-1.AAAAAAAAAAAAAAAAAAAAAA-delete"));
        Files.writeString(logDir().resolve("t-1.AAAAAAAAAAAAAAAAAAAAAA-delete").resolve("x.log"), "old");

        // When: while it is down, t is deleted and created again (a new topic id); then the node starts
        try (FileMetadataSource after = FileMetadataSource.open(root.resolve("meta-after"));
                ReplicaManager node = new ReplicaManager(after, logDir(), Map.of(), Time.SYSTEM, scheduler)) {
            TopicMetadata recreated = after.createTopic("t", 1, -1, Map.of());
            assertThat(recreated.topicId()).isNotEqualTo(oldId);
            node.startup();

            // Then: the new t is empty here, its directory names the new id, and the old data is gone
            Partition partition = node.partition(TP).orElseThrow();
            assertThat(partition.logEndOffset()).isZero();
            assertThat(Files.readString(logDir().resolve("t-0").resolve("partition.metadata")))
                    .isEqualTo("version: 0\ntopic_id: " + recreated.topicId() + "\n");
            try (var dirs = Files.list(logDir())) {
                assertThat(dirs.map(p -> p.getFileName().toString())).containsExactly("t-0");
            }
        }
    }

    private static SimpleRecord record(String value) {
        return new SimpleRecord(1_000L, null, value.getBytes(StandardCharsets.UTF_8));
    }
}
