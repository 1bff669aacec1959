package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.log.EpochEntry;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.log.PartitionLog;
import dev.strait.time.Time;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition log on the lazy disk, power cut after a follower truncation: the schedule behind the nemesis's replica
 * divergence on seed 4001 (two records swapped on a replica below the high watermark, on Strait and on Kafka alike).
 * The truncation must be durable before the new epoch's checkpoint entry is, and whatever survives must agree with
 * the epoch cache, or the replica never learns that its log diverges from the leader's.
 */
class PartitionLogPowerLossTest {
    @TempDir
    Path dir;

    private LazyDisk disk;
    private final List<PartitionLog> logs = new ArrayList<>();

    @BeforeEach
    void mount() {
        LazyDisk.require();
        disk = LazyDisk.mount(
                dir.resolve("backing"), dir.resolve("mnt"), Duration.ofSeconds(30), dir.resolve("lazyfs.log"));
    }

    @AfterEach
    void unmount() {
        for (PartitionLog log : logs) {
            log.close();
        }
        if (disk != null) {
            disk.close();
        }
    }

    private PartitionLog open() {
        PartitionLog log = PartitionLog.open(disk.mountPoint().resolve("pl-1"), LogConfig.defaults(), Time.SYSTEM);
        logs.add(log);
        return log;
    }

    /** Drops the process's file handles without flushing or leaving the clean-shutdown marker: a crash. */
    private void crash(PartitionLog log) throws Exception {
        // The crash path is package-private on purpose: only tests and an offline log may skip the flush.
        Method closeQuietly = PartitionLog.class.getDeclaredMethod("closeQuietly");
        closeQuietly.setAccessible(true);
        closeQuietly.invoke(log);
        logs.remove(log);
    }

    private static ByteBuffer batch(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1_700_000_000_000L, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records).buffer();
    }

    private record Stored(long offset, int epoch, String value) {}

    private static List<Stored> readAll(PartitionLog log) {
        List<Stored> out = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            LogReadResult read = log.read(next, 1 << 20, log.logEndOffset());
            MemoryRecords records = MemoryRecords.readableRecords(read.records().readAll());
            for (RecordBatch batch : records.batches()) {
                for (Record record : batch) {
                    out.add(new Stored(
                            record.offset(),
                            batch.partitionLeaderEpoch(),
                            new String(Utils.toArray(record.value()), StandardCharsets.UTF_8)));
                }
                next = batch.nextOffset();
            }
        }
        return out;
    }

    private static int epochAt(List<EpochEntry> entries, long offset) {
        int epoch = -1;
        for (EpochEntry entry : entries) {
            if (entry.startOffset() <= offset) {
                epoch = entry.epoch();
            }
        }
        return epoch;
    }

    @Test
    void aFollowerTruncationSurvivesThePowerCutAndTheEpochsAgreeWithTheBatches() throws Exception {
        // Given: epoch 1's four records are durable, as the lazy disk writes back anything older than 30 s
        PartitionLog follower = open();
        follower.append(batch("a", "b"), 1);
        follower.append(batch("c-old", "d-old"), 1);
        follower.flush();
        // The new leader's log diverges at 2: the follower truncates there and appends epoch 2's batch
        follower.truncateTo(2);
        follower.append(batch("c-new", "d-new"), 2);
        crash(follower);

        // When: the power goes
        disk.loseUnsyncedWrites();
        PartitionLog reopened = open();

        // Then: the removed records stay removed, and every surviving batch carries the epoch the cache names for
        // its offset (the cache is what a follower's OffsetsForLeaderEpoch check trusts)
        List<Stored> stored = readAll(reopened);
        assertThat(stored).extracting(Stored::value).doesNotContain("c-old", "d-old");
        List<EpochEntry> epochs = reopened.leaderEpochCache().entries();
        for (Stored record : stored) {
            assertThat(record.epoch())
                    .as("epoch of %s at %d; cache %s", record.value(), record.offset(), epochs)
                    .isEqualTo(epochAt(epochs, record.offset()));
        }
        assertThat(reopened.logEndOffset()).isIn(2L, 4L);
        assertThat(epochs).isIn(List.of(new EpochEntry(1, 0)), List.of(new EpochEntry(1, 0), new EpochEntry(2, 2)));
    }
}
