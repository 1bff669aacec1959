package dev.strait.broker.cluster;

import dev.strait.broker.server.BrokerMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * A companion cluster of N nodes, each a separate JVM ({@link BrokerMain}) that is broker and controller at once,
 * configured with Kafka's KRaft names, on 127.0.0.1 ports picked up front so a killed node comes back on the same
 * address with its data. For fault tests: SIGKILL, SIGTERM (controlled shutdown) and restart of single nodes.
 */
final class ProcessCluster implements AutoCloseable {

    private final Path baseDir;
    private final List<Node> nodes = new ArrayList<>();
    private final Map<String, String> extraConfig;

    private final class Node {
        final int id;
        final int clientPort;
        final int controllerPort;
        final Path dir;
        Process process;

        Node(int id, int clientPort, int controllerPort, Path dir) {
            this.id = id;
            this.clientPort = clientPort;
            this.controllerPort = controllerPort;
            this.dir = dir;
        }

        void launch() {
            try {
                Files.createDirectories(dir);
                Path config = dir.resolve("server.properties");
                Properties props = new Properties();
                props.putAll(config());
                try (var out = Files.newBufferedWriter(config)) {
                    props.store(out, "node " + id);
                }
                Path java = Path.of(System.getProperty("java.home"), "bin", "java");
                process = new ProcessBuilder(
                                java.toString(),
                                "-Xmx256m",
                                "-XX:+UseSerialGC",
                                "-XX:TieredStopAtLevel=1",
                                "-cp",
                                System.getProperty("java.class.path"),
                                BrokerMain.class.getName(),
                                config.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("node.log").toFile())
                        .start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start node " + id, e);
            }
        }

        Map<String, String> config() {
            Map<String, String> c = new LinkedHashMap<>();
            c.put("process.roles", "broker,controller");
            c.put("node.id", Integer.toString(id));
            c.put("listeners", "PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
            c.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + clientPort);
            c.put("controller.listener.names", "CONTROLLER");
            c.put("controller.quorum.voters", voters());
            c.put("log.dirs", dir.resolve("data").toString());
            c.put("num.network.threads", "2");
            c.put("num.io.threads", "4");
            c.put("default.replication.factor", Integer.toString(Math.min(3, nodes.size())));
            c.put("group.initial.rebalance.delay.ms", "0");
            c.putAll(extraConfig);
            return c;
        }

        boolean alive() {
            return process != null && process.isAlive();
        }

        String logTail() {
            try {
                List<String> lines = Files.readAllLines(dir.resolve("node.log"));
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
            } catch (IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }
    }

    private ProcessCluster(int size, Map<String, String> extraConfig) throws IOException {
        this.baseDir = Files.createTempDirectory("strait-process-cluster-");
        this.extraConfig = Map.copyOf(extraConfig);
        for (int id = 1; id <= size; id++) {
            nodes.add(new Node(id, freePort(), freePort(), baseDir.resolve("node-" + id)));
        }
    }

    static ProcessCluster start(int size, Map<String, String> extraConfig) throws Exception {
        ProcessCluster cluster = new ProcessCluster(size, extraConfig);
        try {
            cluster.nodes.forEach(Node::launch);
            cluster.awaitBrokers(size, Duration.ofSeconds(90));
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private String voters() {
        return nodes.stream().map(n -> n.id + "@127.0.0.1:" + n.controllerPort).collect(Collectors.joining(","));
    }

    String bootstrapServers() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.clientPort).collect(Collectors.joining(","));
    }

    Admin admin() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }

    /** SIGKILL: the node gets no chance to move leaderships or flush anything. */
    void kill(int id) throws InterruptedException {
        Node node = node(id);
        node.process.destroyForcibly();
        node.process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: the node shuts down politely (controlled shutdown) and exits. */
    void stop(int id) throws InterruptedException {
        Node node = node(id);
        node.process.destroy();
        if (!node.process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("node " + id + " did not stop within 60 s after SIGTERM:\n" + node.logTail());
        }
    }

    /** SIGSTOP: the node freezes (no heartbeats, no fetches) with its sockets open, as a hung JVM would. */
    void pause(int id) throws Exception {
        signal(id, "STOP");
    }

    /** SIGCONT: a paused node runs on. */
    void unpause(int id) throws Exception {
        signal(id, "CONT");
    }

    private void signal(int id, String signal) throws Exception {
        Process kill = new ProcessBuilder(
                        "kill", "-" + signal, Long.toString(node(id).process.pid()))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + signal + " of node " + id + " failed");
        }
    }

    /** The directory of a partition's log on one node. */
    Path partitionDir(int id, String topic, int partition) {
        return node(id).dir.resolve("data").resolve(topic + "-" + partition);
    }

    void restart(int id) {
        Node node = node(id);
        if (node.alive()) {
            throw new IllegalStateException("node " + id + " is still running");
        }
        node.launch();
    }

    /** The partition's description as the cluster reports it, from any live node. */
    TopicPartitionInfo describe(Admin admin, String topic, int partition) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(topic);
        return d.partitions().get(partition);
    }

    /** Waits until {@code count} brokers are registered and unfenced (DescribeCluster lists them). */
    void awaitBrokers(int count, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            for (Node node : nodes) {
                if (node.process != null
                        && !node.process.isAlive()
                        && node.process.exitValue() != 137
                        && node.process.exitValue() != 143) {
                    throw new AssertionError(
                            "node " + node.id + " exited with " + node.process.exitValue() + ":\n" + node.logTail());
                }
            }
            try (Admin admin = admin()) {
                if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() >= count) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("fewer than " + count + " brokers registered within " + timeout + "; last error "
                + last + "\n"
                + nodes.stream().map(n -> "node " + n.id + ":\n" + n.logTail()).collect(Collectors.joining("\n")));
    }

    /** The bytes of a partition's log on one node: its segment files in offset order, concatenated. */
    byte[] logBytes(int id, String topic, int partition) throws IOException {
        Path dir = node(id).dir.resolve("data").resolve(topic + "-" + partition);
        List<Path> segments;
        try (Stream<Path> files = Files.list(dir)) {
            segments = files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .sorted(Comparator.comparing(p -> p.getFileName().toString()))
                    .collect(Collectors.toList());
        }
        var out = new java.io.ByteArrayOutputStream();
        for (Path segment : segments) {
            out.write(Files.readAllBytes(segment));
        }
        return out.toByteArray();
    }

    String logTail(int id) {
        return node(id).logTail();
    }

    /** For a failure message: each node's last {@code max} log lines that contain one of {@code needles}. */
    String logLines(int max, String... needles) {
        String needle = String.join("\" or \"", needles);
        StringBuilder out = new StringBuilder();
        for (Node node : nodes) {
            out.append("\nnode ")
                    .append(node.id)
                    .append(" (lines with \"")
                    .append(needle)
                    .append("\"):\n");
            try {
                List<String> lines = Files.readAllLines(node.dir.resolve("node.log")).stream()
                        .filter(line -> java.util.Arrays.stream(needles).anyMatch(line::contains))
                        .toList();
                out.append(String.join("\n", lines.subList(Math.max(0, lines.size() - max), lines.size())));
            } catch (IOException e) {
                out.append("(no log: ").append(e.getMessage()).append(')');
            }
        }
        return out.toString();
    }

    private Node node(int id) {
        return nodes.get(id - 1);
    }

    @Override
    public void close() {
        for (Node node : nodes) {
            if (node.process != null) {
                node.process.destroyForcibly();
            }
        }
        for (Node node : nodes) {
            if (node.process != null) {
                try {
                    node.process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        try (Stream<Path> paths = Files.walk(baseDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp dir left behind is not worth failing a test for
        }
    }

    private static int freePort() throws IOException {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }
}
