package dev.strait.mirror.engine;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.TopicConfigFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.sync.SyncMetrics;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target topics: each one exists before the first record is sent to it, with at least its source's
 * partitions, and stays in step with its source while the mirror runs.
 *
 * <ul>
 *   <li><b>Creation</b>: the source's partition count and every setting the {@link TopicConfigFilter} lets
 *       through, with {@code message.timestamp.type=CreateTime} so that the copies keep the source's timestamps
 *       (a LogAppendTime source included). Creating topics ahead of the producer avoids the metadata stalls and
 *       idempotent-sequence errors that auto-creation under a running producer invites.</li>
 *   <li><b>Partitions</b>: when a source topic has more partitions than its target (it grew), the target grows
 *       to match, at once when a new source partition is assigned and in every {@link #syncAll} round. Never
 *       shrunk (Kafka cannot).</li>
 *   <li><b>Settings</b>: in every round, source settings that differ on the target are set on it
 *       (incrementally; settings made only on the target are left alone).</li>
 *   <li><b>ACLs</b> (when asked for): every ACL on the source that grants or denies READ or DESCRIBE on a
 *       mirrored topic (literal, prefixed or wildcard) is created on the target for the target topic, as a
 *       literal ACL; ALL becomes READ and DESCRIBE; WRITE and the other operations are never copied, so only the
 *       mirror writes to a target topic. ACLs are added, not removed (as MirrorMaker 2). Needs an authorizer on
 *       both clusters; without one the sync turns itself off with a log line.</li>
 * </ul>
 * Each kind of sync counts rounds, failures and changes ({@code strait.mirror.sync.<kind>.*}); a failed round is
 * logged with what to check and retried on the next interval, never failing the mirror.
 *
 * <p>Thread-safe: streams call {@link #ensure} concurrently; each topic is resolved once (one caller does the admin
 * calls, the others wait for its result). A failed resolution is forgotten, so a later call retries.
 * {@link #syncAll} runs on the engine's topic sync thread.
 */
public final class TargetTopics {
    private static final Logger LOGGER = LoggerFactory.getLogger(TargetTopics.class);
    private static final long ADMIN_TIMEOUT_MS = 60_000;
    private static final long WRITABLE_POLL_MS = 50;
    /**
     * How long a max.message.bytes read from the target counts as current. Bounds the admin calls a stream of
     * records truly too large can cause (one read per topic per interval, not one per record); a change made by
     * this mirror's config sync is taken at once, whatever the interval.
     */
    private static final long LIMIT_FRESH_MS = 1_000;

    /** A target topic's max.message.bytes and when it was read. */
    private record Limit(int maxMessageBytes, long readAtMs) {}

    /** What the mirror needs to know of a target topic. Immutable. */
    public record TargetTopic(String name, int partitions, int maxMessageBytes) {}

    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final short replicationFactor;
    private final int producerBatchBytes;
    private final TopicSyncConfig sync;
    private final TopicRenamer renamer;
    private final Time time;
    private final Map<String, CompletableFuture<TargetTopic>> topics = new ConcurrentHashMap<>();
    /** Target topic to source topic, for every mirrored pair seen (not a handler's extra topics). */
    private final Map<String, String> pairs = new ConcurrentHashMap<>();
    /** The max.message.bytes last read by {@link #currentMaxMessageBytes} or set by the config sync, per target topic. */
    private final Map<String, Limit> limits = new ConcurrentHashMap<>();

    private final SyncMetrics configMetrics;
    private final SyncMetrics partitionMetrics;
    private final SyncMetrics aclMetrics;
    private final TopicAclSync acls;

    /** Creation only, as before the syncs: kept for callers that do not sync (tests, tools). */
    public TargetTopics(Admin sourceAdmin, Admin targetAdmin, short replicationFactor, int producerBatchBytes) {
        this(
                sourceAdmin,
                targetAdmin,
                replicationFactor,
                producerBatchBytes,
                TopicSyncConfig.defaults(),
                TopicRenamer.identity(),
                Time.SYSTEM,
                new MetricRegistry());
    }

    public TargetTopics(
            Admin sourceAdmin,
            Admin targetAdmin,
            short replicationFactor,
            int producerBatchBytes,
            TopicSyncConfig sync,
            TopicRenamer renamer,
            Time time,
            MetricRegistry registry) {
        this.sourceAdmin = sourceAdmin;
        this.targetAdmin = targetAdmin;
        this.replicationFactor = replicationFactor;
        this.producerBatchBytes = producerBatchBytes;
        this.sync = sync;
        this.renamer = renamer;
        this.time = time;
        this.configMetrics = new SyncMetrics(registry, "topic-configs");
        this.partitionMetrics = new SyncMetrics(registry, "partitions");
        this.aclMetrics = new SyncMetrics(registry, "acls");
        this.acls = new TopicAclSync(sourceAdmin, targetAdmin, ADMIN_TIMEOUT_MS);
    }

    /**
     * Creates {@code targetTopic} if it is missing (with the partition count and settings of
     * {@code sourceTopic}), grows it if the source has more partitions, and returns what the mirror needs to
     * know of it. Blocks for at most about two admin timeouts.
     */
    public TargetTopic ensure(String sourceTopic, String targetTopic) {
        CompletableFuture<TargetTopic> mine = new CompletableFuture<>();
        CompletableFuture<TargetTopic> existing = topics.putIfAbsent(targetTopic, mine);
        if (existing != null) {
            return await(existing, targetTopic);
        }
        try {
            mine.complete(resolve(sourceTopic, targetTopic));
        } catch (RuntimeException e) {
            topics.remove(targetTopic, mine);
            mine.completeExceptionally(e);
        }
        return await(mine, targetTopic);
    }

    /** Forgets what is known of a target topic, so the next {@link #ensure} looks again (e.g. after it grew). */
    public void refresh(String targetTopic) {
        topics.remove(targetTopic);
    }

    private TargetTopic resolve(String sourceTopic, String targetTopic) {
        if (renamer.targetTopic(sourceTopic).equals(targetTopic)) {
            pairs.put(targetTopic, sourceTopic);
        }
        int partitions = partitionCount(sourceTopic, targetTopic);
        int maxMessageBytes = maxMessageBytes(targetTopic);
        if (maxMessageBytes < producerBatchBytes) {
            LOGGER.warn(
                    "Target topic {} accepts batches of at most {} bytes (max.message.bytes) but the producer's "
                            + "batch.size is {}: the producer can retry an oversized batch until delivery.timeout.ms. Set batch.size "
                            + "in --producer.config below {}",
                    targetTopic,
                    maxMessageBytes,
                    producerBatchBytes,
                    maxMessageBytes);
        }
        // Not remembered as current: the stream that asks for the current limit has a record over this one, and the
        // source may have raised it since (a sync now may raise the target's too).
        return new TargetTopic(targetTopic, partitions, maxMessageBytes);
    }

    /**
     * The max.message.bytes of {@code targetTopic} as it is now, asked before a record is refused as too large.
     * With the config sync on, the pair's settings are synced first, so a limit raised on the source reaches the
     * target now rather than at the next round (and the record the source took is not refused by the mirror). The
     * answer is read afresh unless an earlier call read it less than {@link #LIMIT_FRESH_MS} ago (a run of records
     * too large costs one read per interval) or the config sync set it since. Thread-safe; called by the streams.
     */
    public int currentMaxMessageBytes(String sourceTopic, String targetTopic) {
        long now = time.milliseconds();
        Limit known = limits.get(targetTopic);
        if (known != null && now - known.readAtMs() < LIMIT_FRESH_MS) {
            return known.maxMessageBytes();
        }
        if (sync.configs() && sourceTopic.equals(pairs.get(targetTopic))) {
            try {
                syncConfigs(Map.of(targetTopic, sourceTopic));
            } catch (RuntimeException e) {
                LOGGER.warn(
                        "Could not sync the settings of target topic {} before checking a large record against its "
                                + "max.message.bytes: {}",
                        targetTopic,
                        e.getMessage());
            }
        }
        int limit = maxMessageBytes(targetTopic);
        limits.put(targetTopic, new Limit(limit, time.milliseconds()));
        // The next lookup of the topic (a partition assigned again) reads it afresh too.
        refresh(targetTopic);
        return limit;
    }

    private int maxMessageBytes(String targetTopic) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, targetTopic);
        try {
            Config config = Objects.requireNonNull(
                    targetAdmin
                            .describeConfigs(List.of(resource))
                            .all()
                            .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                            .get(resource),
                    "describeConfigs answers for the topic it was asked");
            ConfigEntry type = config.get("message.timestamp.type");
            if (type != null && "LogAppendTime".equals(type.value())) {
                LOGGER.warn(
                        "Target topic {} has message.timestamp.type=LogAppendTime: the target overwrites the source "
                                + "timestamps the mirror copies. Set it to CreateTime on the target to keep them",
                        targetTopic);
            }
            ConfigEntry entry = config.get("max.message.bytes");
            return entry == null || entry.value() == null ? Integer.MAX_VALUE : Integer.parseInt(entry.value());
        } catch (Exception e) {
            LOGGER.warn(
                    "Could not read max.message.bytes of target topic {} ({}); oversized records will be reported "
                            + "by the target instead",
                    targetTopic,
                    e.toString());
            return Integer.MAX_VALUE;
        }
    }

    private int partitionCount(String sourceTopic, String targetTopic) {
        Optional<Integer> existing = describe(targetAdmin, targetTopic);
        if (existing.isPresent()) {
            if (!sync.partitions()) {
                return existing.get();
            }
            int source = describe(sourceAdmin, sourceTopic).orElse(existing.get());
            return source > existing.get() ? grow(targetTopic, existing.get(), source) : existing.get();
        }
        int partitions = describe(sourceAdmin, sourceTopic)
                .orElseThrow(() -> new MirrorException("source topic " + sourceTopic
                        + " vanished while the mirror was creating its target " + targetTopic));
        Map<String, String> configs = copiedConfigs(sourceTopic);
        // The copies carry the source's timestamps; a LogAppendTime target would replace them.
        configs.put("message.timestamp.type", "CreateTime");
        NewTopic topic = new NewTopic(
                        targetTopic,
                        Optional.of(partitions),
                        replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor))
                .configs(configs);
        try {
            targetAdmin.createTopics(List.of(topic)).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOGGER.info(
                    "Created target topic {} with {} partitions (replication factor {}, configs {})",
                    targetTopic,
                    partitions,
                    replicationFactor < 0 ? "broker default" : replicationFactor,
                    configs);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new MirrorException(
                        "could not create target topic " + targetTopic + ": "
                                + MirrorException.causeMessage(e)
                                + "; create it on the target cluster or give the mirror's producer principal CREATE rights",
                        e.getCause());
            }
        } catch (Exception e) {
            throw new MirrorException("could not create target topic " + targetTopic + ": " + e, e);
        }
        // Another mirror instance may have created it first with a different count: read back the truth.
        int actual = describe(targetAdmin, targetTopic).orElse(partitions);
        awaitWritable(targetTopic, actual);
        return actual;
    }

    /** Grows the target topic to {@code to} partitions and waits until the new ones take writes. */
    private int grow(String targetTopic, int from, int to) {
        try {
            targetAdmin
                    .createPartitions(Map.of(targetTopic, NewPartitions.increaseTo(to)))
                    .all()
                    .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOGGER.info("Grew target topic {} from {} to {} partitions, as its source grew", targetTopic, from, to);
            partitionMetrics.changed(1);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof InvalidPartitionsException)) {
                throw new MirrorException(
                        "could not grow target topic " + targetTopic + " from " + from + " to " + to
                                + " partitions: " + MirrorException.causeMessage(e)
                                + "; add them on the target (kafka-topics --alter "
                                + "--partitions " + to + ") or grant ALTER on the topic",
                        e.getCause());
            }
            // Another mirror process grew it first.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException("interrupted while growing target topic " + targetTopic, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new MirrorException("timed out growing target topic " + targetTopic, e);
        }
        int actual = describe(targetAdmin, targetTopic).orElse(to);
        awaitWritable(targetTopic, actual);
        return actual;
    }

    /**
     * Waits until every partition's leader serves the new topic. A broker lists a new topic in its
     * metadata a moment before the partition exists in its log; an idempotent producer that writes in that
     * window gets NOT_LEADER_OR_FOLLOWER and then can stall on OUT_OF_ORDER_SEQUENCE_NUMBER retries.
     */
    private void awaitWritable(String topic, int partitions) {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            specs.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long deadline = time.milliseconds() + ADMIN_TIMEOUT_MS;
        Exception last = null;
        while (time.milliseconds() < deadline) {
            try {
                targetAdmin.listOffsets(specs).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MirrorException("interrupted while waiting for target topic " + topic, e);
            } catch (Exception e) {
                last = e;
                time.sleep(WRITABLE_POLL_MS);
            }
        }
        throw new MirrorException(
                "target topic " + topic + " has partitions that did not come online within " + ADMIN_TIMEOUT_MS
                        + " ms: " + last,
                last);
    }

    /** The settings made on {@code sourceTopic} that the filter lets through; empty if they cannot be read. */
    private Map<String, String> copiedConfigs(String sourceTopic) {
        try {
            return copiedConfigs(sourceConfigs(List.of(sourceTopic)).get(sourceTopic));
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "Could not read configs of source topic {} ({}); the target topic gets the target's defaults",
                    sourceTopic,
                    e.toString());
            return new HashMap<>();
        }
    }

    private Map<String, String> copiedConfigs(@Nullable Config config) {
        Map<String, String> out = new HashMap<>();
        if (config == null) {
            return out;
        }
        TopicConfigFilter filter = sync.filter();
        for (ConfigEntry entry : config.entries()) {
            if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                    && entry.value() != null
                    && filter.copies(entry.name())) {
                out.put(entry.name(), entry.value());
            }
        }
        return out;
    }

    private Map<String, Config> sourceConfigs(Collection<String> topics) {
        return configs(sourceAdmin, topics);
    }

    private static Map<String, Config> configs(Admin admin, Collection<String> topics) {
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .toList();
        try {
            Map<ConfigResource, Config> all =
                    admin.describeConfigs(resources).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            Map<String, Config> out = new HashMap<>();
            all.forEach((r, c) -> out.put(r.name(), c));
            return out;
        } catch (ExecutionException e) {
            throw new MirrorException("could not read topic configs: " + MirrorException.causeMessage(e), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException("interrupted reading topic configs", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new MirrorException("timed out reading topic configs", e);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // The periodic syncs

    /**
     * One round of every sync that is on, for every mirrored topic seen so far. Never throws: a failed kind is
     * logged, counted and retried on the next round.
     */
    public void syncAll() {
        Map<String, String> snapshot = Map.copyOf(pairs);
        if (snapshot.isEmpty()) {
            return;
        }
        if (sync.partitions()) {
            run(partitionMetrics, "partition counts", () -> syncPartitions(snapshot));
        }
        if (sync.configs()) {
            run(configMetrics, "topic configs", () -> syncConfigs(snapshot));
        }
        if (sync.acls() && acls.available()) {
            run(aclMetrics, "ACLs", () -> acls.sync(snapshot));
        }
    }

    private interface Step {
        long run();
    }

    private void run(SyncMetrics metrics, String what, Step step) {
        try (var ignored = metrics.time()) {
            long failedBefore = metrics.consecutiveFailures();
            long changes = step.run();
            metrics.succeeded(time.milliseconds(), changes);
            if (failedBefore > 0) {
                LOGGER.info("Sync of {} to the target works again after {} failed rounds", what, failedBefore);
            }
        } catch (RuntimeException e) {
            long n = metrics.failed();
            if (SyncMetrics.worthLogging(n)) {
                LOGGER.warn(
                        "Sync of {} to the target failed ({} in a row): {}; retrying every {} ms",
                        what,
                        n,
                        e.getMessage(),
                        sync.intervalMs());
            }
        }
    }

    /** Growth is counted where it happens ({@link #grow}), so this round reports no changes of its own. */
    private long syncPartitions(Map<String, String> pairs) {
        long changes = 0;
        for (Map.Entry<String, String> p : pairs.entrySet()) {
            Optional<Integer> source = describe(sourceAdmin, p.getValue());
            Optional<Integer> target = describe(targetAdmin, p.getKey());
            if (source.isPresent() && target.isPresent() && source.get() > target.get()) {
                grow(p.getKey(), target.get(), source.get());
                refresh(p.getKey());
            }
        }
        return changes;
    }

    private long syncConfigs(Map<String, String> pairs) {
        Map<String, Config> source = sourceConfigs(new HashSet<>(pairs.values()));
        Map<String, Config> target = configs(targetAdmin, pairs.keySet());
        Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
        for (Map.Entry<String, String> p : pairs.entrySet()) {
            Map<String, String> wanted = copiedConfigs(source.get(p.getValue()));
            Config now = target.get(p.getKey());
            List<AlterConfigOp> changes = new ArrayList<>();
            for (Map.Entry<String, String> w : wanted.entrySet()) {
                ConfigEntry current = now == null ? null : now.get(w.getKey());
                if (current == null || !w.getValue().equals(current.value())) {
                    changes.add(new AlterConfigOp(new ConfigEntry(w.getKey(), w.getValue()), AlterConfigOp.OpType.SET));
                }
            }
            if (!changes.isEmpty()) {
                ops.put(new ConfigResource(ConfigResource.Type.TOPIC, p.getKey()), changes);
            }
        }
        if (ops.isEmpty()) {
            return 0;
        }
        try {
            targetAdmin.incrementalAlterConfigs(ops).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new MirrorException(
                    "could not alter target topic configs " + ops.keySet() + ": "
                            + MirrorException.causeMessage(e)
                            + "; grant ALTER_CONFIGS on the target topics",
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException("interrupted altering target topic configs", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new MirrorException("timed out altering target topic configs", e);
        }
        long n = 0;
        long now = time.milliseconds();
        for (Map.Entry<ConfigResource, Collection<AlterConfigOp>> e : ops.entrySet()) {
            for (AlterConfigOp op : e.getValue()) {
                if (op.configEntry().name().equals("max.message.bytes")) {
                    // The streams' routes learn it before they refuse a record as too large.
                    limits.put(
                            e.getKey().name(),
                            new Limit(Integer.parseInt(op.configEntry().value()), now));
                }
            }
            LOGGER.info(
                    "Target topic {}: set {} as on its source",
                    e.getKey().name(),
                    e.getValue().stream()
                            .map(op -> op.configEntry().name() + "="
                                    + op.configEntry().value())
                            .toList());
            n += e.getValue().size();
        }
        return n;
    }

    /** A source ACL that applies to a mirrored topic, as literal ACLs on its target topic (see TopicAclSync). */
    static List<AclBinding> targetAcls(AclBinding source, String targetTopic) {
        return TopicAclSync.targetAcls(source, targetTopic);
    }

    private static Optional<Integer> describe(Admin admin, String topic) {
        try {
            TopicDescription d = Objects.requireNonNull(
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                            .get(topic),
                    "describeTopics answers for the topic it was asked");
            return Optional.of(d.partitions().size());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw new MirrorException("could not describe topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (Exception e) {
            throw new MirrorException("could not describe topic " + topic + ": " + e, e);
        }
    }

    private static TargetTopic await(CompletableFuture<TargetTopic> f, String topic) {
        try {
            return f.get(3 * ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof MirrorException) {
                throw (MirrorException) e.getCause();
            }
            throw new MirrorException("could not prepare target topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException("interrupted while preparing target topic " + topic, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new MirrorException("timed out preparing target topic " + topic, e);
        }
    }
}
