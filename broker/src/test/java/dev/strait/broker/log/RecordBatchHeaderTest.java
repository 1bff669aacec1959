package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordBatchHeaderTest {

    @Test
    void readsTheFieldsOfABuiltBatch() {
        // Given
        ByteBuffer buffer = TestBatches.batch(1_000L, "a", "bb", "ccc");

        // When
        RecordBatchHeader header = new RecordBatchHeader(buffer, 0);

        // Then
        header.validate();
        assertThat(header.magic()).isEqualTo((byte) 2);
        assertThat(header.sizeInBytes()).isEqualTo(buffer.remaining());
        assertThat(header.lastOffsetDelta()).isEqualTo(2);
        assertThat(header.recordsCount()).isEqualTo(3);
        assertThat(header.baseTimestampMs()).isEqualTo(1_000L);
        assertThat(header.maxTimestampMs()).isEqualTo(1_002L);
        assertThat(header.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(header.compressionCodec()).isZero();
        assertThat(header.isTransactional()).isFalse();
        assertThat(header.isControl()).isFalse();
        assertThat(header.producerId()).isEqualTo(-1L);
        assertThat(TestBatches.values(TestBatches.records(buffer))).containsExactly("a", "bb", "ccc");
    }

    @Test
    void rewritingOffsetAndEpochKeepsTheCrcValid() {
        // Given
        ByteBuffer buffer = TestBatches.batch(5L, "x", "y");
        RecordBatchHeader header = new RecordBatchHeader(buffer, 0);

        // When
        header.setBaseOffset(42L);
        header.setPartitionLeaderEpoch(7);

        // Then
        header.validate();
        assertThat(header.baseOffset()).isEqualTo(42L);
        assertThat(header.lastOffset()).isEqualTo(43L);
        assertThat(header.partitionLeaderEpoch()).isEqualTo(7);
        assertThat(TestBatches.records(buffer))
                .extracting(TestBatches.Rec::offset)
                .containsExactly(42L, 43L);
    }

    @Test
    void logAppendTimeRecomputesTheCrc() {
        // Given
        ByteBuffer buffer = TestBatches.batch(5L, "x", "y");
        RecordBatchHeader header = new RecordBatchHeader(buffer, 0);

        // When
        header.setLogAppendTime(99_000L);

        // Then
        header.validate();
        assertThat(header.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(header.maxTimestampMs()).isEqualTo(99_000L);
    }

    @Test
    void aFlippedRecordByteFailsTheCrc() {
        ByteBuffer buffer = TestBatches.batch(5L, "hello");
        buffer.put(buffer.limit() - 3, (byte) (buffer.get(buffer.limit() - 3) ^ 0x01));

        assertThatThrownBy(() -> new RecordBatchHeader(buffer, 0).validate())
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("CRC");
    }

    @Test
    void rejectsWrongMagicAndBadLengths() {
        ByteBuffer wrongMagic = TestBatches.batch(5L, "a");
        wrongMagic.put(RecordBatchHeader.MAGIC_OFFSET, (byte) 1);
        assertThatThrownBy(() -> new RecordBatchHeader(wrongMagic, 0).validate())
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("magic 1");

        ByteBuffer shortLength = TestBatches.batch(5L, "a");
        shortLength.putInt(RecordBatchHeader.BATCH_LENGTH_OFFSET, 10);
        assertThatThrownBy(() -> new RecordBatchHeader(shortLength, 0).validate())
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("batchLength 10");

        ByteBuffer longLength = TestBatches.batch(5L, "a");
        longLength.putInt(RecordBatchHeader.BATCH_LENGTH_OFFSET, 10_000);
        assertThatThrownBy(() -> new RecordBatchHeader(longLength, 0).validate())
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("batchLength 10000");

        ByteBuffer negativeDelta = TestBatches.batch(5L, "a");
        negativeDelta.putInt(RecordBatchHeader.LAST_OFFSET_DELTA_OFFSET, -1);
        assertThatThrownBy(() -> new RecordBatchHeader(negativeDelta, 0).validate())
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("lastOffsetDelta");
    }

    @Test
    void splitsConcatenatedBatchesAndRejectsAPartialOne() {
        ByteBuffer two = TestBatches.concat(TestBatches.batch(1L, "a"), TestBatches.batch(2L, "b", "c"));

        List<RecordBatchHeader> batches = RecordBatches.split(two);

        assertThat(batches).hasSize(2);
        assertThat(batches.get(1).indexInBuffer()).isEqualTo(batches.get(0).sizeInBytes());
        ByteBuffer partial = two.duplicate().limit(two.limit() - 1);
        assertThatThrownBy(() -> RecordBatches.split(partial)).isInstanceOf(CorruptRecordException.class);
    }

    @Test
    void varintsRoundTrip() {
        ByteBuffer buffer = ByteBuffer.allocate(64);
        int[] ints = {0, 1, -1, 63, -64, 64, Integer.MAX_VALUE, Integer.MIN_VALUE};
        for (int value : ints) {
            buffer.clear();
            Varints.writeVarint(value, buffer);
            buffer.flip();
            assertThat(Varints.readVarint(buffer)).isEqualTo(value);
        }
        long[] longs = {0L, -1L, 300L, Long.MAX_VALUE, Long.MIN_VALUE};
        for (long value : longs) {
            buffer.clear();
            Varints.writeVarlong(value, buffer);
            buffer.flip();
            assertThat(Varints.readVarlong(buffer)).isEqualTo(value);
        }
    }
}
