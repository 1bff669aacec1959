package dev.strait.mirror.linked;

import java.util.Map;

/**
 * What the last topic round found: the mirror topics kept in step, and the matching source topics left alone with
 * why. It exists apart from {@link MirrorTopicRound} because the other rounds, the progress log, the gauges and
 * {@code /healthz} read it, and they may do so before the round (which needs the clusters) exists.
 *
 * <p>Thread-safe: the loop thread publishes immutable maps; any thread reads them. The two maps are published one
 * after the other, not as one snapshot.
 */
final class LinkedTopics {
    /** A mirror topic of ours: the source's partition count and the target's. */
    record Linked(int sourcePartitions, int targetPartitions) {}

    private volatile Map<String, Linked> mirrored = Map.of();
    private volatile Map<String, String> skipped = Map.of();

    /** Replaces what the previous round found. */
    void publish(Map<String, Linked> nowMirrored, Map<String, String> nowSkipped) {
        mirrored = Map.copyOf(nowMirrored);
        skipped = Map.copyOf(nowSkipped);
    }

    /** The mirror topics kept in step, by name. */
    Map<String, Linked> mirrored() {
        return mirrored;
    }

    /** The matching source topics whose target topic is not a mirror of them, with the reason. */
    Map<String, String> skipped() {
        return skipped;
    }
}
