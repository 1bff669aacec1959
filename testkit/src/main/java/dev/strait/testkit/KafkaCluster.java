package dev.strait.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;

/**
 * A real Apache Kafka 4.1.1 cluster for tests: N KRaft nodes, each both broker and controller, each in
 * its own child JVM, listening on 127.0.0.1 only. Ports are chosen once, so a node that is stopped or
 * killed comes back on the same address with the same data.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
public final class KafkaCluster implements TestCluster {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final String name;
    private final Path baseDir;
    private final String clusterId;
    private final List<Node> nodes = new ArrayList<>();
    private final Map<String, String> extraConfig;
    /** Null for the PLAINTEXT cluster most tests use. */
    private final @Nullable KafkaSecurity security;

    private KafkaCluster(String name, int size, Map<String, String> extraConfig, @Nullable KafkaSecurity security) {
        this.name = name;
        this.extraConfig = Map.copyOf(extraConfig);
        this.security = security;
        this.clusterId = Uuid.randomUuid().toString();
        try {
            this.baseDir = Files.createTempDirectory("strait-kafka-" + name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (security != null) {
            security.prepare(baseDir.resolve("tls"));
        }
        for (int id = 1; id <= size; id++) {
            int sslPort = security != null && security.mtls() ? freePort() : -1;
            nodes.add(new Node(id, freePort(), sslPort, freePort(), baseDir.resolve("node-" + id)));
        }
    }

    /** Starts a cluster of {@code size} nodes and waits until every node serves requests. */
    public static KafkaCluster start(String name, int size) {
        return start(name, size, Map.of());
    }

    public static KafkaCluster start(String name, int size, Map<String, String> extraConfig) {
        return start(new KafkaCluster(name, size, extraConfig, null));
    }

    /**
     * Starts a cluster whose only client listener is SASL_SSL with SCRAM-SHA-512 and ACLs enforced; see
     * {@link KafkaSecurity}. {@link #clientProperties()} logs in as its admin super user.
     */
    public static KafkaCluster startSecured(String name, int size, KafkaSecurity security) {
        return start(new KafkaCluster(name, size, Map.of(), security));
    }

    private static KafkaCluster start(KafkaCluster cluster) {
        try {
            for (Node node : cluster.nodes) {
                node.launch();
            }
            cluster.awaitReady();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    @Override
    public Kind kind() {
        return Kind.KAFKA;
    }

    @Override
    public String name() {
        return name;
    }

    public String clusterId() {
        return clusterId;
    }

    @Override
    public String bootstrapServers() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.brokerPort).collect(Collectors.joining(","));
    }

    @Override
    public int size() {
        return nodes.size();
    }

    /** Connects as the admin super user when the cluster is secured. */
    @Override
    public Properties clientProperties() {
        Properties props = security == null ? new Properties() : security.adminClientProperties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /** Settings that log in as {@code user} (with {@code bootstrap.servers}); only for a secured cluster. */
    public Properties clientProperties(String user, String password) {
        if (security == null) {
            throw new IllegalStateException(name + " is not secured");
        }
        Properties props = security.clientProperties(user, password);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    /**
     * Settings for the SSL listener (mutual TLS) with {@code client}'s certificate, {@code bootstrap.servers}
     * included; only for a cluster secured {@link KafkaSecurity#withMtlsClients with mTLS clients}.
     */
    public Properties mtlsClientProperties(String client) {
        if (security == null) {
            throw new IllegalStateException(name + " is not secured");
        }
        Properties props = security.mtlsClientProperties(client);
        props.put(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                nodes.stream().map(n -> "127.0.0.1:" + n.sslPort).collect(Collectors.joining(",")));
        return props;
    }

    /** Kept for callers written before {@link TestCluster}; see {@link TestCluster#awaitWritable}. */
    public static void awaitWritable(Admin admin, String topic, int partitions) throws InterruptedException {
        TestCluster.awaitWritable(admin, topic, partitions);
    }

    @Override
    public void killNode(int index) {
        kill(index + 1);
    }

    @Override
    public void restartNode(int index) {
        restart(index + 1);
    }

    /** SIGKILL of node {@code id} (1-based); its data stays for {@link #restart(int)}. */
    public void kill(int id) {
        nodes.get(id - 1).kill();
    }

    /** Polite stop (SIGTERM, controlled shutdown) of node {@code id}. */
    public void stop(int id) {
        nodes.get(id - 1).stop();
    }

    /** The process id of node {@code id} (1-based), e.g. to SIGSTOP it; -1 when it is not running. */
    public long pid(int id) {
        Process p = nodes.get(id - 1).process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    @Override
    public void stopAll() {
        for (Node node : nodes) {
            node.stop();
        }
    }

    public void restart(int id) {
        nodes.get(id - 1).launch();
        awaitReady();
    }

    @Override
    public void restartAll() {
        for (Node node : nodes) {
            if (!node.isAlive()) {
                node.launch();
            }
        }
        awaitReady();
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            for (Node node : nodes) {
                if (node.process != null && !node.process.isAlive() && !node.downOnPurpose) {
                    throw new IllegalStateException("Kafka node " + node.id + " of " + name + " exited with "
                            + node.process.exitValue() + "; log tail:\n" + node.logTail());
                }
            }
            Properties props = clientProperties();
            props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
            props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
            try (Admin admin = Admin.create(props)) {
                Collection<?> live = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                long alive = nodes.stream().filter(Node::isAlive).count();
                if (live.size() >= alive) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            sleep(200);
        }
        throw new IllegalStateException("Kafka cluster " + name + " did not become ready in " + START_TIMEOUT, last);
    }

    @Override
    public void close() {
        for (Node node : nodes) {
            node.kill();
        }
        deleteRecursively(baseDir);
    }

    private String quorumVoters() {
        return nodes.stream().map(n -> n.id + "@127.0.0.1:" + n.controllerPort).collect(Collectors.joining(","));
    }

    private final class Node {
        final int id;
        final int brokerPort;
        /** The mTLS listener's port, or -1. */
        final int sslPort;

        final int controllerPort;
        final Path dir;

        @Nullable
        Process process;
        /** Killed or stopped by the test: not a node that died by itself, which start-up checks report. */
        boolean downOnPurpose;

        Node(int id, int brokerPort, int sslPort, int controllerPort, Path dir) {
            this.id = id;
            this.brokerPort = brokerPort;
            this.sslPort = sslPort;
            this.controllerPort = controllerPort;
            this.dir = dir;
        }

        boolean isAlive() {
            return process != null && process.isAlive();
        }

        void launch() {
            if (isAlive()) {
                return;
            }
            downOnPurpose = false;
            try {
                Files.createDirectories(dir);
                Path logDir = dir.resolve("data");
                Path config = dir.resolve("server.properties");
                Files.writeString(config, serverProperties(logDir), StandardCharsets.UTF_8);
                List<String> cmd = new ArrayList<>();
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.add("-Xms64m");
                cmd.add("-Xmx512m");
                cmd.add("-XX:+UseSerialGC");
                cmd.add("-XX:TieredStopAtLevel=1");
                cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
                cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
                cmd.add("-cp");
                cmd.add(kafkaClassPath());
                cmd.add(KafkaNodeMain.class.getName());
                cmd.add(config.toString());
                cmd.add(clusterId);
                cmd.add(logDir.toString());
                if (security != null) {
                    cmd.addAll(security.formatArguments());
                }
                Path log = dir.resolve("kafka.log");
                process = new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("could not launch Kafka node " + id + " of " + name, e);
            }
        }

        private String serverProperties(Path logDir) {
            Map<String, String> p = new LinkedHashMap<>();
            p.put("process.roles", "broker,controller");
            p.put("node.id", String.valueOf(id));
            p.put("controller.quorum.voters", quorumVoters());
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("log.dirs", logDir.toString());
            int rf = Math.min(nodes.size(), 3);
            p.put("offsets.topic.replication.factor", String.valueOf(rf));
            p.put("offsets.topic.num.partitions", "5");
            p.put("transaction.state.log.replication.factor", String.valueOf(rf));
            p.put("transaction.state.log.min.isr", "1");
            p.put("share.coordinator.state.topic.replication.factor", String.valueOf(rf));
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("default.replication.factor", String.valueOf(rf));
            p.put("min.insync.replicas", "1");
            p.put("num.partitions", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.put("auto.create.topics.enable", "false");
            p.put("num.network.threads", "2");
            p.put("num.io.threads", "2");
            p.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
            // Test records carry fixed timestamps from 2023: time-based retention would delete them mid-test.
            p.put("log.retention.ms", "-1");
            if (security != null) {
                p.putAll(security.serverProperties(brokerPort, sslPort, controllerPort));
            }
            p.putAll(extraConfig);
            return p.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("\n", "", "\n"));
        }

        void kill() {
            downOnPurpose = true;
            if (process != null) {
                process.destroyForcibly();
                waitFor(process, 30);
            }
        }

        void stop() {
            downOnPurpose = true;
            if (process != null && process.isAlive()) {
                process.destroy();
                if (!waitFor(process, 60)) {
                    process.destroyForcibly();
                    waitFor(process, 30);
                }
            }
        }

        String logTail() {
            try {
                List<String> lines = Files.readAllLines(dir.resolve("kafka.log"), StandardCharsets.UTF_8);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
            } catch (IOException e) {
                return "(no log: " + e + ")";
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

    /** The class path of a Kafka 4.1.1 node (kafka_2.13 and its runtime dependencies) as built by Maven. */
    public static String kafkaClassPath() {
        try (InputStream in = KafkaCluster.class.getResourceAsStream("kafka-broker.classpath")) {
            if (in == null) {
                throw new IllegalStateException("kafka-broker.classpath missing: build strait-testkit with Maven");
            }
            String deps = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            String self = Path.of(KafkaNodeMain.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
            return self + java.io.File.pathSeparator + deps;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Ports this JVM handed out lately: the kernel may offer a port again as soon as its probe socket closed. */

    /** A port on 127.0.0.1 below the ephemeral range, free a moment ago and not handed out lately (see LoopbackPorts). */
    public static int freePort() {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Deletes a directory tree, best effort. */
    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort: a temp dir left behind is not worth failing a test for
                }
            });
        } catch (IOException ignored) {
            // best effort, as above
        }
    }

    @Override
    public String toString() {
        return "KafkaCluster[" + name + " " + bootstrapServers() + " id=" + clusterId + " dir=" + baseDir + "]";
    }
}
