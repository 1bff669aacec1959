package dev.strait.testkit.nemesis;

import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.KafkaNodeMain;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;

/**
 * Three (or more) nodes of one system, each broker and controller at once, each a child JVM in its own network
 * namespace ({@link NetNamespaces}), listening on its namespace address: clients on port 9092, the controller quorum
 * on 9093 (the namespaces keep the fixed ports apart). Strait runs {@code dev.strait.broker.server.BrokerMain} as
 * {@code bin/broker} does; Apache Kafka 4.1.1 runs {@code kafka.Kafka} from the Maven artifacts
 * ({@link KafkaNodeMain} formats the log directory first). Both get the same KRaft settings under Kafka's names and
 * the same JVM options. The nemesis signals nodes by pid: SIGSTOP, SIGCONT, SIGKILL, SIGTERM.
 *
 * <p>The active controller: Kafka answers DescribeQuorum (and each node logs the leader of every quorum epoch it
 * learns, the fallback when DescribeQuorum times out); Strait does not, so its nodes' logs are followed for the lines
 * its controller writes when it becomes active and when it steps down.
 *
 * <p>Driven by one thread (the run), except {@link #close()}.
 */
public final class NemesisCluster implements AutoCloseable {
    static final int CLIENT_PORT = 9092;
    static final int CONTROLLER_PORT = 9093;
    /** Kafka's controller logs every quorum epoch it learns: "In the new epoch 5, the leader is 2." */
    private static final Pattern KAFKA_NEW_EPOCH =
            Pattern.compile("In the new epoch (\\d+), the leader is (\\d+|\\(none\\))");

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    /**
     * The configuration both systems get.
     *
     * @param extraConfig node configuration added last (Strait's own {@code strait.*} keys go to Strait nodes only)
     * @param flushOnAck  the fsync mode: acks=all waits until the in-sync replicas synced the records to disk; Strait
     *                    {@code strait.flush.on.ack=true}, Kafka {@code log.flush.interval.messages=1} (every append
     *                    on leader and followers is flushed before the follower fetches on, so before the ack)
     * @param kafkaElr    Kafka's eligible leader replicas (KIP-966) at format time; no effect on Strait
     */
    public record Config(
            long sessionTimeoutMs,
            long heartbeatIntervalMs,
            long replicaLagTimeMaxMs,
            String heap,
            Map<String, String> extraConfig,
            boolean flushOnAck,
            KafkaElr kafkaElr) {
        public Config {
            extraConfig = Map.copyOf(extraConfig);
        }

        public Config(
                long sessionTimeoutMs,
                long heartbeatIntervalMs,
                long replicaLagTimeMaxMs,
                String heap,
                Map<String, String> extraConfig) {
            this(
                    sessionTimeoutMs,
                    heartbeatIntervalMs,
                    replicaLagTimeMaxMs,
                    heap,
                    extraConfig,
                    false,
                    KafkaElr.DEFAULT);
        }

        public static Config defaults() {
            return new Config(6_000, 1_000, 8_000, "512m", Map.of());
        }

        public Config withFlushOnAck(boolean on) {
            return new Config(
                    sessionTimeoutMs, heartbeatIntervalMs, replicaLagTimeMaxMs, heap, extraConfig, on, kafkaElr);
        }

        public Config withKafkaElr(KafkaElr elr) {
            return new Config(
                    sessionTimeoutMs, heartbeatIntervalMs, replicaLagTimeMaxMs, heap, extraConfig, flushOnAck, elr);
        }
    }

    /**
     * Kafka's {@code eligible.leader.replicas.version} feature as the nodes are formatted: Kafka 4.1.1's default for
     * a new cluster, or set on (1) or off (0) with {@code kafka-storage format --feature}.
     */
    public enum KafkaElr {
        DEFAULT,
        ON,
        OFF;

        /** The extra arguments of {@code kafka-storage format}. */
        List<String> formatArgs() {
            return switch (this) {
                case DEFAULT -> List.of();
                case ON -> List.of("--feature", "eligible.leader.replicas.version=1");
                case OFF -> List.of("--feature", "eligible.leader.replicas.version=0");
            };
        }

        public static KafkaElr parse(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "default" -> DEFAULT;
                case "on" -> ON;
                case "off" -> OFF;
                default ->
                    throw new IllegalArgumentException("--kafka-elr must be on, off or default, got '" + value + "'");
            };
        }
    }

    /** What the harness last did to a node's process. */
    public enum State {
        RUNNING,
        PAUSED,
        DOWN
    }

    private final SystemKind kind;
    private final NetNamespaces net;
    private final Path dir;
    private final Config settings;
    private final String clusterId = Uuid.randomUuid().toString();
    private final List<Node> nodes = new ArrayList<>();
    /** Exits the harness did not cause, by pid: a node that crashed is restarted by the next heal, not forgotten. */
    private final Map<Long, String> crashes = java.util.Collections.synchronizedMap(new LinkedHashMap<>());

    private final EventLog events;
    /** Non-null: every node's data directory is a lazy disk with this write-back age (the run cuts power). */
    private final @Nullable Duration writeBackAge;

    private final ScheduledExecutorService logScanner = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "nemesis-log-scanner");
        t.setDaemon(true);
        return t;
    });

    private final class Node {
        final int id;
        final Path home;

        @Nullable
        Process process;

        State state = State.DOWN;
        /** From the log: whether this node said it became the active controller, and when the harness saw it. */
        volatile boolean claimsController;

        volatile long claimedAtNanos;
        /** Kafka: the latest quorum epoch this node logged, and the leader it named for it (-1: none). */
        volatile int quorumEpoch = -1;

        volatile int quorumLeader = -1;
        long logOffset;
        final StringBuilder partialLine = new StringBuilder();
        /** The data directory's lazy disk, when the run cuts power; mounted before the first start, kept across. */
        @Nullable
        LazyDisk disk;

        Node(int id) {
            this.id = id;
            this.home = dir.resolve("node-" + id);
        }

        Path log() {
            return home.resolve("node.log");
        }

        void launch() {
            noteCrash(this);
            try {
                Files.createDirectories(home);
                if (writeBackAge != null && disk == null) {
                    disk = LazyDisk.mount(
                            home.resolve("data-disk"), home.resolve("data"), writeBackAge, home.resolve("lazyfs.log"));
                }
                Path config = home.resolve("server.properties");
                Properties props = new Properties();
                props.putAll(config());
                try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                    props.store(out, kind.label() + " node " + id + " (nemesis)");
                }
                List<String> cmd = new ArrayList<>(net.execPrefix(id));
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.add("-Xms64m");
                cmd.add("-Xmx" + settings.heap());
                cmd.add("-XX:+UseSerialGC");
                cmd.add("-XX:TieredStopAtLevel=1");
                cmd.add("-Djava.net.preferIPv4Stack=true");
                cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
                cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
                cmd.add("-Dorg.slf4j.simpleLogger.log.org.apache.kafka.clients=warn");
                cmd.add("-cp");
                if (kind == SystemKind.KAFKA) {
                    cmd.add(KafkaCluster.kafkaClassPath());
                    cmd.add(KafkaNodeMain.class.getName());
                    cmd.add(config.toString());
                    cmd.add(clusterId);
                    cmd.add(home.resolve("data").toString());
                    cmd.addAll(settings.kafkaElr().formatArgs());
                } else {
                    cmd.add(System.getProperty("java.class.path"));
                    cmd.add("dev.strait.broker.server.BrokerMain");
                    cmd.add(config.toString());
                }
                claimsController = false;
                process = new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                        .start();
                state = State.RUNNING;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + kind.label() + " node " + id, e);
            }
        }

        Map<String, String> config() {
            String host = net.address(id);
            Map<String, String> c = new LinkedHashMap<>();
            c.put("process.roles", "broker,controller");
            c.put("node.id", Integer.toString(id));
            c.put("controller.quorum.voters", voters());
            c.put(
                    "listeners",
                    "PLAINTEXT://" + host + ":" + CLIENT_PORT + ",CONTROLLER://" + host + ":" + CONTROLLER_PORT);
            c.put("advertised.listeners", "PLAINTEXT://" + host + ":" + CLIENT_PORT);
            c.put("controller.listener.names", "CONTROLLER");
            c.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            c.put("log.dirs", home.resolve("data").toString());
            int rf = Math.min(3, nodes.size());
            c.put("default.replication.factor", Integer.toString(rf));
            c.put("min.insync.replicas", "2");
            c.put("offsets.topic.replication.factor", Integer.toString(rf));
            c.put("offsets.topic.num.partitions", "3");
            c.put("broker.session.timeout.ms", Long.toString(settings.sessionTimeoutMs()));
            c.put("broker.heartbeat.interval.ms", Long.toString(settings.heartbeatIntervalMs()));
            c.put("replica.lag.time.max.ms", Long.toString(settings.replicaLagTimeMaxMs()));
            c.put("unclean.leader.election.enable", "false");
            c.put("auto.create.topics.enable", "false");
            c.put("num.partitions", "1");
            c.put("group.initial.rebalance.delay.ms", "0");
            c.put("num.network.threads", "2");
            c.put("num.io.threads", "4");
            if (kind == SystemKind.KAFKA) {
                c.put("inter.broker.listener.name", "PLAINTEXT");
                c.put("transaction.state.log.replication.factor", Integer.toString(rf));
                c.put("transaction.state.log.min.isr", "2");
                c.put("share.coordinator.state.topic.replication.factor", Integer.toString(rf));
                c.put("share.coordinator.state.topic.min.isr", "2");
            }
            if (kind == SystemKind.STRAIT) {
                // The machine's boot as this node sees it: a power cut changes it (as a reboot would), a kill does
                // not, so the node tells a crash that kept its page cache from one that lost it.
                c.put("strait.boot.id.file", bootIdFile().toString());
            }
            if (settings.flushOnAck()) {
                if (kind == SystemKind.STRAIT) {
                    c.put("strait.flush.on.ack", "true");
                } else {
                    c.put("log.flush.interval.messages", "1");
                }
            }
            settings.extraConfig().forEach((k, v) -> {
                if (kind == SystemKind.STRAIT || !k.startsWith("strait.")) {
                    c.put(k, v);
                }
            });
            return c;
        }

        Path bootIdFile() {
            Path file = home.resolve("boot_id");
            if (!Files.exists(file)) {
                newBoot();
            }
            return file;
        }

        void newBoot() {
            try {
                Files.createDirectories(home);
                Files.writeString(home.resolve("boot_id"), UUID.randomUUID().toString());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the boot id of node " + id, e);
            }
        }

        void signal(String signal) {
            if (process == null || !process.isAlive()) {
                return;
            }
            Shell.run("kill", "-" + signal, Long.toString(process.pid()));
        }
    }

    private NemesisCluster(
            SystemKind kind,
            NetNamespaces net,
            Path dir,
            Config settings,
            EventLog events,
            @Nullable Duration writeBackAge) {
        this.writeBackAge = writeBackAge;
        this.kind = kind;
        this.net = net;
        this.dir = dir;
        this.settings = settings;
        this.events = events;
        for (int id = 1; id <= net.nodes(); id++) {
            nodes.add(new Node(id));
        }
        // Scanned often, so the order in which nodes claimed the controller is the order they logged it in.
        logScanner.scheduleWithFixedDelay(this::scanLogs, 250, 250, TimeUnit.MILLISECONDS);
    }

    /** Starts every node and waits until each is registered and serves requests. */
    public static NemesisCluster start(SystemKind kind, NetNamespaces net, Path dir, Config settings, EventLog events) {
        return start(kind, net, dir, settings, events, null);
    }

    /**
     * As {@link #start(SystemKind, NetNamespaces, Path, Config, EventLog)}, with every node's data directory on a
     * {@link LazyDisk} whose write-back age is {@code writeBackAge} (null: plain directories), so that
     * {@link #powerOff(int)} can lose what a node did not sync.
     */
    public static NemesisCluster start(
            SystemKind kind,
            NetNamespaces net,
            Path dir,
            Config settings,
            EventLog events,
            @Nullable Duration writeBackAge) {
        NemesisCluster cluster = new NemesisCluster(kind, net, dir, settings, events, writeBackAge);
        try {
            for (Node node : cluster.nodes) {
                node.launch();
            }
            cluster.verifyPidsAreJvms();
            cluster.awaitRegistered(cluster.allIds(), READY_TIMEOUT);
            cluster.writeBackFormat();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * A real cluster is formatted and started long before a power cut, so the kernel has written back what the
     * format and the first start wrote. Here the faults begin seconds later: without this, a power cut loses what
     * was not synced of it. (Kafka 4.1.1's formatter does not fsync {@code bootstrap.checkpoint}: a node whose power
     * is cut within the write-back age of its format does not start again, "No FeatureLevelRecord for
     * metadata.version was found in the bootstrap metadata".)
     */
    private void writeBackFormat() {
        for (Node node : nodes) {
            if (node.disk != null) {
                node.disk.writeBackAll();
            }
        }
    }

    /**
     * {@code ip netns exec} enters the namespace and then execs the JVM in the same process; if it forked instead,
     * SIGSTOP would freeze the wrong process. Polled, since the exec happens a moment after the start.
     */
    private void verifyPidsAreJvms() {
        for (Node node : nodes) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            String command = "";
            Process process = java.util.Objects.requireNonNull(node.process, "node launched");
            while (System.nanoTime() < deadline && process.isAlive()) {
                command = process.info().command().orElse("");
                if (command.endsWith("java")) {
                    break;
                }
                sleep(50);
            }
            if (process.isAlive() && !command.endsWith("java")) {
                throw new IllegalStateException("node " + node.id + ": pid " + process.pid() + " runs " + command
                        + ", not the JVM; the nemesis signals nodes by this pid");
            }
        }
    }

    public SystemKind kind() {
        return kind;
    }

    public int size() {
        return nodes.size();
    }

    public List<Integer> allIds() {
        return nodes.stream().map(n -> n.id).collect(Collectors.toList());
    }

    public String bootstrapServers() {
        return nodes.stream().map(n -> net.address(n.id) + ":" + CLIENT_PORT).collect(Collectors.joining(","));
    }

    public String host(int id) {
        return net.address(id);
    }

    public int clientPort() {
        return CLIENT_PORT;
    }

    public Config settings() {
        return settings;
    }

    public Path directory() {
        return dir;
    }

    public State state(int id) {
        return node(id).state;
    }

    public long pid(int id) {
        Process p = node(id).process;
        return p == null ? -1 : p.pid();
    }

    public Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "200");
        return Admin.create(p);
    }

    /** SIGSTOP: the process freezes with its sockets open, as in a long GC pause or a stalled VM. */
    public void pause(int id) {
        Node node = node(id);
        if (node.state == State.RUNNING) {
            node.signal("STOP");
            node.state = State.PAUSED;
        }
    }

    public void resume(int id) {
        Node node = node(id);
        if (node.state == State.PAUSED) {
            node.signal("CONT");
            node.state = State.RUNNING;
        }
    }

    /** SIGKILL (also of a paused process); its data stays for {@link #restart(int)}. */
    public void kill(int id) {
        Node node = node(id);
        if (node.process != null && node.process.isAlive()) {
            node.process.destroyForcibly();
            waitFor(node.process, 30);
        }
        node.state = State.DOWN;
        node.claimsController = false;
    }

    /**
     * A power cut: SIGKILL, then the node's lazy disk loses every write the node neither synced nor had written back.
     * Its data stays (as far as it was durable) for {@link #restart(int)}.
     */
    public LazyDisk.Unsynced powerOff(int id) {
        Node node = node(id);
        if (node.disk == null) {
            throw new IllegalStateException(
                    "node " + id + " has no lazy disk: start the cluster with a write-back age" + " to cut power");
        }
        kill(id);
        node.newBoot();
        return node.disk.loseUnsyncedWrites();
    }

    /** Where node {@code id} keeps its data (the lazy disk's mount point when there is one). */
    public Path dataDirectory(int id) {
        return node(id).home.resolve("data");
    }

    /** SIGTERM (a paused node is resumed first so it can shut down); SIGKILL if it is not gone within 60 s. */
    public boolean terminate(int id) {
        Node node = node(id);
        resume(id);
        boolean polite = true;
        if (node.process != null && node.process.isAlive()) {
            node.process.destroy();
            if (!waitFor(node.process, 60)) {
                polite = false;
                node.process.destroyForcibly();
                waitFor(node.process, 30);
            }
        }
        node.state = State.DOWN;
        node.claimsController = false;
        return polite;
    }

    public void restart(int id) {
        Node node = node(id);
        if (node.process != null && node.process.isAlive()) {
            throw new IllegalStateException("node " + id + " still runs (pid " + node.process.pid() + ")");
        }
        node.launch();
    }

    /** Resumes paused nodes and restarts dead ones. */
    public void healProcesses() {
        for (Node node : nodes) {
            if (node.state == State.PAUSED) {
                resume(node.id);
            }
            if (node.process == null || !node.process.isAlive()) {
                node.launch();
            }
        }
    }

    /** Every exit so far that the harness did not cause, with the exit code and the log tail. */
    public List<String> unexpectedExits() {
        for (Node node : nodes) {
            noteCrash(node);
        }
        return new ArrayList<>(crashes.values());
    }

    private void noteCrash(Node node) {
        Process process = node.process;
        if (node.state != State.DOWN && process != null && !process.isAlive()) {
            crashes.computeIfAbsent(
                    process.pid(),
                    pid -> "node " + node.id + " (pid " + pid + ") exited with " + process.exitValue()
                            + " on its own; log tail:\n" + logTail(node.id, 30));
        }
    }

    /** Waits until DescribeCluster lists every node in {@code ids}; fails with the nodes' log tails. */
    public void awaitRegistered(List<Integer> ids, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "nothing yet";
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                List<String> exits = unexpectedExits();
                if (!exits.isEmpty()) {
                    throw new IllegalStateException(String.join("\n", exits));
                }
                try {
                    var live = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
                            .map(n -> n.id())
                            .collect(Collectors.toSet());
                    if (live.containsAll(ids)) {
                        return;
                    }
                    last = "registered: " + live;
                } catch (Exception e) {
                    last = e.toString();
                }
                sleep(250);
            }
        }
        throw new IllegalStateException(kind.label() + ": nodes " + ids + " not all registered within "
                + timeout.toSeconds() + " s (last: " + last + ")\n"
                + nodes.stream()
                        .map(n -> "node " + n.id + ":\n" + logTail(n.id, 20))
                        .collect(Collectors.joining("\n")));
    }

    /**
     * The active controller, or empty when it cannot be told: Kafka's DescribeQuorum leader; for Strait (no
     * DescribeQuorum) the running node that most recently logged that it became the active controller.
     */
    public OptionalInt activeController(Admin admin) {
        if (kind == SystemKind.KAFKA) {
            try {
                QuorumInfo quorum = admin.describeMetadataQuorum().quorumInfo().get(4, TimeUnit.SECONDS);
                if (quorum.leaderId() >= 0) {
                    return OptionalInt.of(quorum.leaderId());
                }
            } catch (Exception e) {
                events.log("  (DescribeQuorum failed: " + e.getClass().getSimpleName() + "; using the logs)");
            }
        }
        scanLogs();
        if (kind == SystemKind.KAFKA) {
            return kafkaLeaderFromLogs();
        }
        Node best = null;
        for (Node node : nodes) {
            if (node.state == State.RUNNING
                    && node.claimsController
                    && (best == null || node.claimedAtNanos > best.claimedAtNanos)) {
                best = node;
            }
        }
        return best == null ? OptionalInt.empty() : OptionalInt.of(best.id);
    }

    /** Reads what the nodes logged since the last scan and follows their claims to the active controller. */
    private synchronized void scanLogs() {
        for (Node node : nodes) {
            scanLog(node);
        }
    }

    private void scanLog(Node node) {
        {
            try (RandomAccessFile file = new RandomAccessFile(node.log().toFile(), "r")) {
                long length = file.length();
                if (length < node.logOffset) {
                    node.logOffset = 0;
                }
                file.seek(node.logOffset);
                byte[] bytes = new byte[(int) Math.min(length - node.logOffset, 8 << 20)];
                file.readFully(bytes);
                node.logOffset += bytes.length;
                node.partialLine.append(new String(bytes, StandardCharsets.UTF_8));
                int newline;
                while ((newline = node.partialLine.indexOf("\n")) >= 0) {
                    String line = node.partialLine.substring(0, newline);
                    node.partialLine.delete(0, newline + 1);
                    followControllerClaims(node, line);
                }
            } catch (IOException | RuntimeException e) {
                // no log yet; a scan that failed is repeated by the next one
            }
        }
    }

    private void followControllerClaims(Node node, String line) {
        if (line.contains("[QuorumController " + node.id + "] active at log offset")) {
            node.claimsController = true;
            node.claimedAtNanos = System.nanoTime();
        } else if (line.contains("[QuorumRuntime " + node.id + "] no longer the active controller")) {
            node.claimsController = false;
        }
        Matcher epoch = KAFKA_NEW_EPOCH.matcher(line);
        if (epoch.find()) {
            int e = Integer.parseInt(epoch.group(1));
            if (e >= node.quorumEpoch) {
                node.quorumEpoch = e;
                node.quorumLeader = epoch.group(2).equals("(none)") ? -1 : Integer.parseInt(epoch.group(2));
            }
        }
    }

    /** Kafka's leader as the running nodes logged it: the one named for the highest epoch. */
    private OptionalInt kafkaLeaderFromLogs() {
        int epoch = -1;
        int leader = -1;
        for (Node node : nodes) {
            if (node.state == State.RUNNING && node.quorumEpoch > epoch) {
                epoch = node.quorumEpoch;
                leader = node.quorumLeader;
            }
        }
        return leader > 0 && node(leader).state == State.RUNNING ? OptionalInt.of(leader) : OptionalInt.empty();
    }

    public String logTail(int id, int lines) {
        try {
            List<String> all = Files.readAllLines(node(id).log(), StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    public Path logFile(int id) {
        return node(id).log();
    }

    private Node node(int id) {
        if (id < 1 || id > nodes.size()) {
            throw new IllegalArgumentException("no node " + id + " in a cluster of " + nodes.size());
        }
        return nodes.get(id - 1);
    }

    private String voters() {
        return nodes.stream()
                .map(n -> n.id + "@" + net.address(n.id) + ":" + CONTROLLER_PORT)
                .collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        logScanner.shutdownNow();
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.destroyForcibly();
            }
        }
        for (Node node : nodes) {
            if (node.process != null) {
                waitFor(node.process, 30);
            }
            node.state = State.DOWN;
        }
        for (Node node : nodes) {
            if (node.disk != null) {
                node.disk.close();
                node.disk = null;
            }
        }
    }

    private static boolean waitFor(Process process, int seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
