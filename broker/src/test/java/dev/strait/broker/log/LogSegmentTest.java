package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.ManualTime;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogSegmentTest {

    @TempDir
    Path dir;

    private final ManualTime time = new ManualTime(1_000_000L);
    private LogSegment segment;

    @BeforeEach
    void createSegment() throws Exception {
        segment = LogSegment.create(dir, 100, 64, time);
    }

    @AfterEach
    void closeSegment() throws Exception {
        segment.close();
    }

    /** Appends a batch of {@code count} records at {@code baseOffset}, timestamps from {@code timestampMs}. */
    private ByteBuffer appendBatch(long baseOffset, long timestampMs, int count) throws Exception {
        String[] values = new String[count];
        for (int i = 0; i < count; i++) {
            values[i] = "v" + (baseOffset + i);
        }
        ByteBuffer batch = TestBatches.batch(timestampMs, values);
        RecordBatchHeader header = new RecordBatchHeader(batch, 0);
        header.setBaseOffset(baseOffset);
        segment.append(header.lastOffset(), batch);
        return batch;
    }

    @Test
    void readFromTheMiddleOfABatchStartsAtThatBatch() throws Exception {
        // Given
        appendBatch(100, 10, 5);
        ByteBuffer second = appendBatch(105, 20, 5);
        appendBatch(110, 30, 5);

        // When
        FileSlice slice = segment.read(107, second.remaining()).orElseThrow();

        // Then
        assertThat(slice.readAll()).isEqualTo(second.rewind());
        assertThat(segment.nextOffset()).isEqualTo(115);
        assertThat(segment.read(115, 1000)).isEmpty();
    }

    @Test
    void readRespectsMaxBytesAndMinOneBatch() throws Exception {
        // Given
        ByteBuffer first = appendBatch(100, 10, 5);
        appendBatch(105, 20, 5);

        // When
        FileSlice cut = segment.read(100, 10).orElseThrow();
        FileSlice whole = segment.read(100, 10, segment.sizeBytes(), true).orElseThrow();

        // Then
        assertThat(cut.sizeBytes()).isEqualTo(10);
        assertThat(whole.sizeBytes()).isEqualTo(first.remaining());
    }

    @Test
    void indexesGetEntriesEveryIntervalAndLookupsStayCorrect() throws Exception {
        // Given: 50 single-record batches, each larger than half the 64-byte index interval
        for (int i = 0; i < 50; i++) {
            appendBatch(100 + i, 1_000 + i, 1);
        }

        // Then
        assertThat(segment.offsetIndex().entries()).isGreaterThan(10);
        for (long offset = 100; offset < 150; offset++) {
            FileSlice slice = segment.read(offset, 1_000_000).orElseThrow();
            assertThat(TestBatches.records(slice.readAll()).get(0).offset()).isEqualTo(offset);
        }
    }

    @Test
    void findsTheFirstRecordAtOrAfterATimestamp() throws Exception {
        // Given: batch i holds 3 records with timestamps 1000*i, 1000*i+1, 1000*i+2
        for (int i = 0; i < 20; i++) {
            appendBatch(100 + 3L * i, 1_000L * (i + 1), 3);
        }

        // When / Then
        assertThat(segment.findOffsetByTimestamp(5_001, 0)).contains(new TimestampAndOffset(5_001, 113));
        assertThat(segment.findOffsetByTimestamp(5_500, 0)).contains(new TimestampAndOffset(6_000, 115));
        assertThat(segment.findOffsetByTimestamp(0, 0)).contains(new TimestampAndOffset(1_000, 100));
        assertThat(segment.findOffsetByTimestamp(0, 131)).contains(new TimestampAndOffset(11_001, 131));
        assertThat(segment.findOffsetByTimestamp(99_999, 0)).isEqualTo(Optional.empty());
    }

    @Test
    void truncateToRemovesTheContainingBatchAndEverythingAfter() throws Exception {
        // Given
        for (int i = 0; i < 10; i++) {
            appendBatch(100 + 5L * i, 1_000 + i, 5);
        }
        int sizeBefore = segment.sizeBytes();

        // When
        long removedBytes = segment.truncateTo(112);

        // Then
        assertThat(segment.nextOffset()).isEqualTo(110);
        assertThat(removedBytes).isEqualTo(sizeBefore - segment.sizeBytes());
        assertThat(segment.read(110, 1000)).isEmpty();
        assertThat(segment.maxTimestampMs()).isEqualTo(1_001 + 4);
        appendBatch(110, 5_000, 1);
        assertThat(segment.nextOffset()).isEqualTo(111);
    }

    @Test
    void recoverTruncatesAtTheFirstInvalidBatch() throws Exception {
        // Given
        appendBatch(100, 10, 3);
        appendBatch(103, 20, 3);
        int validBytes = segment.sizeBytes();
        try (FileChannel channel = FileChannel.open(segment.logFile(), StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}), validBytes);
        }

        // When
        long truncated = segment.recover();

        // Then
        assertThat(truncated).isEqualTo(13);
        assertThat(segment.sizeBytes()).isEqualTo(validBytes);
        assertThat(segment.nextOffset()).isEqualTo(106);
    }

    @Test
    void timeWaitedForRollUsesRecordTimeOnceThereIsABatch() throws Exception {
        assertThat(segment.timeWaitedForRollMs(1_000_500L, -1)).isEqualTo(500);
        appendBatch(100, 7_000, 1);
        assertThat(segment.timeWaitedForRollMs(1_000_500L, 9_000)).isEqualTo(2_000);
    }
}
