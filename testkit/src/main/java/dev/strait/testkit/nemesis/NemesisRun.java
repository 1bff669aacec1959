package dev.strait.testkit.nemesis;

import dev.strait.testkit.KafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * One nemesis run, start to verdict: network namespaces and a fresh 3-node cluster; the workload topic (RF 3,
 * min.insync.replicas 2); the workload; the fault schedule generated from the seed, fault after fault; then
 * everything healed, and the checks:
 * <ol>
 *   <li>within 60 s every partition has a live leader and a full ISR and every node's metadata agrees (each node
 *       asked on its own);</li>
 *   <li>within 60 s every workload partition takes acknowledged writes again;</li>
 *   <li>the producers stop, the log is read back, and the {@link Checker} judges the history.</li>
 * </ol>
 * The seed and the schedule are printed first, so any run can be replayed.
 */
public final class NemesisRun {
    private static final Duration READ_BACK_TIMEOUT = Duration.ofSeconds(120);
    private static final String OFFSETS_TOPIC = "__consumer_offsets";
    private static final String TRANSACTION_STATE_TOPIC = "__transaction_state";

    private final RunOptions options;
    private final long seed;
    private final EventLog events;

    public NemesisRun(RunOptions options, long seed) {
        this.options = options;
        this.seed = seed;
        this.events = new EventLog(options.events());
    }

    /** The schedule this run will inject (a pure function of the seed and the spec). */
    public Schedule schedule() {
        return Schedule.generate(seed, options.schedule());
    }

    public RunReport run() {
        Schedule schedule = schedule();
        long started = System.nanoTime();
        History history = new History(events.startNanos());
        TxnHistory txnHistory = new TxnHistory();
        TxnChecker.Stats txnStats = null;
        List<Anomaly> anomalies = new ArrayList<>();
        Map<FaultKind, Integer> injected = Map.of();
        String error = null;
        Path dir;
        try {
            Files.createDirectories(options.workDir());
            dir = Files.createTempDirectory(options.workDir(), options.system().flag() + "-seed-" + seed + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a run directory under " + options.workDir(), e);
        }
        events.log("run " + options.system().flag() + " seed " + seed + " in " + dir + "\n" + schedule.describe());
        if (schedule.spec().kinds().contains(FaultKind.POWER_LOSS_ALL)
                && !options.cluster().flushOnAck()) {
            throw new IllegalArgumentException(FaultKind.POWER_LOSS_ALL.flag()
                    + " needs the fsync mode (acks=all waits for fsync): set flushOnAck in the cluster settings"
                    + " (bin/bench nemesis --flush-on-ack); without it losing acknowledged records is expected");
        }
        try (NetNamespaces net = NetNamespaces.create(3)) {
            try (NemesisCluster cluster = NemesisCluster.start(
                            options.system(),
                            net,
                            dir,
                            options.cluster(),
                            events,
                            FaultKind.anyPower(schedule.spec().kinds()) ? options.writeBackAge() : null);
                    Admin admin = cluster.admin()) {
                events.log(options.system().label() + " up: " + cluster.bootstrapServers());
                WorkloadSpec spec = options.workload();
                admin.createTopics(List.of(new NewTopic(spec.topic(), spec.partitions(), (short) 3)))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                String unhealthy = awaitHealthy(cluster, List.of(spec.topic()), options.recoveryTimeout());
                if (unhealthy != null) {
                    throw new IllegalStateException("the workload topic never became healthy: " + unhealthy);
                }
                FaultInjector injector = new FaultInjector(cluster, net, admin, spec, events);
                boolean txn = spec.kind() == WorkloadSpec.Kind.TXN;
                AutoCloseable running;
                Runnable stop;
                java.util.function.Supplier<List<String>> stuckProducers = List::of;
                if (txn) {
                    TxnWorkload workload =
                            new TxnWorkload(spec, cluster.bootstrapServers(), history, txnHistory, events, seed);
                    workload.start();
                    running = workload;
                    stop = workload::stop;
                    stuckProducers = workload::stuck;
                } else {
                    Workload workload = new Workload(spec, cluster.bootstrapServers(), history, events);
                    workload.start(admin);
                    running = workload;
                    stop = workload::stop;
                }
                try (running) {
                    awaitAcks(history, spec.partitions(), System.nanoTime() - 1, Duration.ofSeconds(60), "first");
                    events.log("workload acknowledged on every partition; faults begin");
                    long phase = System.nanoTime();
                    for (Fault fault : schedule.faults()) {
                        long late = waitUntil(phase, fault.atMs());
                        if (late > 1_000) {
                            events.log(
                                    "#" + fault.index() + " starts " + late + " ms late (the previous step ran long)");
                        }
                        injector.apply(fault);
                    }
                    waitUntil(phase, options.schedule().faultPhaseMs());
                    injected = injector.injected();
                    net.healAll();
                    cluster.healProcesses();
                    long healed = System.nanoTime();
                    events.log("healed: every link up, every node running; acknowledged so far " + history.ackCount());

                    // The transactional workload has no consumer group (Kafka creates no offsets topic then).
                    List<String> topics =
                            new ArrayList<>(List.of(spec.topic(), txn ? TRANSACTION_STATE_TOPIC : OFFSETS_TOPIC));
                    topics.addAll(injector.createdTopics());
                    String stillUnhealthy = awaitHealthy(cluster, topics, options.recoveryTimeout());
                    if (stillUnhealthy != null) {
                        anomalies.add(new Anomaly(
                                Anomaly.Type.UNHEALTHY,
                                -1,
                                1,
                                "not healthy " + options.recoveryTimeout().toSeconds() + " s after healing: "
                                        + stillUnhealthy));
                    } else {
                        events.log("recovered in " + (System.nanoTime() - healed) / 1_000_000 + " ms: live leaders,"
                                + " full ISRs, every node agrees");
                    }
                    List<Integer> stuck =
                            awaitAcks(history, spec.partitions(), healed, options.recoveryTimeout(), "after heal");
                    for (int p : stuck) {
                        anomalies.add(new Anomaly(
                                Anomaly.Type.STUCK,
                                p,
                                1,
                                "no write acknowledged within "
                                        + options.recoveryTimeout().toSeconds() + " s after healing"));
                    }
                    stop.run();
                }
                for (String stuckProducer : stuckProducers.get()) {
                    anomalies.add(new Anomaly(Anomaly.Type.STUCK, -1, 1, stuckProducer));
                }
                if (txn) {
                    txnStats = judgeTransactions(cluster, admin, spec, history, txnHistory, anomalies);
                } else {
                    judgeLog(cluster, admin, spec, history, anomalies);
                }
                anomalies.addAll(compareReplicas(cluster, admin, spec));
                for (String exit : cluster.unexpectedExits()) {
                    anomalies.add(new Anomaly(Anomaly.Type.CRASHED, -1, 1, exit));
                }
            }
        } catch (Exception e) {
            error = e.toString();
            events.log("harness error: " + e);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        Path kept = null;
        if ((error != null || anomalies.stream().anyMatch(Anomaly::counted)) && options.keepOnAnomaly()) {
            kept = dir;
        } else {
            KafkaCluster.deleteRecursively(dir);
        }
        long sent = history.sentCount();
        long acked = history.ackCount();
        return new RunReport(
                options.system(),
                seed,
                schedule,
                injected,
                sent,
                acked,
                sent - acked,
                txnStats != null ? txnStats.liveReads() : history.consumedCount(),
                history.failuresByType(),
                anomalies,
                (System.nanoTime() - started) / 1_000_000,
                error,
                kept,
                options.replayCommand(seed),
                txnStats);
    }

    /** The idempotent workload's verdict: the group's final offsets, the log read back, the {@link Checker}. */
    private void judgeLog(
            NemesisCluster cluster, Admin admin, WorkloadSpec spec, History history, List<Anomaly> anomalies) {
        Map<Integer, Long> committed = finalCommitted(admin, spec);
        if (committed == null) {
            anomalies.add(new Anomaly(
                    Anomaly.Type.UNREADABLE,
                    -1,
                    1,
                    "the group's committed offsets could"
                            + " not be read (twice the same) within 30 s after the consumers stopped"));
        } else {
            history.finalCommitted(committed);
        }
        events.log("workload stopped: " + history.ackCount() + " acknowledged of " + history.sentCount()
                + " sent; reading back");
        Map<Integer, List<Checker.LogRecord>> log = new TreeMap<>();
        String unread = readBack(cluster, spec, log);
        if (unread != null) {
            anomalies.add(new Anomaly(Anomaly.Type.UNREADABLE, -1, 1, unread));
        }
        anomalies.addAll(Checker.check(history.snapshot(), log, Checker.Rules.of(options.system())));
    }

    /**
     * The transactional workload's verdict: every partition's last stable offset reaches its high watermark (no
     * transaction left open), a final read_committed and a final read_uncommitted read from the beginning, the
     * {@link TxnChecker}.
     */
    private TxnChecker.Stats judgeTransactions(
            NemesisCluster cluster,
            Admin admin,
            WorkloadSpec spec,
            History history,
            TxnHistory txns,
            List<Anomaly> anomalies) {
        // Taken now: a producer that did not stop in time may still end a transaction; it stays open (unknown) here.
        TxnHistory.Snapshot snapshot = txns.snapshot();
        events.log("workload stopped: " + txns.outcomes() + " transactions; " + history.ackCount()
                + " records committed of " + history.sentCount() + " sent; waiting for stable offsets");
        Duration stableWithin = options.recoveryTimeout().plusMillis(TxnWorkload.TRANSACTION_TIMEOUT_MS);
        Map<Integer, String> open = TxnWorkload.awaitStable(admin, spec, stableWithin);
        open.forEach((p, why) -> anomalies.add(new Anomaly(
                p >= 0 ? Anomaly.Type.HANGING_TRANSACTION : Anomaly.Type.UNREADABLE,
                p,
                1,
                why + " " + stableWithin.toSeconds() + " s after the producers stopped")));
        Map<Integer, List<Checker.LogRecord>> committed = new TreeMap<>();
        Map<Integer, List<Checker.LogRecord>> uncommitted = new TreeMap<>();
        for (IsolationLevel isolation : List.of(IsolationLevel.READ_COMMITTED, IsolationLevel.READ_UNCOMMITTED)) {
            String unread = TxnWorkload.finalRead(
                    cluster.bootstrapServers(),
                    spec,
                    isolation,
                    READ_BACK_TIMEOUT,
                    isolation == IsolationLevel.READ_COMMITTED ? committed : uncommitted);
            if (unread != null) {
                anomalies.add(new Anomaly(Anomaly.Type.UNREADABLE, -1, 1, unread));
            }
        }
        TxnChecker.Result result = TxnChecker.check(snapshot, committed, uncommitted);
        anomalies.addAll(result.anomalies());
        events.log("transactions judged: " + result.stats().describe());
        return result.stats();
    }

    /**
     * Reads every in-sync replica's segment files of each workload partition below the leader's high watermark
     * (nothing writes the topic any more) and compares them with the leader's, record by record
     * ({@link Checker#checkReplicas}). A partition without a known leader or high watermark is logged and skipped:
     * the liveness checks already count it.
     */
    private List<Anomaly> compareReplicas(NemesisCluster cluster, Admin admin, WorkloadSpec spec) {
        Map<Integer, MetadataProbe.PartitionView> views = new TreeMap<>();
        for (int node : cluster.allIds()) {
            try {
                MetadataProbe.fetch(node, cluster.host(node), cluster.clientPort(), List.of(spec.topic()), 5_000)
                        .partitions()
                        .forEach((tp, v) -> {
                            MetadataProbe.PartitionView seen = views.get(tp.partition());
                            if (v.error() == 0 && (seen == null || v.leaderEpoch() > seen.leaderEpoch())) {
                                views.put(tp.partition(), v);
                            }
                        });
            } catch (IOException | RuntimeException e) {
                events.log("replica comparison: node " + node + " does not answer Metadata: " + e);
            }
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < spec.partitions(); p++) {
            latest.put(new TopicPartition(spec.topic(), p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> hws;
        try {
            hws = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            events.log("replica comparison skipped: no high watermarks (ListOffsets failed: " + e + ")");
            return List.of();
        }
        Map<Integer, Checker.ReplicaLogs> partitions = new TreeMap<>();
        long records = 0;
        List<String> skipped = new ArrayList<>();
        for (int p = 0; p < spec.partitions(); p++) {
            MetadataProbe.PartitionView view = views.get(p);
            ListOffsetsResult.ListOffsetsResultInfo hw = hws.get(new TopicPartition(spec.topic(), p));
            if (view == null || view.leader() < 0 || hw == null) {
                skipped.add("p" + p + " (leader or high watermark unknown)");
                continue;
            }
            Map<Integer, List<Checker.StoredRecord>> byNode = new TreeMap<>();
            for (int node : view.isr()) {
                Path dir = cluster.dataDirectory(node).resolve(spec.topic() + "-" + p);
                try {
                    List<Checker.StoredRecord> stored = ReplicaFiles.read(dir, hw.offset());
                    records += stored.size();
                    byNode.put(node, stored);
                } catch (IOException | RuntimeException e) {
                    skipped.add("p" + p + " on node " + node + " (" + e + ")");
                }
            }
            if (!byNode.containsKey(view.leader())) {
                skipped.add("p" + p + " (the leader's files were not read)");
                continue;
            }
            for (int node : view.replicas()) {
                if (!view.isr().contains(node)) {
                    skipped.add("p" + p + " on node " + node + " (not in the ISR " + view.isr() + ")");
                }
            }
            partitions.put(p, new Checker.ReplicaLogs(view.leader(), hw.offset(), byNode));
        }
        List<Anomaly> diverged = Checker.checkReplicas(partitions);
        events.log("replicas compared below the high watermark: " + partitions.size() + " partitions, " + records
                + " records read from the nodes' files, " + diverged.size() + " partitions diverged"
                + (skipped.isEmpty() ? "" : "; skipped " + skipped));
        return diverged;
    }

    /** The group's committed offsets once two reads in a row agree (nothing commits any more), or null. */
    private static @Nullable Map<Integer, Long> finalCommitted(Admin admin, WorkloadSpec spec) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Map<Integer, Long> previous = null;
        while (System.nanoTime() < deadline) {
            try {
                Map<Integer, Long> now = new TreeMap<>();
                admin.listConsumerGroupOffsets(Workload.GROUP)
                        .partitionsToOffsetAndMetadata()
                        .get(10, TimeUnit.SECONDS)
                        .forEach((tp, o) -> {
                            if (o != null && tp.topic().equals(spec.topic())) {
                                now.put(tp.partition(), o.offset());
                            }
                        });
                if (now.equals(previous)) {
                    return now;
                }
                previous = now;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } catch (Exception e) {
                previous = null;
            }
            NemesisCluster.sleep(500);
        }
        return null;
    }

    /** Waits until {@code offsetMs} into the phase; returns how late we already were. */
    private static long waitUntil(long phaseStartNanos, long offsetMs) {
        long wait = offsetMs - (System.nanoTime() - phaseStartNanos) / 1_000_000;
        if (wait > 0) {
            NemesisCluster.sleep(wait);
            return 0;
        }
        return -wait;
    }

    /** Partitions that had no acknowledgement after {@code sinceNanos} within the timeout (empty: all had). */
    private List<Integer> awaitAcks(History history, int partitions, long sinceNanos, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Integer> missing = new ArrayList<>();
        while (true) {
            missing.clear();
            for (int p = 0; p < partitions; p++) {
                if (history.lastAckNanos(p) <= sinceNanos) {
                    missing.add(p);
                }
            }
            if (missing.isEmpty() || System.nanoTime() > deadline) {
                break;
            }
            NemesisCluster.sleep(100);
        }
        if (!missing.isEmpty() && what.equals("first")) {
            throw new IllegalStateException("no " + what + " acknowledgement on partitions " + missing + " within "
                    + timeout.toSeconds() + " s; failures so far " + history.failuresByType());
        }
        return List.copyOf(missing);
    }

    /**
     * Polls every node on its own until all answer, every partition of {@code topics} has a live leader and a full
     * ISR on each, and all nodes report the same; returns null then, or the last reason it was not so.
     */
    @Nullable
    String awaitHealthy(NemesisCluster cluster, List<String> topics, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String reason;
        do {
            reason = healthProblem(cluster, topics);
            if (reason == null) {
                return null;
            }
            NemesisCluster.sleep(500);
        } while (System.nanoTime() < deadline);
        return reason;
    }

    private static @Nullable String healthProblem(NemesisCluster cluster, List<String> topics) {
        Set<Integer> all = new TreeSet<>(cluster.allIds());
        List<MetadataProbe.NodeView> views = new ArrayList<>();
        for (int node : cluster.allIds()) {
            try {
                views.add(MetadataProbe.fetch(node, cluster.host(node), cluster.clientPort(), topics, 5_000));
            } catch (IOException | RuntimeException e) {
                return "node " + node + " does not answer Metadata: " + e;
            }
        }
        for (MetadataProbe.NodeView view : views) {
            if (!view.brokers().equals(all)) {
                return "node " + view.node() + " lists brokers " + view.brokers() + ", not " + all;
            }
            for (String topic : List.of(topics.get(0), OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC)) {
                if (view.topicErrors().containsKey(topic)) {
                    return "node " + view.node() + " answers error "
                            + view.topicErrors().get(topic) + " for " + topic;
                }
            }
            for (Map.Entry<TopicPartition, MetadataProbe.PartitionView> e :
                    view.partitions().entrySet()) {
                if (!e.getValue().healthy(all)) {
                    return "node " + view.node() + " reports " + e.getKey() + ": " + e.getValue();
                }
            }
        }
        MetadataProbe.NodeView first = views.get(0);
        for (MetadataProbe.NodeView view : views.subList(1, views.size())) {
            if (!view.agreesWith(first)) {
                return "node " + first.node() + " and node " + view.node() + " disagree: " + difference(first, view);
            }
        }
        return null;
    }

    private static String difference(MetadataProbe.NodeView a, MetadataProbe.NodeView b) {
        if (!a.topicErrors().equals(b.topicErrors())) {
            return "topic errors " + a.topicErrors() + " vs " + b.topicErrors();
        }
        Set<TopicPartition> keys = new TreeSet<>(a.partitions().comparator());
        keys.addAll(a.partitions().keySet());
        keys.addAll(b.partitions().keySet());
        for (TopicPartition tp : keys) {
            var x = a.partitions().get(tp);
            var y = b.partitions().get(tp);
            if (x == null || !x.equals(y)) {
                return tp + ": " + x + " vs " + y;
            }
        }
        return "brokers " + a.brokers() + " vs " + b.brokers();
    }

    /** Reads every workload partition from the start to its end offset; null when complete, else what is missing. */
    private static @Nullable String readBack(
            NemesisCluster cluster, WorkloadSpec spec, Map<Integer, List<Checker.LogRecord>> log) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<TopicPartition> partitions = new ArrayList<>();
        for (int i = 0; i < spec.partitions(); i++) {
            partitions.add(new TopicPartition(spec.topic(), i));
            log.put(i, new ArrayList<>());
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            Map<TopicPartition, Long> missed = ReadToEnd.read(consumer, partitions, READ_BACK_TIMEOUT, log);
            return missed == null
                    ? null
                    : "read back incomplete after " + READ_BACK_TIMEOUT.toSeconds() + " s: end offsets " + missed;
        } catch (RuntimeException e) {
            return "read back failed: " + e;
        }
    }
}
