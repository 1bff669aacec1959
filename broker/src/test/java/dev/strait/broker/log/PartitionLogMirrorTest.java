package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.time.ManualTime;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mirror-topic appends: a source cluster's batches (built by kafka-clients, as a Kafka broker stores them) copied at
 * their offsets, byte for byte apart from the partition leader epoch field.
 */
class PartitionLogMirrorTest {

    private static final long START_MS = 1_700_000_000_000L;
    private static final int SOURCE_EPOCH = 7;
    private static final long PRODUCER_ID = 4_242L;
    private static final short PRODUCER_EPOCH = 3;

    @TempDir
    Path root;

    private final ManualTime time = new ManualTime(START_MS);
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void closeLogs() {
        for (PartitionLog log : opened) {
            log.closeQuietly();
        }
    }

    private PartitionLog open() {
        PartitionLog log = PartitionLog.open(root.resolve("mirrored-0"), LogConfig.defaults(), time);
        opened.add(log);
        return log;
    }

    /**
     * A source partition as Kafka stores it: a plain batch at 0-2, a gzip transactional batch at 10-12 (offsets 3-9
     * compacted away), its commit marker at 13, and a zstd idempotent batch at 20-21.
     */
    private static ByteBuffer sourceBatches() {
        return concat(
                MemoryRecords.withRecords(0L, Compression.NONE, SOURCE_EPOCH, record("a"), record("b"), record("c")),
                MemoryRecords.withTransactionalRecords(
                        10L,
                        Compression.gzip().build(),
                        PRODUCER_ID,
                        PRODUCER_EPOCH,
                        0,
                        SOURCE_EPOCH,
                        record("t1"),
                        record("t2"),
                        record("t3")),
                MemoryRecords.withEndTransactionMarker(
                        13L,
                        START_MS + 5,
                        SOURCE_EPOCH,
                        PRODUCER_ID,
                        PRODUCER_EPOCH,
                        new EndTransactionMarker(ControlRecordType.COMMIT, 0)),
                MemoryRecords.withIdempotentRecords(
                        20L,
                        Compression.zstd().build(),
                        PRODUCER_ID + 1,
                        (short) 0,
                        5,
                        SOURCE_EPOCH,
                        record("z1"),
                        record("z2")));
    }

    @Test
    void batchesKeepTheirOffsetsGapsCompressionAndProducerFieldsAndOnlyTheEpochChanges() {
        // Given
        PartitionLog log = open();
        ByteBuffer source = sourceBatches();
        byte[] sourceBytes = bytes(source);

        // When
        AppendResult result = log.appendMirrored(source.duplicate(), 0, 1);

        // Then: the stored bytes are the source's except each batch's epoch field, and every CRC still holds
        assertThat(result.firstOffset()).isZero();
        assertThat(result.lastOffset()).isEqualTo(21);
        assertThat(result.batchCount()).isEqualTo(4);
        assertThat(log.logEndOffset()).isEqualTo(22);
        byte[] stored =
                bytes(log.read(0, 1 << 20, log.logEndOffset(), true).records().readAll());
        assertThat(stored).hasSameSizeAs(sourceBytes);
        List<MutableRecordBatch> batches = batches(stored);
        assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(0L, 10L, 13L, 20L);
        assertThat(batches).extracting(RecordBatch::partitionLeaderEpoch).containsOnly(1);
        List<MutableRecordBatch> sourceView = batches(sourceBytes);
        for (int i = 0; i < batches.size(); i++) {
            MutableRecordBatch copy = batches.get(i);
            copy.ensureValid();
            assertThat(copy.checksum()).isEqualTo(sourceView.get(i).checksum());
            assertThat(copy.compressionType()).isEqualTo(sourceView.get(i).compressionType());
            assertThat(copy.producerId()).isEqualTo(sourceView.get(i).producerId());
            assertThat(copy.baseSequence()).isEqualTo(sourceView.get(i).baseSequence());
            assertThat(copy.isTransactional()).isEqualTo(sourceView.get(i).isTransactional());
            assertThat(copy.isControlBatch()).isEqualTo(sourceView.get(i).isControlBatch());
        }
        assertThat(withEpochsCleared(stored)).isEqualTo(withEpochsCleared(sourceBytes));
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0));
    }

    @Test
    void aReplayedCopyIsRefusedAndNamesWhereTheCopyContinues() {
        // Given
        PartitionLog log = open();
        log.appendMirrored(sourceBatches(), 0, 1);

        // When / Then: the same batches again, from where they were first copied
        assertThatThrownBy(() -> log.appendMirrored(sourceBatches(), 0, 1))
                .isInstanceOfSatisfying(
                        MirrorOffsetMismatchException.class,
                        e -> assertThat(e.logEndOffset()).isEqualTo(22));
        // And a copier that claims the right position but sends batches the log already holds
        ByteBuffer overlapping = MemoryRecords.withRecords(
                        21L, Compression.NONE, SOURCE_EPOCH, record("dup"), record("new"))
                .buffer();
        assertThatThrownBy(() -> log.appendMirrored(overlapping, 22, 1))
                .isInstanceOf(MirrorOffsetMismatchException.class)
                .hasMessageContaining("overlaps");
        assertThat(log.logEndOffset()).isEqualTo(22);
        assertThat(values(log)).containsExactly("a", "b", "c", "t1", "t2", "t3", "", "z1", "z2");
    }

    @Test
    void aLogRestartedAtTheSourcesLogStartTakesTheCopyFromThere() {
        // Given: the source's log starts at 1,000 (retention or DeleteRecords)
        PartitionLog log = open();
        log.truncateFullyAndStartAt(1_000);

        // When
        log.appendMirrored(
                MemoryRecords.withRecords(1_000L, Compression.lz4().build(), SOURCE_EPOCH, record("x"), record("y"))
                        .buffer(),
                1_000,
                4);

        // Then
        assertThat(log.logStartOffset()).isEqualTo(1_000);
        assertThat(log.logEndOffset()).isEqualTo(1_002);
        assertThat(offsets(log)).containsExactly(1_000L, 1_001L);
    }

    @Test
    void aLaterLeaderEpochStartsANewEpochAndAnEarlierOneIsRefused() {
        // Given
        PartitionLog log = open();
        log.appendMirrored(sourceBatches(), 0, 1);

        // When: leadership moved within this cluster; the copy continues under epoch 2
        log.appendMirrored(
                MemoryRecords.withRecords(30L, Compression.NONE, SOURCE_EPOCH, record("after-gap"))
                        .buffer(),
                22,
                2);

        // Then
        assertThat(log.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 30));
        assertThat(log.logEndOffset()).isEqualTo(31);
        assertThatThrownBy(() -> log.appendMirrored(
                        MemoryRecords.withRecords(31L, Compression.NONE, SOURCE_EPOCH, record("stale"))
                                .buffer(),
                        31,
                        1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("epoch");
    }

    @Test
    void aMirroredLogSurvivesAnUncleanRestartWithItsOffsetsAndEpochs() {
        // Given
        PartitionLog log = open();
        log.appendMirrored(sourceBatches(), 0, 1);
        log.flush();
        byte[] before =
                bytes(log.read(0, 1 << 20, log.logEndOffset(), true).records().readAll());
        log.closeQuietly();

        // When: reopened without a clean shutdown marker
        PartitionLog reopened = open();

        // Then
        assertThat(reopened.logEndOffset()).isEqualTo(22);
        assertThat(bytes(reopened.read(0, 1 << 20, reopened.logEndOffset(), true)
                        .records()
                        .readAll()))
                .isEqualTo(before);
        assertThat(reopened.leaderEpochCache().entries()).containsExactly(new EpochEntry(1, 0));
    }

    private static SimpleRecord record(String value) {
        return new SimpleRecord(START_MS, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer concat(MemoryRecords... parts) {
        ByteBuffer[] buffers = new ByteBuffer[parts.length];
        for (int i = 0; i < parts.length; i++) {
            buffers[i] = parts[i].buffer();
        }
        return TestBatches.concat(buffers);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer copy = buffer.duplicate();
        byte[] out = new byte[copy.remaining()];
        copy.get(out);
        return out;
    }

    private static List<MutableRecordBatch> batches(byte[] bytes) {
        List<MutableRecordBatch> out = new ArrayList<>();
        for (MutableRecordBatch batch :
                MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()) {
            out.add(batch);
        }
        return out;
    }

    /** The bytes with every batch's partition leader epoch zeroed: what must match the source exactly. */
    private static byte[] withEpochsCleared(byte[] bytes) {
        byte[] out = bytes.clone();
        ByteBuffer buffer = ByteBuffer.wrap(out);
        int position = 0;
        while (position < out.length) {
            buffer.putInt(position + RecordBatchHeader.PARTITION_LEADER_EPOCH_OFFSET, 0);
            position += RecordBatchHeader.LOG_OVERHEAD_BYTES
                    + buffer.getInt(position + RecordBatchHeader.BATCH_LENGTH_OFFSET);
        }
        return out;
    }

    /** Every record's value in the log (a control record's as ""), read through kafka-clients. */
    private static List<String> values(PartitionLog log) {
        List<String> out = new ArrayList<>();
        for (MutableRecordBatch batch : batches(stored(log))) {
            for (Record record : batch) {
                out.add(
                        batch.isControlBatch()
                                ? ""
                                : StandardCharsets.UTF_8.decode(record.value()).toString());
            }
        }
        return out;
    }

    private static List<Long> offsets(PartitionLog log) {
        List<Long> out = new ArrayList<>();
        for (MutableRecordBatch batch : batches(stored(log))) {
            for (Record record : batch) {
                out.add(record.offset());
            }
        }
        return out;
    }

    private static byte[] stored(PartitionLog log) {
        return bytes(log.read(log.logStartOffset(), 1 << 20, log.logEndOffset(), true)
                .records()
                .readAll());
    }
}
