package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerMessage.Hello;
import dev.strait.broker.controller.ControllerMessage.Raft;
import dev.strait.broker.controller.ControllerMessage.Request;
import dev.strait.broker.controller.ControllerMessage.Response;
import dev.strait.broker.controller.ControllerRequest.AllocateProducerIds;
import dev.strait.broker.controller.ControllerRequest.AlterConfigs;
import dev.strait.broker.controller.ControllerRequest.AlterPartition;
import dev.strait.broker.controller.ControllerRequest.CreatePartitions;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.DeleteTopic;
import dev.strait.broker.controller.ControllerRequest.DescribeQuorum;
import dev.strait.broker.controller.ControllerRequest.ElectPreferredLeaders;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.PatchConfigs;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.OffsetAndEpoch;
import dev.strait.broker.raft.QuorumDescription;
import dev.strait.broker.raft.RaftMessage;
import dev.strait.broker.raft.RaftMessage.BeginQuorumEpoch;
import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftMessage.VoteRequest;
import dev.strait.broker.raft.RaftMessage.VoteResponse;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecordSerde;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The Strait-internal binary protocol of the controller listener. A frame is
 * <pre>
 *   int32 size      bytes that follow (version .. crc), at most {@link #MAX_FRAME_BYTES}
 *   int8  version   {@link #VERSION}
 *   int8  type      one per {@link ControllerMessage} / {@link RaftMessage} / {@link ControllerRequest} kind
 *   ...   body      big-endian fields; strings are int16-length UTF-8 (DataOutput's modified UTF-8)
 *   int32 crc32c    of version, type and body
 * </pre>
 * A frame that fails any check (size, version, type, CRC, a body that does not parse to its end) raises
 * {@link MalformedFrameException}; the channel then closes that connection and logs one line. No Kafka classes.
 */
final class ControllerWire {

    static final byte VERSION = 1;
    static final int MAX_FRAME_BYTES = 64 * 1024 * 1024;
    private static final int MAX_LIST = 1 << 20;

    private static final byte HELLO = 1;
    private static final byte VOTE_REQUEST = 10;
    private static final byte VOTE_RESPONSE = 11;
    private static final byte BEGIN_QUORUM_EPOCH = 12;
    private static final byte FETCH_REQUEST = 13;
    private static final byte FETCH_RESPONSE = 14;
    private static final byte REQUEST = 20;
    private static final byte RESPONSE = 21;
    /** A response that carries a {@link QuorumDescription}: a frame type of its own, so RESPONSE stays as it was. */
    private static final byte RESPONSE_QUORUM = 22;

    private static final byte REGISTER_BROKER = 1;
    private static final byte HEARTBEAT = 2;
    private static final byte CREATE_TOPIC = 3;
    private static final byte DELETE_TOPIC = 4;
    private static final byte CREATE_PARTITIONS = 5;
    private static final byte ALTER_CONFIGS = 6;
    private static final byte ALTER_PARTITION = 7;
    private static final byte ALLOCATE_PRODUCER_IDS = 8;
    private static final byte ELECT_PREFERRED_LEADERS = 9;
    private static final byte DESCRIBE_QUORUM = 10;
    private static final byte ALTER_SECURITY = 11;
    /** A registration claiming a clean previous shutdown; sent only then, so older controllers read the rest. */
    private static final byte REGISTER_BROKER_AFTER_CLEAN_SHUTDOWN = 12;
    /** An AlterPartition carrying the broker epochs of the replicas it adds (KIP-903); sent only with some. */
    private static final byte ALTER_PARTITION_WITH_EPOCHS = 13;

    private static final byte ELECT_UNCLEAN_LEADERS = 14;
    /** A CreateTopic with replicas placed by hand; sent only with an assignment, so older controllers read the rest. */
    private static final byte CREATE_TOPIC_WITH_ASSIGNMENTS = 15;
    /** A CreatePartitions with replicas placed by hand; sent only with an assignment, as above. */
    private static final byte CREATE_PARTITIONS_WITH_ASSIGNMENTS = 16;
    /** One partition's reassignment (KIP-455): topic, partition, bool cancel, and unless cancelled the target. */
    private static final byte ALTER_REASSIGNMENT = 17;
    /** AlterConfigs as a difference from what the writer read (a node that predates it answers an unknown request). */
    private static final byte PATCH_CONFIGS = 18;

    /** A frame that is not a valid controller message. */
    static final class MalformedFrameException extends IOException {
        private static final long serialVersionUID = 1L;

        MalformedFrameException(String message) {
            super(message);
        }
    }

    private ControllerWire() {}

    /** The whole frame, size prefix included. */
    static byte[] encode(ControllerMessage message) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(0); // size, patched below
            out.writeByte(VERSION);
            writeMessage(out, message);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] withoutCrc = bytes.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(withoutCrc, 4, withoutCrc.length - 4);
        ByteBuffer frame = ByteBuffer.allocate(withoutCrc.length + 4);
        frame.put(withoutCrc).putInt((int) crc.getValue());
        frame.putInt(0, frame.capacity() - 4);
        return frame.array();
    }

    /** Checks a frame size read from the wire before allocating for it. */
    static void checkSize(int size) throws MalformedFrameException {
        if (size < 6 || size > MAX_FRAME_BYTES) {
            throw new MalformedFrameException("frame size " + size + " outside [6, " + MAX_FRAME_BYTES + "]");
        }
    }

    /** Decodes what followed the size prefix. */
    static ControllerMessage decode(byte[] frame) throws MalformedFrameException {
        checkSize(frame.length);
        CRC32C crc = new CRC32C();
        crc.update(frame, 0, frame.length - 4);
        int expected = ByteBuffer.wrap(frame, frame.length - 4, 4).getInt();
        if ((int) crc.getValue() != expected) {
            throw new MalformedFrameException("CRC mismatch");
        }
        if (frame[0] != VERSION) {
            throw new MalformedFrameException("unsupported version " + frame[0]);
        }
        ByteArrayInputStream bytes = new ByteArrayInputStream(frame, 1, frame.length - 5);
        try (DataInputStream in = new DataInputStream(bytes)) {
            ControllerMessage message = readMessage(in);
            if (in.available() != 0) {
                throw new MalformedFrameException(in.available() + " bytes left after " + kind(message));
            }
            return message;
        } catch (EOFException e) {
            throw new MalformedFrameException("frame body too short");
        } catch (MalformedFrameException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new MalformedFrameException("cannot parse frame: " + e.getMessage());
        }
    }

    private static String kind(Object o) {
        return o.getClass().getSimpleName();
    }

    private static void writeMessage(DataOutputStream out, ControllerMessage message) throws IOException {
        if (message instanceof Hello m) {
            out.writeByte(HELLO);
            out.writeInt(m.nodeId());
        } else if (message instanceof Raft m) {
            writeRaft(out, m.message());
        } else if (message instanceof Request m) {
            out.writeByte(REQUEST);
            out.writeInt(m.source());
            out.writeLong(m.correlationId());
            writeRequest(out, m.request());
        } else if (message instanceof Response m) {
            ControllerResponse r = m.response();
            out.writeByte(r.quorum() == null ? RESPONSE : RESPONSE_QUORUM);
            out.writeInt(m.destination());
            out.writeLong(m.correlationId());
            out.writeByte(r.error().ordinal());
            out.writeUTF(r.message());
            out.writeLong(r.offset());
            out.writeLong(r.value());
            out.writeBoolean(r.flag());
            if (r.quorum() != null) {
                writeQuorum(out, r.quorum());
            }
        } else {
            throw new IllegalArgumentException("unknown message " + message);
        }
    }

    private static ControllerMessage readMessage(DataInputStream in) throws IOException {
        byte type = in.readByte();
        switch (type) {
            case HELLO:
                return new Hello(in.readInt());
            case VOTE_REQUEST:
            case VOTE_RESPONSE:
            case BEGIN_QUORUM_EPOCH:
            case FETCH_REQUEST:
            case FETCH_RESPONSE:
                return new Raft(readRaft(type, in));
            case SnapshotWire.FETCH_RESPONSE_SNAPSHOT:
            case SnapshotWire.FETCH_SNAPSHOT_REQUEST:
            case SnapshotWire.FETCH_SNAPSHOT_RESPONSE:
                return new Raft(SnapshotWire.read(type, in));
            case REQUEST:
                return new Request(in.readInt(), in.readLong(), readRequest(in));
            case RESPONSE: {
                int destination = in.readInt();
                long correlationId = in.readLong();
                ControllerResponse.Error error = ControllerResponse.Error.forCode(in.readByte());
                return new Response(
                        destination,
                        correlationId,
                        new ControllerResponse(error, in.readUTF(), in.readLong(), in.readLong(), in.readBoolean()));
            }
            case RESPONSE_QUORUM: {
                int destination = in.readInt();
                long correlationId = in.readLong();
                ControllerResponse.Error error = ControllerResponse.Error.forCode(in.readByte());
                return new Response(
                        destination,
                        correlationId,
                        new ControllerResponse(
                                error, in.readUTF(), in.readLong(), in.readLong(), in.readBoolean(), readQuorum(in)));
            }
            default:
                throw new MalformedFrameException("unknown frame type " + type);
        }
    }

    private static void writeRaft(DataOutputStream out, RaftMessage message) throws IOException {
        if (SnapshotWire.handles(message)) {
            SnapshotWire.write(out, message);
        } else if (message instanceof VoteRequest m) {
            out.writeByte(VOTE_REQUEST);
            writeRaftHeader(out, m);
            out.writeLong(m.lastEntry().offset());
            out.writeInt(m.lastEntry().epoch());
            out.writeBoolean(m.preVote());
        } else if (message instanceof VoteResponse m) {
            out.writeByte(VOTE_RESPONSE);
            writeRaftHeader(out, m);
            out.writeBoolean(m.granted());
            out.writeBoolean(m.preVote());
        } else if (message instanceof BeginQuorumEpoch m) {
            out.writeByte(BEGIN_QUORUM_EPOCH);
            writeRaftHeader(out, m);
        } else if (message instanceof FetchRequest m) {
            out.writeByte(FETCH_REQUEST);
            writeRaftHeader(out, m);
            out.writeLong(m.fetchOffset());
            out.writeInt(m.lastFetchedEpoch());
        } else if (message instanceof FetchResponse m) {
            out.writeByte(FETCH_RESPONSE);
            writeRaftHeader(out, m);
            out.writeByte(m.error().ordinal());
            out.writeInt(m.leaderId());
            out.writeLong(m.fetchOffset());
            out.writeInt(m.lastFetchedEpoch());
            out.writeBoolean(m.divergingEpoch() != null);
            if (m.divergingEpoch() != null) {
                out.writeLong(m.divergingEpoch().offset());
                out.writeInt(m.divergingEpoch().epoch());
            }
            out.writeInt(m.entries().size());
            for (LogEntry entry : m.entries()) {
                out.writeInt(entry.epoch());
                out.writeLong(entry.offset());
                out.writeByte(entry.kind().code());
                byte[] payload = entry.payload();
                out.writeInt(payload.length);
                out.write(payload);
            }
            out.writeLong(m.highWatermark());
        } else {
            throw new IllegalArgumentException("unknown raft message " + message);
        }
    }

    private static void writeRaftHeader(DataOutputStream out, RaftMessage m) throws IOException {
        out.writeInt(m.source());
        out.writeInt(m.destination());
        out.writeInt(m.epoch());
    }

    private static RaftMessage readRaft(byte type, DataInputStream in) throws IOException {
        int source = in.readInt();
        int destination = in.readInt();
        int epoch = in.readInt();
        switch (type) {
            case VOTE_REQUEST:
                return new VoteRequest(
                        source, destination, epoch, new OffsetAndEpoch(in.readLong(), in.readInt()), in.readBoolean());
            case VOTE_RESPONSE:
                return new VoteResponse(source, destination, epoch, in.readBoolean(), in.readBoolean());
            case BEGIN_QUORUM_EPOCH:
                return new BeginQuorumEpoch(source, destination, epoch);
            case FETCH_REQUEST:
                return new FetchRequest(source, destination, epoch, in.readLong(), in.readInt());
            default: {
                int errorCode = in.readByte();
                if (errorCode < 0 || errorCode >= FetchError.values().length) {
                    throw new MalformedFrameException("unknown fetch error " + errorCode);
                }
                FetchError error = FetchError.values()[errorCode];
                int leaderId = in.readInt();
                long fetchOffset = in.readLong();
                int lastFetchedEpoch = in.readInt();
                OffsetAndEpoch diverging = in.readBoolean() ? new OffsetAndEpoch(in.readLong(), in.readInt()) : null;
                int count = listSize(in);
                List<LogEntry> entries = new ArrayList<>(Math.min(count, 1024));
                for (int i = 0; i < count; i++) {
                    int entryEpoch = in.readInt();
                    long offset = in.readLong();
                    LogEntry.Kind kind = LogEntry.Kind.forCode(in.readByte());
                    int size = in.readInt();
                    if (size < 0 || size > in.available()) {
                        throw new MalformedFrameException("entry payload size " + size);
                    }
                    byte[] payload = in.readNBytes(size);
                    entries.add(new LogEntry(entryEpoch, offset, kind, payload));
                }
                return new FetchResponse(
                        source,
                        destination,
                        epoch,
                        error,
                        leaderId,
                        fetchOffset,
                        lastFetchedEpoch,
                        diverging,
                        entries,
                        in.readLong());
            }
        }
    }

    private static void writeRequest(DataOutputStream out, ControllerRequest request) throws IOException {
        if (request instanceof RegisterBroker r) {
            boolean clean = r.previousNodeEpoch() != RegisterBroker.UNCLEAN;
            out.writeByte(clean ? REGISTER_BROKER_AFTER_CLEAN_SHUTDOWN : REGISTER_BROKER);
            out.writeInt(r.nodeId());
            writeUuid(out, r.incarnationId());
            out.writeUTF(r.host());
            out.writeInt(r.port());
            if (clean) {
                out.writeLong(r.previousNodeEpoch());
            }
            // Last in the frame, so a registration from a node that lists no endpoints parses as before.
            if (!r.endpoints().isEmpty()) {
                out.writeInt(r.endpoints().size());
                for (MetadataRecord.Endpoint endpoint : r.endpoints()) {
                    out.writeUTF(endpoint.name());
                    out.writeUTF(endpoint.host());
                    out.writeInt(endpoint.port());
                    out.writeUTF(endpoint.protocol());
                }
            }
        } else if (request instanceof Heartbeat r) {
            out.writeByte(HEARTBEAT);
            out.writeInt(r.nodeId());
            out.writeLong(r.nodeEpoch());
            out.writeLong(r.metadataOffset());
            out.writeBoolean(r.wantShutdown());
        } else if (request instanceof CreateTopic r) {
            out.writeByte(r.assignments().isEmpty() ? CREATE_TOPIC : CREATE_TOPIC_WITH_ASSIGNMENTS);
            out.writeUTF(r.name());
            out.writeInt(r.partitions());
            out.writeInt(r.replicationFactor());
            writeMap(out, r.configs());
            if (!r.assignments().isEmpty()) {
                out.writeInt(r.assignments().size());
                for (List<Integer> replicas : r.assignments()) {
                    writeInts(out, replicas);
                }
            }
        } else if (request instanceof DeleteTopic r) {
            out.writeByte(DELETE_TOPIC);
            out.writeUTF(r.name());
        } else if (request instanceof CreatePartitions r) {
            out.writeByte(r.assignments().isEmpty() ? CREATE_PARTITIONS : CREATE_PARTITIONS_WITH_ASSIGNMENTS);
            out.writeUTF(r.name());
            out.writeInt(r.newCount());
            if (!r.assignments().isEmpty()) {
                out.writeInt(r.assignments().size());
                for (List<Integer> replicas : r.assignments()) {
                    writeInts(out, replicas);
                }
            }
        } else if (request instanceof AlterConfigs r) {
            out.writeByte(ALTER_CONFIGS);
            out.writeUTF(r.name());
            writeMap(out, r.configs());
        } else if (request instanceof PatchConfigs r) {
            out.writeByte(PATCH_CONFIGS);
            out.writeUTF(r.name());
            writeMap(out, r.base());
            writeMap(out, r.configs());
        } else if (request instanceof AlterPartition r) {
            out.writeByte(r.brokerEpochs().isEmpty() ? ALTER_PARTITION : ALTER_PARTITION_WITH_EPOCHS);
            out.writeInt(r.leaderId());
            writeUuid(out, r.topicId());
            out.writeInt(r.partition());
            out.writeInt(r.leaderEpoch());
            out.writeInt(r.partitionEpoch());
            writeInts(out, r.newIsr());
            if (!r.brokerEpochs().isEmpty()) {
                out.writeInt(r.brokerEpochs().size());
                for (Map.Entry<Integer, Long> entry : new java.util.TreeMap<>(r.brokerEpochs()).entrySet()) {
                    out.writeInt(entry.getKey());
                    out.writeLong(entry.getValue());
                }
            }
        } else if (request instanceof AllocateProducerIds r) {
            out.writeByte(ALLOCATE_PRODUCER_IDS);
            out.writeInt(r.nodeId());
            out.writeInt(r.count());
        } else if (request instanceof DescribeQuorum) {
            out.writeByte(DESCRIBE_QUORUM);
        } else if (request instanceof ElectPreferredLeaders r) {
            out.writeByte(ELECT_PREFERRED_LEADERS);
            out.writeInt(r.topics().size());
            for (String topic : r.topics()) {
                out.writeUTF(topic);
            }
        } else if (request instanceof ControllerRequest.ElectUncleanLeaders r) {
            out.writeByte(ELECT_UNCLEAN_LEADERS);
            out.writeInt(r.topics().size());
            for (String topic : r.topics()) {
                out.writeUTF(topic);
            }
        } else if (request instanceof ControllerRequest.AlterReassignment r) {
            out.writeByte(ALTER_REASSIGNMENT);
            out.writeUTF(r.topic());
            out.writeInt(r.partition());
            out.writeBoolean(r.targetReplicas() == null);
            if (r.targetReplicas() != null) {
                writeInts(out, r.targetReplicas());
            }
        } else if (request instanceof ControllerRequest.AlterSecurity r) {
            out.writeByte(ALTER_SECURITY);
            // The metadata log's own record encoding: one format for these records everywhere.
            byte[] batch = MetadataRecordSerde.serializeBatch(r.records());
            out.writeInt(batch.length);
            out.write(batch);
        } else {
            throw new IllegalArgumentException("unknown request " + request);
        }
    }

    private static List<MetadataRecord.Endpoint> readEndpoints(DataInputStream in) throws IOException {
        if (in.available() == 0) {
            return List.of();
        }
        int count = in.readInt();
        if (count < 0 || count > in.available() / 10) {
            throw new MalformedFrameException("bad endpoint count " + count);
        }
        List<MetadataRecord.Endpoint> endpoints = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            endpoints.add(new MetadataRecord.Endpoint(in.readUTF(), in.readUTF(), in.readInt(), in.readUTF()));
        }
        return endpoints;
    }

    private static ControllerRequest readRequest(DataInputStream in) throws IOException {
        byte type = in.readByte();
        switch (type) {
            case REGISTER_BROKER:
                return new RegisterBroker(in.readInt(), readUuid(in), in.readUTF(), in.readInt(), readEndpoints(in));
            case REGISTER_BROKER_AFTER_CLEAN_SHUTDOWN: {
                int nodeId = in.readInt();
                UUID incarnation = readUuid(in);
                String host = in.readUTF();
                int port = in.readInt();
                long previousNodeEpoch = in.readLong();
                return new RegisterBroker(nodeId, incarnation, host, port, readEndpoints(in), previousNodeEpoch);
            }
            case HEARTBEAT:
                return new Heartbeat(in.readInt(), in.readLong(), in.readLong(), in.readBoolean());
            case CREATE_TOPIC:
                return new CreateTopic(in.readUTF(), in.readInt(), in.readInt(), readMap(in));
            case CREATE_TOPIC_WITH_ASSIGNMENTS: {
                String name = in.readUTF();
                int partitions = in.readInt();
                int replicationFactor = in.readInt();
                Map<String, String> configs = readMap(in);
                int count = listSize(in);
                List<List<Integer>> assignments = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    assignments.add(readInts(in));
                }
                return new CreateTopic(name, partitions, replicationFactor, configs, assignments);
            }
            case DELETE_TOPIC:
                return new DeleteTopic(in.readUTF());
            case CREATE_PARTITIONS:
                return new CreatePartitions(in.readUTF(), in.readInt());
            case CREATE_PARTITIONS_WITH_ASSIGNMENTS: {
                String name = in.readUTF();
                int newCount = in.readInt();
                int count = listSize(in);
                List<List<Integer>> assignments = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    assignments.add(readInts(in));
                }
                return new CreatePartitions(name, newCount, assignments);
            }
            case ALTER_CONFIGS:
                return new AlterConfigs(in.readUTF(), readMap(in));
            case PATCH_CONFIGS: {
                String name = in.readUTF();
                Map<String, String> base = readMap(in);
                return new PatchConfigs(name, base, readMap(in));
            }
            case ALTER_PARTITION:
                return new AlterPartition(
                        in.readInt(), readUuid(in), in.readInt(), in.readInt(), in.readInt(), readInts(in));
            case ALTER_PARTITION_WITH_EPOCHS: {
                int leaderId = in.readInt();
                UUID topicId = readUuid(in);
                int partition = in.readInt();
                int leaderEpoch = in.readInt();
                int partitionEpoch = in.readInt();
                List<Integer> newIsr = readInts(in);
                Map<Integer, Long> brokerEpochs = new LinkedHashMap<>();
                for (int i = listSize(in); i > 0; i--) {
                    brokerEpochs.put(in.readInt(), in.readLong());
                }
                return new AlterPartition(
                        leaderId, topicId, partition, leaderEpoch, partitionEpoch, newIsr, brokerEpochs);
            }
            case ALLOCATE_PRODUCER_IDS:
                return new AllocateProducerIds(in.readInt(), in.readInt());
            case DESCRIBE_QUORUM:
                return new DescribeQuorum();
            case ELECT_PREFERRED_LEADERS: {
                int count = listSize(in);
                List<String> topics = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    topics.add(in.readUTF());
                }
                return new ElectPreferredLeaders(topics);
            }
            case ELECT_UNCLEAN_LEADERS: {
                int count = listSize(in);
                List<String> topics = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    topics.add(in.readUTF());
                }
                return new ControllerRequest.ElectUncleanLeaders(topics);
            }
            case ALTER_REASSIGNMENT: {
                String topic = in.readUTF();
                int partition = in.readInt();
                boolean cancel = in.readBoolean();
                return new ControllerRequest.AlterReassignment(topic, partition, cancel ? null : readInts(in));
            }
            case ALTER_SECURITY: {
                int length = in.readInt();
                if (length < 0 || length > MAX_FRAME_BYTES) {
                    throw new MalformedFrameException("security batch of " + length + " bytes");
                }
                byte[] batch = new byte[length];
                in.readFully(batch);
                try {
                    return new ControllerRequest.AlterSecurity(MetadataRecordSerde.deserializeBatch(batch));
                } catch (IllegalArgumentException e) {
                    throw new MalformedFrameException("security batch: " + e.getMessage());
                }
            }
            default:
                throw new MalformedFrameException("unknown request type " + type);
        }
    }

    private static void writeQuorum(DataOutputStream out, QuorumDescription quorum) throws IOException {
        out.writeInt(quorum.leaderId());
        out.writeInt(quorum.leaderEpoch());
        out.writeLong(quorum.highWatermark());
        writeReplicas(out, quorum.voters());
        writeReplicas(out, quorum.observers());
    }

    private static QuorumDescription readQuorum(DataInputStream in) throws IOException {
        return new QuorumDescription(in.readInt(), in.readInt(), in.readLong(), readReplicas(in), readReplicas(in));
    }

    private static void writeReplicas(DataOutputStream out, List<QuorumDescription.Replica> replicas)
            throws IOException {
        out.writeInt(replicas.size());
        for (QuorumDescription.Replica replica : replicas) {
            out.writeInt(replica.nodeId());
            out.writeLong(replica.logEndOffset());
            writeOptionalLong(out, replica.lastFetchMs());
            writeOptionalLong(out, replica.lastCaughtUpMs());
        }
    }

    private static List<QuorumDescription.Replica> readReplicas(DataInputStream in) throws IOException {
        int count = listSize(in);
        List<QuorumDescription.Replica> replicas = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            replicas.add(new QuorumDescription.Replica(
                    in.readInt(), in.readLong(), readOptionalLong(in), readOptionalLong(in)));
        }
        return replicas;
    }

    private static void writeOptionalLong(DataOutputStream out, OptionalLong value) throws IOException {
        out.writeBoolean(value.isPresent());
        out.writeLong(value.orElse(0));
    }

    private static OptionalLong readOptionalLong(DataInputStream in) throws IOException {
        boolean present = in.readBoolean();
        long value = in.readLong();
        return present ? OptionalLong.of(value) : OptionalLong.empty();
    }

    private static int listSize(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > MAX_LIST) {
            throw new MalformedFrameException("list size " + count);
        }
        return count;
    }

    private static void writeUuid(DataOutputStream out, UUID id) throws IOException {
        out.writeLong(id.getMostSignificantBits());
        out.writeLong(id.getLeastSignificantBits());
    }

    private static UUID readUuid(DataInputStream in) throws IOException {
        return new UUID(in.readLong(), in.readLong());
    }

    private static void writeInts(DataOutputStream out, List<Integer> values) throws IOException {
        out.writeInt(values.size());
        for (int value : values) {
            out.writeInt(value);
        }
    }

    private static List<Integer> readInts(DataInputStream in) throws IOException {
        int count = listSize(in);
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            values.add(in.readInt());
        }
        return values;
    }

    private static void writeMap(DataOutputStream out, Map<String, String> map) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<String, String> entry : new java.util.TreeMap<>(map).entrySet()) {
            out.writeUTF(entry.getKey());
            out.writeUTF(entry.getValue());
        }
    }

    private static Map<String, String> readMap(DataInputStream in) throws IOException {
        int count = listSize(in);
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            map.put(in.readUTF(), in.readUTF());
        }
        return map;
    }
}
