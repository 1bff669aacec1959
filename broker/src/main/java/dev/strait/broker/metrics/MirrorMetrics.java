package dev.strait.broker.metrics;

import dev.strait.broker.link.MirrorStatus;
import java.util.List;

/** The {@code strait_broker_mirror_partition_*} families: where each mirror-topic copy led by this node stands. */
final class MirrorMetrics {
    private MirrorMetrics() {}

    /** One sample per mirror-topic partition this node leads (the copier), so a sum over the cluster counts each once. */
    static void writeTo(PrometheusText text, List<MirrorStatus> statuses, long nowMs) {
        text.family(
                "strait_broker_mirror_partition_lag_records",
                "gauge",
                "Records a mirror-topic partition this node leads is behind its source partition's high watermark,"
                        + " as of the last fetch; exact, since the copy keeps the source's offsets.");
        for (MirrorStatus s : statuses) {
            if (s.lag() >= 0) {
                text.sample("strait_broker_mirror_partition_lag_records", s.lag(), labels(s));
            }
        }
        text.family(
                "strait_broker_mirror_partition_lag_seconds",
                "gauge",
                "Seconds since a mirror-topic partition this node leads was last caught up with its source; 0 while"
                        + " it is.");
        for (MirrorStatus s : statuses) {
            text.sample("strait_broker_mirror_partition_lag_seconds", s.lagSeconds(nowMs), labels(s));
        }
        text.family(
                "strait_broker_mirror_partition_state",
                "gauge",
                "1 for the state a mirror-topic partition this node leads is in: COPYING, or why it is not"
                        + " (SOURCE_UNREACHABLE, SOURCE_TOPIC_MISSING, SOURCE_TOPIC_RECREATED, SOURCE_PARTITION_MISSING,"
                        + " SOURCE_DIVERGED, NOT_AUTHORIZED).");
        for (MirrorStatus s : statuses) {
            String[] labels = labels(s);
            String[] withState = java.util.Arrays.copyOf(labels, labels.length + 2);
            withState[labels.length] = "state";
            withState[labels.length + 1] = s.state().name();
            text.sample("strait_broker_mirror_partition_state", 1, withState);
        }
    }

    private static String[] labels(MirrorStatus s) {
        return new String[] {
            "topic", s.partition().topic(),
            "partition", Integer.toString(s.partition().partition()),
            "source_topic", s.sourceTopic()
        };
    }
}
