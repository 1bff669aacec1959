package dev.strait.mirror.sync;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The records of the sync topic, a compacted topic on the target (default {@value #DEFAULT_TOPIC}). Keys are
 * text, so {@code kafka-console-consumer --property print.key=true} shows what is there:
 * <ul>
 *   <li>{@code map|<source cluster>|<target topic>|<partition>}: the offset map of one target partition
 *       ({@link HistorySnapshot});</li>
 *   <li>{@code group|<source cluster>|<group>|<mirror's group>}: a group's last committed source offsets
 *       ({@link GroupCheckpoint}) on the topics of one mirror;</li>
 *   <li>{@code failover|<source cluster>|<target topic>}: the target's end offsets when groups failed over
 *       ({@link FailoverMarker}).</li>
 * </ul>
 * Values are binary, version 1, big-endian; a value this version cannot read is skipped (a newer writer). A map
 * value ends with the target topic's id (empty when unknown), which writers before it left out and readers before it
 * do not read, and then, when the oldest stretch is folded, its {@link FoldedRun}.
 */
public final class SyncRecords {
    public static final String DEFAULT_TOPIC = dev.strait.mirror.config.SyncConfig.DEFAULT_SYNC_TOPIC;
    private static final byte VERSION = 1;
    /** Marks the folded run at the end of a map value (after the topic id; readers before it stop at the id). */
    private static final byte FOLDED = 'F';

    /** What a key names. */
    public enum Kind {
        MAP,
        GROUP,
        FAILOVER
    }

    /** A parsed key: kind, source cluster id, and the rest (target topic and partition, or a group name). */
    public record Key(Kind kind, String sourceCluster, String name, int partition) {}

    private SyncRecords() {}

    public static byte[] mapKey(String sourceCluster, TopicPartition target) {
        return key("map|" + sourceCluster + "|" + target.topic() + "|" + target.partition());
    }

    /**
     * One key per group and mirror: several mirrors from one source (disjoint topics) may sync the same group; the
     * reader merges their checkpoints (the group name is read from the value).
     */
    public static byte[] groupKey(String sourceCluster, String group, String mirrorGroup) {
        return key("group|" + sourceCluster + "|" + group + "|" + mirrorGroup);
    }

    public static byte[] failoverKey(String sourceCluster, String targetTopic) {
        return key("failover|" + sourceCluster + "|" + targetTopic);
    }

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The key's meaning, or null when it is not one of ours. */
    public static @Nullable Key parseKey(byte @Nullable [] key) {
        if (key == null) {
            return null;
        }
        String k = new String(key, StandardCharsets.UTF_8);
        String[] parts = k.split("\\|", 3);
        if (parts.length < 3) {
            return null;
        }
        switch (parts[0]) {
            case "map": {
                int bar = parts[2].lastIndexOf('|');
                if (bar <= 0) {
                    return null;
                }
                try {
                    return new Key(
                            Kind.MAP,
                            parts[1],
                            parts[2].substring(0, bar),
                            Integer.parseInt(parts[2].substring(bar + 1)));
                } catch (NumberFormatException e) {
                    return null;
                }
            }
            case "group":
                return new Key(Kind.GROUP, parts[1], parts[2], -1);
            case "failover":
                return new Key(Kind.FAILOVER, parts[1], parts[2], -1);
            default:
                return null;
        }
    }

    public static byte[] encode(HistorySnapshot h, String writer) {
        return write(out -> {
            out.writeUTF(writer);
            out.writeUTF(h.target().topic());
            out.writeInt(h.target().partition());
            out.writeInt(h.feeders().size());
            for (TopicPartition f : h.feeders()) {
                out.writeUTF(f.topic());
                out.writeInt(f.partition());
            }
            out.writeInt(h.size());
            for (int i = 0; i < h.size(); i++) {
                out.writeLong(h.t()[i]);
                out.writeLong(h.s()[i]);
                out.writeInt(h.len()[i]);
                out.writeInt(h.feeder()[i]);
            }
            out.writeInt(h.known().size());
            for (long[] r : h.known()) {
                out.writeLong(r[0]);
                out.writeLong(r[1]);
            }
            if (h.topicId() != null || h.folded() != null) {
                out.writeUTF(h.topicId() == null ? "" : h.topicId());
            }
            FoldedRun f = h.folded();
            if (f != null) {
                out.writeByte(FOLDED);
                out.writeUTF(f.source().topic());
                out.writeInt(f.source().partition());
                out.writeInt(f.checkpoints());
                for (int i = 0; i < f.checkpoints(); i++) {
                    out.writeLong(f.t()[i]);
                    out.writeLong(f.s()[i]);
                }
                out.writeLong(f.lastT());
                out.writeLong(f.lastS());
            }
        });
    }

    /** A decoded map snapshot and the process that wrote it. */
    public record MapValue(String writer, HistorySnapshot snapshot) {}

    public static @Nullable MapValue decodeMap(byte @Nullable [] value) {
        return read(value, in -> {
            String writer = in.readUTF();
            TopicPartition target = new TopicPartition(in.readUTF(), in.readInt());
            int nf = in.readInt();
            List<TopicPartition> feeders = new ArrayList<>(nf);
            for (int i = 0; i < nf; i++) {
                feeders.add(new TopicPartition(in.readUTF(), in.readInt()));
            }
            int n = in.readInt();
            long[] t = new long[n];
            long[] s = new long[n];
            int[] len = new int[n];
            int[] feeder = new int[n];
            for (int i = 0; i < n; i++) {
                t[i] = in.readLong();
                s[i] = in.readLong();
                len[i] = in.readInt();
                feeder[i] = in.readInt();
                if (feeder[i] < 0 || feeder[i] >= nf || len[i] <= 0) {
                    throw new IOException("bad segment");
                }
            }
            int nk = in.readInt();
            List<long[]> known = new ArrayList<>(nk);
            for (int i = 0; i < nk; i++) {
                known.add(new long[] {in.readLong(), in.readLong()});
            }
            String topicId = in.available() > 0 ? in.readUTF() : null;
            if (topicId != null && topicId.isEmpty()) {
                topicId = null;
            }
            FoldedRun folded = null;
            if (in.available() > 0 && in.readByte() == FOLDED) {
                TopicPartition source = new TopicPartition(in.readUTF(), in.readInt());
                int nc = in.readInt();
                if (nc <= 0 || nc > in.available() / 16) {
                    throw new IOException("bad folded run");
                }
                long[] ct = new long[nc];
                long[] cs = new long[nc];
                for (int i = 0; i < nc; i++) {
                    ct[i] = in.readLong();
                    cs[i] = in.readLong();
                }
                folded = new FoldedRun(source, ct, cs, in.readLong(), in.readLong());
            }
            return new MapValue(
                    writer, new HistorySnapshot(target, feeders, t, s, len, feeder, known, topicId, folded));
        });
    }

    public static byte[] encode(GroupCheckpoint c) {
        return write(out -> {
            out.writeUTF(c.group());
            out.writeLong(c.timeMs());
            out.writeInt(c.committed().size());
            for (Map.Entry<TopicPartition, Long> e : c.committed().entrySet()) {
                out.writeUTF(e.getKey().topic());
                out.writeInt(e.getKey().partition());
                out.writeLong(e.getValue());
                out.writeLong(c.sourceEnds().getOrDefault(e.getKey(), -1L));
            }
        });
    }

    public static @Nullable GroupCheckpoint decodeGroup(byte @Nullable [] value) {
        return read(value, in -> {
            String group = in.readUTF();
            long time = in.readLong();
            int n = in.readInt();
            Map<TopicPartition, Long> committed = new HashMap<>();
            Map<TopicPartition, Long> ends = new HashMap<>();
            for (int i = 0; i < n; i++) {
                TopicPartition tp = new TopicPartition(in.readUTF(), in.readInt());
                committed.put(tp, in.readLong());
                long end = in.readLong();
                if (end >= 0) {
                    ends.put(tp, end);
                }
            }
            return new GroupCheckpoint(group, time, committed, ends);
        });
    }

    public static byte[] encode(FailoverMarker m) {
        return write(out -> {
            out.writeUTF(m.targetTopic());
            out.writeLong(m.timeMs());
            out.writeInt(m.endOffsets().size());
            for (Map.Entry<Integer, Long> e : m.endOffsets().entrySet()) {
                out.writeInt(e.getKey());
                out.writeLong(e.getValue());
            }
        });
    }

    public static @Nullable FailoverMarker decodeFailover(byte @Nullable [] value) {
        return read(value, in -> {
            String topic = in.readUTF();
            long time = in.readLong();
            int n = in.readInt();
            Map<Integer, Long> ends = new HashMap<>();
            for (int i = 0; i < n; i++) {
                ends.put(in.readInt(), in.readLong());
            }
            return new FailoverMarker(topic, time, ends);
        });
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Null when the value is a tombstone, of another version, or cannot be read. */
    private static <T> @Nullable T read(byte @Nullable [] value, Reader<T> r) {
        if (value == null || value.length < 1 || value[0] != VERSION) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value, 1, value.length - 1))) {
            return r.read(in);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
