package dev.strait.testkit.nemesis;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.FileLogInputStream;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.jspecify.annotations.Nullable;

/**
 * One replica's records as its node stored them: the segment files {@code <data dir>/<topic>-<partition>/*.log}
 * (both systems write Kafka's v2 record batches, segments named by zero-padded base offset), read with
 * kafka-clients' {@link FileRecords}, up to a given offset. Files may be read while the node runs: a batch still
 * being written at the end of the active segment is not complete and is left out, and only records below the high
 * watermark are asked for, which no node rewrites while it is in the ISR.
 */
final class ReplicaFiles {
    private ReplicaFiles() {}

    /** The records below {@code below} in the partition directory, in offset order; empty if there is none. */
    static List<Checker.StoredRecord> read(Path partitionDir, long below) throws IOException {
        List<Checker.StoredRecord> records = new ArrayList<>();
        if (!Files.isDirectory(partitionDir)) {
            return records;
        }
        List<Path> segments;
        try (Stream<Path> files = Files.list(partitionDir)) {
            segments = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList();
        }
        for (Path segment : segments) {
            // Read-only, and closeHandlers, not close: close() flushes and trims the file to the size seen at open,
            // which would cut off what a running node appended since.
            FileRecords file = FileRecords.open(segment.toFile(), false);
            try {
                for (FileLogInputStream.FileChannelRecordBatch batch : file.batches()) {
                    if (batch.baseOffset() >= below) {
                        return records;
                    }
                    for (Record r : batch) {
                        if (r.offset() >= below) {
                            return records;
                        }
                        records.add(new Checker.StoredRecord(
                                r.offset(), text(r.key()), text(r.value()), headers(r.headers())));
                    }
                }
            } finally {
                file.closeHandlers();
            }
        }
        return records;
    }

    private static @Nullable String text(@Nullable ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String headers(Header[] headers) {
        return java.util.Arrays.stream(headers)
                .map(h -> h.key() + "=" + (h.value() == null ? "null" : new String(h.value(), StandardCharsets.UTF_8)))
                .collect(Collectors.joining(",", "[", "]"));
    }
}
