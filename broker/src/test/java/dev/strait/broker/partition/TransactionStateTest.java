package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.log.RecordBatchHeader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

/** Transactions told by batches built as Kafka writes them (kafka-clients as the oracle of the format). */
class TransactionStateTest {

    private final TransactionState state = new TransactionState();

    @Test
    void anOpenTransactionHoldsTheStableOffsetAtItsFirstBatchUntilItsMarker() {
        // Given: producer 7 opens at 10, producer 8 at 12
        state.onBatch(data(10, 7));
        state.onBatch(data(12, 8));
        state.onBatch(data(14, 7));

        // Then
        assertThat(state.firstUnstableOffset()).isEqualTo(10);

        // When: 7 commits
        state.onBatch(marker(16, 7, ControlRecordType.COMMIT));

        // Then: 8's transaction is the oldest open one; nothing aborted
        assertThat(state.firstUnstableOffset()).isEqualTo(12);
        assertThat(state.abortedBetween(0, Long.MAX_VALUE)).isEmpty();

        // When: 8 aborts
        state.onBatch(marker(17, 8, ControlRecordType.ABORT));

        // Then
        assertThat(state.firstUnstableOffset()).isEqualTo(Long.MAX_VALUE);
        assertThat(state.abortedBetween(0, Long.MAX_VALUE)).containsExactly(new TransactionState.Aborted(8, 12, 17));
    }

    @Test
    void abortedRangesAreReturnedOnlyWhereAReadCanMeetThem() {
        // Given: aborted [12, 17] and [20, 22]
        state.onBatch(data(12, 8));
        state.onBatch(marker(17, 8, ControlRecordType.ABORT));
        state.onBatch(data(20, 9));
        state.onBatch(marker(22, 9, ControlRecordType.ABORT));

        // Then
        assertThat(state.abortedBetween(18, 100))
                .extracting(TransactionState.Aborted::producerId)
                .containsExactly(9L);
        assertThat(state.abortedBetween(0, 12)).isEmpty();
        assertThat(state.abortedBetween(17, 21))
                .extracting(TransactionState.Aborted::producerId)
                .containsExactly(8L, 9L);

        // When: the log start passes the first
        state.dropBelow(18);

        // Then
        assertThat(state.abortedBetween(0, 100))
                .extracting(TransactionState.Aborted::producerId)
                .containsExactly(9L);
    }

    @Test
    void idempotentAndPlainBatchesOpenNothing() {
        // Given
        state.onBatch(header(MemoryRecords.withRecords(0L, Compression.NONE, record("plain"))));
        state.onBatch(header(
                MemoryRecords.withIdempotentRecords(1L, Compression.NONE, 5L, (short) 0, 0, 0, record("idempotent"))));

        // Then
        assertThat(state.isEmpty()).isTrue();
        assertThat(state.firstUnstableOffset()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theControlTypeIsReadFromTheMarkerRecord() {
        assertThat(marker(3, 1, ControlRecordType.ABORT).controlType()).isEqualTo(RecordBatchHeader.CONTROL_ABORT);
        assertThat(marker(3, 1, ControlRecordType.COMMIT).controlType()).isEqualTo(RecordBatchHeader.CONTROL_COMMIT);
        assertThat(data(3, 1).controlType()).isEqualTo((short) -1);
    }

    private static RecordBatchHeader data(long offset, long producerId) {
        return header(MemoryRecords.withTransactionalRecords(
                offset, Compression.gzip().build(), producerId, (short) 0, 0, 0, record("v"), record("w")));
    }

    private static RecordBatchHeader marker(long offset, long producerId, ControlRecordType type) {
        return header(MemoryRecords.withEndTransactionMarker(
                offset, 1_000L, 0, producerId, (short) 0, new EndTransactionMarker(type, 0)));
    }

    private static RecordBatchHeader header(MemoryRecords records) {
        ByteBuffer buffer = records.buffer();
        return new RecordBatchHeader(buffer, buffer.position());
    }

    private static SimpleRecord record(String value) {
        return new SimpleRecord(1_000L, null, value.getBytes(StandardCharsets.UTF_8));
    }
}
