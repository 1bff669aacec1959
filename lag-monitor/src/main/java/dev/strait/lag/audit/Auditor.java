package dev.strait.lag.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import dev.strait.lag.audit.AuditReport.Finding;
import dev.strait.lag.audit.AuditReport.Kind;
import dev.strait.lag.audit.AuditReport.PartitionAudit;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.provenance.Provenance;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Compares source offset ranges with what the target holds, record by record, using the provenance
 * header as the link: counts, a 64-bit fingerprint per record and an order-sensitive digest per partition.
 * Lag follows only the newest offsets; the audit is what finds a record that was skipped, copied twice,
 * reordered or altered in between.
 *
 * <p>The target is read from a little before the range's earliest timestamp (the mirror keeps source
 * timestamps), to its end. Not thread-safe.
 */
public final class Auditor implements AutoCloseable {
    /** Target records may carry timestamps a little out of order; read this far before the range's earliest. */
    private static final long TIMESTAMP_SLACK_MS = 300_000;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    private final KafkaConsumer<byte[], byte[]> source;
    private final KafkaConsumer<byte[], byte[]> target;
    private final TopicRenamer renamer;

    public Auditor(Properties sourceClient, Properties targetClient, TopicRenamer renamer) {
        this.source = consumer(sourceClient, "strait-audit-source");
        this.target = consumer(targetClient, "strait-audit-target");
        this.renamer = renamer;
    }

    /** Audits {@code ranges}: source partition → {fromOffset, toOffset} (exclusive). */
    public AuditReport audit(String topic, Map<Integer, long[]> ranges) {
        Map<Integer, Map<Long, Long>> sourceFingerprints = new TreeMap<>();
        long minTimestamp = Long.MAX_VALUE;
        for (Map.Entry<Integer, long[]> e : ranges.entrySet()) {
            Map<Long, Long> fp = new TreeMap<>();
            for (ConsumerRecord<byte[], byte[]> r : read(source, new TopicPartition(topic, e.getKey()), e.getValue()[0],
                e.getValue()[1])) {
                fp.put(r.offset(), RecordDigest.of(r));
                minTimestamp = Math.min(minTimestamp, r.timestamp());
            }
            sourceFingerprints.put(e.getKey(), fp);
        }
        // Per source partition: the target copies of its records in target order (source offset, fingerprint).
        Map<Integer, List<long[]>> copies = new HashMap<>();
        String targetTopic = renamer.targetTopic(topic);
        List<PartitionInfo> infos = target.partitionsFor(targetTopic, Duration.ofSeconds(30));
        if (infos != null && minTimestamp != Long.MAX_VALUE) {
            for (PartitionInfo info : infos) {
                TopicPartition tp = new TopicPartition(targetTopic, info.partition());
                long end = target.endOffsets(Set.of(tp)).get(tp);
                OffsetAndTimestamp start = target.offsetsForTimes(Map.of(tp, Math.max(0, minTimestamp - TIMESTAMP_SLACK_MS)))
                    .get(tp);
                if (start == null) {
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : read(target, tp, start.offset(), end)) {
                    Provenance p = Provenance.from(r.headers());
                    if (p == null || !p.topic().equals(topic) || !ranges.containsKey(p.partition())) {
                        continue;
                    }
                    long[] range = ranges.get(p.partition());
                    if (p.offset() >= range[0] && p.offset() < range[1]) {
                        copies.computeIfAbsent(p.partition(), k -> new ArrayList<>())
                            .add(new long[] {p.offset(), RecordDigest.of(r)});
                    }
                }
            }
        }
        List<PartitionAudit> out = new ArrayList<>();
        sourceFingerprints.forEach((partition, fp) -> out.add(compare(topic, partition, ranges.get(partition), fp,
            copies.getOrDefault(partition, List.of()))));
        return new AuditReport(out);
    }

    private static PartitionAudit compare(String topic, int partition, long[] range, Map<Long, Long> source,
                                          List<long[]> copies) {
        List<Finding> findings = new ArrayList<>();
        Map<Long, Integer> seen = new HashMap<>();
        RecordDigest.Sequence targetDigest = new RecordDigest.Sequence();
        long highest = -1;
        for (long[] copy : copies) {
            long offset = copy[0];
            int n = seen.merge(offset, 1, Integer::sum);
            if (n > 1) {
                findings.add(new Finding(Kind.DUPLICATED, topic, partition, offset, "copy " + n));
                continue;
            }
            targetDigest.add(copy[1]);
            Long expected = source.get(offset);
            if (expected == null) {
                // On the target but no longer (or never) in the source range read: compacted or deleted at the source.
                continue;
            }
            if (expected != copy[1]) {
                findings.add(new Finding(Kind.ALTERED, topic, partition, offset, "content differs from the source"));
            }
            if (offset < highest) {
                findings.add(new Finding(Kind.REORDERED, topic, partition, offset, "after source offset " + highest));
            }
            highest = Math.max(highest, offset);
        }
        RecordDigest.Sequence sourceDigest = new RecordDigest.Sequence();
        source.forEach((offset, fp) -> {
            sourceDigest.add(fp);
            if (!seen.containsKey(offset)) {
                findings.add(new Finding(Kind.MISSING, topic, partition, offset, ""));
            }
        });
        findings.sort((a, b) -> Long.compare(a.sourceOffset(), b.sourceOffset()));
        return new PartitionAudit(topic, partition, range[0], range[1], source.size(), copies.size(),
            sourceDigest.finish(), targetDigest.finish(), findings);
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp,
                                                           long from, long to) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        if (from >= to) {
            return out;
        }
        consumer.assign(List.of(tp));
        consumer.seek(tp, from);
        long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        while (consumer.position(tp) < to) {
            if (System.nanoTime() > deadline) {
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

    private static KafkaConsumer<byte[], byte[]> consumer(Properties client, String clientId) {
        Properties p = ClientConfigs.only(client, ConsumerConfig.configNames());
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        // A range that starts before the log start is read from the log start: what is gone is not audited.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public void close() {
        source.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        target.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
}
