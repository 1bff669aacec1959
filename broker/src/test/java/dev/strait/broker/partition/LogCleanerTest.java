package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.FileMetadataSource;
import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cleaner's rounds over a replica manager's partitions, run on the test thread (no timing involved). */
class LogCleanerTest {

    @TempDir
    Path dir;

    private FileMetadataSource metadata;
    private ScheduledExecutorService scheduler;
    private ReplicaManager replicaManager;

    @BeforeEach
    void start() {
        metadata = FileMetadataSource.open(dir);
        scheduler = Executors.newSingleThreadScheduledExecutor();
        replicaManager = new ReplicaManager(metadata, dir, Map.of(), Time.SYSTEM, scheduler);
        replicaManager.startup();
    }

    @AfterEach
    void stop() {
        replicaManager.close();
        scheduler.shutdownNow();
        metadata.close();
    }

    @Test
    void aRoundCompactsOnlyCompactedTopicsThatHaveNewClosedSegmentsWithinTheIoRate() {
        // Given: the same 40 updates of 3 keys in a compacted and in a delete-policy topic, small segments
        replicaManager.createTopic("kv", 1, Map.of("cleanup.policy", "compact", "segment.bytes", "200"), false);
        replicaManager.createTopic("plain", 1, Map.of("segment.bytes", "200"), false);
        TopicPartition kv = new TopicPartition("kv", 0);
        TopicPartition plain = new TopicPartition("plain", 0);
        for (int i = 0; i < 40; i++) {
            for (TopicPartition tp : List.of(kv, plain)) {
                replicaManager.appendRecords(
                        tp,
                        MemoryRecords.withRecords(
                                        Compression.NONE, new SimpleRecord(i, bytes("k" + i % 3), bytes("v" + i)))
                                .buffer(),
                        List.of());
            }
        }
        long kvBytes = size(kv);
        long plainBytes = size(plain);
        LogCleaner cleaner =
                new LogCleaner(replicaManager, new LogCleaner.Config(60_000, 1 << 20, 100_000), Time.SYSTEM, 0);

        // When
        int compacted = cleaner.cleanAll();

        // Then
        assertThat(compacted).isEqualTo(1);
        assertThat(size(kv)).isLessThan(kvBytes / 3);
        assertThat(size(plain)).isEqualTo(plainBytes);
        assertThat(replicaManager.partition(kv).orElseThrow().logEndOffset()).isEqualTo(40);
        assertThat(cleaner.cleanAll()).as("nothing new to compact").isZero();
    }

    private long size(TopicPartition tp) {
        return replicaManager.partition(tp).orElseThrow().sizeBytes();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
