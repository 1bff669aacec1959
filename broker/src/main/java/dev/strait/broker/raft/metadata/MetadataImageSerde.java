package dev.strait.broker.raft.metadata;

import dev.strait.broker.raft.metadata.MetadataImage.NodeRegistration;
import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import dev.strait.broker.raft.metadata.MetadataImage.TopicImage;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Binary form of a whole {@link MetadataImage}: the content of a metadata snapshot. Unlike replaying records,
 * it keeps what replay derives from offsets (a node's epoch is the offset of its registration) and from counting
 * (partition epochs), so a node that loads a snapshot has the image that replaying the log would have given it,
 * exactly ({@code equals}).
 *
 * <pre>
 *   byte version (1), long nextOffset, long nextProducerId,
 *   int nodes,  per node:  int id, long nodeEpoch, uuid incarnation, string host, int port, string rack, bool fenced
 *   int topics, per topic: string name, uuid id, int configs (string key, string value)...,
 *                          int partitions, per partition: int index, ints replicas, ints isr, int leader,
 *                          int leaderEpoch, int partitionEpoch, ints elr, ints lastKnownElr (these two in
 *                          versions 3 and 4), ints addingReplicas, ints removingReplicas (version 4 only)
 *   int acls,  per ACL:    byte resourceType, string resourceName, byte patternType, string principal,
 *                          string host, byte operation, byte permissionType
 *   int scram credentials, per credential: string user, byte mechanism, bytes salt, bytes storedKey,
 *                          bytes serverKey, int iterations
 * </pre>
 * Strings, UUIDs and int lists as in {@link MetadataRecordSerde}. In key order, so equal images give equal bytes.
 * A reader refuses an unknown version, a count larger than the bytes left could hold, or trailing bytes. Version 0
 * (written before the ACLs and SCRAM credentials were replicated) ends after the topics: its image has none.
 */
public final class MetadataImageSerde {

    /** Partitions with their eligible leader replicas (KIP-966); written only when some partition has any. */
    private static final byte VERSION_WITH_ELR = 3;
    /** As version 3, each partition then with its adding and removing replicas (KIP-455); written only while some
     * partition is being reassigned. */
    private static final byte VERSION_WITH_REASSIGNMENTS = 4;

    private static final byte VERSION = 2;
    /** Nodes without their endpoints (only the inter-broker listener's host and port). */
    private static final byte VERSION_WITHOUT_ENDPOINTS = 1;

    private static final byte VERSION_WITHOUT_SECURITY = 0;

    private MetadataImageSerde() {}

    public static byte[] serialize(MetadataImage image) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            // Version 1 while no node lists endpoints (single-listener nodes register as before), so that a node of
            // the previous release still reads the snapshots of a cluster upgraded one node at a time.
            boolean endpoints =
                    image.nodes().values().stream().anyMatch(n -> !n.endpoints().isEmpty());
            // Likewise version 3 only while some partition has an ELR, which nodes of the previous release never wrote.
            boolean elr = image.topics().values().stream()
                    .flatMap(t -> t.partitions().values().stream())
                    .anyMatch(p -> !p.elr().isEmpty() || !p.lastKnownElr().isEmpty());
            boolean reassignments = image.topics().values().stream()
                    .flatMap(t -> t.partitions().values().stream())
                    .anyMatch(PartitionState::reassigning);
            elr |= reassignments;
            endpoints |= elr;
            out.writeByte(
                    reassignments
                            ? VERSION_WITH_REASSIGNMENTS
                            : elr ? VERSION_WITH_ELR : endpoints ? VERSION : VERSION_WITHOUT_ENDPOINTS);
            out.writeLong(image.nextOffset());
            out.writeLong(image.nextProducerId());
            out.writeInt(image.nodes().size());
            for (NodeRegistration node : image.nodes().values()) {
                out.writeInt(node.nodeId());
                out.writeLong(node.nodeEpoch());
                MetadataRecordSerde.writeUuid(out, node.incarnationId());
                MetadataRecordSerde.writeString(out, node.host());
                out.writeInt(node.port());
                MetadataRecordSerde.writeString(out, node.rack());
                out.writeBoolean(node.fenced());
                if (endpoints) {
                    MetadataRecordSerde.writeEndpoints(out, node.endpoints());
                }
            }
            out.writeInt(image.topics().size());
            for (TopicImage topic : image.topics().values()) {
                MetadataRecordSerde.writeString(out, topic.name());
                MetadataRecordSerde.writeUuid(out, topic.topicId());
                out.writeInt(topic.configs().size());
                for (Map.Entry<String, String> config : topic.configs().entrySet()) {
                    MetadataRecordSerde.writeString(out, config.getKey());
                    MetadataRecordSerde.writeString(out, config.getValue());
                }
                out.writeInt(topic.partitions().size());
                for (Map.Entry<Integer, PartitionState> entry :
                        topic.partitions().entrySet()) {
                    PartitionState partition = entry.getValue();
                    out.writeInt(entry.getKey());
                    MetadataRecordSerde.writeInts(out, partition.replicas());
                    MetadataRecordSerde.writeInts(out, partition.isr());
                    out.writeInt(partition.leader());
                    out.writeInt(partition.leaderEpoch());
                    out.writeInt(image.partitionEpoch(topic.topicId(), entry.getKey()));
                    if (elr) {
                        MetadataRecordSerde.writeInts(out, partition.elr());
                        MetadataRecordSerde.writeInts(out, partition.lastKnownElr());
                    }
                    if (reassignments) {
                        MetadataRecordSerde.writeInts(out, partition.addingReplicas());
                        MetadataRecordSerde.writeInts(out, partition.removingReplicas());
                    }
                }
            }
            SecurityImage security = image.security();
            out.writeInt(security.acls().size());
            for (MetadataRecord.Acl acl : security.acls()) {
                MetadataRecordSerde.writeAcl(out, acl);
            }
            out.writeInt(security.scramCredentials().size());
            for (MetadataRecord.ScramCredential credential : security.scramCredentials()) {
                MetadataRecordSerde.writeString(out, credential.user());
                out.writeByte(credential.mechanism());
                MetadataRecordSerde.writeBytes(out, credential.salt());
                MetadataRecordSerde.writeBytes(out, credential.storedKey());
                MetadataRecordSerde.writeBytes(out, credential.serverKey());
                out.writeInt(credential.iterations());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** Parses an image; throws {@link IllegalArgumentException} if any part of it is malformed. */
    public static MetadataImage deserialize(byte[] content) {
        ByteBuffer in = ByteBuffer.wrap(content);
        try {
            byte version = in.get();
            if (version != VERSION_WITH_REASSIGNMENTS
                    && version != VERSION_WITH_ELR
                    && version != VERSION
                    && version != VERSION_WITHOUT_ENDPOINTS
                    && version != VERSION_WITHOUT_SECURITY) {
                throw new IllegalArgumentException("unsupported metadata snapshot version " + version);
            }
            long nextOffset = in.getLong();
            long nextProducerId = in.getLong();
            SortedMap<Integer, NodeRegistration> nodes = new TreeMap<>();
            for (int i = count(in, 4 + 8 + 16 + 4 + 4 + 4 + 1); i > 0; i--) {
                NodeRegistration node = new NodeRegistration(
                        in.getInt(),
                        in.getLong(),
                        MetadataRecordSerde.readUuid(in),
                        required(MetadataRecordSerde.readString(in), "host"),
                        in.getInt(),
                        required(MetadataRecordSerde.readString(in), "rack"),
                        readBoolean(in),
                        version >= VERSION ? MetadataRecordSerde.readEndpoints(in) : List.of());
                if (nodes.put(node.nodeId(), node) != null) {
                    throw new IllegalArgumentException("node " + node.nodeId() + " appears twice");
                }
            }
            SortedMap<UUID, TopicImage> topics = new TreeMap<>();
            SortedMap<UUID, SortedMap<Integer, Integer>> epochs = new TreeMap<>();
            for (int t = count(in, 4 + 16 + 4 + 4); t > 0; t--) {
                String name = required(MetadataRecordSerde.readString(in), "topic name");
                UUID topicId = MetadataRecordSerde.readUuid(in);
                SortedMap<String, String> configs = new TreeMap<>();
                for (int c = count(in, 8); c > 0; c--) {
                    configs.put(
                            required(MetadataRecordSerde.readString(in), "config key"),
                            required(MetadataRecordSerde.readString(in), "config value"));
                }
                SortedMap<Integer, PartitionState> partitions = new TreeMap<>();
                SortedMap<Integer, Integer> partitionEpochs = new TreeMap<>();
                for (int p = count(in, 4 + 4 + 4 + 4 + 4 + 4); p > 0; p--) {
                    int index = in.getInt();
                    List<Integer> replicas = MetadataRecordSerde.readInts(in);
                    List<Integer> isr = MetadataRecordSerde.readInts(in);
                    int leader = in.getInt();
                    int leaderEpoch = in.getInt();
                    partitionEpochs.put(index, in.getInt());
                    boolean withElr = version == VERSION_WITH_ELR || version == VERSION_WITH_REASSIGNMENTS;
                    List<Integer> elr = withElr ? MetadataRecordSerde.readInts(in) : List.of();
                    List<Integer> lastKnownElr = withElr ? MetadataRecordSerde.readInts(in) : List.of();
                    boolean withReassignment = version == VERSION_WITH_REASSIGNMENTS;
                    List<Integer> adding = withReassignment ? MetadataRecordSerde.readInts(in) : List.of();
                    List<Integer> removing = withReassignment ? MetadataRecordSerde.readInts(in) : List.of();
                    partitions.put(
                            index,
                            new PartitionState(
                                    replicas, isr, leader, leaderEpoch, elr, lastKnownElr, adding, removing));
                }
                TopicImage topic = new TopicImage(
                        name,
                        topicId,
                        Collections.unmodifiableSortedMap(partitions),
                        Collections.unmodifiableSortedMap(configs));
                if (topics.put(topicId, topic) != null) {
                    throw new IllegalArgumentException("topic id " + topicId + " appears twice");
                }
                if (!partitionEpochs.isEmpty()) {
                    epochs.put(topicId, Collections.unmodifiableSortedMap(partitionEpochs));
                }
            }
            SecurityImage security = version == VERSION_WITHOUT_SECURITY ? SecurityImage.EMPTY : readSecurity(in);
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " trailing bytes after the metadata snapshot");
            }
            return MetadataImage.restore(nextOffset, nodes, topics, epochs, nextProducerId, security);
        } catch (BufferUnderflowException | NullPointerException e) {
            throw new IllegalArgumentException("truncated metadata snapshot of " + content.length + " bytes", e);
        }
    }

    private static SecurityImage readSecurity(ByteBuffer in) {
        List<MetadataRecord.Acl> acls = new ArrayList<>();
        for (int i = count(in, 1 + 4 + 1 + 4 + 4 + 1 + 1); i > 0; i--) {
            acls.add(MetadataRecordSerde.readAcl(in));
        }
        List<MetadataRecord.ScramCredential> credentials = new ArrayList<>();
        for (int i = count(in, 4 + 1 + 4 + 4 + 4 + 4); i > 0; i--) {
            credentials.add(new MetadataRecord.ScramCredential(
                    required(MetadataRecordSerde.readString(in), "user"),
                    in.get(),
                    MetadataRecordSerde.readBytes(in),
                    MetadataRecordSerde.readBytes(in),
                    MetadataRecordSerde.readBytes(in),
                    in.getInt()));
        }
        return SecurityImage.of(acls, credentials);
    }

    /** A count that the remaining bytes could hold at {@code minBytesEach}; guards allocations. */
    private static int count(ByteBuffer in, int minBytesEach) {
        int count = in.getInt();
        if (count < 0 || (long) count * minBytesEach > in.remaining()) {
            throw new IllegalArgumentException("bad count " + count + " with " + in.remaining() + " bytes left");
        }
        return count;
    }

    private static boolean readBoolean(ByteBuffer in) {
        byte value = in.get();
        if (value != 0 && value != 1) {
            throw new IllegalArgumentException("bad boolean " + value);
        }
        return value == 1;
    }

    private static String required(@Nullable String value, String what) {
        if (value == null) {
            throw new IllegalArgumentException("missing " + what);
        }
        return value;
    }
}
