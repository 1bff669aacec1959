package dev.strait.broker.server;

import dev.strait.broker.partition.LeaderClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * N brokers in this JVM sharing one {@link FakeController}, each with its own data directory and a port it keeps
 * across {@link #stop(int)} / {@link #start(int)}. Test-only, until the Raft quorum can run a real cluster.
 */
final class TestCluster implements AutoCloseable {

    private final Path dataDir;
    private final FakeController controller;
    private final Map<String, String> brokerConfigs;
    private final BrokerServer[] brokers;
    private final int[] ports;
    private final Set<List<Integer>> cutLinks = ConcurrentHashMap.newKeySet();

    TestCluster(int nodes, Map<String, String> brokerConfigs) {
        try {
            this.dataDir = Files.createTempDirectory("strait-test-cluster-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.controller = new FakeController(
                Integer.parseInt(brokerConfigs.getOrDefault("default.replication.factor", "1")), nodes);
        this.brokerConfigs = Map.copyOf(brokerConfigs);
        this.brokers = new BrokerServer[nodes];
        this.ports = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            start(i);
        }
    }

    /** Replica fetches from {@code leader} to {@code follower} fail (as IO errors) until {@link #heal}. */
    void cut(int follower, int leader) {
        cutLinks.add(List.of(follower, leader));
    }

    void heal(int follower, int leader) {
        cutLinks.remove(List.of(follower, leader));
    }

    private LeaderClient.Factory cuttable(int follower, LeaderClient.Factory real) {
        return (leaderId, host, port) -> {
            if (cutLinks.contains(List.of(follower, leaderId))) {
                throw new IOException("link " + follower + " -> " + leaderId + " is cut by the test");
            }
            LeaderClient client = real.connect(leaderId, host, port);
            return new LeaderClient() {
                private void check() throws IOException {
                    if (cutLinks.contains(List.of(follower, leaderId))) {
                        throw new IOException("link " + follower + " -> " + leaderId + " is cut by the test");
                    }
                }

                @Override
                public Map<TopicPartition, FetchedPartition> fetch(
                        List<FetchTarget> targets, int maxWaitMs, int minBytes, int maxBytes) throws IOException {
                    check();
                    Map<TopicPartition, FetchedPartition> response =
                            client.fetch(targets, maxWaitMs, minBytes, maxBytes);
                    check(); // an answer in flight when the link was cut is lost with it
                    return response;
                }

                @Override
                public Map<TopicPartition, EpochAnswer> offsetsForLeaderEpoch(List<EpochQuery> queries)
                        throws IOException {
                    check();
                    Map<TopicPartition, EpochAnswer> answers = client.offsetsForLeaderEpoch(queries);
                    check();
                    return answers;
                }

                @Override
                public void close() {
                    client.close();
                }
            };
        };
    }

    FakeController controller() {
        return controller;
    }

    int size() {
        return brokers.length;
    }

    synchronized void start(int nodeId) {
        if (brokers[nodeId] != null) {
            return;
        }
        Map<String, String> props = new LinkedHashMap<>();
        props.put("node.id", Integer.toString(nodeId));
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + ports[nodeId]);
        props.put("log.dirs", logDir(nodeId).toString());
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "4");
        props.put("replica.fetch.wait.max.ms", "100");
        props.put("replica.fetch.backoff.ms", "100");
        props.put("replica.socket.timeout.ms", "5000");
        props.putAll(brokerConfigs);
        brokers[nodeId] = new BrokerServer(
                        BrokerConfig.from(props),
                        (config, logDir) -> controller.viewFor(nodeId),
                        factory -> cuttable(nodeId, factory))
                .start();
        ports[nodeId] = brokers[nodeId].boundPort();
    }

    /** Stops a node as an operator would; the controller fences it and moves its leaderships. */
    synchronized void stop(int nodeId) {
        if (brokers[nodeId] != null) {
            brokers[nodeId].close();
            brokers[nodeId] = null;
        }
    }

    synchronized BrokerServer broker(int nodeId) {
        return brokers[nodeId];
    }

    Path logDir(int nodeId) {
        return dataDir.resolve("node-" + nodeId);
    }

    synchronized String bootstrapServers() {
        return IntStream.range(0, brokers.length)
                .filter(i -> brokers[i] != null)
                .mapToObj(i -> "127.0.0.1:" + ports[i])
                .collect(Collectors.joining(","));
    }

    @Override
    public synchronized void close() {
        for (int i = 0; i < brokers.length; i++) {
            stop(i);
        }
        controller.close();
        try (Stream<Path> paths = Files.walk(dataDir)) {
            List<Path> all = paths.sorted(Comparator.reverseOrder()).toList();
            for (Path path : all) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
