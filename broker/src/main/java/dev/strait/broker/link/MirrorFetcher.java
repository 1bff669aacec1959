package dev.strait.broker.link;

import dev.strait.broker.link.MirrorStatus.State;
import dev.strait.broker.link.MirrorTargets.LedMirror;
import dev.strait.broker.link.SourceClient.FetchTarget;
import dev.strait.broker.link.SourceClient.Fetched;
import dev.strait.broker.link.SourceClient.PartitionInfo;
import dev.strait.broker.link.SourceClient.SourceError;
import dev.strait.broker.link.SourceClient.TopicInfo;
import dev.strait.broker.log.MirrorOffsetMismatchException;
import dev.strait.broker.partition.PartitionRoleException;
import dev.strait.time.Time;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies the mirror-topic partitions this node leads from their source clusters, as a follower copies from its
 * leader, except that the leader is in another cluster and speaks to it as a consumer: each round fetches every
 * led partition from its log end and appends what came back at the same offsets. Leadership inside this cluster
 * decides who copies: a new leader continues from its own log end, and its followers replicate the copy as any
 * other data. One thread; {@link #runOnce()} is a round, and tests drive it directly.
 *
 * <p>What it never does: copy a source topic that was deleted and re-created over the old one (the source topic id
 * is pinned when copying begins), or continue past a source whose log now ends below the copy (an unclean election
 * at the source): those partitions stop, and their status says why.
 */
public final class MirrorFetcher implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(MirrorFetcher.class);

    /** Tuning; {@link #defaults()} suits a cluster on one machine and a remote source alike. */
    public record Config(
            int maxWaitMs, int partitionMaxBytes, int maxBytes, long metadataMaxAgeMs, long idleMs, long backoffMs) {
        public static Config defaults() {
            return new Config(500, 1 << 20, 16 << 20, 30_000, 500, 1_000);
        }
    }

    private final int nodeId;
    private final MirrorTargets targets;
    private final SourceLinks links;
    private final Time time;
    private final Config settings;
    private final Map<String, SourceCluster> sources = new HashMap<>();
    /** Partitions that must not be copied again until their leader epoch changes (diverged source). */
    private final Map<TopicPartition, Stopped> stopped = new HashMap<>();
    /** The source epoch lineage recorded for each partition led here (a cache of the topic configs). */
    private final Map<TopicPartition, Recorded> lineages = new HashMap<>();

    private final Map<TopicPartition, MirrorStatus> status = new LinkedHashMap<>();
    private volatile List<MirrorStatus> published = List.of();
    private volatile boolean running;
    private volatile boolean closing;
    private final Object pause = new Object();
    private @Nullable Thread thread;

    private record Stopped(int leaderEpoch, MirrorStatus status) {}

    /**
     * The source epoch lineage this node last recorded (or read) for a partition it leads, and when to read the
     * topic's configs again to see that it is still there.
     */
    private record Recorded(int leaderEpoch, MirrorLineage lineage, long verifyAtMs) {}

    public MirrorFetcher(int nodeId, MirrorTargets targets, SourceLinks links, Time time, Config settings) {
        this.nodeId = nodeId;
        this.targets = targets;
        this.links = links;
        this.time = time;
        this.settings = settings;
    }

    public synchronized void start() {
        if (thread != null) {
            return;
        }
        running = true;
        thread = new Thread(this::run, "strait-mirror-fetcher-" + nodeId);
        thread.setDaemon(true);
        thread.start();
    }

    /** Every mirror-topic partition led here, as of the last round; a snapshot. */
    public List<MirrorStatus> status() {
        return published;
    }

    private void run() {
        while (running) {
            long pauseMs;
            try {
                pauseMs = runOnce();
            } catch (RuntimeException e) {
                LOGGER.error("mirror fetcher round failed; retrying in {} ms", settings.backoffMs(), e);
                pauseMs = settings.backoffMs();
            }
            if (pauseMs > 0) {
                try {
                    synchronized (pause) {
                        // Woken early by close(); wall-clock waits only here, so rounds stay drivable by tests.
                        if (running) {
                            pause.wait(pauseMs);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * One round: every led mirror partition fetched once from its source leader, and whatever came back appended.
     *
     * @return how long to pause before the next round (0 after a round that waited on the source or copied)
     */
    public long runOnce() {
        endHalfTransactionsOfPromoted();
        List<LedMirror> led = targets.ledMirrors();
        // A set: retainAll asks contains() once per known partition, every round, over thousands of partitions.
        Set<TopicPartition> ledNow = new java.util.HashSet<>();
        for (LedMirror mirror : led) {
            ledNow.add(mirror.partition());
        }
        status.keySet().retainAll(ledNow);
        stopped.keySet().retainAll(ledNow);
        lineages.keySet().retainAll(ledNow);
        if (led.isEmpty()) {
            publish();
            return settings.idleMs();
        }
        Map<String, List<LedMirror>> bySource = new TreeMap<>();
        for (LedMirror mirror : led) {
            if (mirror.spec().state() == MirrorSpec.State.PAUSED) {
                report(mirror, State.PAUSED, -1, "paused (strait.mirror.state=paused): not copied, producers refused");
                continue;
            }
            Stopped stop = stopped.get(mirror.partition());
            if (stop != null && stop.leaderEpoch() == mirror.leaderEpoch()) {
                status.put(mirror.partition(), stop.status());
                continue;
            }
            stopped.remove(mirror.partition());
            bySource.computeIfAbsent(mirror.spec().source(), k -> new ArrayList<>())
                    .add(mirror);
        }
        boolean failed = false;
        for (Map.Entry<String, List<LedMirror>> entry : bySource.entrySet()) {
            SourceCluster source = source(entry.getKey(), entry.getValue());
            failed |= source == null || !copyFrom(source, entry.getValue());
        }
        publish();
        return failed ? settings.backoffMs() : 0;
    }

    /**
     * A promoted mirror topic is this cluster's own: transactions its copy left open will never be ended by the
     * source's coordinator, so they are aborted here (the records stay, aborted), which releases read_committed
     * consumers and keeps no half transaction visible to them. A safety net for a promote set by hand:
     * {@code strait failover --mirror-topics} cuts each partition to its last stable offset first, leaving none open.
     */
    private void endHalfTransactionsOfPromoted() {
        for (LedMirror promoted : targets.promotedWithOpenTransactions()) {
            try {
                List<Long> producers = targets.abortOpenTransactions(promoted.partition(), promoted.leaderEpoch());
                LOGGER.info(
                        "mirror topic partition {} promoted: aborted the transactions of producers {} that the"
                                + " copy left open",
                        promoted.partition(),
                        producers);
            } catch (PartitionRoleException e) {
                // leadership moved on; the new leader aborts them
            }
        }
    }

    /** The source the mirrors name, connected on first use; null (reported) if their link is not defined here. */
    private @Nullable SourceCluster source(String key, List<LedMirror> mirrors) {
        SourceCluster known = sources.get(key);
        if (known != null) {
            return known;
        }
        MirrorSpec spec = mirrors.get(0).spec();
        String problem;
        try {
            Optional<SourceLinks.Source> resolved = links.resolve(spec);
            if (resolved.isPresent()) {
                SourceCluster source = new SourceCluster(
                        resolved.get().name(),
                        resolved.get().bootstrapServers(),
                        resolved.get().factory());
                sources.put(key, source);
                return source;
            }
            problem = "mirror link " + spec.link() + " is not defined on node " + nodeId + ": set "
                    + SourceLinks.PREFIX + spec.link() + ".bootstrap.servers (and its security settings) on every"
                    + " broker";
        } catch (IllegalArgumentException e) {
            problem = why(e);
        }
        for (LedMirror mirror : mirrors) {
            report(mirror, State.LINK_UNDEFINED, -1, problem);
        }
        return null;
    }

    /** One round for the partitions copied from one source cluster; false if the source could not be reached. */
    private boolean copyFrom(SourceCluster source, List<LedMirror> mirrors) {
        Set<String> topics = new LinkedHashSet<>();
        for (LedMirror mirror : mirrors) {
            topics.add(mirror.spec().sourceTopic());
        }
        long nowMs = time.milliseconds();
        SourceClient.Metadata metadata;
        try {
            metadata = source.metadata(topics, nowMs, settings.metadataMaxAgeMs());
        } catch (IOException e) {
            for (LedMirror mirror : mirrors) {
                report(mirror, State.SOURCE_UNREACHABLE, -1, why(e));
            }
            return false;
        }
        Map<Integer, List<Planned>> byLeader = new TreeMap<>();
        for (LedMirror mirror : mirrors) {
            Planned planned =
                    plan(source, mirror, metadata.topics().get(mirror.spec().sourceTopic()));
            if (planned != null) {
                byLeader.computeIfAbsent(planned.leaderId(), k -> new ArrayList<>())
                        .add(planned);
            }
        }
        boolean reached = true;
        // A long poll on one source leader delays the others; with several, each waits less.
        int maxWaitMs =
                byLeader.size() > 1 ? Math.max(10, settings.maxWaitMs() / byLeader.size()) : settings.maxWaitMs();
        for (Map.Entry<Integer, List<Planned>> entry : byLeader.entrySet()) {
            reached &= fetchFrom(source, entry.getKey(), entry.getValue(), maxWaitMs);
        }
        return reached;
    }

    /** A led partition with the source partition it copies, ready to fetch. */
    private record Planned(
            LedMirror mirror, TopicPartition source, Uuid topicId, int leaderId, int sourceLeaderEpoch) {}

    /** Checks the source topic against the mirror's pinned id and finds the source leader; null if not to copy. */
    private @Nullable Planned plan(SourceCluster source, LedMirror mirror, @Nullable TopicInfo topic) {
        String sourceTopic = mirror.spec().sourceTopic();
        if (topic == null || topic.error() == SourceError.UNKNOWN_TOPIC || Uuid.ZERO_UUID.equals(topic.topicId())) {
            source.invalidate();
            report(mirror, State.SOURCE_TOPIC_MISSING, -1, "source topic " + sourceTopic + " does not exist");
            return null;
        }
        if (topic.error() == SourceError.NOT_AUTHORIZED) {
            report(mirror, State.NOT_AUTHORIZED, -1, "the source refused to describe topic " + sourceTopic);
            return null;
        }
        String pinned = mirror.spec().pinnedTopicId();
        if (pinned.isEmpty()) {
            try {
                targets.pinSourceTopicId(mirror.partition().topic(), topic.topicId());
            } catch (RuntimeException e) {
                // Copying before the id is on record could copy a re-created topic over this one later.
                report(
                        mirror,
                        State.SOURCE_UNREACHABLE,
                        -1,
                        "cannot record the source topic id yet: " + e.getMessage());
                return null;
            }
            LOGGER.info(
                    "mirror topic {} copies {} (topic id {}) from {}",
                    mirror.partition().topic(),
                    sourceTopic,
                    topic.topicId(),
                    source.name());
        } else if (!pinned.equals(topic.topicId().toString())) {
            report(
                    mirror,
                    State.SOURCE_TOPIC_RECREATED,
                    -1,
                    "source topic " + sourceTopic + " now has id " + topic.topicId() + ", not " + pinned
                            + " as when copying began: it was deleted and re-created; the copy is kept and not"
                            + " continued (delete the mirror topic to copy the new one)");
            return null;
        }
        PartitionInfo partition = topic.partitions().stream()
                .filter(p -> p.partition() == mirror.partition().partition())
                .findFirst()
                .orElse(null);
        if (partition == null) {
            report(
                    mirror,
                    State.SOURCE_PARTITION_MISSING,
                    -1,
                    "source topic " + sourceTopic + " has " + topic.partitions().size() + " partitions");
            return null;
        }
        if (partition.leaderId() < 0) {
            source.invalidate();
            report(mirror, State.SOURCE_UNREACHABLE, -1, "source partition has no leader");
            return null;
        }
        return new Planned(
                mirror,
                new TopicPartition(sourceTopic, partition.partition()),
                topic.topicId(),
                partition.leaderId(),
                partition.leaderEpoch());
    }

    private boolean fetchFrom(SourceCluster source, int leaderId, List<Planned> planned, int maxWaitMs) {
        List<FetchTarget> fetchTargets = new ArrayList<>();
        for (Planned p : planned) {
            fetchTargets.add(new FetchTarget(
                    p.source(),
                    p.topicId(),
                    p.mirror().logEndOffset(),
                    p.sourceLeaderEpoch(),
                    settings.partitionMaxBytes()));
        }
        SourceClient client;
        Map<TopicPartition, Fetched> fetched;
        try {
            client = source.client(leaderId);
            fetched = client.fetch(fetchTargets, maxWaitMs, settings.maxBytes());
        } catch (IOException e) {
            source.disconnect(leaderId);
            if (closing) {
                return false; // close() interrupted the fetch: nothing to report
            }
            for (Planned p : planned) {
                report(p.mirror(), State.SOURCE_UNREACHABLE, -1, "source broker " + leaderId + ": " + e);
            }
            return false;
        }
        List<Planned> outOfRange = new ArrayList<>();
        for (Planned p : planned) {
            Fetched answer = fetched.get(p.source());
            if (answer == null) {
                source.invalidate();
                continue;
            }
            switch (answer.error()) {
                case NONE:
                    copy(p, answer);
                    break;
                case OFFSET_OUT_OF_RANGE:
                    outOfRange.add(p);
                    break;
                case NOT_AUTHORIZED:
                    report(p.mirror(), State.NOT_AUTHORIZED, -1, "the source refused to serve " + p.source());
                    break;
                default:
                    // A leader moved or the topic changed at the source: look again before the next fetch.
                    source.invalidate();
                    break;
            }
        }
        if (!outOfRange.isEmpty()) {
            resolveOutOfRange(source, client, leaderId, outOfRange);
        }
        return true;
    }

    private void copy(Planned p, Fetched answer) {
        LedMirror mirror = p.mirror();
        long logEnd = mirror.logEndOffset();
        try {
            if (answer.records().hasRemaining()) {
                if (!recordLineage(p, answer)) {
                    return;
                }
                logEnd = targets.append(
                        mirror.partition(), mirror.leaderEpoch(), mirror.logEndOffset(), answer.records());
            }
            targets.followSourceLogStart(mirror.partition(), mirror.leaderEpoch(), answer.logStartOffset());
        } catch (PartitionRoleException e) {
            return; // leadership moved on; the new leader copies from its own log end
        } catch (MirrorOffsetMismatchException e) {
            LOGGER.warn("mirror copy of {} lost its place: {}", mirror.partition(), e.getMessage());
            return;
        }
        long nowMs = time.milliseconds();
        MirrorStatus previous = status.get(mirror.partition());
        long behindSinceMs = logEnd >= answer.highWatermark()
                ? -1
                : previous != null && previous.behindSinceMs() >= 0 ? previous.behindSinceMs() : nowMs;
        status.put(
                mirror.partition(),
                new MirrorStatus(
                        mirror.partition(),
                        p.source().topic(),
                        State.COPYING,
                        logEnd,
                        answer.highWatermark(),
                        nowMs,
                        behindSinceMs,
                        ""));
    }

    /**
     * Records the source epochs of the batches about to be copied, before they are appended (the append rewrites
     * the epoch field to this cluster's): only when the lineage changes, which is when the source's epoch does, or
     * when the topic's configs lost this partition's entry (another leader's write of the same config replaced it).
     * A lineage of another source topic id (this topic copied another one before a failback) starts over at the log
     * end, where this link begins.
     *
     * @return false when it could not be recorded: nothing is appended this round
     */
    private boolean recordLineage(Planned p, Fetched answer) {
        LedMirror mirror = p.mirror();
        String sourceTopicId = p.topicId().toString();
        long nowMs = time.milliseconds();
        Recorded cached = lineages.get(mirror.partition());
        Optional<MirrorLineage> ours = Optional.ofNullable(cached)
                .filter(c -> c.leaderEpoch() == mirror.leaderEpoch())
                .map(Recorded::lineage)
                .filter(l -> l.sourceTopicId().equals(sourceTopicId));
        long verifyAtMs = cached == null ? nowMs : cached.verifyAtMs();
        Optional<MirrorLineage> onRecord;
        if (ours.isPresent() && nowMs < verifyAtMs) {
            onRecord = ours;
        } else {
            // Read from the topic's configs now and then, not every round: the value holds every partition's.
            onRecord = targets.lineage(mirror.partition())
                    .filter(l -> l.sourceTopicId().equals(sourceTopicId));
        }
        // Missing from the configs though recorded in this leader epoch: lost to another write; write it again.
        MirrorLineage before =
                onRecord.or(() -> ours).orElseGet(() -> MirrorLineage.startingAt(sourceTopicId, mirror.logEndOffset()));
        MirrorLineage after = before.copiedBatches(answer.records());
        Recorded recorded = new Recorded(mirror.leaderEpoch(), after, nowMs + settings.metadataMaxAgeMs());
        if (onRecord.isPresent() && onRecord.get().equals(after)) {
            if (verifyAtMs <= nowMs || !ours.equals(onRecord)) {
                lineages.put(mirror.partition(), recorded);
            }
            return true;
        }
        try {
            targets.recordLineage(mirror.partition(), mirror.leaderEpoch(), after);
            lineages.put(mirror.partition(), recorded);
            return true;
        } catch (PartitionRoleException e) {
            return false; // leadership moved on, or the topic was paused or promoted meanwhile
        } catch (RuntimeException e) {
            report(
                    mirror,
                    State.SOURCE_UNREACHABLE,
                    answer.highWatermark(),
                    "cannot record the source epochs of the copy yet (strait.mirror.source.lineage): " + why(e));
            return false;
        }
    }

    /**
     * The source cannot serve a copy's log end: either its log now starts past it (retention or DeleteRecords
     * removed what was not copied yet, or a new mirror partition starts at the source's log start), and the copy
     * restarts there; or its log ends below it, which only an unclean election at the source does, and copying stops.
     */
    private void resolveOutOfRange(SourceCluster source, SourceClient client, int leaderId, List<Planned> planned) {
        Map<TopicPartition, Integer> epochs = new HashMap<>();
        for (Planned p : planned) {
            epochs.put(p.source(), p.sourceLeaderEpoch());
        }
        Map<TopicPartition, Long> starts;
        try {
            starts = client.logStartOffsets(epochs);
        } catch (IOException e) {
            source.disconnect(leaderId);
            return;
        }
        for (Planned p : planned) {
            LedMirror mirror = p.mirror();
            long start = starts.getOrDefault(p.source(), -1L);
            if (start < 0) {
                source.invalidate();
                continue;
            }
            try {
                if (start > mirror.logEndOffset()) {
                    boolean hadData = mirror.logEndOffset() > 0;
                    targets.restartAt(mirror.partition(), mirror.leaderEpoch(), start);
                    if (hadData) {
                        LOGGER.warn(
                                "mirror {}: the source deleted offsets {} to {} before they were copied; the copy"
                                        + " continues from {}",
                                mirror.partition(),
                                mirror.logEndOffset(),
                                start - 1,
                                start);
                    }
                } else {
                    MirrorStatus diverged = new MirrorStatus(
                            mirror.partition(),
                            p.source().topic(),
                            State.SOURCE_DIVERGED,
                            mirror.logEndOffset(),
                            -1,
                            time.milliseconds(),
                            -1,
                            "the source partition " + p.source() + " ends below this copy's end "
                                    + mirror.logEndOffset() + " (an unclean election at the source?): copying stopped,"
                                    + " nothing deleted here");
                    LOGGER.error("mirror {}: {}", mirror.partition(), diverged.detail());
                    stopped.put(mirror.partition(), new Stopped(mirror.leaderEpoch(), diverged));
                    status.put(mirror.partition(), diverged);
                }
            } catch (PartitionRoleException e) {
                // leadership moved on
            }
        }
    }

    /** What a failure says: its message, or its name when it has none (a status always says something). */
    private static String why(Exception e) {
        String message = e.getMessage();
        return message != null ? message : e.toString();
    }

    private void report(LedMirror mirror, State state, long sourceHighWatermark, String detail) {
        MirrorStatus previous = status.get(mirror.partition());
        if (previous == null || previous.state() != state) {
            LOGGER.warn("mirror {}: {}", mirror.partition(), detail);
        }
        status.put(
                mirror.partition(),
                new MirrorStatus(
                        mirror.partition(),
                        mirror.spec().sourceTopic(),
                        state,
                        mirror.logEndOffset(),
                        sourceHighWatermark,
                        previous == null ? -1 : previous.lastFetchMs(),
                        previous == null || previous.behindSinceMs() < 0
                                ? time.milliseconds()
                                : previous.behindSinceMs(),
                        detail));
    }

    private void publish() {
        published = List.copyOf(status.values());
    }

    @Override
    public void close() {
        Thread current;
        closing = true;
        synchronized (this) {
            running = false;
            current = thread;
            thread = null;
        }
        synchronized (pause) {
            pause.notifyAll();
        }
        if (current != null) {
            current.interrupt();
            try {
                current.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (SourceCluster source : sources.values()) {
            source.close();
        }
        sources.clear();
    }
}
