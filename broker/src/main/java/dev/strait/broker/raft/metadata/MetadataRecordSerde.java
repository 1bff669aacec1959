package dev.strait.broker.raft.metadata;

import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.DeleteTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.ProducerIdBlock;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.TopicConfig;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Binary form of a {@link MetadataRecord} as stored in a log entry's payload: {@code byte type, byte version},
 * then the fields in declaration order. Strings are {@code int length} (-1 for null) plus UTF-8, UUIDs two longs,
 * int lists {@code int count} plus the ints. Version 0 is the only version; a reader refuses anything else rather
 * than guess, because a node that misreads metadata is worse than one that stops.
 *
 * <p>A log entry's payload is a <em>batch</em>: {@code byte batchVersion, int count}, then per record
 * {@code int length} plus the record. The controller writes the records of one decision (a topic and all its
 * partitions) as one batch, so they commit, and are replayed, all or nothing.
 */
public final class MetadataRecordSerde {

    private static final byte VERSION = 0;
    private static final int MAX_LIST = 1 << 16;

    private static final byte REGISTER_NODE = 1;
    private static final byte FENCE_NODE = 2;
    private static final byte UNFENCE_NODE = 3;
    private static final byte CREATE_TOPIC = 4;
    private static final byte PARTITION_CHANGE = 5;
    private static final byte TOPIC_CONFIG = 6;
    private static final byte DELETE_TOPIC = 7;
    private static final byte PRODUCER_ID_BLOCK = 8;
    private static final byte ADD_ACL = 9;
    private static final byte REMOVE_ACL = 10;
    private static final byte SCRAM_CREDENTIAL = 11;
    private static final byte REMOVE_SCRAM_CREDENTIAL = 12;
    /** A {@link RegisterNode} listing its endpoints; type 1 (without them) is what nodes wrote before. */
    private static final byte REGISTER_NODE_WITH_ENDPOINTS = 13;
    /**
     * A {@link PartitionChange} with its ELR and last known ELR, written when either is non-empty; type 5 (both
     * empty) stays readable by older nodes.
     */
    private static final byte PARTITION_CHANGE_WITH_ELR = 14;
    /**
     * A {@link PartitionChange} of a partition being reassigned (KIP-455): type 14's fields, then the adding and the
     * removing replicas; written only while a reassignment runs, so older nodes read every other change.
     */
    private static final byte PARTITION_CHANGE_WITH_REASSIGNMENT = 15;

    private MetadataRecordSerde() {}

    public static byte[] serialize(MetadataRecord record) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (record instanceof RegisterNode r) {
                header(out, r.endpoints().isEmpty() ? REGISTER_NODE : REGISTER_NODE_WITH_ENDPOINTS);
                out.writeInt(r.nodeId());
                writeUuid(out, r.incarnationId());
                writeString(out, r.host());
                out.writeInt(r.port());
                writeString(out, r.rack());
                if (!r.endpoints().isEmpty()) {
                    writeEndpoints(out, r.endpoints());
                }
            } else if (record instanceof FenceNode r) {
                header(out, FENCE_NODE);
                out.writeInt(r.nodeId());
                out.writeLong(r.nodeEpoch());
            } else if (record instanceof UnfenceNode r) {
                header(out, UNFENCE_NODE);
                out.writeInt(r.nodeId());
                out.writeLong(r.nodeEpoch());
            } else if (record instanceof CreateTopic r) {
                header(out, CREATE_TOPIC);
                writeString(out, r.name());
                writeUuid(out, r.topicId());
            } else if (record instanceof PartitionChange r) {
                boolean reassigning = r.reassigning();
                boolean elr =
                        reassigning || !r.elr().isEmpty() || !r.lastKnownElr().isEmpty();
                header(
                        out,
                        reassigning
                                ? PARTITION_CHANGE_WITH_REASSIGNMENT
                                : elr ? PARTITION_CHANGE_WITH_ELR : PARTITION_CHANGE);
                writeUuid(out, r.topicId());
                out.writeInt(r.partition());
                writeInts(out, r.replicas());
                writeInts(out, r.isr());
                out.writeInt(r.leader());
                out.writeInt(r.leaderEpoch());
                if (elr) {
                    writeInts(out, r.elr());
                    writeInts(out, r.lastKnownElr());
                }
                if (reassigning) {
                    writeInts(out, r.addingReplicas());
                    writeInts(out, r.removingReplicas());
                }
            } else if (record instanceof TopicConfig r) {
                header(out, TOPIC_CONFIG);
                writeUuid(out, r.topicId());
                writeString(out, r.key());
                writeString(out, r.value());
            } else if (record instanceof DeleteTopic r) {
                header(out, DELETE_TOPIC);
                writeUuid(out, r.topicId());
            } else if (record instanceof ProducerIdBlock r) {
                header(out, PRODUCER_ID_BLOCK);
                out.writeInt(r.nodeId());
                out.writeLong(r.firstProducerId());
                out.writeInt(r.size());
            } else if (record instanceof MetadataRecord.AddAcl r) {
                header(out, ADD_ACL);
                writeAcl(out, r.acl());
            } else if (record instanceof MetadataRecord.RemoveAcl r) {
                header(out, REMOVE_ACL);
                writeAcl(out, r.acl());
            } else if (record instanceof MetadataRecord.ScramCredential r) {
                header(out, SCRAM_CREDENTIAL);
                writeString(out, r.user());
                out.writeByte(r.mechanism());
                writeBytes(out, r.salt());
                writeBytes(out, r.storedKey());
                writeBytes(out, r.serverKey());
                out.writeInt(r.iterations());
            } else if (record instanceof MetadataRecord.RemoveScramCredential r) {
                header(out, REMOVE_SCRAM_CREDENTIAL);
                writeString(out, r.user());
                out.writeByte(r.mechanism());
            } else {
                throw new IllegalArgumentException("unknown metadata record " + record);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** Parses one record; throws {@link IllegalArgumentException} for unknown types, versions or trailing bytes. */
    public static MetadataRecord deserialize(byte[] payload) {
        ByteBuffer in = ByteBuffer.wrap(payload);
        try {
            byte type = in.get();
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException(
                        "unsupported metadata record version " + version + " of type " + type);
            }
            MetadataRecord record = switch (type) {
                case REGISTER_NODE ->
                    new RegisterNode(in.getInt(), readUuid(in), string(in, "host"), in.getInt(), string(in, "rack"));
                case REGISTER_NODE_WITH_ENDPOINTS ->
                    new RegisterNode(
                            in.getInt(),
                            readUuid(in),
                            string(in, "host"),
                            in.getInt(),
                            string(in, "rack"),
                            readEndpoints(in));
                case FENCE_NODE -> new FenceNode(in.getInt(), in.getLong());
                case UNFENCE_NODE -> new UnfenceNode(in.getInt(), in.getLong());
                case CREATE_TOPIC -> new CreateTopic(string(in, "name"), readUuid(in));
                case PARTITION_CHANGE, PARTITION_CHANGE_WITH_ELR, PARTITION_CHANGE_WITH_REASSIGNMENT ->
                    readPartitionChange(type, in);
                case TOPIC_CONFIG -> new TopicConfig(readUuid(in), string(in, "key"), readString(in));
                case DELETE_TOPIC -> new DeleteTopic(readUuid(in));
                case PRODUCER_ID_BLOCK -> new ProducerIdBlock(in.getInt(), in.getLong(), in.getInt());
                case ADD_ACL -> new MetadataRecord.AddAcl(readAcl(in));
                case REMOVE_ACL -> new MetadataRecord.RemoveAcl(readAcl(in));
                case SCRAM_CREDENTIAL ->
                    new MetadataRecord.ScramCredential(
                            string(in, "user"), in.get(), readBytes(in), readBytes(in), readBytes(in), in.getInt());
                case REMOVE_SCRAM_CREDENTIAL -> new MetadataRecord.RemoveScramCredential(string(in, "user"), in.get());
                default -> throw new IllegalArgumentException("unknown metadata record type " + type);
            };
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " trailing bytes after " + record);
            }
            return record;
        } catch (BufferUnderflowException | NullPointerException e) {
            throw new IllegalArgumentException(
                    "truncated or malformed metadata record of " + payload.length + " bytes", e);
        }
    }

    public static byte[] serializeBatch(List<MetadataRecord> records) {
        if (records.isEmpty()) {
            throw new IllegalArgumentException("empty metadata batch");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 * records.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeInt(records.size());
            for (MetadataRecord record : records) {
                byte[] one = serialize(record);
                out.writeInt(one.length);
                out.write(one);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** Parses a batch; throws {@link IllegalArgumentException} if any part of it is malformed. */
    public static List<MetadataRecord> deserializeBatch(byte[] payload) {
        ByteBuffer in = ByteBuffer.wrap(payload);
        try {
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("unsupported metadata batch version " + version);
            }
            int count = in.getInt();
            if (count <= 0 || count > MAX_LIST) {
                throw new IllegalArgumentException("bad metadata batch size " + count);
            }
            List<MetadataRecord> records = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int length = in.getInt();
                if (length < 2 || length > in.remaining()) {
                    throw new IllegalArgumentException("bad record length " + length + " in metadata batch");
                }
                byte[] one = new byte[length];
                in.get(one);
                records.add(deserialize(one));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " trailing bytes after metadata batch");
            }
            return records;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated metadata batch of " + payload.length + " bytes", e);
        }
    }

    private static void header(DataOutputStream out, byte type) throws IOException {
        out.writeByte(type);
        out.writeByte(VERSION);
    }

    static void writeEndpoints(DataOutputStream out, List<MetadataRecord.Endpoint> endpoints) throws IOException {
        out.writeInt(endpoints.size());
        for (MetadataRecord.Endpoint endpoint : endpoints) {
            writeString(out, endpoint.name());
            writeString(out, endpoint.host());
            out.writeInt(endpoint.port());
            writeString(out, endpoint.protocol());
        }
    }

    static List<MetadataRecord.Endpoint> readEndpoints(ByteBuffer in) {
        int count = in.getInt();
        if (count < 0 || (long) count * 16 > in.remaining()) {
            throw new IllegalArgumentException(
                    "bad endpoint count " + count + " with " + in.remaining() + " bytes left");
        }
        List<MetadataRecord.Endpoint> endpoints = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            endpoints.add(new MetadataRecord.Endpoint(
                    string(in, "name"), string(in, "host"), in.getInt(), string(in, "protocol")));
        }
        return List.copyOf(endpoints);
    }

    static void writeString(DataOutputStream out, @Nullable String value) throws IOException {
        if (value == null) {
            out.writeInt(-1);
            return;
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    /** A string the record must have: the same null check as the record's constructor, named. */
    private static String string(ByteBuffer in, String what) {
        return Objects.requireNonNull(readString(in), what);
    }

    static @Nullable String readString(ByteBuffer in) {
        int length = in.getInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("bad string length " + length);
        }
        byte[] utf8 = new byte[length];
        in.get(utf8);
        return new String(utf8, StandardCharsets.UTF_8);
    }

    static void writeAcl(DataOutputStream out, MetadataRecord.Acl acl) throws IOException {
        out.writeByte(acl.resourceType());
        writeString(out, acl.resourceName());
        out.writeByte(acl.patternType());
        writeString(out, acl.principal());
        writeString(out, acl.host());
        out.writeByte(acl.operation());
        out.writeByte(acl.permissionType());
    }

    static MetadataRecord.Acl readAcl(ByteBuffer in) {
        return new MetadataRecord.Acl(
                in.get(),
                string(in, "resourceName"),
                in.get(),
                string(in, "principal"),
                string(in, "host"),
                in.get(),
                in.get());
    }

    static void writeBytes(DataOutputStream out, byte[] value) throws IOException {
        out.writeInt(value.length);
        out.write(value);
    }

    static byte[] readBytes(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) {
            throw new IllegalArgumentException("bad byte string length " + length);
        }
        byte[] value = new byte[length];
        in.get(value);
        return value;
    }

    static void writeUuid(DataOutputStream out, UUID id) throws IOException {
        out.writeLong(id.getMostSignificantBits());
        out.writeLong(id.getLeastSignificantBits());
    }

    /** The three versions of a partition change: each adds fields at the end of the one before. */
    private static PartitionChange readPartitionChange(byte type, ByteBuffer in) {
        UUID topicId = readUuid(in);
        int partition = in.getInt();
        List<Integer> replicas = readInts(in);
        List<Integer> isr = readInts(in);
        int leader = in.getInt();
        int leaderEpoch = in.getInt();
        if (type == PARTITION_CHANGE) {
            return new PartitionChange(topicId, partition, replicas, isr, leader, leaderEpoch);
        }
        List<Integer> elr = readInts(in);
        List<Integer> lastKnownElr = readInts(in);
        if (type == PARTITION_CHANGE_WITH_ELR) {
            return new PartitionChange(topicId, partition, replicas, isr, leader, leaderEpoch, elr, lastKnownElr);
        }
        return new PartitionChange(
                topicId, partition, replicas, isr, leader, leaderEpoch, elr, lastKnownElr, readInts(in), readInts(in));
    }

    static UUID readUuid(ByteBuffer in) {
        return new UUID(in.getLong(), in.getLong());
    }

    static void writeInts(DataOutputStream out, List<Integer> values) throws IOException {
        out.writeInt(values.size());
        for (int value : values) {
            out.writeInt(value);
        }
    }

    static List<Integer> readInts(ByteBuffer in) {
        int count = in.getInt();
        if (count < 0 || count > MAX_LIST) {
            throw new IllegalArgumentException("bad list length " + count);
        }
        List<Integer> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(in.getInt());
        }
        return values;
    }
}
