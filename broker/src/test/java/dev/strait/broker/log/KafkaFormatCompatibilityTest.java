package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * kafka-clients as an oracle for the byte format (tests only: the log package itself must not import it).
 */
class KafkaFormatCompatibilityTest {

    @Test
    void kafkaClientsAcceptsOurBatches() {
        // Given
        ByteBuffer buffer = TestBatches.batch(1_000L, "a", "bb");
        RecordBatchHeader header = new RecordBatchHeader(buffer, 0);
        header.setBaseOffset(10);
        header.setPartitionLeaderEpoch(3);

        // When
        List<String> values = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(buffer).batches()) {
            batch.ensureValid();
            assertThat(batch.partitionLeaderEpoch()).isEqualTo(3);
            for (Record record : batch) {
                offsets.add(record.offset());
                values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
            }
        }

        // Then
        assertThat(offsets).containsExactly(10L, 11L);
        assertThat(values).containsExactly("a", "bb");
    }

    @Test
    void weAcceptKafkaClientsBatches() {
        // Given
        MemoryRecords records = MemoryRecords.withRecords(
                Compression.NONE,
                new SimpleRecord(2_000L, null, "x".getBytes(StandardCharsets.UTF_8)),
                new SimpleRecord(2_005L, null, "yz".getBytes(StandardCharsets.UTF_8)));
        ByteBuffer buffer = records.buffer();

        // When
        RecordBatchHeader header = new RecordBatchHeader(buffer, buffer.position());

        // Then
        header.validate();
        assertThat(header.recordsCount()).isEqualTo(2);
        assertThat(header.maxTimestampMs()).isEqualTo(2_005L);
        assertThat(TestBatches.records(buffer))
                .extracting(TestBatches.Rec::value)
                .containsExactly("x", "yz");
        assertThat(TestBatches.records(buffer))
                .extracting(TestBatches.Rec::timestampMs)
                .containsExactly(2_000L, 2_005L);
    }

    @Test
    void kafkaClientsReadsOurTransactionMarkers() {
        // Given
        ByteBuffer buffer =
                RecordBatches.transactionMarker(77L, (short) 4, RecordBatchHeader.CONTROL_ABORT, -1, 5_000L);
        new RecordBatchHeader(buffer, 0).setBaseOffset(42);

        // When
        MutableRecordBatch batch =
                MemoryRecords.readableRecords(buffer).batches().iterator().next();
        batch.ensureValid();
        Record record = batch.iterator().next();
        org.apache.kafka.common.record.EndTransactionMarker marker =
                org.apache.kafka.common.record.EndTransactionMarker.deserialize(record);

        // Then
        assertThat(batch.isControlBatch()).isTrue();
        assertThat(batch.isTransactional()).isTrue();
        assertThat(batch.producerId()).isEqualTo(77L);
        assertThat(batch.producerEpoch()).isEqualTo((short) 4);
        assertThat(batch.baseOffset()).isEqualTo(42L);
        assertThat(marker.controlType()).isEqualTo(org.apache.kafka.common.record.ControlRecordType.ABORT);
        assertThat(marker.coordinatorEpoch()).isEqualTo(-1);
        assertThat(new RecordBatchHeader(buffer, 0).controlType()).isEqualTo(RecordBatchHeader.CONTROL_ABORT);
    }
}
