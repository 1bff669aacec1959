package dev.strait.broker.group;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The offsets-topic record of a consumer group (KIP-848), beside {@link GroupRecords}' (same conventions: big-endian,
 * strings as {@code writeUTF}, a null value is a tombstone, latest per key wins). One record holds the whole group,
 * written after every change of it:
 * <ul>
 *   <li>key = short 3, group id;</li>
 *   <li>value = short 0 (version), int groupEpoch, int assignmentEpoch, the subscribed topics' partition counts
 *       (int n, n &times; (topic, int count)), int memberCount and per member: memberId, optional instanceId,
 *       optional rackId, clientId, clientHost, topic names (int n, n &times; name), optional regex, optional
 *       serverAssignor, int rebalanceTimeoutMs, int memberEpoch, int previousMemberEpoch, byte state, boolean
 *       staticLeft (a static member away with epoch -2), assigned,
 *       pendingRevocation and target assignments (each: int topics, per topic: name, int n, n &times; int
 *       partition). An optional string is a boolean, then the string if true.</li>
 * </ul>
 * Session deadlines are not stored: a loaded group's members get a full session from the load.
 */
final class ConsumerGroupRecords {

    static final short CONSUMER_GROUP_KEY = 3;

    private ConsumerGroupRecords() {}

    @FunctionalInterface
    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    static byte[] key(String groupId) {
        return write(out -> {
            out.writeShort(CONSUMER_GROUP_KEY);
            out.writeUTF(groupId);
        });
    }

    /** The group id of a consumer group key, or null for a key of another type. */
    static @Nullable String groupIdOf(byte[] key) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(key))) {
            return in.readShort() == CONSUMER_GROUP_KEY ? in.readUTF() : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] value(ConsumerGroup group) {
        return write(out -> {
            out.writeShort(0);
            out.writeInt(group.groupEpoch);
            out.writeInt(group.assignmentEpoch);
            out.writeInt(group.subscribedPartitions.size());
            for (Map.Entry<String, Integer> topic : group.subscribedPartitions.entrySet()) {
                out.writeUTF(topic.getKey());
                out.writeInt(topic.getValue());
            }
            out.writeInt(group.members.size());
            for (ConsumerGroup.Member member : group.members.values()) {
                writeMember(out, member);
                writeAssignment(out, group.target.getOrDefault(member.memberId, new TreeMap<>()));
            }
        });
    }

    private static void writeMember(DataOutputStream out, ConsumerGroup.Member member) throws IOException {
        out.writeUTF(member.memberId);
        writeOptional(out, member.instanceId);
        writeOptional(out, member.rackId);
        out.writeUTF(member.clientId);
        out.writeUTF(member.clientHost);
        out.writeInt(member.topicNames.size());
        for (String topic : member.topicNames) {
            out.writeUTF(topic);
        }
        writeOptional(out, member.topicRegex);
        writeOptional(out, member.serverAssignor);
        out.writeInt(member.rebalanceTimeoutMs);
        out.writeInt(member.memberEpoch);
        out.writeInt(member.previousMemberEpoch);
        out.writeByte(member.state.ordinal());
        out.writeBoolean(member.staticLeft);
        writeAssignment(out, member.assigned);
        writeAssignment(out, member.pendingRevocation);
    }

    /** The group a record holds; its members' sessions start at {@code nowMs}. */
    static ConsumerGroup read(String groupId, byte[] value, int sessionTimeoutMs, int heartbeatIntervalMs, long nowMs) {
        ConsumerGroup group = new ConsumerGroup(groupId, sessionTimeoutMs, heartbeatIntervalMs);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            short version = in.readShort();
            if (version != 0) {
                throw new IllegalArgumentException("unknown consumer group record version " + version);
            }
            group.groupEpoch = in.readInt();
            group.assignmentEpoch = in.readInt();
            int topics = in.readInt();
            for (int i = 0; i < topics; i++) {
                group.subscribedPartitions.put(in.readUTF(), in.readInt());
            }
            int members = in.readInt();
            for (int i = 0; i < members; i++) {
                ConsumerGroup.Member member = readMember(in);
                group.members.put(member.memberId, member);
                group.target.put(member.memberId, readAssignment(in));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        group.restartSessions(nowMs);
        return group;
    }

    private static ConsumerGroup.Member readMember(DataInputStream in) throws IOException {
        ConsumerGroup.Member member = new ConsumerGroup.Member(in.readUTF());
        member.instanceId = readOptional(in);
        member.rackId = readOptional(in);
        member.clientId = in.readUTF();
        member.clientHost = in.readUTF();
        int names = in.readInt();
        List<String> topicNames = new ArrayList<>();
        for (int i = 0; i < names; i++) {
            topicNames.add(in.readUTF());
        }
        member.topicNames = List.copyOf(topicNames);
        member.topicRegex = readOptional(in);
        member.serverAssignor = readOptional(in);
        member.rebalanceTimeoutMs = in.readInt();
        member.memberEpoch = in.readInt();
        member.previousMemberEpoch = in.readInt();
        member.state = ConsumerGroup.MemberState.values()[in.readByte()];
        member.staticLeft = in.readBoolean();
        member.assigned = readAssignment(in);
        member.pendingRevocation = readAssignment(in);
        return member;
    }

    private static void writeAssignment(DataOutputStream out, Map<String, SortedSet<Integer>> assignment)
            throws IOException {
        out.writeInt(assignment.size());
        for (Map.Entry<String, SortedSet<Integer>> topic : assignment.entrySet()) {
            out.writeUTF(topic.getKey());
            out.writeInt(topic.getValue().size());
            for (int partition : topic.getValue()) {
                out.writeInt(partition);
            }
        }
    }

    private static SortedMap<String, SortedSet<Integer>> readAssignment(DataInputStream in) throws IOException {
        SortedMap<String, SortedSet<Integer>> assignment = new TreeMap<>();
        int topics = in.readInt();
        for (int i = 0; i < topics; i++) {
            String topic = in.readUTF();
            int n = in.readInt();
            SortedSet<Integer> partitions = new TreeSet<>();
            for (int j = 0; j < n; j++) {
                partitions.add(in.readInt());
            }
            assignment.put(topic, partitions);
        }
        return assignment;
    }

    private static void writeOptional(DataOutputStream out, @Nullable String value) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeUTF(value);
        }
    }

    private static @Nullable String readOptional(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }

    private static byte[] write(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writer.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
