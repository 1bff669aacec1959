package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.time.ManualTime;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {

    private static final long START_MS = 1_700_000_000_000L;

    @TempDir
    Path root;

    private final ManualTime time = new ManualTime(START_MS);
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void closeLogs() {
        for (PartitionLog log : opened) {
            log.close();
        }
    }

    private PartitionLog open(LogConfig config) {
        PartitionLog log = PartitionLog.open(root.resolve("orders-0"), config, time);
        opened.add(log);
        return log;
    }

    private static LogConfig smallConfig() {
        return LogConfig.defaults().withSegmentBytes(1_024).withIndexIntervalBytes(64);
    }

    private AppendResult append(PartitionLog log, String... values) {
        return log.append(TestBatches.batch(time.milliseconds(), values), 0);
    }

    @Test
    void appendAssignsConsecutiveOffsetsAndReadReturnsThem() {
        // Given
        PartitionLog log = open(LogConfig.defaults());

        // When
        AppendResult first = append(log, "a", "b", "c");
        AppendResult second = log.append(
                TestBatches.concat(TestBatches.batch(START_MS, "d"), TestBatches.batch(START_MS, "e", "f")), 0);

        // Then
        assertThat(first.firstOffset()).isZero();
        assertThat(first.lastOffset()).isEqualTo(2);
        assertThat(first.logAppendTimeMs()).isEqualTo(-1);
        assertThat(second.firstOffset()).isEqualTo(3);
        assertThat(second.lastOffset()).isEqualTo(5);
        assertThat(second.batchCount()).isEqualTo(2);
        assertThat(log.logEndOffset()).isEqualTo(6);
        List<TestBatches.Rec> records = TestBatches.readAll(log);
        assertThat(records).extracting(TestBatches.Rec::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(TestBatches.values(records)).containsExactly("a", "b", "c", "d", "e", "f");
    }

    @Test
    void appendStampsTheLeaderEpochAndRecordsEpochChanges() {
        // Given
        PartitionLog log = open(LogConfig.defaults());

        // When
        log.append(TestBatches.batch(START_MS, "a", "b"), 3);
        log.append(TestBatches.batch(START_MS, "c"), 3);
        log.append(TestBatches.batch(START_MS, "d"), 5);

        // Then
        ByteBuffer all = log.read(0, 10_000, log.logEndOffset()).records().readAll();
        List<Integer> epochs = new ArrayList<>();
        for (RecordBatchHeader batch : RecordBatches.split(all)) {
            batch.validate();
            epochs.add(batch.partitionLeaderEpoch());
        }
        assertThat(epochs).containsExactly(3, 3, 5);
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(3, 0), new EpochEntry(5, 3));
        assertThat(log.endOffsetForEpoch(3)).isEqualTo(new EpochEndOffset(3, 3));
        assertThat(log.endOffsetForEpoch(5)).isEqualTo(new EpochEndOffset(5, 4));
        assertThatThrownBy(() -> log.append(TestBatches.batch(START_MS, "late"), 4))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readFromTheMiddleOfABatchReturnsTheContainingBatch() {
        // Given
        PartitionLog log = open(LogConfig.defaults());
        append(log, "a", "b", "c");
        append(log, "d", "e", "f");

        // When
        FileSlice slice = log.read(4, 10_000, log.logEndOffset()).records();

        // Then
        List<RecordBatchHeader> batches = RecordBatches.split(slice.readAll());
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0).baseOffset()).isEqualTo(3);
    }

    @Test
    void readsStopAtMaxOffsetExclusiveAndRejectOffsetsOutOfRange() {
        // Given
        PartitionLog log = open(LogConfig.defaults());
        append(log, "a", "b");
        append(log, "c", "d");
        log.updateHighWatermark(2);

        // Then
        LogReadResult consumerRead = log.read(0, 10_000, log.highWatermark());
        assertThat(TestBatches.values(TestBatches.records(consumerRead.records().readAll())))
                .containsExactly("a", "b");
        assertThat(consumerRead.highWatermark()).isEqualTo(2);
        assertThat(log.read(2, 10_000, log.highWatermark()).records().isEmpty()).isTrue();
        assertThat(log.read(4, 10_000, 4).records().isEmpty()).isTrue();
        assertThatThrownBy(() -> log.read(5, 10_000, 5)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThatThrownBy(() -> log.read(-1, 10_000, 5)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void indexLookupsStayCorrectAcrossManyAppends() {
        // Given
        PartitionLog log = open(smallConfig().withSegmentBytes(4_096));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String value = "value-" + i;
            expected.add(value);
            append(log, value);
        }

        // Then
        assertThat(log.segmentCount()).isGreaterThan(2);
        assertThat(log.segments().get(0).offsetIndex().entries()).isGreaterThan(10);
        for (long offset = 0; offset < 300; offset += 7) {
            ByteBuffer read =
                    log.read(offset, 100, log.logEndOffset(), true).records().readAll();
            TestBatches.Rec first = TestBatches.records(read).get(0);
            assertThat(first.offset()).isEqualTo(offset);
            assertThat(first.value()).isEqualTo(expected.get((int) offset));
        }
    }

    @Test
    void rollsWhenTheSegmentWouldExceedSegmentBytes() {
        // Given
        PartitionLog log = open(smallConfig().withSegmentBytes(300));
        int batchBytes = TestBatches.batch(0, "0123456789").remaining();

        // When
        for (int i = 0; i < 10; i++) {
            append(log, "0123456789");
        }

        // Then
        int batchesPerSegment = 300 / batchBytes;
        assertThat(log.segmentCount()).isEqualTo((10 + batchesPerSegment - 1) / batchesPerSegment);
        for (LogSegment segment : log.segments()) {
            assertThat(segment.sizeBytes()).isLessThanOrEqualTo(300);
            assertThat(Files.exists(segment.logFile())).isTrue();
        }
        assertThat(log.segments().get(1).baseOffset()).isEqualTo(batchesPerSegment);
        assertThat(TestBatches.readAll(log)).hasSize(10);
    }

    @Test
    void rollsWhenTheSegmentIsOlderThanSegmentMs() {
        // Given
        PartitionLog log = open(LogConfig.defaults().withSegmentMs(60_000));
        append(log, "a");
        time.advance(59_999);
        append(log, "b");
        assertThat(log.segmentCount()).isEqualTo(1);

        // When
        time.advance(1);
        append(log, "c");

        // Then
        assertThat(log.segmentCount()).isEqualTo(2);
        assertThat(log.segments().get(1).baseOffset()).isEqualTo(2);
    }

    @Test
    void logAppendTimeOverwritesTimestampsWithTheBrokerClock() {
        // Given
        PartitionLog log = open(LogConfig.defaults().withTimestampType(TimestampType.LOG_APPEND_TIME));

        // When
        AppendResult result = log.append(TestBatches.batch(5L, "a", "b"), 0);

        // Then
        assertThat(result.logAppendTimeMs()).isEqualTo(START_MS);
        ByteBuffer stored = log.read(0, 10_000, 2).records().readAll();
        RecordBatchHeader header = new RecordBatchHeader(stored, 0);
        header.validate();
        assertThat(header.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(TestBatches.records(stored))
                .extracting(TestBatches.Rec::timestampMs)
                .containsExactly(START_MS, START_MS);
    }

    @Test
    void rejectsOversizedAndCorruptBatchesWithoutAppendingAnything() {
        // Given
        PartitionLog log = open(LogConfig.defaults().withMaxMessageBytes(100));
        append(log, "ok");
        ByteBuffer big = TestBatches.batch(START_MS, "x".repeat(200));
        ByteBuffer corrupt = TestBatches.batch(START_MS, "hello");
        corrupt.put(corrupt.limit() - 2, (byte) 0x7f);

        // Then
        assertThatThrownBy(() -> log.append(big, 0))
                .isInstanceOf(RecordBatchTooLargeException.class)
                .hasMessageContaining("max.message.bytes 100");
        assertThatThrownBy(() -> log.append(TestBatches.concat(TestBatches.batch(START_MS, "fine"), corrupt), 0))
                .isInstanceOf(CorruptRecordException.class);
        assertThatThrownBy(() -> log.append(ByteBuffer.allocate(0), 0)).isInstanceOf(CorruptRecordException.class);
        assertThat(log.logEndOffset()).isEqualTo(1);
        assertThat(TestBatches.values(TestBatches.readAll(log))).containsExactly("ok");
    }

    @Test
    void highWatermarkNeverPassesTheLogEndOffsetNorGoesBack() {
        // Given
        PartitionLog log = open(LogConfig.defaults());
        append(log, "a", "b", "c");

        // Then
        assertThat(log.updateHighWatermark(2)).isTrue();
        assertThat(log.updateHighWatermark(1)).isFalse();
        assertThat(log.highWatermark()).isEqualTo(2);
        assertThatThrownBy(() -> log.updateHighWatermark(4)).isInstanceOf(IllegalArgumentException.class);
        assertThat(log.updateHighWatermark(3)).isTrue();

        // When truncation lowers the log end offset, the high watermark follows it down
        log.truncateTo(0);
        assertThat(log.highWatermark()).isZero();
    }

    @Test
    void truncateToTheLogEndDropsAnEpochThatStartsThere() throws Exception {
        // Given: a replica became leader in epoch 2 at its log end and lost leadership before appending
        PartitionLog log = open(smallConfig());
        log.append(TestBatches.batch(START_MS, "a", "b"), 1);
        log.leaderEpochCache().assign(2, 2);

        // When: as a follower it truncates to where its log agrees with the new leader's: its own log end
        assertThat(log.truncateTo(2)).isFalse();

        // Then: no record is removed, and neither is epoch 1's, but the empty epoch 2 is gone
        assertThat(log.logEndOffset()).isEqualTo(2);
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0));
        assertThat(LeaderEpochCache.load(root.resolve("orders-0").resolve("leader-epoch-checkpoint"))
                        .entries())
                .as("durably")
                .containsExactly(new EpochEntry(1, 0));
    }

    @Test
    void truncateToRemovesLaterSegmentsBatchesAndEpochs() {
        // Given
        PartitionLog log = open(smallConfig().withSegmentBytes(200));
        for (int i = 0; i < 10; i++) {
            log.append(TestBatches.batch(START_MS, "v" + i), i < 5 ? 1 : 2);
        }
        log.updateHighWatermark(8);
        int segmentsBefore = log.segmentCount();

        // When
        assertThat(log.truncateTo(3)).isTrue();

        // Then
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(log.highWatermark()).isEqualTo(3);
        assertThat(log.segmentCount()).isLessThan(segmentsBefore);
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0));
        assertThat(TestBatches.values(TestBatches.readAll(log))).containsExactly("v0", "v1", "v2");
        assertThat(log.truncateTo(10)).isFalse();
        assertThat(log.append(TestBatches.batch(START_MS, "next"), 3).firstOffset())
                .isEqualTo(3);
        assertThat(log.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 3));
    }

    @Test
    void deleteRecordsBeforeAdvancesTheStartOffsetAndDeletesWholeSegments() {
        // Given
        PartitionLog log = open(smallConfig().withSegmentBytes(200));
        for (int i = 0; i < 10; i++) {
            append(log, "v" + i);
        }
        assertThatThrownBy(() -> log.deleteRecordsBefore(5)).isInstanceOf(OffsetOutOfRangeException.class);
        log.updateHighWatermark(10);
        int segmentsBefore = log.segmentCount();

        // When
        long newStart = log.deleteRecordsBefore(5);

        // Then
        assertThat(newStart).isEqualTo(5);
        assertThat(log.logStartOffset()).isEqualTo(5);
        assertThat(log.segmentCount()).isLessThan(segmentsBefore);
        assertThat(log.segments().get(0).baseOffset()).isLessThanOrEqualTo(5);
        assertThatThrownBy(() -> log.read(4, 1_000, 10)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(TestBatches.values(TestBatches.readAll(log))).containsExactly("v5", "v6", "v7", "v8", "v9");
        assertThat(log.deleteRecordsBefore(3)).isEqualTo(5);

        // When everything is deleted, the log is empty at its end offset and still appendable
        assertThat(log.deleteRecordsBefore(10)).isEqualTo(10);
        assertThat(log.segmentCount()).isEqualTo(1);
        assertThat(log.sizeBytes()).isZero();
        assertThat(append(log, "after").firstOffset()).isEqualTo(10);
    }

    @Test
    void deleteRecordsBeforeSurvivesAReopen() {
        // Given
        PartitionLog log = open(smallConfig().withSegmentBytes(200));
        for (int i = 0; i < 10; i++) {
            append(log, "v" + i);
        }
        log.updateHighWatermark(10);
        log.deleteRecordsBefore(7);
        log.close();

        // When
        PartitionLog reopened = open(smallConfig().withSegmentBytes(200));

        // Then
        assertThat(reopened.logStartOffset()).isEqualTo(7);
        assertThat(reopened.highWatermark()).isEqualTo(10);
        assertThat(TestBatches.values(TestBatches.readAll(reopened))).containsExactly("v7", "v8", "v9");
    }

    @Test
    void timeRetentionDeletesOldSegmentsButNeverTheActiveOne() {
        // Given: one segment per hour
        PartitionLog log = open(LogConfig.defaults().withSegmentMs(3_600_000).withRetentionMs(3 * 3_600_000L));
        for (int hour = 0; hour < 6; hour++) {
            append(log, "h" + hour);
            time.advance(3_600_000);
        }
        assertThat(log.segmentCount()).isEqualTo(6);

        // Then: nothing is deleted above the high watermark
        assertThat(log.deleteSegmentsForRetention()).isZero();

        // When
        log.updateHighWatermark(log.logEndOffset());
        int deleted = log.deleteSegmentsForRetention();

        // Then: segments whose newest record is older than 3 hours are gone (hours 0, 1, 2)
        assertThat(deleted).isEqualTo(3);
        assertThat(log.logStartOffset()).isEqualTo(3);
        assertThat(TestBatches.values(TestBatches.readAll(log))).containsExactly("h3", "h4", "h5");

        // When everything has expired, the active segment stays
        time.advance(100 * 3_600_000L);
        log.deleteSegmentsForRetention();
        assertThat(log.segmentCount()).isEqualTo(1);
        assertThat(TestBatches.values(TestBatches.readAll(log))).containsExactly("h5");
    }

    @Test
    void sizeRetentionKeepsTheLogUnderRetentionBytes() {
        // Given
        int batchBytes = TestBatches.batch(0, "0123456789").remaining();
        PartitionLog log = open(smallConfig().withSegmentBytes(batchBytes * 2).withRetentionBytes(batchBytes * 5L));
        for (int i = 0; i < 10; i++) {
            append(log, "0123456789");
        }
        log.updateHighWatermark(10);
        assertThat(log.segmentCount()).isEqualTo(5);

        // When
        int deleted = log.deleteSegmentsForRetention();

        // Then: deleting a 2-batch segment at a time, 10 batches shrink to 6 (5 would need one batch less)
        assertThat(deleted).isEqualTo(2);
        assertThat(log.sizeBytes()).isEqualTo(6L * batchBytes);
        assertThat(log.logStartOffset()).isEqualTo(4);
    }

    @Test
    void findOffsetByTimestampSearchesAcrossSegments() {
        // Given
        PartitionLog log = open(smallConfig().withSegmentBytes(200));
        for (int i = 0; i < 10; i++) {
            log.append(TestBatches.batch(10_000L * (i + 1), "a", "b"), 0);
        }

        // Then
        assertThat(log.findOffsetByTimestamp(50_001)).contains(new TimestampAndOffset(50_001, 9));
        assertThat(log.findOffsetByTimestamp(50_002)).contains(new TimestampAndOffset(60_000, 10));
        assertThat(log.findOffsetByTimestamp(1)).contains(new TimestampAndOffset(10_000, 0));
        assertThat(log.findOffsetByTimestamp(200_000)).isEmpty();
    }

    @Test
    void followerAppendKeepsOffsetsAndEpochs() {
        // Given: batches as a leader would have written them
        ByteBuffer first = TestBatches.batch(START_MS, "a", "b");
        new RecordBatchHeader(first, 0).setPartitionLeaderEpoch(4);
        ByteBuffer second = TestBatches.batch(START_MS, "c");
        RecordBatchHeader secondHeader = new RecordBatchHeader(second, 0);
        secondHeader.setBaseOffset(2);
        secondHeader.setPartitionLeaderEpoch(6);
        PartitionLog log = open(LogConfig.defaults());

        // When
        AppendResult result = log.appendAsFollower(TestBatches.concat(first, second));

        // Then
        assertThat(result.lastOffset()).isEqualTo(2);
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(4, 0), new EpochEntry(6, 2));
        ByteBuffer wrongStart = TestBatches.batch(START_MS, "z");
        assertThatThrownBy(() -> log.appendAsFollower(wrongStart)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anIoErrorTakesTheLogOffline() throws Exception {
        // Given: the directory disappears under the log, so the next roll cannot create its segment file
        PartitionLog log = open(LogConfig.defaults().withSegmentMs(1_000));
        append(log, "a");
        try (var files = Files.list(log.dir())) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(log.dir());
        time.advance(5_000);

        // When / Then
        assertThatThrownBy(() -> append(log, "b"))
                .isInstanceOf(LogStorageException.class)
                .hasMessageContaining("offline");
        assertThatThrownBy(() -> log.read(0, 100, 1)).isInstanceOf(LogStorageException.class);
        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void aSliceTransfersToAChannelByteForByte() throws Exception {
        // Given
        PartitionLog log = open(LogConfig.defaults());
        append(log, "a", "b");
        append(log, "c");
        FileSlice slice = log.read(0, 10_000, log.logEndOffset()).records();

        // When
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        slice.transferTo(Channels.newChannel(out));

        // Then
        assertThat(ByteBuffer.wrap(out.toByteArray())).isEqualTo(slice.readAll());
        assertThat(TestBatches.values(TestBatches.records(ByteBuffer.wrap(out.toByteArray()))))
                .containsExactly("a", "b", "c");
    }

    @Test
    void segmentFilesAreNamedByTwentyDigitBaseOffsets() {
        // Given
        PartitionLog log = open(smallConfig().withSegmentBytes(200));

        // When
        for (int i = 0; i < 12; i++) {
            append(log, "0123456789");
        }
        log.flush();

        // Then
        for (LogSegment segment : log.segments()) {
            String prefix = String.format("%020d", segment.baseOffset());
            assertThat(segment.logFile().getFileName().toString()).isEqualTo(prefix + ".log");
            assertThat(log.dir().resolve(prefix + ".index")).exists();
            assertThat(log.dir().resolve(prefix + ".timeindex")).exists();
        }
        assertThat(log.dir().getFileName().toString()).isEqualTo("orders-0");
    }

    @Test
    void epochsAndOffsetsSurviveACleanReopen() {
        // Given
        PartitionLog log = open(LogConfig.defaults());
        log.append(TestBatches.batch(START_MS, "a"), 1);
        log.append(TestBatches.batch(START_MS, "b"), 4);
        log.updateHighWatermark(2);
        log.close();

        // When
        PartitionLog reopened = open(LogConfig.defaults());

        // Then
        assertThat(reopened.logEndOffset()).isEqualTo(2);
        assertThat(reopened.highWatermark()).isEqualTo(2);
        assertThat(reopened.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(4, 1));
        assertThat(reopened.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 1));
        assertThat(reopened.append(TestBatches.batch(START_MS, "c"), 4).firstOffset())
                .isEqualTo(2);
    }

    @Test
    void aFollowerTakesAFirstBatchPastItsLogEndWhenTheLeaderCompactedTheOffsetsBetween() {
        // Given: an empty follower; the leader's log has nothing below offset 150 any more
        PartitionLog log = open(LogConfig.defaults());
        ByteBuffer batch = TestBatches.batch(START_MS, "k150");
        RecordBatchHeader header = new RecordBatchHeader(batch, 0);
        header.setBaseOffset(150);
        header.setPartitionLeaderEpoch(2);

        // When
        AppendResult result = log.appendAsFollower(batch);

        // Then
        assertThat(result.firstOffset()).isEqualTo(150);
        assertThat(log.logEndOffset()).isEqualTo(151);
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(2, 150));
    }
}
