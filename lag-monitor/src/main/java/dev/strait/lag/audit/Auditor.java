package dev.strait.lag.audit;

import dev.strait.lag.audit.AuditReport.Finding;
import dev.strait.lag.audit.AuditReport.Kind;
import dev.strait.lag.audit.AuditReport.PartitionAudit;
import dev.strait.lag.sample.AccessDenied;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

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
 * where both records carry the producer's CreateTime.
 *
 * <p>Given the mirror's message handler, the audit runs it on each source record and expects exactly what it
 * returns for the audited topic: nothing for a record it drops, each of several outputs once, their content
 * as the handler made it. That needs a handler whose output depends on the record alone (the usual kind);
 * one that draws on time, randomness or state shows up as ALTERED. Outputs the handler sends to other topics
 * are not audited. Without the handler, a record it dropped is MISSING: the audit cannot tell a drop from a
 * loss.
 *
 * <p>Order is checked per target partition: in hash mode, or when the handler picks partitions, one source
 * partition's copies spread over several target partitions and only their order within each is defined.
 *
 * <p>The target is read from a little before the range's earliest timestamp (the mirror keeps source
 * timestamps), to its end. Not thread-safe.
 */
public final class Auditor implements AutoCloseable {
    /** Target records may carry timestamps a little out of order; read this far before the range's earliest. */
    private static final long TIMESTAMP_SLACK_MS = 300_000;

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    /** One copy the target must hold of a source record; its timestamp is compared only when {@code timed}. */
    private record Output(long fingerprint, long timestamp, boolean timed, byte[] key) {}

    /** One copy on the target: which source offset, where it is, and what it holds. */
    private record Copy(
            long sourceOffset, int targetPartition, long fingerprint, long timestamp, boolean createTime, byte[] key) {}

    /** Source records not expected on the target, per source partition, by reason. */
    private static final class NotExpected {
        long loopPrevention;
        long handler;
    }

    private final KafkaConsumer<byte[], byte[]> source;
    private final KafkaConsumer<byte[], byte[]> target;
    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final TopicRenamer renamer;
    private final @Nullable MessageHandler handler;
    private final Time time;
    private @Nullable String sourceClusterId;
    private @Nullable String targetClusterId;

    public Auditor(Properties sourceClient, Properties targetClient, TopicRenamer renamer, Time time) {
        this(sourceClient, targetClient, renamer, null, time);
    }

    /** @param handler the mirror's message handler, or null when it runs without one */
    public Auditor(
            Properties sourceClient,
            Properties targetClient,
            TopicRenamer renamer,
            @Nullable MessageHandler handler,
            Time time) {
        this.source = consumer(sourceClient, "strait-audit-source", "read_committed");
        this.target = consumer(targetClient, "strait-audit-target", "read_uncommitted");
        this.sourceAdmin = Admin.create(admin(sourceClient));
        this.targetAdmin = Admin.create(admin(targetClient));
        this.renamer = renamer;
        this.handler = handler;
        this.time = time;
    }

    /** Audits {@code ranges}: source partition → {fromOffset, toOffset} (exclusive). */
    public AuditReport audit(String topic, Map<Integer, long[]> ranges) {
        resolveClusterIds();
        String targetTopic = renamer.targetTopic(topic);
        Map<Integer, Map<Long, List<Output>>> expected = new TreeMap<>();
        Map<Integer, NotExpected> notExpected = new HashMap<>();
        long minTimestamp = Long.MAX_VALUE;
        for (Map.Entry<Integer, long[]> e : ranges.entrySet()) {
            Map<Long, List<Output>> records = new TreeMap<>();
            NotExpected skipped = notExpected.computeIfAbsent(e.getKey(), k -> new NotExpected());
            for (ConsumerRecord<byte[], byte[]> r :
                    read(source, new TopicPartition(topic, e.getKey()), e.getValue()[0], e.getValue()[1])) {
                Provenance p = Provenance.from(r.headers());
                if (p != null
                        && p.sourceCluster().equals(targetClusterId)
                        && p.topic().equals(targetTopic)) {
                    skipped.loopPrevention++;
                    continue;
                }
                List<Output> outputs = outputsFor(r, targetTopic);
                if (outputs.isEmpty()) {
                    skipped.handler++;
                    continue;
                }
                records.put(r.offset(), outputs);
                minTimestamp = Math.min(minTimestamp, r.timestamp());
                for (Output o : outputs) {
                    if (o.timed()) {
                        minTimestamp = Math.min(minTimestamp, o.timestamp());
                    }
                }
            }
            expected.put(e.getKey(), records);
        }
        // Per source partition: the target copies of its records in target order.
        Map<Integer, List<Copy>> copies = new HashMap<>();
        boolean targetTrimmed = false;
        List<PartitionInfo> infos =
                denialNamed("target", targetTopic, () -> target.partitionsFor(targetTopic, Duration.ofSeconds(30)));
        if (infos != null && minTimestamp != Long.MAX_VALUE) {
            for (PartitionInfo info : infos) {
                TopicPartition tp = new TopicPartition(targetTopic, info.partition());
                long end = denialNamed(
                        "target",
                        targetTopic,
                        () -> target.endOffsets(Set.of(tp)).get(tp));
                long begin = Objects.requireNonNull(
                        target.beginningOffsets(Set.of(tp)).get(tp), "log start");
                targetTrimmed |= begin > 0;
                OffsetAndTimestamp start = target.offsetsForTimes(
                                Map.of(tp, Math.max(0, minTimestamp - TIMESTAMP_SLACK_MS)))
                        .get(tp);
                if (start == null) {
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : read(target, tp, start.offset(), end)) {
                    Provenance p = Provenance.from(r.headers());
                    if (p == null
                            || !p.topic().equals(topic)
                            || !p.sourceCluster().equals(sourceClusterId)
                            || !ranges.containsKey(p.partition())) {
                        continue;
                    }
                    long[] range = ranges.get(p.partition());
                    if (p.offset() >= range[0] && p.offset() < range[1]) {
                        copies.computeIfAbsent(p.partition(), k -> new ArrayList<>())
                                .add(new Copy(
                                        p.offset(),
                                        info.partition(),
                                        RecordDigest.of(r),
                                        r.timestamp(),
                                        RecordDigest.createTime(r),
                                        r.key()));
                    }
                }
            }
        }
        boolean compacted = compacted(targetTopic);
        List<PartitionAudit> out = new ArrayList<>();
        for (Map.Entry<Integer, Map<Long, List<Output>>> e : expected.entrySet()) {
            NotExpected skipped = Objects.requireNonNull(notExpected.get(e.getKey()), "skipped counts");
            out.add(compare(
                    topic,
                    e.getKey(),
                    Objects.requireNonNull(ranges.get(e.getKey()), "range"),
                    e.getValue(),
                    copies.getOrDefault(e.getKey(), List.of()),
                    skipped.loopPrevention,
                    skipped.handler,
                    targetTrimmed,
                    compacted));
        }
        return new AuditReport(out);
    }

    /** What the mirror writes to {@code targetTopic} for a source record: the record itself, or the handler's outputs. */
    private List<Output> outputsFor(ConsumerRecord<byte[], byte[]> r, String targetTopic) {
        if (handler == null) {
            return List.of(new Output(RecordDigest.of(r), r.timestamp(), RecordDigest.createTime(r), r.key()));
        }
        List<ProducerRecord<byte[], byte[]>> outs;
        try {
            outs = handler.handle(r);
        } catch (RuntimeException e) {
            // The mirror never commits past a record its handler fails on, unless it was told to skip such records.
            return List.of();
        }
        List<Output> out = new ArrayList<>();
        if (outs != null) {
            for (ProducerRecord<byte[], byte[]> pr : outs) {
                if (renamer.targetTopic(pr.topic()).equals(targetTopic)) {
                    out.add(new Output(
                            RecordDigest.of(pr),
                            pr.timestamp() == null ? -1 : pr.timestamp(),
                            pr.timestamp() != null,
                            pr.key()));
                }
            }
        }
        return out;
    }

    private static PartitionAudit compare(
            String topic,
            int partition,
            long[] range,
            Map<Long, List<Output>> expected,
            List<Copy> copies,
            long loopPrevention,
            long handlerDropped,
            boolean targetTrimmed,
            boolean compacted) {
        List<Finding> findings = new ArrayList<>();
        Map<Long, List<Output>> unmatched = new HashMap<>();
        expected.forEach((offset, outputs) -> unmatched.put(offset, new ArrayList<>(outputs)));
        Map<Long, Integer> seen = new HashMap<>();
        Map<Integer, Long> highest = new HashMap<>();
        List<Copy> kept = new ArrayList<>();
        long lowestCopied = Long.MAX_VALUE;
        Map<ByteKey, Long> newestCopyOfKey = new HashMap<>();
        for (Copy copy : copies) {
            long offset = copy.sourceOffset();
            lowestCopied = Math.min(lowestCopied, offset);
            newestCopyOfKey.merge(new ByteKey(copy.key()), offset, Math::max);
            int n = seen.merge(offset, 1, Integer::sum);
            List<Output> open = unmatched.get(offset);
            if (open == null) {
                // On the target but no longer (or never) in the source range read: compacted or deleted at the source.
                if (n > 1) {
                    findings.add(new Finding(Kind.DUPLICATED, topic, partition, offset, "copy " + n));
                }
                continue;
            }
            if (open.isEmpty()) {
                int wanted = Objects.requireNonNull(expected.get(offset), "expected outputs")
                        .size();
                findings.add(new Finding(
                        Kind.DUPLICATED,
                        topic,
                        partition,
                        offset,
                        wanted == 1 ? "copy " + n : "copy " + n + " of " + wanted + " outputs"));
                continue;
            }
            kept.add(copy);
            Output match = null;
            for (Output o : open) {
                if (o.fingerprint() == copy.fingerprint()) {
                    match = o;
                    break;
                }
            }
            if (match == null) {
                open.remove(0);
                findings.add(new Finding(Kind.ALTERED, topic, partition, offset, "content differs from the source"));
            } else {
                open.remove(match);
                if (match.timed() && copy.createTime() && match.timestamp() != copy.timestamp()) {
                    findings.add(new Finding(
                            Kind.ALTERED,
                            topic,
                            partition,
                            offset,
                            "timestamp " + copy.timestamp() + " instead of " + match.timestamp()));
                }
            }
            long before = highest.getOrDefault(copy.targetPartition(), -1L);
            if (offset < before) {
                findings.add(new Finding(
                        Kind.REORDERED,
                        topic,
                        partition,
                        offset,
                        "after source offset " + before + " in target partition " + copy.targetPartition()));
            }
            highest.put(copy.targetPartition(), Math.max(before, offset));
        }
        long removed = 0;
        boolean spread = kept.stream().map(Copy::targetPartition).distinct().count() > 1;
        RecordDigest.Sequence sourceDigest = new RecordDigest.Sequence();
        for (Map.Entry<Long, List<Output>> e : expected.entrySet()) {
            long offset = e.getKey();
            e.getValue().stream()
                    .map(Output::fingerprint)
                    .sorted(spread ? Comparator.naturalOrder() : (x, y) -> 0)
                    .forEach(sourceDigest::add);
            List<Output> open = Objects.requireNonNull(unmatched.get(offset), "unmatched outputs");
            for (Output o : open) {
                Long newer = newestCopyOfKey.get(new ByteKey(o.key()));
                if (targetTrimmed && offset < lowestCopied || compacted && newer != null && newer > offset) {
                    removed++;
                } else {
                    int wanted = e.getValue().size();
                    findings.add(new Finding(
                            Kind.MISSING,
                            topic,
                            partition,
                            offset,
                            wanted == 1
                                    ? ""
                                    : (wanted - open.size() + 1) + " of " + wanted + " outputs on the target"));
                }
            }
        }
        findings.sort((a, b) -> Long.compare(a.sourceOffset(), b.sourceOffset()));
        return new PartitionAudit(
                topic,
                partition,
                range[0],
                range[1],
                expected.size(),
                copies.size(),
                sourceDigest.finish(),
                targetDigest(kept, spread),
                findings,
                loopPrevention,
                handlerDropped,
                removed);
    }

    /**
     * The copies' digest: in target order when one target partition holds them (so a reordering changes it); by
     * source offset (then fingerprint, as the source side) when they spread over several, whose order is not defined.
     */
    private static byte[] targetDigest(List<Copy> kept, boolean spread) {
        List<Copy> ordered = kept;
        if (spread) {
            ordered = new ArrayList<>(kept);
            ordered.sort(Comparator.comparingLong(Copy::sourceOffset).thenComparingLong(Copy::fingerprint));
        }
        RecordDigest.Sequence digest = new RecordDigest.Sequence();
        ordered.forEach(c -> digest.add(c.fingerprint()));
        return digest.finish();
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
            Config c = targetAdmin
                    .describeConfigs(List.of(r))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(r);
            ConfigEntry policy = c == null ? null : c.get("cleanup.policy");
            return policy != null && policy.value() != null && policy.value().contains("compact");
        } catch (Exception e) {
            return false;
        }
    }

    /** Runs a client call; a refusal becomes one line naming the cluster, READ on the topic, and the grant. */
    private static <T> T denialNamed(String cluster, String topic, java.util.function.Supplier<T> call) {
        try {
            return call.get();
        } catch (AuthorizationException e) {
            throw new IllegalStateException(AccessDenied.message(e, cluster, "READ", "topic " + topic), e);
        }
    }

    private List<ConsumerRecord<byte[], byte[]>> read(
            KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long from, long to) {
        return denialNamed(
                consumer == source ? "source" : "target", tp.topic(), () -> readRange(consumer, tp, from, to));
    }

    private List<ConsumerRecord<byte[], byte[]>> readRange(
            KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long from, long to) {
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
