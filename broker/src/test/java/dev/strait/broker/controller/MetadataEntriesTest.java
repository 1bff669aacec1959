package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecordSerde;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A metadata log entry is a decision (a batch); logs from before batching hold bare records, which still read. */
class MetadataEntriesTest {

    @Test
    void aBatchRoundTrips() {
        UUID id = new UUID(1, 2);
        List<MetadataRecord> batch =
                List.of(new CreateTopic("t", id), new PartitionChange(id, 0, List.of(1, 2), List.of(1, 2), 1, 0));
        assertThat(MetadataEntries.decode(MetadataEntries.encode(batch))).isEqualTo(batch);
    }

    @Test
    void aBareRecordOfAnOlderLogReadsAsABatchOfOne() {
        MetadataRecord record = new FenceNode(3, 17);
        assertThat(MetadataEntries.decode(MetadataRecordSerde.serialize(record)))
                .containsExactly(record);
    }

    @Test
    void garbageIsRefused() {
        assertThatThrownBy(() -> MetadataEntries.decode(new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MetadataEntries.decode(new byte[] {0, 0, 0, 0, 1}))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
