package dev.strait.lag.sample;

import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes one {@link LagSnapshot}: source topics and end offsets, the mirror group's committed offsets, the
 * target end offsets, the newest record of every target partition (for its provenance), the mirror's read
 * positions, and the timestamp of the oldest record not yet mirrored. Every step is one batched call per
 * cluster (the clients group partitions by leader), never one request per partition.
 *
 * <p>Not thread-safe: one sampling thread owns it.
 */
public final class LagSampler implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(LagSampler.class);
    private static final long CALL_TIMEOUT_MS = 15_000;
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    private final LagMonitorConfig config;
    private final Time time;
    private final Admin source;
    private final Admin target;
    private final KafkaConsumer<byte[], byte[]> sourceReader;
    private final KafkaConsumer<byte[], byte[]> targetReader;
    private final @Nullable MirrorPositions positions;
    /** Newest mirrored source offset seen per source partition of the watched source cluster; kept across
     * cycles because in hash mode the newest target record of a partition speaks for only one of the source
     * partitions written there. Records whose provenance names another source cluster (a fan-in of two
     * mirrors into one target) are not counted. */
    private final Map<TopicPartition, Long> lastMirrored = new HashMap<>();
    /** Source partitions whose newest mirrored offset came from each target partition: reset on truncation. */
    private final Map<TopicPartition, Set<TopicPartition>> fedBy = new HashMap<>();
    /** The last end offset seen per target partition: one lower than before means truncated or re-created. */
    private final Map<TopicPartition, Long> lastTargetEnd = new HashMap<>();

    private @Nullable String sourceClusterId;
    /** Per source partition: {oldest unmirrored offset, when this monitor first saw it unmirrored}. */
    private final Map<TopicPartition, long[]> waitingSince = new HashMap<>();
    /** Target end offset at which each target partition's newest record was last read: unchanged, no re-read. */
    private final Map<TopicPartition, Long> newestReadAt = new HashMap<>();
    /** The source timestamp last read per partition, by offset: a record's timestamp never changes. */
    private final Map<TopicPartition, long[]> timestampAt = new HashMap<>();

    private int sourceCalls;
    private int targetCalls;
    /** This cycle's reads that ended by timeout rather than with a record or at the log end: warnings. */
    private final List<String> unread = new ArrayList<>();
    /** This cycle's target topic names as the target lists them to this principal, or null before the listing. */
    private @Nullable Set<String> targetTopicsListed;

    public LagSampler(LagMonitorConfig config, Time time) {
        this.config = config;
        this.time = time;
        this.source = Admin.create(adminProps(config.sourceClient(), "strait-lag-source"));
        this.target = Admin.create(adminProps(config.targetClient(), "strait-lag-target"));
        this.sourceReader = reader(config.sourceClient(), "strait-lag-source-reader");
        this.targetReader = reader(config.targetClient(), "strait-lag-target-reader");
        this.positions = config.mirrorMetricsUrl() == null ? null : new MirrorPositions(config.mirrorMetricsUrl());
    }

    public LagSnapshot sample() {
        long start = time.milliseconds();
        sourceCalls = 0;
        targetCalls = 0;
        targetTopicsListed = null;
        unread.clear();
        List<String> errors = new ArrayList<>();
        List<PartitionLag> out = new ArrayList<>();
        Map<TopicPartition, Long> sourceEnd;
        Map<TopicPartition, Long> sourceStart;
        List<TopicPartition> partitions;
        try {
            partitions = sourcePartitions();
            sourceEnd = offsets(source, partitions, OffsetSpec.latest(), true);
            sourceStart = offsets(source, partitions, OffsetSpec.earliest(), true);
        } catch (Exception e) {
            errors.add(failure(e, "source", "DESCRIBE", "a mirrored topic"));
            return new LagSnapshot(
                    start, time.milliseconds() - start, out, errors, List.of(), sourceCalls, targetCalls);
        }
        List<String> warnings = new ArrayList<>();
        if (partitions.isEmpty()) {
            String given = config.topics().pattern().replaceFirst("^\\(\\?!__\\)\\(\\?:(.*)\\)$", "$1");
            warnings.add(
                    "no source topic matches topics=" + given + ": none exists yet, or the lag "
                            + "monitor's principal (source. settings) may not DESCRIBE them; grant it READ on the mirrored topics");
        }
        Map<TopicPartition, Long> committed = committedOffsets(errors);
        if (sourceClusterId == null) {
            try {
                sourceCalls++;
                sourceClusterId = source.describeCluster().clusterId().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                errors.add("source cluster id: " + rootMessage(e));
                return new LagSnapshot(
                        start, time.milliseconds() - start, out, errors, List.of(), sourceCalls, targetCalls);
            }
        }
        Map<TopicPartition, TopicPartition> targetOf = new HashMap<>();
        for (TopicPartition tp : partitions) {
            targetOf.put(tp, new TopicPartition(config.renamer().targetTopic(tp.topic()), tp.partition()));
        }
        Map<TopicPartition, Long> targetEnd = Map.of();
        try {
            targetEnd = targetEndOffsets(new HashSet<>(targetOf.values()));
            readNewestTargetRecords(targetEnd);
        } catch (Exception e) {
            errors.add(failure(e, "target", "READ", "a target topic"));
        }
        if (targetTopicsListed != null) {
            warnings.addAll(invisibleTargets(partitions, targetOf, committed, targetTopicsListed));
        }
        Map<TopicPartition, Long> position = Map.of();
        if (positions != null) {
            try {
                position = positions.fetch();
            } catch (Exception e) {
                warnings.add("mirror metrics " + config.mirrorMetricsUrl() + ": " + rootMessage(e));
            }
        }
        Map<TopicPartition, Long> exact = new HashMap<>();
        Map<TopicPartition, Long> oldestUnmirrored = new HashMap<>();
        for (TopicPartition tp : partitions) {
            long end = sourceEnd.getOrDefault(tp, -1L);
            long begin = sourceStart.getOrDefault(tp, 0L);
            long last = lastMirrored.getOrDefault(tp, -1L);
            long lag = LagCalculator.exactLag(begin, end, last, committed.getOrDefault(tp, -1L));
            exact.put(tp, lag);
            if (lag > 0) {
                oldestUnmirrored.put(tp, Math.max(begin, end - lag));
            }
        }
        Map<TopicPartition, Long> timestamps;
        try {
            timestamps = readTimestamps(oldestUnmirrored, sourceEnd);
        } catch (RuntimeException e) {
            // The time lag then rests on how long this monitor has seen the records waiting.
            warnings.add(failure(e, "source", "READ", "a mirrored topic"));
            timestamps = Map.of();
        }
        warnings.addAll(unread);
        long now = time.milliseconds();
        for (TopicPartition tp : partitions) {
            long end = sourceEnd.getOrDefault(tp, -1L);
            long c = committed.getOrDefault(tp, -1L);
            long pos = position.getOrDefault(tp, -1L);
            long lag = Objects.requireNonNull(exact.get(tp), "exact lag");
            Long ts = timestamps.get(tp);
            long timeLag = lag == 0 ? 0 : timeLag(tp, oldestUnmirrored.get(tp), ts, now);
            TopicPartition t = Objects.requireNonNull(targetOf.get(tp), "target partition");
            out.add(new PartitionLag(
                    tp.topic(),
                    tp.partition(),
                    t.topic(),
                    sourceStart.getOrDefault(tp, -1L),
                    end,
                    targetEnd.getOrDefault(t, -1L),
                    c,
                    pos,
                    lastMirrored.getOrDefault(tp, -1L),
                    lag,
                    LagCalculator.lag(end, c),
                    LagCalculator.lag(end, pos),
                    timeLag));
        }
        out.sort((a, b) -> a.topic().equals(b.topic())
                ? Integer.compare(a.partition(), b.partition())
                : a.topic().compareTo(b.topic()));
        return new LagSnapshot(start, time.milliseconds() - start, out, errors, warnings, sourceCalls, targetCalls);
    }

    /**
     * Age of the oldest unmirrored record: by its timestamp, but never less than how long this monitor has
     * seen that very offset waiting. A producer whose clock runs ahead stamps records in the future; their
     * timestamp alone would hide the lag.
     */
    private long timeLag(TopicPartition tp, @Nullable Long oldestOffset, @Nullable Long timestamp, long now) {
        long[] since = waitingSince.get(tp);
        if (oldestOffset != null && (since == null || since[0] != oldestOffset)) {
            since = new long[] {oldestOffset, now};
            waitingSince.put(tp, since);
        }
        long seen = since == null ? 0 : now - since[1];
        if (timestamp == null) {
            return since == null ? -1 : seen;
        }
        return Math.max(Math.max(0, now - timestamp), seen);
    }

    private List<TopicPartition> sourcePartitions() throws Exception {
        sourceCalls++;
        Set<String> names = new HashSet<>();
        for (String name : source.listTopics().names().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            if (config.topics().matcher(name).matches()) {
                names.add(name);
            }
        }
        List<TopicPartition> out = new ArrayList<>();
        if (names.isEmpty()) {
            return out;
        }
        sourceCalls++;
        Map<String, TopicDescription> d =
                source.describeTopics(names).allTopicNames().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        d.values().forEach(td -> td.partitions().forEach(p -> out.add(new TopicPartition(td.name(), p.partition()))));
        return out;
    }

    private Map<TopicPartition, Long> offsets(
            Admin admin, Collection<TopicPartition> tps, OffsetSpec spec, boolean isSource) throws Exception {
        if (isSource) {
            sourceCalls++;
        } else {
            targetCalls++;
        }
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        tps.forEach(tp -> specs.put(tp, spec));
        Map<TopicPartition, Long> out = new HashMap<>();
        if (specs.isEmpty()) {
            return out;
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> r =
                admin.listOffsets(specs).all().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        r.forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    private Map<TopicPartition, Long> committedOffsets(List<String> errors) {
        sourceCalls++;
        Map<TopicPartition, Long> out = new HashMap<>();
        try {
            Map<TopicPartition, OffsetAndMetadata> m = source.listConsumerGroupOffsets(config.mirrorGroupId())
                    .partitionsToOffsetAndMetadata()
                    .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            m.forEach((tp, om) -> {
                if (om != null) {
                    out.put(tp, om.offset());
                }
            });
        } catch (Exception e) {
            AuthorizationException denied = AccessDenied.find(e);
            errors.add(
                    denied != null
                            ? AccessDenied.message(denied, "source", "DESCRIBE", "group " + config.mirrorGroupId())
                            : "committed offsets of group " + config.mirrorGroupId() + ": " + rootMessage(e));
        }
        return out;
    }

    /** End offsets of the target partitions that exist; missing target topics are simply not mirrored yet. */
    private Map<TopicPartition, Long> targetEndOffsets(Set<TopicPartition> wanted) throws Exception {
        Set<String> topics = new HashSet<>();
        wanted.forEach(tp -> topics.add(tp.topic()));
        if (topics.isEmpty()) {
            return Map.of();
        }
        targetCalls++;
        Set<String> existing = target.listTopics().names().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        targetTopicsListed = existing;
        List<TopicPartition> present = new ArrayList<>();
        for (TopicPartition tp : wanted) {
            if (existing.contains(tp.topic())) {
                present.add(tp);
            }
        }
        try {
            return offsets(target, present, OffsetSpec.latest(), false);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Map.of();
            }
            throw e;
        }
    }

    /**
     * Reads the newest record of every non-empty target partition in one consumer pass and remembers, per
     * source partition, the newest source offset that reached the target.
     */
    private void readNewestTargetRecords(Map<TopicPartition, Long> targetEnd) {
        targetEnd.forEach((tp, end) -> {
            Long before = lastTargetEnd.put(tp, end);
            if (before != null && end < before) {
                // Truncated or re-created: what it said of the source no longer holds; the running maximum starts over.
                LOGGER.info(
                        "Target partition {} went back from end offset {} to {}; forgetting what it held",
                        tp,
                        before,
                        end);
                for (TopicPartition src : fedBy.getOrDefault(tp, Set.of())) {
                    lastMirrored.remove(src);
                }
                fedBy.remove(tp);
                newestReadAt.remove(tp);
            }
        });
        Map<TopicPartition, Long> seekTo = new HashMap<>();
        targetEnd.forEach((tp, end) -> {
            if (end > 0 && !end.equals(newestReadAt.get(tp))) {
                seekTo.put(tp, end - 1);
            }
        });
        if (seekTo.isEmpty()) {
            return;
        }
        targetCalls++;
        // The last offset may be a transaction marker, which yields no record: give up on a partition once the
        // reader's position reaches the end, rather than waiting out the read timeout.
        List<ConsumerRecord<byte[], byte[]>> newest = readAt(targetReader, "target", seekTo, targetEnd);
        for (ConsumerRecord<byte[], byte[]> r : newest) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            newestReadAt.put(tp, Objects.requireNonNull(seekTo.get(tp), "seek offset") + 1);
            Provenance p = Provenance.from(r.headers());
            if (p != null && p.sourceCluster().equals(sourceClusterId)) {
                TopicPartition src = new TopicPartition(p.topic(), p.partition());
                lastMirrored.merge(src, p.offset(), Math::max);
                fedBy.computeIfAbsent(tp, k -> new HashSet<>()).add(src);
            }
        }
    }

    private Map<TopicPartition, Long> readTimestamps(Map<TopicPartition, Long> at, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> out = new HashMap<>();
        Map<TopicPartition, Long> toRead = new HashMap<>();
        at.forEach((tp, offset) -> {
            long[] known = timestampAt.get(tp);
            if (known != null && known[0] == offset) {
                out.put(tp, known[1]);
            } else {
                toRead.put(tp, offset);
            }
        });
        if (toRead.isEmpty()) {
            return out;
        }
        sourceCalls++;
        for (ConsumerRecord<byte[], byte[]> r : readAt(sourceReader, "source", toRead, ends)) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            if (out.putIfAbsent(tp, r.timestamp()) == null) {
                timestampAt.put(tp, new long[] {toRead.get(tp), r.timestamp()});
            }
        }
        return out;
    }

    /**
     * One record (at least) from each partition at the given offset; partitions that yield nothing in time, or
     * whose position reaches {@code ends} without a record (only markers left), are skipped.
     */
    private List<ConsumerRecord<byte[], byte[]>> readAt(
            KafkaConsumer<byte[], byte[]> consumer,
            String cluster,
            Map<TopicPartition, Long> at,
            Map<TopicPartition, Long> ends) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        if (at.isEmpty()) {
            return out;
        }
        consumer.assign(at.keySet());
        at.forEach(consumer::seek);
        Set<TopicPartition> pending = new HashSet<>(at.keySet());
        long deadline = time.milliseconds() + READ_TIMEOUT.toMillis();
        while (!pending.isEmpty() && time.milliseconds() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (pending.remove(tp)) {
                    out.add(r);
                    consumer.pause(List.of(tp));
                }
            }
            for (java.util.Iterator<TopicPartition> it = pending.iterator(); it.hasNext(); ) {
                TopicPartition tp = it.next();
                Long end = ends.get(tp);
                if (end != null && consumer.position(tp, Duration.ZERO) >= end) {
                    it.remove();
                    consumer.pause(List.of(tp));
                }
            }
        }
        if (!pending.isEmpty()) {
            List<String> names =
                    pending.stream().map(TopicPartition::toString).sorted().toList();
            unread.add("no record read from the " + cluster + " within " + READ_TIMEOUT.toSeconds() + " s: "
                    + String.join(", ", names.subList(0, Math.min(5, names.size())))
                    + (names.size() > 5 ? " and " + (names.size() - 5) + " more" : "")
                    + " (read again next cycle)");
        }
        consumer.assign(List.of());
        return out;
    }

    private static Properties adminProps(Properties client, String clientId) {
        Properties p = ClientConfigs.only(client, AdminClientConfig.configNames());
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(CALL_TIMEOUT_MS));
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return p;
    }

    private static KafkaConsumer<byte[], byte[]> reader(Properties client, String clientId) {
        Properties p = ClientConfigs.only(client, ConsumerConfig.configNames());
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "65536");
        // One record per partition is wanted, from thousands of partitions: take them in few polls.
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20000");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * A target topic missing although the mirror committed offsets of its source partitions: deleted, or
     * hidden from this principal (without DESCRIBE a topic does not exist for a client).
     */
    private static List<String> invisibleTargets(
            List<TopicPartition> partitions,
            Map<TopicPartition, TopicPartition> targetOf,
            Map<TopicPartition, Long> committed,
            Set<String> present) {
        Set<String> missing = new java.util.TreeSet<>();
        for (TopicPartition tp : partitions) {
            String t =
                    Objects.requireNonNull(targetOf.get(tp), "target partition").topic();
            if (committed.getOrDefault(tp, -1L) > 0 && !present.contains(t)) {
                missing.add(t);
            }
        }
        List<String> out = new ArrayList<>();
        for (String topic : missing) {
            out.add("target topic " + topic + " is not visible on the target although the mirror committed offsets for "
                    + "it: it was deleted, or the lag monitor's principal (target. settings) may not READ it; grant it READ "
                    + "on topic " + topic + " on the target");
        }
        return out;
    }

    /** One line for a failed step: what the principal lacks when the cluster refused it, else the root cause. */
    private static String failure(Throwable e, String cluster, String operation, String resource) {
        AuthorizationException denied = AccessDenied.find(e);
        return denied != null
                ? AccessDenied.message(denied, cluster, operation, resource)
                : cluster + " cluster: " + rootMessage(e);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while ((t instanceof ExecutionException || t.getCause() != null && t.getMessage() == null)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    @Override
    public void close() {
        source.close(Duration.ofSeconds(5));
        target.close(Duration.ofSeconds(5));
        sourceReader.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        targetReader.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
}
