package dev.strait.broker.group;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Strait's own record encoding in the offsets topic (not Kafka's). All integers big-endian, strings as
 * {@link DataOutputStream#writeUTF}.
 * <ul>
 *   <li>Offset commit: key = short 1, group, topic, int partition; value = short 0 (version), long offset,
 *       int leaderEpoch, boolean hasMetadata, [metadata], long commitTimestamp.</li>
 *   <li>Group metadata: key = short 2, group; value version 0 = short 0, protocolType (empty for none), int
 *       generation, protocolName (empty for none); version 1 (written now) = short 1, the same fields, then leaderId
 *       (empty for none), int memberCount and per member: memberId, boolean hasInstanceId, [instanceId], clientId,
 *       clientHost, int rebalanceTimeoutMs, int sessionTimeoutMs, int subscription length, subscription bytes (the
 *       member's metadata for the selected protocol), int assignment length, assignment bytes. Version 0 records
 *       (from before members were persisted) load with no members.</li>
 * </ul>
 * A null value is a tombstone (offset deleted / group deleted). Latest record per key wins on replay, which is
 * also what the log cleaner keeps.
 */
final class GroupRecords {

    static final short OFFSET_KEY = 1;
    static final short GROUP_KEY = 2;

    private GroupRecords() {}

    record OffsetKey(String group, String topic, int partition) {}

    record GroupValue(
            @Nullable String protocolType,
            int generation,
            @Nullable String protocolName,
            @Nullable String leaderId,
            List<MemberValue> members) {
        GroupValue {
            members = List.copyOf(members);
        }
    }

    record MemberValue(
            String memberId,
            @Nullable String instanceId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            byte[] subscription,
            byte[] assignment) {}

    static byte[] offsetKey(String group, String topic, int partition) {
        return write(out -> {
            out.writeShort(OFFSET_KEY);
            out.writeUTF(group);
            out.writeUTF(topic);
            out.writeInt(partition);
        });
    }

    static byte[] groupKey(String group) {
        return write(out -> {
            out.writeShort(GROUP_KEY);
            out.writeUTF(group);
        });
    }

    static byte[] offsetValue(GroupApi.OffsetAndMetadata value) {
        return write(out -> {
            out.writeShort(0);
            out.writeLong(value.offset());
            out.writeInt(value.leaderEpoch());
            out.writeBoolean(value.metadata() != null);
            if (value.metadata() != null) {
                out.writeUTF(value.metadata());
            }
            out.writeLong(value.commitTimestamp());
        });
    }

    static byte[] groupValue(GroupValue value) {
        return write(out -> {
            out.writeShort(1);
            out.writeUTF(value.protocolType() == null ? "" : value.protocolType());
            out.writeInt(value.generation());
            out.writeUTF(value.protocolName() == null ? "" : value.protocolName());
            out.writeUTF(value.leaderId() == null ? "" : value.leaderId());
            out.writeInt(value.members().size());
            for (MemberValue member : value.members()) {
                out.writeUTF(member.memberId());
                out.writeBoolean(member.instanceId() != null);
                if (member.instanceId() != null) {
                    out.writeUTF(member.instanceId());
                }
                out.writeUTF(member.clientId() == null ? "" : member.clientId());
                out.writeUTF(member.clientHost() == null ? "" : member.clientHost());
                out.writeInt(member.rebalanceTimeoutMs());
                out.writeInt(member.sessionTimeoutMs());
                out.writeInt(member.subscription().length);
                out.write(member.subscription());
                out.writeInt(member.assignment().length);
                out.write(member.assignment());
            }
        });
    }

    /** @return an {@link OffsetKey} or the group id (String) of a group key */
    static Object readKey(byte[] key) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(key))) {
            short type = in.readShort();
            if (type == OFFSET_KEY) {
                return new OffsetKey(in.readUTF(), in.readUTF(), in.readInt());
            } else if (type == GROUP_KEY) {
                return in.readUTF();
            }
            throw new IllegalArgumentException("unknown key type " + type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static GroupApi.OffsetAndMetadata readOffsetValue(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            in.readShort();
            long offset = in.readLong();
            int epoch = in.readInt();
            String metadata = in.readBoolean() ? in.readUTF() : null;
            return new GroupApi.OffsetAndMetadata(offset, epoch, metadata, in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static GroupValue readGroupValue(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            short version = in.readShort();
            if (version < 0 || version > 1) {
                throw new IllegalArgumentException("unknown group metadata version " + version);
            }
            String type = in.readUTF();
            int generation = in.readInt();
            String name = in.readUTF();
            String leaderId = null;
            List<MemberValue> members = new ArrayList<>();
            if (version >= 1) {
                leaderId = emptyToNull(in.readUTF());
                int count = in.readInt();
                for (int i = 0; i < count; i++) {
                    String memberId = in.readUTF();
                    String instanceId = in.readBoolean() ? in.readUTF() : null;
                    members.add(new MemberValue(
                            memberId,
                            instanceId,
                            in.readUTF(),
                            in.readUTF(),
                            in.readInt(),
                            in.readInt(),
                            readBytes(in),
                            readBytes(in)));
                }
            }
            return new GroupValue(emptyToNull(type), generation, emptyToNull(name), leaderId, members);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static @Nullable String emptyToNull(String value) {
        return value.isEmpty() ? null : value;
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) {
            throw new IOException("byte field of length " + length + " with " + in.available() + " bytes left");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
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
