package dev.strait.broker.raft.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.DeleteTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.ProducerIdBlock;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.TopicConfig;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MetadataRecordSerdeTest {

    private static final UUID TOPIC = new UUID(0x1234, 0x5678);

    static List<MetadataRecord> oneOfEach() {
        return List.of(
                new RegisterNode(2, new UUID(9, 9), "broker-2.local", 9092, ""),
                new RegisterNode(
                        3,
                        new UUID(9, 10),
                        "broker-3.local",
                        9093,
                        "rack-b",
                        List.of(
                                new MetadataRecord.Endpoint("CLIENT", "broker-3.example", 9092, "SASL_SSL"),
                                new MetadataRecord.Endpoint("REPLICATION", "broker-3.local", 9093, "SSL"))),
                new FenceNode(2, 17),
                new UnfenceNode(2, 17),
                new CreateTopic("orders-é", TOPIC),
                new PartitionChange(TOPIC, 3, List.of(1, 2, 3), List.of(2, 3), 2, 5),
                new PartitionChange(TOPIC, 3, List.of(1, 2, 3), List.of(2), 2, 6, List.of(3, 1)),
                new TopicConfig(TOPIC, "retention.ms", "1000"),
                new TopicConfig(TOPIC, "cleanup.policy", null),
                new DeleteTopic(TOPIC),
                new ProducerIdBlock(1, 0, 1000),
                new MetadataRecord.AddAcl(
                        new MetadataRecord.Acl((byte) 2, "orders", (byte) 3, "User:alice", "*", (byte) 4, (byte) 3)),
                new MetadataRecord.RemoveAcl(
                        new MetadataRecord.Acl((byte) 2, "ord", (byte) 4, "User:bob", "10.0.0.1", (byte) 3, (byte) 2)),
                new MetadataRecord.ScramCredential(
                        "alice", (byte) 2, new byte[] {1, 2, 3}, new byte[64], new byte[] {9}, 4096),
                new MetadataRecord.RemoveScramCredential("alice", (byte) 1));
    }

    @Test
    void everyRecordTypeRoundTrips() {
        for (MetadataRecord record : oneOfEach()) {
            assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
                    .isEqualTo(record);
        }
    }

    @Test
    void truncatedRecordsAreRejectedNotMisread() {
        for (MetadataRecord record : oneOfEach()) {
            byte[] bytes = MetadataRecordSerde.serialize(record);
            for (int length = 0; length < bytes.length; length++) {
                byte[] cut = Arrays.copyOf(bytes, length);
                assertThatThrownBy(() -> MetadataRecordSerde.deserialize(cut))
                        .as("%s cut to %d bytes", record, length)
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    @Test
    void batchesRoundTripAndTruncatedBatchesAreRejected() {
        byte[] bytes = MetadataRecordSerde.serializeBatch(oneOfEach());
        assertThat(MetadataRecordSerde.deserializeBatch(bytes)).isEqualTo(oneOfEach());
        for (int length = 0; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            assertThatThrownBy(() -> MetadataRecordSerde.deserializeBatch(cut))
                    .as("cut to %d bytes", length)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> MetadataRecordSerde.serializeBatch(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unknownVersionTypeAndTrailingBytesAreRejected() {
        byte[] bytes = MetadataRecordSerde.serialize(new FenceNode(1, 2));
        byte[] futureVersion = bytes.clone();
        futureVersion[1] = 1;
        byte[] unknownType = bytes.clone();
        unknownType[0] = 99;
        byte[] trailing = Arrays.copyOf(bytes, bytes.length + 1);
        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(futureVersion)).hasMessageContaining("version");
        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(unknownType)).hasMessageContaining("type");
        assertThatThrownBy(() -> MetadataRecordSerde.deserialize(trailing)).hasMessageContaining("trailing");
    }

    /** Issue 14: a registration as nodes wrote it before they listed their listeners still loads, without them. */
    @Test
    void aRegistrationWrittenBeforeEndpointsLoadsWithoutThem() {
        java.nio.ByteBuffer old = java.nio.ByteBuffer.allocate(2 + 4 + 16 + 4 + 2 + 4 + 4);
        old.put((byte) 1).put((byte) 0).putInt(4).putLong(9).putLong(11);
        old.putInt(2)
                .put("h4".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .putInt(9092)
                .putInt(0);
        assertThat(MetadataRecordSerde.deserialize(old.array()))
                .isEqualTo(new RegisterNode(4, new UUID(9, 11), "h4", 9092, "", List.of()));
    }
}
