package dev.strait.lag.audit;

import dev.strait.mirror.config.ClientConfigs;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Chooses the source ranges a one-shot audit covers: per partition, up to an explicit end offset or else
 * the mirror group's committed offset (what the target has acknowledged), and back an explicit start or
 * the last {@code lastRecords} records, never before the log start.
 */
public final class AuditPlan {
    private static final long TIMEOUT_MS = 30_000;

    private AuditPlan() {}

    /** topic → (partition → {from, to}) */
    public static Map<String, Map<Integer, long[]>> plan(
            Properties sourceClient, String groupId, Pattern topics, long fromOffset, long toOffset, long lastRecords)
            throws Exception {
        try (Admin admin = Admin.create(ClientConfigs.only(sourceClient, AdminClientConfig.configNames()))) {
            Map<String, Map<Integer, long[]>> out = new TreeMap<>();
            List<String> names = admin.listTopics().names().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).stream()
                    .filter(n -> topics.matcher(n).matches())
                    .sorted()
                    .toList();
            if (names.isEmpty()) {
                return out;
            }
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            admin.describeTopics(names)
                    .allTopicNames()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .values()
                    .forEach(d -> d.partitions().forEach(pi -> {
                        TopicPartition tp = new TopicPartition(d.name(), pi.partition());
                        latest.put(tp, OffsetSpec.latest());
                        earliest.put(tp, OffsetSpec.earliest());
                    }));
            var ends = admin.listOffsets(latest).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            var starts = admin.listOffsets(earliest).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            for (TopicPartition tp : latest.keySet()) {
                long end = Objects.requireNonNull(ends.get(tp), "end offset").offset();
                long start =
                        Objects.requireNonNull(starts.get(tp), "start offset").offset();
                OffsetAndMetadata c = committed.get(tp);
                long to = toOffset >= 0 ? Math.min(toOffset, end) : c != null ? Math.min(c.offset(), end) : end;
                long from = Math.max(start, fromOffset >= 0 ? fromOffset : to - lastRecords);
                out.computeIfAbsent(tp.topic(), k -> new TreeMap<>())
                        .put(tp.partition(), new long[] {from, Math.max(from, to)});
            }
            return out;
        }
    }
}
