package dev.strait.mirror.linked;

import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.engine.TopicAclSync;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.SyncMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset-preserving mirror ({@code --offset.preserving}): the mirror process is the control point while the
 * companion cluster's partition leaders copy the batches from the source themselves, at the source's offsets. On
 * its one {@code strait-linked-mirror} thread it
 * <ul>
 *   <li>every discovery interval (the consumer config's {@code metadata.max.age.ms}, as the ordinary mirror finds
 *       new topics): creates a mirror topic for each matching source topic (its partition count, the settings the
 *       ordinary mirror copies, the mirror configs with the source topic's id), grows mirror topics whose source
 *       gained partitions, and reports any topic of the same name that is not a mirror of that source, which it
 *       never changes (see {@link TopicPlan});</li>
 *   <li>every {@code sync.topics.interval.ms}: copies source settings that changed;</li>
 *   <li>every {@code sync.group.offsets.interval.ms}: measures the lag of every mirrored partition (source end
 *       minus target end) and copies the committed offsets of the matching groups that have no members on the
 *       target, verbatim (see {@link GroupPlan}).</li>
 * </ul>
 * No record passes through this process, and no consumer of the mirror's group reads the source. A failed round is
 * logged, counted ({@code strait.mirror.sync.<kind>.*}) and tried again at the next interval; it never stops the
 * mirror.
 *
 * <pre>
 *   NEW --start()--> RUNNING --requestStop()--> STOPPING --the loop ended--> STOPPED
 *   NEW --start() fails--> FAILED
 * </pre>
 *
 * <p>Thread-safe: {@link #requestStop()} and the accessors may be called from any thread; the loop owns the rest.
 */
public final class LinkedMirror implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(LinkedMirror.class);
    private static final long TIMEOUT_MS = 30_000;

    public enum State {
        NEW,
        RUNNING,
        STOPPING,
        STOPPED,
        FAILED
    }

    /** A mirror topic of ours: the source's partition count and the target's. */
    private record Linked(int sourcePartitions, int targetPartitions) {}

    private final LinkSettings settings;
    private final MirrorMetrics metrics;
    private final Time time;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final Object wakeup = new Object();
    private final SyncMetrics topicMetrics;
    private final SyncMetrics configMetrics;
    private final SyncMetrics groupMetrics;
    private final SyncMetrics aclMetrics;
    /** Set in start(), with the admin clients. */
    private TopicAclSync acls;

    private volatile boolean stopRequested;
    private volatile Map<String, Linked> mirrored = Map.of();
    private volatile Map<String, String> skipped = Map.of();
    private long groupOffsetsWritten;
    private Admin sourceAdmin;
    private Admin targetAdmin;
    private String sourceClusterId;
    private String targetClusterId;
    private Thread thread;

    public LinkedMirror(LinkSettings settings, MirrorMetrics metrics, Time time) {
        this.settings = settings;
        this.metrics = metrics;
        this.time = time;
        this.topicMetrics = new SyncMetrics(metrics.registry(), "mirror-topics");
        this.configMetrics = new SyncMetrics(metrics.registry(), "topic-configs");
        this.groupMetrics = new SyncMetrics(metrics.registry(), "group-offsets");
        this.aclMetrics = new SyncMetrics(metrics.registry(), "acls");
        metrics.registry().gauge(MirrorMetrics.PREFIX + "linked.topics", () -> () -> mirrored.size());
        metrics.registry().gauge(MirrorMetrics.PREFIX + "linked.topics-skipped", () -> () -> skipped.size());
    }

    /**
     * Connects to both clusters and checks that the target is a companion cluster, then starts the loop. Throws
     * {@link dev.strait.mirror.config.ConfigException} (a target that is not a companion cluster) or
     * {@link LinkException} (a cluster unreachable), and starts nothing.
     */
    public synchronized void start() {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("already started (state " + state.get() + ")");
        }
        try {
            sourceAdmin = Admin.create(ClientConfigs.admin(settings.sourceClient(), "strait-mirror-source-admin"));
            targetAdmin = Admin.create(ClientConfigs.admin(settings.targetClient(), "strait-mirror-target-admin"));
            acls = new TopicAclSync(sourceAdmin, targetAdmin, TIMEOUT_MS);
            String targetServers = settings.targetClient().getProperty("bootstrap.servers");
            sourceClusterId = clusterId(sourceAdmin, "source", settings.sourceClient());
            targetClusterId = clusterId(targetAdmin, "target", settings.targetClient());
            if (sourceClusterId.equals(targetClusterId)) {
                throw new LinkException(
                        "source and target are the same cluster (" + sourceClusterId + "); "
                                + "check bootstrap.servers in --consumer.config and --producer.config",
                        null);
            }
            CompanionProbe.requireCompanion(targetAdmin, targetServers, settings.source());
        } catch (RuntimeException e) {
            failure.set(e);
            state.set(State.FAILED);
            closeAdmins();
            terminated.countDown();
            throw e;
        }
        LOGGER.info(
                "Mirroring topics matching '{}' from cluster {} to companion cluster {}, offset-preserving: the "
                        + "companion brokers copy the batches from the source at {}",
                settings.topics().pattern(),
                sourceClusterId,
                targetClusterId,
                settings.source());
        thread = new Thread(this::run, "strait-linked-mirror");
        thread.start();
    }

    private void run() {
        try {
            long now = time.milliseconds();
            long nextTopics = now;
            long nextConfigs = now + settings.topicSync().intervalMs();
            long nextGroups = now;
            long nextProgress = now + settings.progressIntervalMs();
            while (!stopRequested) {
                now = time.milliseconds();
                if (now >= nextTopics) {
                    boolean configs = settings.topicSync().configs() && now >= nextConfigs;
                    topicRound(configs);
                    if (configs) {
                        aclRound();
                        nextConfigs = now + settings.topicSync().intervalMs();
                    }
                    nextTopics = now + settings.discoveryIntervalMs();
                }
                if (now >= nextGroups && !stopRequested) {
                    groupRound();
                    nextGroups = now + settings.groupIntervalMs();
                }
                if (now >= nextProgress) {
                    logProgress();
                    nextProgress = now + settings.progressIntervalMs();
                }
                long next = Math.min(nextTopics, Math.min(nextGroups, nextProgress));
                try {
                    time.waitObject(wakeup, () -> stopRequested || time.milliseconds() >= next, next);
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    // the deadline passed between two looks at the clock
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // Rounds catch their own failures; this is a bug, and the mirror must not look healthy after it.
            failure.compareAndSet(null, e);
            LOGGER.error("The offset-preserving mirror's loop failed", e);
        } finally {
            closeAdmins();
            state.set(failure.get() == null ? State.STOPPED : State.FAILED);
            LOGGER.info("Mirror {}", state.get().name().toLowerCase(Locale.ROOT));
            terminated.countDown();
        }
    }

    /** Creates, grows and (with {@code syncConfigs}) updates the mirror topics; reports the topics it skips. */
    void topicRound(boolean syncConfigs) {
        long now = time.milliseconds();
        int changes = 0;
        int configChanges = 0;
        List<String> failed = new ArrayList<>();
        try {
            Set<String> names =
                    Clusters.get(sourceAdmin.listTopics().names(), TIMEOUT_MS, "list source topics").stream()
                            .filter(t -> settings.topics().matcher(t).matches())
                            .collect(Collectors.toCollection(HashSet::new));
            Map<String, TopicDescription> sources = describe(sourceAdmin, names);
            Set<String> onTarget =
                    new HashSet<>(Clusters.get(targetAdmin.listTopics().names(), TIMEOUT_MS, "list target topics"));
            onTarget.retainAll(sources.keySet());
            Map<String, Integer> targetPartitions = Clusters.partitionCounts(targetAdmin, onTarget, TIMEOUT_MS);
            Map<String, Config> targetConfigs = configs(targetAdmin, targetPartitions.keySet());
            Set<String> needSourceConfigs = new HashSet<>(sources.keySet());
            if (!syncConfigs) {
                needSourceConfigs.removeAll(targetPartitions.keySet());
            }
            Map<String, Config> sourceConfigs = configs(sourceAdmin, needSourceConfigs);
            Map<String, Linked> nowMirrored = new TreeMap<>();
            Map<String, String> nowSkipped = new TreeMap<>();
            for (TopicDescription d : sources.values()) {
                String topic = d.name();
                TopicPlan.Source source = new TopicPlan.Source(
                        topic, d.topicId().toString(), d.partitions().size(), copied(sourceConfigs.get(topic)));
                Integer partitions = targetPartitions.get(topic);
                TopicPlan.Target target =
                        partitions == null ? null : new TopicPlan.Target(partitions, values(targetConfigs.get(topic)));
                TopicPlan.Decision decision = TopicPlan.decide(
                        source, target, settings.source(), settings.topicSync().partitions());
                try {
                    if (decision instanceof TopicPlan.Create create) {
                        create(source, create);
                        changes++;
                        nowMirrored.put(topic, new Linked(source.partitions(), create.partitions()));
                    } else if (decision instanceof TopicPlan.Keep keep) {
                        int targetCount = partitions;
                        if (keep.growTo() > 0) {
                            targetCount = grow(topic, partitions, keep.growTo());
                            changes++;
                        }
                        if (!keep.configChanges().isEmpty()) {
                            alter(topic, keep.configChanges());
                            configChanges += keep.configChanges().size();
                        }
                        nowMirrored.put(topic, new Linked(source.partitions(), targetCount));
                    } else if (decision instanceof TopicPlan.Skip skip) {
                        nowSkipped.put(topic, skip.reason());
                        if (!skip.reason().equals(skipped.get(topic))) {
                            LOGGER.warn(
                                    "Not mirroring source topic {} with --offset.preserving: the target's topic {} {}. "
                                            + "It is left alone; delete or rename it on the target to have it mirrored",
                                    topic,
                                    topic,
                                    skip.reason());
                        }
                    }
                } catch (RuntimeException e) {
                    failed.add(topic + ": " + e.getMessage());
                    if (partitions != null && decision instanceof TopicPlan.Keep) {
                        nowMirrored.put(topic, new Linked(source.partitions(), partitions));
                    }
                }
            }
            mirrored = Map.copyOf(nowMirrored);
            skipped = Map.copyOf(nowSkipped);
        } catch (RuntimeException e) {
            failed.add(e.getMessage());
        }
        if (failed.isEmpty()) {
            topicMetrics.succeeded(now, changes);
            if (syncConfigs) {
                configMetrics.succeeded(now, configChanges);
            }
        } else {
            long inARow = topicMetrics.failed();
            if (syncConfigs) {
                configMetrics.failed();
            }
            if (SyncMetrics.worthLogging(inARow)) {
                LOGGER.warn(
                        "Setting up mirror topics failed ({} rounds in a row), tried again in {} ms: {}",
                        inARow,
                        settings.discoveryIntervalMs(),
                        String.join("; ", failed));
            }
        }
    }

    /** With --sync.topic.acls: the consumers' READ and DESCRIBE ACLs of each mirrored topic, as on the source. */
    private void aclRound() {
        if (!settings.topicSync().acls() || acls == null || !acls.available()) {
            return;
        }
        long now = time.milliseconds();
        Map<String, String> pairs = new java.util.TreeMap<>();
        mirrored.keySet().forEach(topic -> pairs.put(topic, topic));
        if (pairs.isEmpty()) {
            return;
        }
        try {
            aclMetrics.succeeded(now, acls.sync(pairs));
        } catch (RuntimeException e) {
            long inARow = aclMetrics.failed();
            if (SyncMetrics.worthLogging(inARow)) {
                LOGGER.warn("ACL sync failed ({} rounds in a row): {}", inARow, e.getMessage());
            }
        }
    }

    private void create(TopicPlan.Source source, TopicPlan.Create create) {
        short rf = settings.replicationFactor();
        NewTopic topic = new NewTopic(
                        source.name(), Optional.of(create.partitions()), rf < 0 ? Optional.empty() : Optional.of(rf))
                .configs(create.configs());
        try {
            targetAdmin.createTopics(List.of(topic)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOGGER.info(
                    "Created mirror topic {} with {} partitions, copying source topic id {} (configs {})",
                    source.name(),
                    create.partitions(),
                    source.topicId(),
                    create.configs());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new LinkException(
                        "could not create mirror topic " + source.name() + ": "
                                + e.getCause().getMessage(),
                        e.getCause());
            }
            // Created by someone else meanwhile: the next round looks at what it is.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new LinkException("timed out creating mirror topic " + source.name(), e);
        }
    }

    private int grow(String topic, int from, int to) {
        try {
            targetAdmin
                    .createPartitions(Map.of(topic, NewPartitions.increaseTo(to)))
                    .all()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOGGER.info("Grew mirror topic {} from {} to {} partitions, as its source grew", topic, from, to);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof InvalidPartitionsException)) {
                throw new LinkException(
                        "could not grow mirror topic " + topic + " from " + from + " to " + to + " partitions: "
                                + e.getCause().getMessage(),
                        e.getCause());
            }
            // Grown by someone else meanwhile.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new LinkException("timed out growing mirror topic " + topic, e);
        }
        return to;
    }

    private void alter(String topic, Map<String, String> changes) {
        List<AlterConfigOp> ops = new ArrayList<>();
        changes.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        Clusters.get(
                targetAdmin
                        .incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops))
                        .all(),
                TIMEOUT_MS,
                "set " + changes.keySet() + " on mirror topic " + topic);
        LOGGER.info("Synced settings {} of source topic {} to its mirror topic", changes, topic);
    }

    /** Measures the lag of every mirrored partition, then copies the matching groups' offsets. */
    void groupRound() {
        long now = time.milliseconds();
        Map<String, Linked> topics = mirrored;
        try {
            Set<TopicPartition> sourceTps = new HashSet<>();
            Set<TopicPartition> targetTps = new HashSet<>();
            topics.forEach((topic, linked) -> {
                for (int p = 0; p < linked.sourcePartitions(); p++) {
                    sourceTps.add(new TopicPartition(topic, p));
                }
                for (int p = 0; p < linked.targetPartitions(); p++) {
                    targetTps.add(new TopicPartition(topic, p));
                }
            });
            Map<TopicPartition, Long> sourceEnds = Clusters.endOffsets(sourceAdmin, sourceTps, TIMEOUT_MS);
            Map<TopicPartition, Long> targetEnds = Clusters.endOffsets(targetAdmin, targetTps, TIMEOUT_MS);
            metrics.linkedLag(GroupPlan.lag(sourceEnds, targetEnds), targetEnds);
            if (settings.groups() == null) {
                return;
            }
            long written = copyGroups(topics.keySet(), targetEnds);
            groupOffsetsWritten += written;
            groupMetrics.succeeded(now, written);
        } catch (RuntimeException e) {
            long inARow = groupMetrics.failed();
            if (SyncMetrics.worthLogging(inARow)) {
                LOGGER.warn(
                        "Measuring the lag and copying group offsets failed ({} rounds in a row), tried again in {} ms:"
                                + " {}",
                        inARow,
                        settings.groupIntervalMs(),
                        e.getMessage());
            }
        }
    }

    private long copyGroups(Set<String> topics, Map<TopicPartition, Long> targetEnds) {
        List<String> groups = Clusters.consumerGroups(
                sourceAdmin,
                g -> !g.equals(settings.mirrorGroup()) && settings.groups().matches(g),
                TIMEOUT_MS);
        Map<String, Map<TopicPartition, Long>> sourceOffsets = new HashMap<>();
        Clusters.committed(sourceAdmin, groups, TIMEOUT_MS).forEach((g, offsets) -> {
            Map<TopicPartition, Long> ours = new HashMap<>();
            offsets.forEach((tp, om) -> {
                if (topics.contains(tp.topic())) {
                    ours.put(tp, om.offset());
                }
            });
            if (!ours.isEmpty()) {
                sourceOffsets.put(g, ours);
            }
        });
        // A group with members on the target is consumed there: its consumers own its offsets.
        Map<String, Integer> members = Clusters.members(targetAdmin, sourceOffsets.keySet(), TIMEOUT_MS);
        List<String> idle = sourceOffsets.keySet().stream()
                .filter(g -> members.getOrDefault(g, 0) == 0)
                .sorted()
                .toList();
        Map<String, Map<TopicPartition, OffsetAndMetadata>> onTarget =
                Clusters.committed(targetAdmin, idle, TIMEOUT_MS);
        Map<String, KafkaFuture<Void>> writes = new HashMap<>();
        Map<String, Integer> sizes = new HashMap<>();
        for (String g : idle) {
            Map<TopicPartition, Long> current = new HashMap<>();
            onTarget.getOrDefault(g, Map.of()).forEach((tp, om) -> current.put(tp, om.offset()));
            GroupPlan.Writes plan = GroupPlan.plan(sourceOffsets.get(g), targetEnds, current);
            if (plan.writes().isEmpty()) {
                continue;
            }
            Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
            plan.writes().forEach((tp, o) -> out.put(tp, new OffsetAndMetadata(o)));
            writes.put(g, targetAdmin.alterConsumerGroupOffsets(g, out).all());
            sizes.put(g, out.size());
        }
        long written = 0;
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, KafkaFuture<Void>> w : writes.entrySet()) {
            try {
                w.getValue().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                written += sizes.get(w.getKey());
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (!(cause instanceof GroupNotEmptyException
                        || cause instanceof UnknownMemberIdException
                        || cause instanceof IllegalGenerationException)) {
                    failures.add(w.getKey() + ": " + cause);
                }
                // Otherwise a consumer joined on the target between the check and the write: the broker refused.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LinkException("interrupted", e);
            } catch (java.util.concurrent.TimeoutException e) {
                failures.add(w.getKey() + ": timed out");
            }
        }
        if (!failures.isEmpty()) {
            throw new LinkException(
                    "could not write the offsets of " + failures.size() + " groups on the target " + "(first: "
                            + failures.get(0) + "); written again next round",
                    null);
        }
        return written;
    }

    private void logProgress() {
        LOGGER.info(
                "progress: {} mirror topics copied by the companion cluster, lag {} records, {} group offsets written, "
                        + "{} topics skipped{}",
                mirrored.size(),
                metrics.totalLag(),
                groupOffsetsWritten,
                skipped.size(),
                skipped.isEmpty() ? "" : " (" + String.join(", ", skipped.keySet()) + ")");
    }

    private Map<String, TopicDescription> describe(Admin admin, Collection<String> topics) {
        Map<String, TopicDescription> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        admin.describeTopics(topics).topicNameValues().forEach((name, future) -> {
            try {
                out.put(name, future.get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw new LinkException("could not describe topic " + name + ": " + e.getCause(), e.getCause());
                }
                // Deleted since it was listed.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LinkException("interrupted", e);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new LinkException("timed out describing topic " + name, e);
            }
        });
        return out;
    }

    private static Map<String, Config> configs(Admin admin, Collection<String> topics) {
        Map<String, Config> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .toList();
        Clusters.get(admin.describeConfigs(resources).all(), TIMEOUT_MS, "read topic configs")
                .forEach((r, c) -> out.put(r.name(), c));
        return out;
    }

    /** The settings made on a source topic that the ordinary mirror's filter lets through. */
    private Map<String, String> copied(Config config) {
        Map<String, String> out = new HashMap<>();
        if (config == null) {
            return out;
        }
        for (ConfigEntry e : config.entries()) {
            if (e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                    && e.value() != null
                    && settings.topicSync().filter().copies(e.name())) {
                out.put(e.name(), e.value());
            }
        }
        return out;
    }

    private static Map<String, String> values(Config config) {
        Map<String, String> out = new HashMap<>();
        if (config != null) {
            for (ConfigEntry e : config.entries()) {
                if (e.value() != null) {
                    out.put(e.name(), e.value());
                }
            }
        }
        return out;
    }

    /** Stops the loop after its current round; returns at once (see {@link #awaitTermination}). */
    public void requestStop() {
        stopRequested = true;
        state.compareAndSet(State.RUNNING, State.STOPPING);
        synchronized (wakeup) {
            wakeup.notifyAll();
        }
    }

    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public State state() {
        return state.get();
    }

    public Throwable failure() {
        return failure.get();
    }

    public boolean healthy() {
        return state.get() == State.RUNNING;
    }

    /** What /healthz reports: the state, how many topics are mirrored and which were skipped, and why. */
    public String healthDetail() {
        Throwable f = failure.get();
        StringBuilder b = new StringBuilder(state.get().name().toLowerCase(Locale.ROOT));
        if (f != null) {
            return b.append(": ").append(f.getMessage()).toString();
        }
        b.append(": ").append(mirrored.size()).append(" mirror topics copied by the companion cluster");
        skipped.forEach((topic, reason) ->
                b.append("; skipped ").append(topic).append(": ").append(reason));
        return b.toString();
    }

    /** The matching source topics whose target topic is not a mirror of them, with the reason. */
    public Map<String, String> skippedTopics() {
        return skipped;
    }

    /** The mirror topics kept in step, by name. */
    public Set<String> mirroredTopics() {
        return mirrored.keySet();
    }

    public MirrorMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() throws InterruptedException {
        requestStop();
        if (state.get() != State.NEW && !awaitTermination(Duration.ofMinutes(2))) {
            LOGGER.warn("The offset-preserving mirror did not stop within 2 minutes; closing anyway");
        }
    }

    private synchronized void closeAdmins() {
        for (Admin admin : new Admin[] {sourceAdmin, targetAdmin}) {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        }
    }

    private static String clusterId(Admin admin, String which, Properties props) {
        try {
            return admin.describeCluster().clusterId().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new LinkException(
                    "cannot reach the " + which + " cluster at " + props.getProperty("bootstrap.servers") + ": "
                            + cause.getMessage() + "; check bootstrap.servers and security settings",
                    cause);
        }
    }
}
