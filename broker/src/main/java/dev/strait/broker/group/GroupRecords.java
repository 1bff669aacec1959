package dev.strait.broker.group;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Strait's own record encoding in the offsets topic (not Kafka's). All integers big-endian, strings as
 * {@link DataOutputStream#writeUTF}.
 * <ul>
 *   <li>Offset commit: key = short 1, group, topic, int partition; value = short 0 (version), long offset,
 *       int leaderEpoch, boolean hasMetadata, [metadata], long commitTimestamp.</li>
 *   <li>Group metadata: key = short 2, group; value = short 0, protocolType (empty for none), int generation,
 *       protocolName (empty for none).</li>
 * </ul>
 * A null value is a tombstone (offset deleted / group deleted). Latest record per key wins on replay; the log is
 * not compacted yet.
 */
final class GroupRecords {

    static final short OFFSET_KEY = 1;
    static final short GROUP_KEY = 2;

    private GroupRecords() {
    }

    record OffsetKey(String group, String topic, int partition) {
    }

    record GroupValue(String protocolType, int generation, String protocolName) {
    }

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

    static byte[] offsetValue(GroupCoordinator.OffsetAndMetadata value) {
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
            out.writeShort(0);
            out.writeUTF(value.protocolType() == null ? "" : value.protocolType());
            out.writeInt(value.generation());
            out.writeUTF(value.protocolName() == null ? "" : value.protocolName());
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

    static GroupCoordinator.OffsetAndMetadata readOffsetValue(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            in.readShort();
            long offset = in.readLong();
            int epoch = in.readInt();
            String metadata = in.readBoolean() ? in.readUTF() : null;
            return new GroupCoordinator.OffsetAndMetadata(offset, epoch, metadata, in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static GroupValue readGroupValue(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            in.readShort();
            String type = in.readUTF();
            int generation = in.readInt();
            String name = in.readUTF();
            return new GroupValue(type.isEmpty() ? null : type, generation, name.isEmpty() ? null : name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
