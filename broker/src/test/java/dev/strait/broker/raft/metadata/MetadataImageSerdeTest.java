package dev.strait.broker.raft.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.raft.metadata.MetadataRecord.Acl;
import dev.strait.broker.raft.metadata.MetadataRecord.AddAcl;
import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.DeleteTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.ProducerIdBlock;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.RemoveAcl;
import dev.strait.broker.raft.metadata.MetadataRecord.RemoveScramCredential;
import dev.strait.broker.raft.metadata.MetadataRecord.ScramCredential;
import dev.strait.broker.raft.metadata.MetadataRecord.TopicConfig;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A snapshot's image is the image replay gives, exactly: node epochs and partition epochs included. */
class MetadataImageSerdeTest {

    private static final UUID ORDERS = new UUID(1, 1);
    private static final UUID GONE = new UUID(1, 2);
    private static final UUID EMPTY_TOPIC = new UUID(1, 3);

    private static final Acl READ_ORDERS = new Acl((byte) 2, "orders", (byte) 3, "User:alice", "*", (byte) 3, (byte) 3);
    private static final Acl WRITE_PREFIXED = new Acl((byte) 2, "ord", (byte) 4, "User:alice", "*", (byte) 4, (byte) 3);
    private static final Acl DENY_ALL_HOST =
            new Acl((byte) 4, "kafka-cluster", (byte) 3, "User:*", "10.0.0.9", (byte) 1, (byte) 2);

    private static MetadataImage replay(List<MetadataRecord> records, int leaderChangesEvery) {
        MetadataImage image = MetadataImage.EMPTY;
        long offset = 0;
        for (MetadataRecord record : records) {
            image = image.apply(offset, record);
            offset += offset % leaderChangesEvery == 0 ? 2 : 1; // leave gaps, as leader-change entries do
        }
        return image;
    }

    private static List<MetadataRecord> history() {
        List<MetadataRecord> records = new ArrayList<>(List.of(
                new RegisterNode(
                        1,
                        new UUID(7, 1),
                        "h1",
                        9093,
                        "rack-a",
                        List.of(
                                new MetadataRecord.Endpoint("CLIENT", "h1", 9092, "SASL_SSL"),
                                new MetadataRecord.Endpoint("REPLICATION", "h1", 9093, "SSL"))),
                new RegisterNode(2, new UUID(7, 2), "h2", 9093, ""),
                new UnfenceNode(1, 0),
                new CreateTopic("orders", ORDERS),
                new PartitionChange(ORDERS, 0, List.of(1, 2), List.of(1, 2), 1, 0),
                new PartitionChange(ORDERS, 1, List.of(2, 1), List.of(2, 1), 2, 0),
                new TopicConfig(ORDERS, "retention.ms", "60000"),
                new TopicConfig(ORDERS, "cleanup.policy", "compact"),
                new TopicConfig(ORDERS, "cleanup.policy", null),
                new CreateTopic("gone", GONE),
                new PartitionChange(GONE, 0, List.of(1), List.of(1), 1, 0),
                new DeleteTopic(GONE),
                new CreateTopic("empty", EMPTY_TOPIC),
                new FenceNode(1, 0),
                new ProducerIdBlock(2, 0, 1000),
                new AddAcl(READ_ORDERS),
                new AddAcl(WRITE_PREFIXED),
                new AddAcl(READ_ORDERS),
                new AddAcl(DENY_ALL_HOST),
                new RemoveAcl(WRITE_PREFIXED),
                new ScramCredential("alice", (byte) 1, new byte[] {1}, new byte[] {2}, new byte[] {3}, 4096),
                new ScramCredential("alice", (byte) 2, new byte[] {4}, new byte[] {5}, new byte[] {6}, 4096),
                new ScramCredential("bob", (byte) 2, new byte[] {7}, new byte[] {8}, new byte[] {9}, 8192),
                new RemoveScramCredential("bob", (byte) 2),
                new ScramCredential("alice", (byte) 2, new byte[] {10}, new byte[] {11}, new byte[] {12}, 4096)));
        for (int flap = 0; flap < 10; flap++) {
            records.add(
                    new PartitionChange(ORDERS, 0, List.of(1, 2), flap % 2 == 0 ? List.of(1) : List.of(1, 2), 1, 0));
        }
        return records;
    }

    @Test
    void theElrSurvivesASnapshot() {
        List<MetadataRecord> records = new ArrayList<>(history());
        records.add(new PartitionChange(ORDERS, 1, List.of(2, 1), List.of(2), 2, 0, List.of(1)));
        MetadataImage image = replay(records, 3);

        MetadataImage loaded = MetadataImageSerde.deserialize(MetadataImageSerde.serialize(image));

        assertThat(loaded).isEqualTo(image);
        assertThat(loaded.topic("orders").orElseThrow().partitions().get(1).elr())
                .containsExactly(1);
    }

    @Test
    void aRoundTripGivesAnEqualImageAndTheSameBytes() {
        // Given
        MetadataImage image = replay(history(), 3);
        // When
        byte[] bytes = MetadataImageSerde.serialize(image);
        MetadataImage loaded = MetadataImageSerde.deserialize(bytes);
        // Then
        assertThat(loaded).isEqualTo(image);
        assertThat(loaded.partitionEpoch(ORDERS, 0)).isEqualTo(10);
        assertThat(loaded.partitionEpoch(ORDERS, 1)).isZero();
        assertThat(loaded.nodes().get(2).nodeEpoch())
                .isEqualTo(image.nodes().get(2).nodeEpoch())
                .isPositive();
        assertThat(loaded.topic("gone")).isEmpty();
        assertThat(loaded.topic("empty")).isPresent();
        assertThat(loaded.topic("orders").orElseThrow().configs()).containsOnlyKeys("retention.ms");
        assertThat(loaded.security().acls()).containsExactlyInAnyOrder(READ_ORDERS, DENY_ALL_HOST);
        assertThat(loaded.security().scramCredentials())
                .extracting(ScramCredential::user, ScramCredential::mechanism, c -> c.salt()[0])
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("alice", (byte) 1, (byte) 1),
                        org.assertj.core.groups.Tuple.tuple("alice", (byte) 2, (byte) 10));
        assertThat(MetadataImageSerde.serialize(loaded)).isEqualTo(bytes);
        assertThat(MetadataImageSerde.deserialize(MetadataImageSerde.serialize(MetadataImage.EMPTY)))
                .isEqualTo(MetadataImage.EMPTY);
    }

    @Test
    void replayContinuesFromALoadedImageAsFromTheOriginal() {
        // Given
        MetadataImage image = replay(history(), 3);
        MetadataImage loaded = MetadataImageSerde.deserialize(MetadataImageSerde.serialize(image));
        PartitionChange next = new PartitionChange(ORDERS, 1, List.of(2, 1), List.of(2), 2, 1);
        // When
        MetadataImage fromOriginal = image.apply(image.nextOffset() + 5, next);
        MetadataImage fromLoaded = loaded.apply(image.nextOffset() + 5, next);
        // Then
        assertThat(fromLoaded).isEqualTo(fromOriginal);
        assertThat(fromLoaded.partitionEpoch(ORDERS, 1)).isEqualTo(1);
    }

    @Test
    void equalSecurityReachedInAnotherOrderSerializesToTheSameBytes() {
        MetadataImage one = MetadataImage.EMPTY.apply(0, List.of(new AddAcl(READ_ORDERS), new AddAcl(DENY_ALL_HOST)));
        MetadataImage other = MetadataImage.EMPTY.apply(0, List.of(new AddAcl(DENY_ALL_HOST), new AddAcl(READ_ORDERS)));
        assertThat(other).isEqualTo(one);
        assertThat(MetadataImageSerde.serialize(other)).isEqualTo(MetadataImageSerde.serialize(one));
    }

    /** The history as nodes wrote it before they listed their listeners. */
    private static List<MetadataRecord> historyWithoutEndpoints() {
        return history().stream()
                .map(r -> r instanceof RegisterNode n
                        ? new RegisterNode(n.nodeId(), n.incarnationId(), n.host(), n.port(), n.rack())
                        : r)
                .toList();
    }

    /** Issue 14: a snapshot written before nodes listed their listeners loads, each node without endpoints. */
    @Test
    void aVersionOneSnapshotLoadsWithNodesWithoutEndpoints() {
        MetadataImage image = replay(historyWithoutEndpoints().subList(0, 15), 3);
        assertThat(image.nodes().get(1).endpoints()).isEmpty();
        byte[] bytes = MetadataImageSerde.serialize(image);
        // written as version 1 while no node lists endpoints, so that the previous release reads it too
        assertThat(bytes[0]).isEqualTo((byte) 1);
        MetadataImage loaded = MetadataImageSerde.deserialize(bytes);
        assertThat(loaded).isEqualTo(image);
        assertThat(loaded.nodes().get(1).host()).isEqualTo("h1");
        // and the full history, whose node 1 lists two listeners, round-trips them
        MetadataImage full = replay(history(), 3);
        assertThat(MetadataImageSerde.serialize(full)[0]).isEqualTo((byte) 2);
        assertThat(MetadataImageSerde.deserialize(MetadataImageSerde.serialize(full))
                        .nodes()
                        .get(1)
                        .endpoints())
                .extracting(MetadataRecord.Endpoint::name)
                .containsExactly("CLIENT", "REPLICATION");
    }

    /** A snapshot written before ACLs and SCRAM credentials were replicated: version 0, no security section. */
    @Test
    void aVersionZeroSnapshotLoadsWithNoAclsOrCredentials() {
        MetadataImage image = replay(historyWithoutEndpoints().subList(0, 15), 3);
        byte[] current = MetadataImageSerde.serialize(image);
        // Version 1 appends two empty counts (ACLs, credentials) to what version 0 holds.
        byte[] v0 = Arrays.copyOf(current, current.length - 8);
        v0[0] = 0;
        assertThat(MetadataImageSerde.deserialize(v0)).isEqualTo(image);
        assertThat(image.security()).isEqualTo(SecurityImage.EMPTY);
    }

    @Test
    void malformedSnapshotsAreRefusedWithAnError() {
        byte[] bytes = MetadataImageSerde.serialize(replay(history(), 3));
        assertThatThrownBy(() -> MetadataImageSerde.deserialize(Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MetadataImageSerde.deserialize(Arrays.copyOf(bytes, bytes.length + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trailing");
        byte[] badVersion = bytes.clone();
        badVersion[0] = 9;
        assertThatThrownBy(() -> MetadataImageSerde.deserialize(badVersion))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version");
        Random random = new Random(7);
        for (int i = 0; i < 2_000; i++) {
            byte[] garbled = bytes.clone();
            garbled[random.nextInt(garbled.length)] ^= (byte) (1 + random.nextInt(255));
            try {
                MetadataImageSerde.deserialize(garbled);
            } catch (IllegalArgumentException expected) {
                // refused with a message; anything else (an OutOfMemoryError, a NegativeArraySize...) fails
            }
        }
    }
}
