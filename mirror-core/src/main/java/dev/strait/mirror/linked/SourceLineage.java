package dev.strait.mirror.linked;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A mirror partition's source epoch lineage: the source's leader epochs of the batches it copied, each with the
 * offset it started at, from the offset where this link began copying. A copy rewrites each batch's leader epoch
 * field to the copying cluster's own epoch, so the copy's log cannot tell them; this list keeps them. It grows only
 * when the source's epoch changes, so it stays small. Immutable.
 *
 * <p>What lies below {@link #linkStartOffset} was not copied by this link: the two clusters agree on it by
 * construction (a failback cut the copying side there, or it was empty).
 *
 * @param sourceTopicId   the source topic's id: a lineage of another topic (or another cluster) is not this one's
 * @param linkStartOffset the copy's log end when this link began copying
 * @param epochs          source epochs and their start offsets, both ascending
 */
public record SourceLineage(String sourceTopicId, long linkStartOffset, List<EpochStart> epochs) {

    /** A source leader epoch and the first offset copied in it. Sorts by epoch. */
    public record EpochStart(int epoch, long startOffset) {}

    public SourceLineage {
        epochs = List.copyOf(epochs);
        for (int i = 1; i < epochs.size(); i++) {
            EpochStart before = epochs.get(i - 1);
            EpochStart after = epochs.get(i);
            if (after.epoch() <= before.epoch() || after.startOffset() < before.startOffset()) {
                throw new IllegalArgumentException("lineage not ascending at " + before + ", " + after);
            }
        }
        if (!epochs.isEmpty() && epochs.get(0).startOffset() < linkStartOffset) {
            throw new IllegalArgumentException(
                    "lineage starts at " + epochs.get(0) + ", below the link's start " + linkStartOffset);
        }
    }

    /** A link that has copied nothing yet. */
    public static SourceLineage startingAt(String sourceTopicId, long linkStartOffset) {
        return new SourceLineage(sourceTopicId, linkStartOffset, List.of());
    }

    /**
     * The lineage after a batch of source epoch {@code epoch} was copied at {@code baseOffset}, as Kafka's
     * leader-epoch cache takes an append: entries starting at or past the offset are dropped first (this copy
     * replaced them: a new leader of the copying cluster continues from its own log end, which may lie below the
     * old leader's), then the epoch is added unless it is the last one already.
     */
    public SourceLineage copied(int epoch, long baseOffset) {
        List<EpochStart> kept = new ArrayList<>();
        for (EpochStart e : epochs) {
            if (e.startOffset() < baseOffset) {
                kept.add(e);
            }
        }
        if (!kept.isEmpty() && kept.get(kept.size() - 1).epoch() >= epoch) {
            // The same epoch continues; an older one (a source that went back) cannot follow a newer one.
            if (kept.get(kept.size() - 1).epoch() > epoch) {
                throw new IllegalArgumentException(
                        "source epoch " + epoch + " at " + baseOffset + " follows " + kept.get(kept.size() - 1));
            }
            return kept.size() == epochs.size() ? this : new SourceLineage(sourceTopicId, linkStartOffset, kept);
        }
        kept.add(new EpochStart(epoch, baseOffset));
        return new SourceLineage(sourceTopicId, Math.min(linkStartOffset, baseOffset), kept);
    }

    /**
     * As a config value: {@code <topic id>:<link start>[:<epoch>@<offset>]...}. The per-partition list of a topic
     * joins these with {@code ;}, each prefixed with {@code <partition>=}.
     */
    public String encode() {
        StringBuilder out = new StringBuilder(sourceTopicId).append(':').append(linkStartOffset);
        for (EpochStart e : epochs) {
            out.append(':').append(e.epoch()).append('@').append(e.startOffset());
        }
        return out.toString();
    }

    /**
     * One partition's lineage from the topic's config value ({@code <partition>=<lineage>;...}, as the companion
     * brokers write it); empty if it has none or it does not parse.
     */
    public static Optional<SourceLineage> ofPartition(String topicValue, int partition) {
        String prefix = partition + "=";
        for (String entry : topicValue.split(";")) {
            if (entry.trim().startsWith(prefix)) {
                return decode(entry.trim().substring(prefix.length()));
            }
        }
        return Optional.empty();
    }

    /** The lineage {@link #encode()} wrote; empty for a value that does not parse. */
    public static Optional<SourceLineage> decode(String value) {
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
            return Optional.of(new SourceLineage(parts[0], Long.parseLong(parts[1]), epochs));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
