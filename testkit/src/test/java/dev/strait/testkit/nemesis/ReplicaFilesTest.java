package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaFilesTest {
    @TempDir
    Path dir;

    @Test
    void readsRecordsBelowTheLimitAcrossSegmentsAndLeavesTheFilesAsTheyWere() throws IOException {
        Path partition = dir.resolve("nemesis-0");
        Files.createDirectories(partition);
        write(partition.resolve("00000000000000000000.log"), batch(0, "a", "b", "c"), batch(3, "d"));
        Path active = partition.resolve("00000000000000000004.log");
        ByteBuffer last = batch(4, "e", "f");
        ByteBuffer torn = batch(6, "g");
        torn.limit(torn.limit() - 5); // a batch still being written when the files are read
        write(active, last, torn);
        long activeSize = Files.size(active);

        List<Checker.StoredRecord> all = ReplicaFiles.read(partition, Long.MAX_VALUE);
        assertThat(all).extracting(Checker.StoredRecord::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(all).extracting(Checker.StoredRecord::value).containsExactly("a", "b", "c", "d", "e", "f");
        assertThat(all.get(0).key()).isEqualTo("k-a");
        assertThat(all.get(0).headers()).isEqualTo("[h=a]");
        assertThat(ReplicaFiles.read(partition, 4))
                .extracting(Checker.StoredRecord::offset)
                .containsExactly(0L, 1L, 2L, 3L);
        assertThat(ReplicaFiles.read(partition, 2))
                .extracting(Checker.StoredRecord::offset)
                .containsExactly(0L, 1L);
        // Reading must not trim or flush a running node's active segment.
        assertThat(Files.size(active)).isEqualTo(activeSize);
        assertThat(ReplicaFiles.read(dir.resolve("absent-0"), 10)).isEmpty();
    }

    private static ByteBuffer batch(long baseOffset, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(
                    1_000L,
                    ("k-" + values[i]).getBytes(StandardCharsets.UTF_8),
                    values[i].getBytes(StandardCharsets.UTF_8),
                    new RecordHeader[] {new RecordHeader("h", values[i].getBytes(StandardCharsets.UTF_8))});
        }
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, records).buffer();
    }

    private static void write(Path file, ByteBuffer... buffers) throws IOException {
        try (var channel = java.nio.channels.FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            for (ByteBuffer b : buffers) {
                while (b.hasRemaining()) {
                    channel.write(b);
                }
            }
        }
    }
}
