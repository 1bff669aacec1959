package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.time.ManualTime;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compaction of a {@link PartitionLog} ({@link CompactionTask}) on real files, including crashes mid-swap. */
class PartitionLogCompactionTest {

    private static final long START_MS = 1_700_000_000_000L;
    private static final long DELETE_RETENTION_MS = 10_000;
    private static final long MAP_BYTES = 1 << 20;

    @TempDir
    Path root;

    private final ManualTime time = new ManualTime(START_MS);
    private final List<PartitionLog> opened = new ArrayList<>();

    /** A decoded record; a null value is a tombstone. */
    record KeyedRec(long offset, String key, String value) {}

    @AfterEach
    void closeLogs() {
        for (PartitionLog log : opened) {
            log.close();
        }
    }

    private PartitionLog open() {
        return open(UnaryOperator.identity());
    }

    private PartitionLog open(UnaryOperator<LogConfig> adjust) {
        // A one-record batch below is 72-74 bytes, so every batch gets a segment of its own.
        LogConfig config = LogConfig.defaults()
                .withSegmentBytes(100)
                .withIndexIntervalBytes(0)
                .withCleanupPolicy(LogConfig.CleanupPolicy.COMPACT)
                .withDeleteRetentionMs(DELETE_RETENTION_MS);
        PartitionLog log = PartitionLog.open(root.resolve("compacted-0"), adjust.apply(config), time);
        opened.add(log);
        return log;
    }

    @Test
    void keepsTheLatestRecordPerKeyAtItsOriginalOffsetAndLeavesTheActiveSegmentAlone() {
        // Given
        PartitionLog log = open();
        append(log, "k1", "a1", "k2", "b1", "k3", "c1"); // 0..2
        append(log, "k1", "a2"); // 3
        append(log, "k2", "b2"); // 4
        append(log, null, "no-key"); // 5
        append(log, "k1", "a3"); // 6
        append(log, "k3", "c2"); // 7, active segment
        long sizeBefore = log.sizeBytes();
        long logEndBefore = log.logEndOffset();

        // When
        boolean swapped = compactOnce(log);

        // Then
        assertThat(swapped).isTrue();
        List<KeyedRec> expected = List.of(
                new KeyedRec(2, "k3", "c1"),
                new KeyedRec(4, "k2", "b2"),
                new KeyedRec(5, null, "no-key"),
                new KeyedRec(6, "k1", "a3"),
                new KeyedRec(7, "k3", "c2"));
        assertThat(readAll(log)).containsExactlyElementsOf(expected);
        assertThat(log.sizeBytes()).isLessThan(sizeBefore);
        assertThat(log.logEndOffset()).isEqualTo(logEndBefore);
        assertThat(log.logStartOffset()).isZero();
        // A consumer starting in a gap gets the next surviving record.
        assertThat(readFrom(log, 3).get(0).offset()).isEqualTo(4);
        // Nothing new is dirty: no second pass.
        assertThat(log.beginCompaction(MAP_BYTES)).isEmpty();

        // When: reopened after an unclean shutdown, so every batch is CRC-checked
        log.closeQuietly();
        PartitionLog reopened = open();

        // Then
        assertThat(readAll(reopened)).containsExactlyElementsOf(expected);
        assertThat(reopened.logEndOffset()).isEqualTo(logEndBefore);
        assertThat(reopened.cleanerCheckpoint()).isEqualTo(log.cleanerCheckpoint());
        assertThat(reopened.beginCompaction(MAP_BYTES)).isEmpty();
        append(reopened, "k4", "d1");
        assertThat(readAll(reopened)).last().isEqualTo(new KeyedRec(8, "k4", "d1"));
    }

    @Test
    void minCompactionLagKeepsSegmentsWithYoungRecordsUncompactedUntilTheyAreOldEnough() {
        // Given: min.compaction.lag.ms 5 s, three updates of one key just written
        PartitionLog log = open(c -> c.withCompactionLags(5_000, Long.MAX_VALUE));
        append(log, "k1", "a1"); // 0
        append(log, "k1", "a2"); // 1
        append(log, "k1", "a3"); // 2
        append(log, "x", "active"); // 3

        // Then: nothing is compacted while the records are younger than the lag
        assertThat(compactOnce(log)).isFalse();
        time.advance(4_999);
        assertThat(compactOnce(log)).isFalse();
        assertThat(readAll(log)).extracting(KeyedRec::value).containsExactly("a1", "a2", "a3", "active");

        // When: they are old enough
        time.advance(2);

        // Then
        assertThat(compactOnce(log)).isTrue();
        assertThat(readAll(log)).extracting(KeyedRec::value).containsExactly("a3", "active");
    }

    @Test
    void maxCompactionLagRollsTheActiveSegmentOfACompactedLogSoItsRecordsCanBeCompacted() {
        // Given: segments that never fill, and max.compaction.lag.ms 1 s
        PartitionLog lagged = open(c -> c.withSegmentBytes(1 << 20).withCompactionLags(0, 1_000));
        append(lagged, "k1", "a1");

        // When: the next record comes later than the lag
        time.advance(1_001);
        append(lagged, "k1", "a2");

        // Then: the first record is in a closed segment, which the cleaner compacts
        assertThat(lagged.segmentCount()).isEqualTo(2);
        append(lagged, "x", "active");
        assertThat(compactOnce(lagged)).isTrue();
        assertThat(readAll(lagged)).extracting(KeyedRec::value).containsExactly("a1", "a2", "active");
        time.advance(1_001);
        append(lagged, "y", "y1");
        assertThat(compactOnce(lagged)).isTrue();
        assertThat(readAll(lagged)).extracting(KeyedRec::value).containsExactly("a2", "active", "y1");
    }

    @Test
    void aLaterPassCompactsAgainstEarlierCleanedSegmentsAndMergesThem() {
        // Given
        PartitionLog log = open();
        for (int i = 0; i < 6; i++) {
            append(log, "k" + (i % 2), "v" + i); // 0..5
        }
        append(log, "tail", "t");
        assertThat(compactOnce(log)).isTrue();

        // When: more updates of the same keys
        for (int i = 6; i < 12; i++) {
            append(log, "k" + (i % 2), "v" + i); // 7..12
        }
        append(log, "tail", "t2");
        int segmentsBefore = log.segmentCount();
        assertThat(compactOnce(log)).isTrue();

        // Then: the old "tail" stays, since its successor is in the active segment
        assertThat(readAll(log))
                .containsExactly(
                        new KeyedRec(6, "tail", "t"),
                        new KeyedRec(11, "k0", "v10"),
                        new KeyedRec(12, "k1", "v11"),
                        new KeyedRec(13, "tail", "t2"));
        // Segments emptied by the first pass were merged into their neighbours
        assertThat(log.segmentCount()).isLessThan(segmentsBefore);
    }

    @Test
    void tombstonesSurviveForDeleteRetentionThenGo() {
        // Given
        PartitionLog log = open();
        append(log, "k1", "a1"); // 0
        append(log, "k2", "b1"); // 1
        append(log, "k1", null); // 2: tombstone
        append(log, "k2", "b2"); // 3
        append(log, "x", "active"); // 4

        // When
        assertThat(compactOnce(log)).isTrue();

        // Then: the delete is still visible to consumers
        assertThat(readAll(log))
                .containsExactly(
                        new KeyedRec(2, "k1", null), new KeyedRec(3, "k2", "b2"), new KeyedRec(4, "x", "active"));

        // When: delete.retention.ms later, with new dirty data
        time.advance(DELETE_RETENTION_MS + 1);
        append(log, "y", "y1"); // 5
        append(log, "z", "z1"); // 6
        assertThat(compactOnce(log)).isTrue();

        // Then
        assertThat(readAll(log)).extracting(KeyedRec::key).doesNotContain("k1").contains("k2", "x", "y", "z");
    }

    @Test
    void anIdleLogDropsItsTombstonesOnceDeleteRetentionHasPassedAlsoAfterARestart() {
        // Given: a compacted log that kept a fresh tombstone and gets no new data
        PartitionLog first = open();
        append(first, "k1", "a1"); // 0
        append(first, "k1", null); // 1: tombstone
        append(first, "k2", "b1"); // 2
        append(first, "x", "active"); // 3
        assertThat(compactOnce(first)).isTrue();
        assertThat(readAll(first)).extracting(KeyedRec::offset).containsExactly(1L, 2L, 3L);
        first.close();
        PartitionLog log = open();
        assertThat(log.beginCompaction(MAP_BYTES)).as("nothing to do yet").isEmpty();

        // When
        time.advance(DELETE_RETENTION_MS + 1);

        // Then
        assertThat(compactOnce(log)).isTrue();
        assertThat(readAll(log)).extracting(KeyedRec::offset).containsExactly(2L, 3L);
        assertThat(log.beginCompaction(MAP_BYTES))
                .as("no tombstone left to expire")
                .isEmpty();
    }

    @Test
    void aCrashBeforeTheSwapKeepsTheOldSegmentsAndDeletesTheCleanedFile() throws Exception {
        // Given
        PartitionLog log = open();
        List<KeyedRec> before = fillWithUpdates(log);
        CompactionTask task = log.beginCompaction(MAP_BYTES).orElseThrow();
        task.prepare(CompactionTask.IoThrottle.NONE);
        assertThat(files(log.dir(), ".cleaned")).isNotEmpty();

        // When: the process dies before completeCompaction
        log.closeQuietly();
        PartitionLog reopened = open();

        // Then
        assertThat(files(reopened.dir(), ".cleaned")).isEmpty();
        assertThat(readAll(reopened)).containsExactlyElementsOf(before);
        // As the replica layer does after open on a single node
        reopened.updateHighWatermark(reopened.logEndOffset());
        assertThat(compactOnce(reopened)).isTrue();
        assertThat(readAll(reopened)).hasSizeLessThan(before.size());
    }

    @Test
    void aCrashAfterTheSwapCommitPointFinishesTheSwapOnOpen() throws Exception {
        // Given: the task's files are renamed to .swap (the commit point) and some old segments are already gone
        PartitionLog log = open();
        fillWithUpdates(log);
        CompactionTask task = log.beginCompaction(MAP_BYTES).orElseThrow();
        task.prepare(CompactionTask.IoThrottle.NONE);
        for (CompactionTask.Group group : task.groups()) {
            Files.move(
                    group.cleanedFile(),
                    LogFiles.swapFile(log.dir(), group.firstBaseOffset(), group.lastBaseOffset()),
                    StandardCopyOption.ATOMIC_MOVE);
        }
        CompactionTask.Group first = task.groups().get(0);
        log.closeQuietly();
        Files.delete(LogFiles.logFile(log.dir(), first.firstBaseOffset()));

        // When
        PartitionLog reopened = open();

        // Then: the same result as an uninterrupted pass over a copy of the log
        PartitionLog reference = PartitionLog.open(root.resolve("reference-0"), reopened.config(), time);
        opened.add(reference);
        fillWithUpdates(reference);
        assertThat(compactOnce(reference)).isTrue();
        assertThat(files(reopened.dir(), ".swap")).isEmpty();
        assertThat(readAll(reopened)).containsExactlyElementsOf(readAll(reference));
        assertThat(reopened.logEndOffset()).isEqualTo(reference.logEndOffset());
    }

    @Test
    void aSegmentDeletedDuringThePassAbandonsItAndChangesNothing() throws Exception {
        // Given
        PartitionLog log = open();
        fillWithUpdates(log);
        CompactionTask task = log.beginCompaction(MAP_BYTES).orElseThrow();

        // When: DeleteRecords removes the first segments while the cleaner works without the lock
        log.deleteRecordsBefore(3);

        // Then
        boolean failedEarly;
        try {
            task.prepare(CompactionTask.IoThrottle.NONE);
            failedEarly = false;
        } catch (IOException e) {
            failedEarly = true;
        }
        if (!failedEarly) {
            assertThat(log.completeCompaction(task)).isFalse();
        }
        assertThat(files(log.dir(), ".cleaned")).isEmpty();
        assertThat(readAll(log)).first().extracting(KeyedRec::offset).isEqualTo(3L);
        assertThat(compactOnce(log)).isTrue();
    }

    @Test
    void deletePolicyLogsAreNeitherCompactedNorCompactLogsTrimmedByRetention() {
        // Given
        LogConfig deleteOnly = LogConfig.defaults().withSegmentBytes(100).withRetentionMs(1);
        PartitionLog plain = PartitionLog.open(root.resolve("plain-0"), deleteOnly, time);
        opened.add(plain);
        PartitionLog compacted = open();
        for (int i = 0; i < 4; i++) {
            append(plain, "k", "v" + i);
            append(compacted, "k", "v" + i);
        }
        time.advance(1_000);

        // When / Then
        assertThat(plain.beginCompaction(MAP_BYTES)).isEmpty();
        assertThat(compacted.deleteSegmentsForRetention()).isZero();
        assertThat(plain.deleteSegmentsForRetention()).isPositive();
        assertThatThrownBy(() -> LogConfig.CleanupPolicy.forPolicies(List.of("compact", "shred")))
                .hasMessageContaining("cleanup.policy");
        assertThat(LogConfig.CleanupPolicy.forPolicies(List.of("delete", "compact")))
                .isEqualTo(LogConfig.CleanupPolicy.COMPACT_DELETE);
    }

    // ---------------------------------------------------------------- helpers

    /** Six updates of three keys, then one record to roll them all into closed segments; returns the log. */
    @Test
    void anAbortedTransactionalRecordNeverRemovesTheCommittedValueOfItsKey() {
        // Given: k1=a1 committed, then k1=aborted in a transaction that aborted (a mirror topic's copy), then more
        PartitionLog log = open();
        append(log, "k1", "a1"); // 0
        log.append(
                org.apache.kafka.common.record.MemoryRecords.withTransactionalRecords(
                                org.apache.kafka.common.compress.Compression.NONE,
                                77L,
                                (short) 0,
                                0,
                                new org.apache.kafka.common.record.SimpleRecord(
                                        START_MS,
                                        "k1".getBytes(StandardCharsets.UTF_8),
                                        "aborted".getBytes(StandardCharsets.UTF_8)))
                        .buffer(),
                0); // 1
        log.append(RecordBatches.transactionMarker(77L, (short) 0, RecordBatchHeader.CONTROL_ABORT, 0, START_MS), 0);
        log.updateHighWatermark(log.logEndOffset()); // 2: the abort marker
        append(log, "k2", "b1"); // 3
        append(log, "x", "active"); // 4, active segment

        // When
        compactOnce(log);

        // Then: the committed value of k1 is still there for read_committed readers, who skip the aborted one
        assertThat(readAll(log)).contains(new KeyedRec(0, "k1", "a1"));
    }

    @Test
    void aCommittedTransactionalValueDoesNotComeBackWhenALaterTombstoneOfItsKeyExpires() {
        // Given: k1=t committed in a transaction, then a tombstone of k1; the partition knows no abort
        PartitionLog log = open();
        appendTransactional(log, 5L, "k1", "t"); // 0
        log.append(RecordBatches.transactionMarker(5L, (short) 0, RecordBatchHeader.CONTROL_COMMIT, 0, START_MS), 0);
        log.updateHighWatermark(log.logEndOffset()); // 1: the commit marker
        append(log, "k1", null); // 2: tombstone
        append(log, "x", "active"); // 3, active segment
        AbortedTransactions noneAborted = (producerId, offset) -> false;

        // When: compacted, then again once the tombstone is past delete.retention.ms
        compactOnce(log, log.logEndOffset(), noneAborted);
        time.advance(DELETE_RETENTION_MS + 1);
        compactOnce(log, log.logEndOffset(), noneAborted);

        // Then: k1 is gone; before, the transactional batch was kept whole and k1=t came back
        assertThat(readAll(log)).noneMatch(r -> "k1".equals(r.key()));
    }

    @Test
    void anAbortedTransactionIsDroppedAndTheCommittedValueOfItsKeyStays() {
        // Given: k1=a1, then k1=aborted in producer 77's transaction that aborted
        PartitionLog log = open();
        append(log, "k1", "a1"); // 0
        appendTransactional(log, 77L, "k1", "aborted"); // 1
        log.append(RecordBatches.transactionMarker(77L, (short) 0, RecordBatchHeader.CONTROL_ABORT, 0, START_MS), 0);
        log.updateHighWatermark(log.logEndOffset()); // 2: the abort marker
        append(log, "k2", "b1"); // 3
        append(log, "x", "active"); // 4

        // When
        compactOnce(log, log.logEndOffset(), (producerId, offset) -> producerId == 77L && offset == 1);

        // Then
        assertThat(readAll(log)).contains(new KeyedRec(0, "k1", "a1")).noneMatch(r -> "aborted".equals(r.value()));
    }

    @Test
    void nothingFromTheLastStableOffsetOnIsCompacted() {
        // Given: k1 updated twice, but a transaction is open from offset 1 (the last stable offset)
        PartitionLog log = open();
        append(log, "k1", "a1"); // 0
        appendTransactional(log, 9L, "k2", "open"); // 1
        append(log, "k1", "a2"); // 2
        append(log, "x", "active"); // 3

        // When
        compactOnce(log, 1, (producerId, offset) -> false);

        // Then: the segments from the open transaction on were not read, so k1=a1 stays
        assertThat(readAll(log)).contains(new KeyedRec(0, "k1", "a1"), new KeyedRec(1, "k2", "open"));
    }

    private void appendTransactional(PartitionLog log, long producerId, String key, String value) {
        log.append(
                org.apache.kafka.common.record.MemoryRecords.withTransactionalRecords(
                                org.apache.kafka.common.compress.Compression.NONE,
                                producerId,
                                (short) 0,
                                0,
                                new org.apache.kafka.common.record.SimpleRecord(
                                        time.milliseconds(),
                                        key.getBytes(StandardCharsets.UTF_8),
                                        value.getBytes(StandardCharsets.UTF_8)))
                        .buffer(),
                0);
        log.updateHighWatermark(log.logEndOffset());
    }

    private static void compactOnce(PartitionLog log, long lastStableOffset, AbortedTransactions aborted) {
        CompactionTask task =
                log.beginCompaction(MAP_BYTES, lastStableOffset, aborted).orElse(null);
        if (task == null) {
            return;
        }
        try {
            task.prepare(CompactionTask.IoThrottle.NONE);
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
        log.completeCompaction(task);
    }

    private List<KeyedRec> fillWithUpdates(PartitionLog log) {
        for (int i = 0; i < 6; i++) {
            append(log, "k" + (i % 3), "v" + i);
        }
        append(log, "tail", "t");
        return readAll(log);
    }

    private static boolean compactOnce(PartitionLog log) {
        CompactionTask task = log.beginCompaction(MAP_BYTES).orElse(null);
        if (task == null) {
            return false;
        }
        try {
            task.prepare(CompactionTask.IoThrottle.NONE);
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
        return log.completeCompaction(task);
    }

    private static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(suffix))
                    .toList();
        }
    }

    /** Appends one batch of (key, value) pairs; a null key or value is encoded as null. */
    private AppendResult append(PartitionLog log, String... keysAndValues) {
        AppendResult result = log.append(keyedBatch(time.milliseconds(), keysAndValues), 0);
        log.updateHighWatermark(log.logEndOffset());
        return result;
    }

    private static List<KeyedRec> readAll(PartitionLog log) {
        return readFrom(log, log.logStartOffset());
    }

    /** Every record from {@code fromOffset}, advancing by whole batches (compaction leaves gaps inside them). */
    private static List<KeyedRec> readFrom(PartitionLog log, long fromOffset) {
        List<KeyedRec> result = new ArrayList<>();
        long next = fromOffset;
        for (int guard = 0; guard < 10_000 && next < log.logEndOffset(); guard++) {
            ByteBuffer slice =
                    log.read(next, 1 << 16, log.logEndOffset(), true).records().readAll();
            if (!slice.hasRemaining()) {
                break;
            }
            for (RecordBatchHeader header : RecordBatches.split(slice)) {
                header.validate();
                ByteBuffer batch = slice.duplicate()
                        .position(header.indexInBuffer())
                        .limit(header.indexInBuffer() + header.sizeInBytes())
                        .slice();
                for (CompactionTask.KeyedRecord record :
                        CompactionTask.records(batch, new RecordBatchHeader(batch, 0))) {
                    if (record.offset() >= next) {
                        result.add(decode(batch, record));
                    }
                }
                next = Math.max(next, header.nextOffset());
            }
        }
        return result;
    }

    private static KeyedRec decode(ByteBuffer batch, CompactionTask.KeyedRecord record) {
        ByteBuffer in = batch.duplicate().position(record.position());
        Varints.readVarint(in);
        in.get();
        Varints.readVarlong(in);
        Varints.readVarint(in);
        String key = readString(in);
        String value = readString(in);
        return new KeyedRec(record.offset(), key, value);
    }

    private static String readString(ByteBuffer in) {
        int length = Varints.readVarint(in);
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** An uncompressed v2 batch in Kafka's encoding, records with the given keys and values (null allowed). */
    static ByteBuffer keyedBatch(long timestampMs, String... keysAndValues) {
        List<ByteBuffer> records = new ArrayList<>();
        int recordsBytes = 0;
        for (int i = 0; i < keysAndValues.length / 2; i++) {
            ByteBuffer body = ByteBuffer.allocate(
                    64 + bytes(keysAndValues[2 * i]).length + bytes(keysAndValues[2 * i + 1]).length);
            body.put((byte) 0);
            Varints.writeVarlong(0, body);
            Varints.writeVarint(i, body);
            writeString(keysAndValues[2 * i], body);
            writeString(keysAndValues[2 * i + 1], body);
            Varints.writeVarint(0, body);
            body.flip();
            ByteBuffer record = ByteBuffer.allocate(5 + body.remaining());
            Varints.writeVarint(body.remaining(), record);
            record.put(body).flip();
            records.add(record);
            recordsBytes += record.remaining();
        }
        int count = records.size();
        ByteBuffer batch = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE_BYTES + recordsBytes);
        batch.putLong(0L)
                .putInt(batch.capacity() - RecordBatchHeader.LOG_OVERHEAD_BYTES)
                .putInt(-1)
                .put(RecordBatchHeader.MAGIC_V2)
                .putInt(0)
                .putShort((short) 0)
                .putInt(count - 1)
                .putLong(timestampMs)
                .putLong(timestampMs)
                .putLong(-1L)
                .putShort((short) -1)
                .putInt(-1)
                .putInt(count);
        for (ByteBuffer record : records) {
            batch.put(record);
        }
        batch.flip();
        CRC32C crc = new CRC32C();
        crc.update(batch.duplicate().position(RecordBatchHeader.ATTRIBUTES_OFFSET));
        batch.putInt(RecordBatchHeader.CRC_OFFSET, (int) crc.getValue());
        return batch;
    }

    private static byte[] bytes(String s) {
        return s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    }

    private static void writeString(String s, ByteBuffer out) {
        if (s == null) {
            Varints.writeVarint(-1, out);
        } else {
            byte[] b = bytes(s);
            Varints.writeVarint(b.length, out);
            out.put(b);
        }
    }
}
