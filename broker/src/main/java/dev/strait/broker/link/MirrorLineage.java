package dev.strait.broker.link;

import dev.strait.broker.log.RecordBatchHeader;
import dev.strait.broker.log.RecordBatches;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A mirror partition's source epoch lineage: the source's leader epochs of the batches copied, each with the offset it
 * began at, from the offset where this link began copying. The copy rewrites each batch's epoch field to this
 * cluster's, so the log cannot tell them afterwards; a failback needs them to find where the two copies part the
 * Kafka way (OffsetForLeaderEpoch against the old source's own epochs). Immutable.
 *
 * <p>Kept in the topic config {@code strait.mirror.source.lineage}, one entry per partition
 * ({@code <partition>=<topic id>:<link start>[:<epoch>@<offset>]...;...}), written by the partition's leader through
 * the controller before it appends the first batch of a new source epoch: so it is durable, on every replica, and
 * there for whichever replica leads next (after a promote too), and a failback reads it with DescribeConfigs. The
 * mirror process reads the same format (its {@code SourceLineage}).
 *
 * @param sourceTopicId   the source topic's id; a lineage of another id is another link's and starts over
 * @param linkStartOffset this copy's log end when the link began copying
 * @param epochs          source epochs and their start offsets, both ascending
 */
public record MirrorLineage(String sourceTopicId, long linkStartOffset, List<EpochStart> epochs) {

    /** A source leader epoch and the first offset copied in it. */
    public record EpochStart(int epoch, long startOffset) {}

    public MirrorLineage {
        epochs = List.copyOf(epochs);
        for (int i = 1; i < epochs.size(); i++) {
            if (epochs.get(i).epoch() <= epochs.get(i - 1).epoch()
                    || epochs.get(i).startOffset() < epochs.get(i - 1).startOffset()) {
                throw new IllegalArgumentException("lineage not ascending: " + epochs);
            }
        }
    }

    public static MirrorLineage startingAt(String sourceTopicId, long linkStartOffset) {
        return new MirrorLineage(sourceTopicId, linkStartOffset, List.of());
    }

    /**
     * The lineage after a batch of source epoch {@code epoch} is copied at {@code baseOffset}, as Kafka's epoch cache
     * takes an append: entries at or past the offset are dropped (a new leader here continues from its own log end,
     * which may lie below the old leader's), then the epoch is added unless it is the last one already. An epoch below
     * the last one (a source log that went back) starts no entry: the source's own epochs never go back.
     */
    public MirrorLineage copied(int epoch, long baseOffset) {
        List<EpochStart> kept = new ArrayList<>();
        for (EpochStart e : epochs) {
            if (e.startOffset() < baseOffset) {
                kept.add(e);
            }
        }
        if (!kept.isEmpty() && kept.get(kept.size() - 1).epoch() >= epoch) {
            return kept.size() == epochs.size() ? this : new MirrorLineage(sourceTopicId, linkStartOffset, kept);
        }
        kept.add(new EpochStart(epoch, baseOffset));
        return new MirrorLineage(sourceTopicId, Math.min(linkStartOffset, baseOffset), kept);
    }

    /**
     * The lineage after copying {@code records}: whole v2 batches as fetched, read only for their base offset and
     * partition leader epoch, before the append rewrites the epoch. Lenient where {@link RecordBatches#split} is
     * strict: what does not parse is left to the append, which refuses it.
     */
    public MirrorLineage copiedBatches(ByteBuffer records) {
        MirrorLineage lineage = this;
        ByteBuffer batches = records.duplicate();
        int position = batches.position();
        while (batches.limit() - position >= RecordBatchHeader.MAGIC_OFFSET + 1) {
            long baseOffset = batches.getLong(position + RecordBatchHeader.BASE_OFFSET_OFFSET);
            int batchLength = batches.getInt(position + RecordBatchHeader.BATCH_LENGTH_OFFSET);
            int epoch = batches.getInt(position + RecordBatchHeader.PARTITION_LEADER_EPOCH_OFFSET);
            if (batchLength <= 0) {
                break;
            }
            if (epoch >= 0) {
                lineage = lineage.copied(epoch, baseOffset);
            }
            position += RecordBatchHeader.LOG_OVERHEAD_BYTES + batchLength;
        }
        return lineage;
    }

    public String encode() {
        StringBuilder out = new StringBuilder(sourceTopicId).append(':').append(linkStartOffset);
        for (EpochStart e : epochs) {
            out.append(':').append(e.epoch()).append('@').append(e.startOffset());
        }
        return out.toString();
    }

    public static Optional<MirrorLineage> decode(String value) {
        String[] parts = value.trim().split(":", -1);
        if (parts.length < 2 || parts[0].isEmpty()) {
            return Optional.empty();
        }
        try {
            List<EpochStart> epochs = new ArrayList<>();
            for (int i = 2; i < parts.length; i++) {
                int at = parts[i].indexOf('@');
                if (at <= 0) {
                    return Optional.empty();
                }
                epochs.add(new EpochStart(
                        Integer.parseInt(parts[i].substring(0, at)), Long.parseLong(parts[i].substring(at + 1))));
            }
            return Optional.of(new MirrorLineage(parts[0], Long.parseLong(parts[1]), epochs));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** A topic's config value: partition to lineage; entries that do not parse are left out. */
    public static Map<Integer, MirrorLineage> decodeTopic(String value) {
        Map<Integer, MirrorLineage> out = new TreeMap<>();
        for (String entry : value.split(";")) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            try {
                int partition = Integer.parseInt(entry.substring(0, eq).trim());
                decode(entry.substring(eq + 1)).ifPresent(l -> out.put(partition, l));
            } catch (NumberFormatException e) {
                // left out: the leader writes it again
            }
        }
        return out;
    }

    /** The topic's config value with {@code partition}'s lineage replaced. */
    public static String encodeTopic(Map<Integer, MirrorLineage> byPartition) {
        StringBuilder out = new StringBuilder();
        new TreeMap<>(byPartition).forEach((p, l) -> {
            if (out.length() > 0) {
                out.append(';');
            }
            out.append(p).append('=').append(l.encode());
        });
        return out.toString();
    }
}
