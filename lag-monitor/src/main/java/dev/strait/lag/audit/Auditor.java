package dev.strait.lag.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import dev.strait.lag.audit.AuditReport.Finding;
import dev.strait.lag.audit.AuditReport.Kind;
import dev.strait.lag.audit.AuditReport.PartitionAudit;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.provenance.Provenance;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;

/**
 * Compares source offset ranges with what the target holds, record by record, using the provenance
 * header as the link: counts, a 64-bit fingerprint per record and an order-sensitive digest per partition.
 * Lag follows only the newest offsets; the audit is what finds a record that was skipped, copied twice,
 * reordered or altered in between.
 *
 * <p>It holds the mirror to what the mirror promises, no more: the source is read committed (an aborted
 * transaction is not data); a source record that is itself a copy of a record of the target topic is not
 * expected there (loop prevention drops it); a copy the target's own retention or compaction removed is
 * not missing; only copies whose provenance names this source cluster count; timestamps are compared only
 * where both records carry the producer's CreateTime. A message handler that drops records on purpose makes
 * those records MISSING: the audit cannot tell a drop from a loss.
 *
 * <p>The target is read from a little before the range's earliest timestamp (the mirror keeps source
 * timestamps), to its end. Not thread-safe.
 */
public final class Auditor implements AutoCloseable {
    /** Target records may carry timestamps a little out of order; read this far before the range's earliest. */
    private static final long TIMESTAMP_SLACK_MS = 300_000;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    /** One source record as the audit needs it. */
    private record SourceRecord(long fingerprint, long timestamp, boolean createTime, byte[] key) {
    }

    /** One copy on the target: which source offset, and what it holds. */
    private record Copy(long sourceOffset, long fingerprint, long timestamp, boolean createTime, byte[] key) {
    }

    private final KafkaConsumer<byte[], byte[]> source;
    private final KafkaConsumer<byte[], byte[]> target;
    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final TopicRenamer renamer;
    private final Time time;
    private String sourceClusterId;
    private String targetClusterId;

    public Auditor(Properties sourceClient, Properties targetClient, TopicRenamer renamer, Time time) {
        this.source = consumer(sourceClient, "strait-audit-source", "read_committed");
        this.target = consumer(targetClient, "strait-audit-target", "read_uncommitted");
        this.sourceAdmin = Admin.create(admin(sourceClient));
        this.targetAdmin = Admin.create(admin(targetClient));
        this.renamer = renamer;
        this.time = time;
    }

    /** Audits {@code ranges}: source partition → {fromOffset, toOffset} (exclusive). */
    public AuditReport audit(String topic, Map<Integer, long[]> ranges) {
        resolveClusterIds();
        String targetTopic = renamer.targetTopic(topic);
        Map<Integer, Map<Long, SourceRecord>> sourceRecords = new TreeMap<>();
        Map<Integer, Long> byDesign = new HashMap<>();
        long minTimestamp = Long.MAX_VALUE;
        for (Map.Entry<Integer, long[]> e : ranges.entrySet()) {
            Map<Long, SourceRecord> records = new TreeMap<>();
            for (ConsumerRecord<byte[], byte[]> r : read(source, new TopicPartition(topic, e.getKey()), e.getValue()[0],
                e.getValue()[1])) {
                Provenance p = Provenance.from(r.headers());
                if (p != null && p.sourceCluster().equals(targetClusterId) && p.topic().equals(targetTopic)) {
                    byDesign.merge(e.getKey(), 1L, Long::sum);
                    continue;
                }
                records.put(r.offset(), new SourceRecord(RecordDigest.of(r), r.timestamp(), RecordDigest.createTime(r), r.key()));
                minTimestamp = Math.min(minTimestamp, r.timestamp());
            }
            sourceRecords.put(e.getKey(), records);
        }
        // Per source partition: the target copies of its records in target order.
        Map<Integer, List<Copy>> copies = new HashMap<>();
        boolean targetTrimmed = false;
        List<PartitionInfo> infos = target.partitionsFor(targetTopic, Duration.ofSeconds(30));
        if (infos != null && minTimestamp != Long.MAX_VALUE) {
            for (PartitionInfo info : infos) {
                TopicPartition tp = new TopicPartition(targetTopic, info.partition());
                long end = target.endOffsets(Set.of(tp)).get(tp);
                long begin = target.beginningOffsets(Set.of(tp)).get(tp);
                targetTrimmed |= begin > 0;
                OffsetAndTimestamp start = target.offsetsForTimes(Map.of(tp, Math.max(0, minTimestamp - TIMESTAMP_SLACK_MS)))
                    .get(tp);
                if (start == null) {
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : read(target, tp, start.offset(), end)) {
                    Provenance p = Provenance.from(r.headers());
                    if (p == null || !p.topic().equals(topic) || !p.sourceCluster().equals(sourceClusterId)
                        || !ranges.containsKey(p.partition())) {
                        continue;
                    }
                    long[] range = ranges.get(p.partition());
                    if (p.offset() >= range[0] && p.offset() < range[1]) {
                        copies.computeIfAbsent(p.partition(), k -> new ArrayList<>())
                            .add(new Copy(p.offset(), RecordDigest.of(r), r.timestamp(), RecordDigest.createTime(r), r.key()));
                    }
                }
            }
        }
        boolean compacted = compacted(targetTopic);
        List<PartitionAudit> out = new ArrayList<>();
        for (Map.Entry<Integer, Map<Long, SourceRecord>> e : sourceRecords.entrySet()) {
            out.add(compare(topic, e.getKey(), ranges.get(e.getKey()), e.getValue(), copies.getOrDefault(e.getKey(),
                List.of()), byDesign.getOrDefault(e.getKey(), 0L), targetTrimmed, compacted));
        }
        return new AuditReport(out);
    }

    private static PartitionAudit compare(String topic, int partition, long[] range, Map<Long, SourceRecord> source,
                                          List<Copy> copies, long byDesign, boolean targetTrimmed, boolean compacted) {
        List<Finding> findings = new ArrayList<>();
        Map<Long, Integer> seen = new HashMap<>();
        RecordDigest.Sequence targetDigest = new RecordDigest.Sequence();
        long highest = -1;
        long lowestCopied = Long.MAX_VALUE;
        Map<ByteKey, Long> newestCopyOfKey = new HashMap<>();
        for (Copy copy : copies) {
            long offset = copy.sourceOffset();
            lowestCopied = Math.min(lowestCopied, offset);
            newestCopyOfKey.merge(new ByteKey(copy.key()), offset, Math::max);
            int n = seen.merge(offset, 1, Integer::sum);
            if (n > 1) {
                findings.add(new Finding(Kind.DUPLICATED, topic, partition, offset, "copy " + n));
                continue;
            }
            targetDigest.add(copy.fingerprint());
            SourceRecord expected = source.get(offset);
            if (expected == null) {
                // On the target but no longer (or never) in the source range read: compacted or deleted at the source.
                continue;
            }
            if (expected.fingerprint() != copy.fingerprint()) {
                findings.add(new Finding(Kind.ALTERED, topic, partition, offset, "content differs from the source"));
            } else if (expected.createTime() && copy.createTime() && expected.timestamp() != copy.timestamp()) {
                findings.add(new Finding(Kind.ALTERED, topic, partition, offset, "timestamp " + copy.timestamp()
                    + " instead of " + expected.timestamp()));
            }
            if (offset < highest) {
                findings.add(new Finding(Kind.REORDERED, topic, partition, offset, "after source offset " + highest));
            }
            highest = Math.max(highest, offset);
        }
        RecordDigest.Sequence sourceDigest = new RecordDigest.Sequence();
        long removed = 0;
        for (Map.Entry<Long, SourceRecord> e : source.entrySet()) {
            long offset = e.getKey();
            sourceDigest.add(e.getValue().fingerprint());
            if (seen.containsKey(offset)) {
                continue;
            }
            Long newer = newestCopyOfKey.get(new ByteKey(e.getValue().key()));
            if (targetTrimmed && offset < lowestCopied || compacted && newer != null && newer > offset) {
                removed++;
            } else {
                findings.add(new Finding(Kind.MISSING, topic, partition, offset, ""));
            }
        }
        findings.sort((a, b) -> Long.compare(a.sourceOffset(), b.sourceOffset()));
        return new PartitionAudit(topic, partition, range[0], range[1], source.size(), copies.size(),
            sourceDigest.finish(), targetDigest.finish(), findings, byDesign, removed);
    }

    /** A record key as a map key. */
    private record ByteKey(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ByteKey k && Arrays.equals(bytes, k.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    private void resolveClusterIds() {
        if (sourceClusterId == null) {
            sourceClusterId = clusterId(sourceAdmin, "source");
        }
        if (targetClusterId == null) {
            targetClusterId = clusterId(targetAdmin, "target");
        }
    }

    private static String clusterId(Admin admin, String which) {
        try {
            return admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the " + which + " cluster's id: " + e, e);
        }
    }

    private boolean compacted(String targetTopic) {
        try {
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, targetTopic);
            Config c = targetAdmin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
            ConfigEntry policy = c == null ? null : c.get("cleanup.policy");
            return policy != null && policy.value() != null && policy.value().contains("compact");
        } catch (Exception e) {
            return false;
        }
    }

    private List<ConsumerRecord<byte[], byte[]>> read(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp,
                                                      long from, long to) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        if (from >= to) {
            return out;
        }
        consumer.assign(List.of(tp));
        consumer.seek(tp, from);
        long deadline = time.milliseconds() + READ_TIMEOUT.toMillis();
        while (consumer.position(tp) < to) {
            if (time.milliseconds() > deadline) {
                throw new IllegalStateException("reading " + tp + " from " + from + " to " + to + " did not finish in "
                    + READ_TIMEOUT.toSeconds() + " s");
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() < to) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Properties client, String clientId, String isolation) {
        Properties p = ClientConfigs.only(client, ConsumerConfig.configNames());
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        // A range that starts before the log start is read from the log start: what is gone is not audited.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static Properties admin(Properties client) {
        Properties p = ClientConfigs.only(client, AdminClientConfig.configNames());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    @Override
    public void close() {
        source.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        target.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        sourceAdmin.close(Duration.ofSeconds(5));
        targetAdmin.close(Duration.ofSeconds(5));
    }
}
