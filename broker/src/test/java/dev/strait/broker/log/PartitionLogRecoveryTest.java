package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.ManualTime;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One test per corruption mode: write batches, stop the log (a crash unless noted), damage a file, reopen, and check
 * that every fully written valid batch before the damage survives and that appends continue at the right offset.
 */
class PartitionLogRecoveryTest {

    private static final long START_MS = 1_700_000_000_000L;
    private static final int BATCHES = 8;
    private static final int RECORDS_PER_BATCH = 3;

    @TempDir
    Path root;

    private final ManualTime time = new ManualTime(START_MS);
    private final LogConfig config =
            LogConfig.defaults().withIndexIntervalBytes(32).withSegmentBytes(100_000);
    private final List<PartitionLog> opened = new ArrayList<>();
    /** Start position of each batch in the single segment file. */
    private final List<Integer> batchPositions = new ArrayList<>();

    @AfterEach
    void closeLogs() {
        for (PartitionLog log : opened) {
            log.close();
        }
    }

    private Path dir() {
        return root.resolve("events-3");
    }

    private PartitionLog open() {
        PartitionLog log = PartitionLog.open(dir(), config, time);
        opened.add(log);
        return log;
    }

    /** Writes BATCHES batches of 3 records, "b<batch>-<record>", with increasing timestamps, then crashes. */
    private Path writeBatchesAndCrash() {
        PartitionLog log = open();
        for (int b = 0; b < BATCHES; b++) {
            batchPositions.add((int) log.sizeBytes());
            log.append(TestBatches.batch(START_MS + 1_000L * b, "b" + b + "-0", "b" + b + "-1", "b" + b + "-2"), 1);
        }
        Path logFile = log.segments().get(0).logFile();
        crash(log);
        return logFile;
    }

    private void crash(PartitionLog log) {
        log.closeQuietly();
        opened.remove(log);
    }

    private static List<String> expectedValues(int batches) {
        List<String> values = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            for (int r = 0; r < RECORDS_PER_BATCH; r++) {
                values.add("b" + b + "-" + r);
            }
        }
        return values;
    }

    private void assertRecoveredTo(PartitionLog log, int survivingBatches) {
        long expectedEnd = (long) survivingBatches * RECORDS_PER_BATCH;
        assertThat(log.logEndOffset()).isEqualTo(expectedEnd);
        assertThat(TestBatches.values(TestBatches.readAll(log))).isEqualTo(expectedValues(survivingBatches));
        AppendResult next = log.append(TestBatches.batch(START_MS + 100_000, "after"), 1);
        assertThat(next.firstOffset()).isEqualTo(expectedEnd);
        assertThat(TestBatches.readAll(log, expectedEnd, log.logEndOffset()))
                .extracting(TestBatches.Rec::value)
                .containsExactly("after");
    }

    private static void overwrite(Path file, long position, byte[] bytes) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), position);
        }
    }

    private static void truncate(Path file, long sizeBytes) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(sizeBytes);
        }
    }

    @Test
    void aTornLastBatchIsTruncated() throws Exception {
        // Given
        Path logFile = writeBatchesAndCrash();
        truncate(logFile, Files.size(logFile) - 5);

        // When
        PartitionLog log = open();

        // Then
        assertRecoveredTo(log, BATCHES - 1);
        assertThat(Files.size(logFile))
                .isEqualTo(batchPositions.get(BATCHES - 1)
                        + TestBatches.batch(0, "after").remaining());
    }

    @Test
    void aTornHeaderIsTruncated() throws Exception {
        // Given: only 20 bytes of the last batch reached the disk
        Path logFile = writeBatchesAndCrash();
        truncate(logFile, batchPositions.get(BATCHES - 1) + 20);

        // When
        PartitionLog log = open();

        // Then
        assertRecoveredTo(log, BATCHES - 1);
    }

    @Test
    void aCorruptByteInTheLastBatchFailsItsCrcAndIsTruncated() throws Exception {
        // Given
        Path logFile = writeBatchesAndCrash();
        // Inside the records part of the last batch (the header is 61 bytes of a ~100-byte batch)
        long middleOfLastBatch = (long) batchPositions.get(BATCHES - 1) + RecordBatchHeader.HEADER_SIZE_BYTES + 10;
        assertThat(middleOfLastBatch).isLessThan(Files.size(logFile) - 10);
        overwrite(logFile, middleOfLastBatch, new byte[] {(byte) 0xEE});

        // When
        PartitionLog log = open();

        // Then
        assertRecoveredTo(log, BATCHES - 1);
    }

    @Test
    void aCorruptByteInAnEarlierBatchLosesEverythingFromThere() throws Exception {
        // Given
        Path logFile = writeBatchesAndCrash();
        overwrite(logFile, batchPositions.get(3) + RecordBatchHeader.HEADER_SIZE_BYTES + 2, new byte[] {0x00, 0x7f});

        // When
        PartitionLog log = open();

        // Then
        assertRecoveredTo(log, 3);
    }

    @Test
    void garbageAfterTheLastBatchIsTruncated() throws Exception {
        // Given
        Path logFile = writeBatchesAndCrash();
        long validSize = Files.size(logFile);
        byte[] garbage = new byte[200];
        Arrays.fill(garbage, (byte) 0x55);
        overwrite(logFile, validSize, garbage);

        // When
        PartitionLog log = open();

        // Then
        assertRecoveredTo(log, BATCHES);
    }

    @Test
    void zeroFilledTailIsTruncated() throws Exception {
        // Given: a file system that extended the file but never wrote the data (zeros)
        Path logFile = writeBatchesAndCrash();
        overwrite(logFile, Files.size(logFile), new byte[4096]);

        // When
        PartitionLog log = open();

        // Then
        assertRecoveredTo(log, BATCHES);
    }

    @Test
    void aCorruptOffsetIndexIsRebuilt() throws Exception {
        // Given: a clean shutdown, then garbage in the index
        PartitionLog first = open();
        for (int b = 0; b < BATCHES; b++) {
            first.append(TestBatches.batch(START_MS + 1_000L * b, "b" + b + "-0", "b" + b + "-1", "b" + b + "-2"), 1);
        }
        Path index = first.segments().get(0).offsetIndex().file();
        first.close();
        opened.remove(first);
        assertThat(Files.size(index)).isGreaterThan(0);
        byte[] garbage = new byte[(int) Files.size(index)];
        Arrays.fill(garbage, (byte) 0x7f);
        overwrite(index, 0, garbage);

        // When
        PartitionLog log = open();

        // Then
        assertThat(log.segments().get(0).offsetIndex().entries()).isGreaterThan(0);
        for (long offset = 0; offset < BATCHES * RECORDS_PER_BATCH; offset++) {
            ByteBuffer read =
                    log.read(offset, 10, log.logEndOffset(), true).records().readAll();
            assertThat(new RecordBatchHeader(read, 0).lastOffset()).isGreaterThanOrEqualTo(offset);
            assertThat(new RecordBatchHeader(read, 0).baseOffset()).isLessThanOrEqualTo(offset);
        }
        assertRecoveredTo(log, BATCHES);
    }

    @Test
    void aMissingOffsetIndexIsRebuilt() throws Exception {
        // Given
        writeBatchesAndCrash();
        Files.delete(LogFiles.offsetIndexFile(dir(), 0));

        // When
        PartitionLog log = open();

        // Then
        assertThat(log.segments().get(0).offsetIndex().entries()).isGreaterThan(0);
        assertRecoveredTo(log, BATCHES);
        log.flush();
        assertThat(Files.size(LogFiles.offsetIndexFile(dir(), 0))).isGreaterThan(0);
    }

    @Test
    void aCorruptTimeIndexIsRebuilt() throws Exception {
        // Given
        writeBatchesAndCrash();
        Path timeIndex = LogFiles.timeIndexFile(dir(), 0);
        overwrite(timeIndex, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17});

        // When
        PartitionLog log = open();

        // Then
        assertThat(log.findOffsetByTimestamp(START_MS + 3_000)).contains(new TimestampAndOffset(START_MS + 3_000, 9));
        assertThat(log.findOffsetByTimestamp(START_MS + 3_001)).contains(new TimestampAndOffset(START_MS + 3_001, 10));
        assertRecoveredTo(log, BATCHES);
    }

    @Test
    void aMissingTimeIndexIsRebuilt() throws Exception {
        // Given
        PartitionLog first = open();
        for (int b = 0; b < BATCHES; b++) {
            first.append(TestBatches.batch(START_MS + 1_000L * b, "b" + b + "-0", "b" + b + "-1", "b" + b + "-2"), 1);
        }
        first.close();
        opened.remove(first);
        Files.delete(LogFiles.timeIndexFile(dir(), 0));

        // When
        PartitionLog log = open();

        // Then
        assertThat(log.segments().get(0).timeIndex().entries()).isGreaterThan(0);
        assertThat(log.findOffsetByTimestamp(START_MS + 5_002)).contains(new TimestampAndOffset(START_MS + 5_002, 17));
        assertRecoveredTo(log, BATCHES);
    }

    @Test
    void damageInAnOlderSegmentDropsTheSegmentsAfterIt() throws Exception {
        // Given: several segments, crash, then a torn batch in the second segment
        LogConfig small = config.withSegmentBytes(250);
        PartitionLog log = PartitionLog.open(dir(), small, time);
        for (int b = 0; b < BATCHES; b++) {
            log.append(TestBatches.batch(START_MS + 1_000L * b, "b" + b + "-0", "b" + b + "-1", "b" + b + "-2"), 1);
        }
        List<LogSegment> segments = log.segments();
        assertThat(segments.size()).isGreaterThanOrEqualTo(3);
        LogSegment second = segments.get(1);
        Path secondFile = second.logFile();
        long secondBase = second.baseOffset();
        crash(log);
        truncate(secondFile, Files.size(secondFile) - 1);

        // When
        PartitionLog reopened = PartitionLog.open(dir(), small, time);
        opened.add(reopened);

        // Then: the second segment lost its last batch; later segments are gone
        int survivingBatches = (int) (secondBase / RECORDS_PER_BATCH) + 1;
        assertThat(reopened.segmentCount()).isEqualTo(2);
        assertRecoveredTo(reopened, survivingBatches);
    }

    @Test
    void aCleanShutdownStillCatchesATornTail() throws Exception {
        // Given
        PartitionLog first = open();
        for (int b = 0; b < BATCHES; b++) {
            first.append(TestBatches.batch(START_MS + 1_000L * b, "b" + b + "-0", "b" + b + "-1", "b" + b + "-2"), 1);
        }
        Path logFile = first.segments().get(0).logFile();
        first.close();
        opened.remove(first);
        assertThat(dir().resolve(LogFiles.CLEAN_SHUTDOWN_MARKER)).exists();
        truncate(logFile, Files.size(logFile) - 1);

        // When
        PartitionLog log = open();

        // Then
        assertThat(dir().resolve(LogFiles.CLEAN_SHUTDOWN_MARKER)).doesNotExist();
        assertRecoveredTo(log, BATCHES - 1);
    }

    @Test
    void recoveryDropsEpochEntriesBeyondTheRecoveredEndAndStrayFiles() throws Exception {
        // Given: epoch 2 starts in the batch that will be torn
        PartitionLog first = open();
        first.append(TestBatches.batch(START_MS, "a"), 1);
        first.append(TestBatches.batch(START_MS, "b"), 2);
        Path logFile = first.segments().get(0).logFile();
        crash(first);
        truncate(logFile, Files.size(logFile) - 1);
        Files.write(dir().resolve("leader-epoch-checkpoint.tmp"), new byte[] {1, 2});
        Files.write(dir().resolve("00000000000000000099.index"), new byte[8]);

        // When
        PartitionLog log = open();

        // Then
        assertThat(log.logEndOffset()).isEqualTo(1);
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0));
        assertThat(dir().resolve("leader-epoch-checkpoint.tmp")).doesNotExist();
        assertThat(dir().resolve("00000000000000000099.index")).doesNotExist();
    }

    @Test
    void flushedStateSurvivesACrashWithoutRecoveringFlushedSegments() throws Exception {
        // Given
        PartitionLog first = open();
        first.append(TestBatches.batch(START_MS, "a", "b"), 1);
        first.updateHighWatermark(2);
        first.flush();
        first.append(TestBatches.batch(START_MS, "c"), 1);
        crash(first);

        // When
        PartitionLog log = open();

        // Then: unflushed-but-written data is still there after a process crash, and the HW was checkpointed
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(log.highWatermark()).isEqualTo(2);
        assertThat(log.recoveryPoint()).isEqualTo(3);
        assertThat(TestBatches.values(TestBatches.readAll(log))).containsExactly("a", "b", "c");
    }

    @Test
    void aTruncationLostToAPowerCutDoesNotLeaveTheNewEpochOverTheOldBatches() throws Exception {
        // Given: epoch 1's batches are durable; the log is truncated into them and epoch 2's batch follows
        PartitionLog first = open();
        first.append(TestBatches.batch(START_MS, "a", "b"), 1);
        first.append(TestBatches.batch(START_MS, "c", "d"), 1);
        first.flush();
        Path logFile = first.segments().get(0).logFile();
        byte[] durable = Files.readAllBytes(logFile);
        first.truncateTo(2);
        first.append(TestBatches.batch(START_MS, "x", "y"), 2);
        crash(first);
        // A disk that lost everything since the flush except the fsynced checkpoints (nemesis seed 4001)
        Files.write(logFile, durable);

        // When
        PartitionLog log = open();

        // Then: the epochs come from the batches, so a follower asking about epoch 1 learns it ends at 4 and
        // truncates its log where it diverges from the leader's
        assertThat(TestBatches.values(TestBatches.readAll(log))).containsExactly("a", "b", "c", "d");
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0));
        assertThat(log.endOffsetForEpoch(1)).isEqualTo(new EpochEndOffset(1, 4));
    }

    @Test
    void recoveryKeepsTheCheckpointsEpochsWhenTheBatchesAgree() throws Exception {
        // Given
        PartitionLog first = open();
        first.append(TestBatches.batch(START_MS, "a"), 1);
        first.append(TestBatches.batch(START_MS, "b"), 3);
        first.append(TestBatches.batch(START_MS, "c"), 4);
        crash(first);

        // When
        PartitionLog log = open();

        // Then
        assertThat(log.leaderEpochCache().entries())
                .containsExactly(new EpochEntry(1, 0), new EpochEntry(3, 1), new EpochEntry(4, 2));
    }
}
