package dev.strait.broker.raft.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.DeleteTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.ProducerIdBlock;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.TopicConfig;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MetadataImageTest {

    private static final UUID ORDERS = new UUID(1, 1);

    private static MetadataImage replay(List<MetadataRecord> records) {
        MetadataImage image = MetadataImage.EMPTY;
        for (int offset = 0; offset < records.size(); offset++) {
            image = image.apply(offset, records.get(offset));
        }
        return image;
    }

    private static List<MetadataRecord> clusterWithOneTopic() {
        return List.of(
                new RegisterNode(1, new UUID(7, 1), "h1", 9092, "rack-a"),
                new RegisterNode(2, new UUID(7, 2), "h2", 9092, "rack-b"),
                new UnfenceNode(1, 0),
                new UnfenceNode(2, 1),
                new CreateTopic("orders", ORDERS),
                new PartitionChange(ORDERS, 0, List.of(1, 2), List.of(1, 2), 1, 0),
                new TopicConfig(ORDERS, "retention.ms", "60000"),
                new PartitionChange(ORDERS, 0, List.of(1, 2), List.of(2), 2, 1),
                new FenceNode(1, 0),
                new ProducerIdBlock(2, 0, 1000),
                new ProducerIdBlock(1, 1000, 1000));
    }

    @Test
    void aClustersFirstProducerIdBlockStartsWhereItChoosesAndTheNextOnesFollowOn() {
        // When
        MetadataImage image = replay(
                List.of(new ProducerIdBlock(1, 7L << 40, 1000), new ProducerIdBlock(2, (7L << 40) + 1000, 1000)));

        // Then
        assertThat(image.nextProducerId()).isEqualTo((7L << 40) + 2000);
        assertThatThrownBy(() -> image.apply(2, new ProducerIdBlock(1, 0, 1000)))
                .hasMessageContaining("must start at " + ((7L << 40) + 2000));
    }

    @Test
    void replayBuildsTheCluster() {
        // When
        MetadataImage image = replay(clusterWithOneTopic());
        // Then
        assertThat(image.nextOffset()).isEqualTo(11);
        assertThat(image.nodes().get(1).fenced()).isTrue();
        assertThat(image.nodes().get(2).fenced()).isFalse();
        assertThat(image.nodes().get(2).nodeEpoch()).isEqualTo(1);
        assertThat(image.topic("orders").orElseThrow().partitions().get(0))
                .isEqualTo(new PartitionState(List.of(1, 2), List.of(2), 2, 1));
        assertThat(image.topic("orders").orElseThrow().configs()).containsEntry("retention.ms", "60000");
        assertThat(image.nextProducerId()).isEqualTo(2000);
    }

    @Test
    void replayIsDeterministicAndOldImagesDoNotChange() {
        // Given
        MetadataImage before = replay(clusterWithOneTopic().subList(0, 6));
        // When
        MetadataImage after = before.apply(6, new DeleteTopic(ORDERS));
        // Then
        assertThat(replay(clusterWithOneTopic())).isEqualTo(replay(clusterWithOneTopic()));
        assertThat(before.topic("orders")).isPresent();
        assertThat(after.topic("orders")).isEmpty();
        assertThat(after.topics()).isEmpty();
    }

    @Test
    void fencingAnOlderIncarnationIsANoOp() {
        // Given: node 1 re-registered at offset 3, so epoch 0 is stale
        MetadataImage image = replay(List.of(
                new RegisterNode(1, new UUID(7, 1), "h1", 9092, ""),
                new UnfenceNode(1, 0),
                new FenceNode(1, 0),
                new RegisterNode(1, new UUID(7, 9), "h1", 9093, ""),
                new UnfenceNode(1, 3)));
        // When
        MetadataImage after = image.apply(5, new FenceNode(1, 0));
        // Then
        assertThat(after.nodes().get(1).fenced()).isFalse();
        assertThat(after.nodes().get(1).port()).isEqualTo(9093);
    }

    @Test
    void aBatchAppliesAllOrNothing() {
        // Given
        MetadataImage image = replay(clusterWithOneTopic());
        UUID payments = new UUID(2, 2);
        List<MetadataRecord> broken = List.of(
                new CreateTopic("payments", payments),
                new PartitionChange(payments, 0, List.of(1), List.of(1), 1, 0),
                new PartitionChange(payments, 1, List.of(1), List.of(9), 9, 0));
        // When / Then: the third record is invalid, so the topic of the first never appears
        assertThatThrownBy(() -> image.apply(11, broken)).isInstanceOf(IllegalStateException.class);
        assertThat(image.topic("payments")).isEmpty();
        MetadataImage after = image.apply(11, broken.subList(0, 2));
        assertThat(after.topic("payments").orElseThrow().partitions()).hasSize(1);
        assertThat(after.nextOffset()).isEqualTo(12);
    }

    @Test
    void contradictoryRecordsStopTheReplay() {
        MetadataImage image = replay(clusterWithOneTopic());
        assertThatThrownBy(() -> image.apply(11, new CreateTopic("orders", new UUID(5, 5))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exists");
        assertThatThrownBy(() -> image.apply(11, new PartitionChange(ORDERS, 0, List.of(1, 2), List.of(1), 1, 0)))
                .hasMessageContaining("leader epoch went back");
        assertThatThrownBy(() -> image.apply(11, new PartitionChange(ORDERS, 1, List.of(1), List.of(2), 2, 0)))
                .hasMessageContaining("subset");
        assertThatThrownBy(() -> image.apply(11, new PartitionChange(new UUID(3, 3), 0, List.of(1), List.of(1), 1, 0)))
                .hasMessageContaining("unknown topic");
        assertThatThrownBy(() -> image.apply(11, new ProducerIdBlock(1, 5000, 10)))
                .hasMessageContaining("must start at 2000");
        assertThatThrownBy(() -> image.apply(3, new FenceNode(2, 1))).hasMessageContaining("went back");
    }
}
