package dev.strait.mirror.linked;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.sync.SyncMetrics;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
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
 * <p>This class is the lifecycle and the schedule; the work is in its parts: {@link LinkedClusters} (the admin
 * clients, checked at start), {@link MirrorTopicRound}, {@link TopicAclRound} and {@link GroupOffsetRound} (one
 * each per kind of round), and {@link LinkedTopics} (what the topic round found, for everyone else).
 *
 * <p>Thread-safe: {@link #requestStop()} and the accessors may be called from any thread; the loop owns the rest.
 */
public final class LinkedMirror implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(LinkedMirror.class);

    public enum State {
        NEW,
        RUNNING,
        STOPPING,
        STOPPED,
        FAILED
    }

    private final LinkConfig settings;
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
    private final LinkedTopics topics = new LinkedTopics();

    private volatile boolean stopRequested;
    // Set in start(), before the loop thread starts (Thread.start publishes them); then only the loop uses them.
    @SuppressWarnings("NullAway.Init") // set by start() before the loop that uses it
    private LinkedClusters clusters;

    @SuppressWarnings("NullAway.Init") // set by start() before the loop that uses it
    private MirrorTopicRound topicRound;

    @SuppressWarnings("NullAway.Init") // set by start() before the loop that uses it
    private TopicAclRound aclRound;

    @SuppressWarnings("NullAway.Init") // set by start() before the loop that uses it
    private GroupOffsetRound groupRound;

    public LinkedMirror(LinkConfig settings, MirrorMetrics metrics, Time time) {
        this.settings = settings;
        this.metrics = metrics;
        this.time = time;
        MetricRegistry registry = metrics.registry();
        this.topicMetrics = new SyncMetrics(registry, "mirror-topics");
        this.configMetrics = new SyncMetrics(registry, "topic-configs");
        this.groupMetrics = new SyncMetrics(registry, "group-offsets");
        this.aclMetrics = new SyncMetrics(registry, "acls");
        registry.gauge(
                MirrorMetrics.PREFIX + "linked.topics",
                () -> () -> topics.mirrored().size());
        registry.gauge(
                MirrorMetrics.PREFIX + "linked.topics-skipped",
                () -> () -> topics.skipped().size());
    }

    /**
     * Connects to both clusters and checks that the target is a companion cluster, then starts the loop. Throws
     * {@link dev.strait.settings.ConfigException} (a target that is not a companion cluster) or
     * {@link LinkException} (a cluster unreachable), and starts nothing.
     */
    public synchronized void start() {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("already started (state " + state.get() + ")");
        }
        try {
            clusters = LinkedClusters.connect(settings);
        } catch (RuntimeException e) {
            failure.set(e);
            state.set(State.FAILED);
            terminated.countDown();
            throw e;
        }
        topicRound = new MirrorTopicRound(settings, clusters, topics, topicMetrics, configMetrics, time);
        aclRound = new TopicAclRound(settings, clusters, aclMetrics, time);
        groupRound = new GroupOffsetRound(settings, clusters, topics, metrics, groupMetrics, time);
        LOGGER.info(
                "Mirroring topics matching '{}' from cluster {} to companion cluster {}, offset-preserving: the "
                        + "companion brokers copy the batches from the source at {}",
                settings.topics().pattern(),
                clusters.sourceId(),
                clusters.targetId(),
                settings.source());
        Thread thread = new Thread(this::run, "strait-linked-mirror");
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
                    topicRound.run(configs);
                    if (configs) {
                        aclRound.run(topics.mirrored().keySet());
                        nextConfigs = now + settings.topicSync().intervalMs();
                    }
                    nextTopics = now + settings.discoveryIntervalMs();
                }
                if (now >= nextGroups && !stopRequested) {
                    groupRound.run();
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
            clusters.close();
            state.set(failure.get() == null ? State.STOPPED : State.FAILED);
            LOGGER.info("Mirror {}", state().name().toLowerCase(Locale.ROOT));
            terminated.countDown();
        }
    }

    private void logProgress() {
        Map<String, String> skipped = topics.skipped();
        LOGGER.info(
                "progress: {} mirror topics copied by the companion cluster, lag {} records, {} group offsets written, "
                        + "{} topics skipped{}",
                topics.mirrored().size(),
                metrics.totalLag(),
                groupRound.offsetsWritten(),
                skipped.size(),
                skipped.isEmpty() ? "" : " (" + String.join(", ", skipped.keySet()) + ")");
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
        return Objects.requireNonNull(state.get(), "state");
    }

    public @Nullable Throwable failure() {
        return failure.get();
    }

    public boolean healthy() {
        return state.get() == State.RUNNING;
    }

    /** What /healthz reports: the state, how many topics are mirrored and which were skipped, and why. */
    public String healthDetail() {
        Throwable f = failure.get();
        StringBuilder b = new StringBuilder(state().name().toLowerCase(Locale.ROOT));
        if (f != null) {
            return b.append(": ").append(f.getMessage()).toString();
        }
        b.append(": ").append(topics.mirrored().size()).append(" mirror topics copied by the companion cluster");
        topics.skipped()
                .forEach((topic, reason) ->
                        b.append("; skipped ").append(topic).append(": ").append(reason));
        return b.toString();
    }

    /** The matching source topics whose target topic is not a mirror of them, with the reason. */
    public Map<String, String> skippedTopics() {
        return topics.skipped();
    }

    /** The mirror topics kept in step, by name. */
    public Set<String> mirroredTopics() {
        return topics.mirrored().keySet();
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
}
