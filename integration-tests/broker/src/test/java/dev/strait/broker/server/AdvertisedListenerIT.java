package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code advertised.listeners} is what clients are told to connect to, standalone and in a quorum: a broker in a
 * container binds 0.0.0.0 and is reached through the host's published port under the host's name. Here the broker
 * binds 127.0.0.1 and advertises "localhost", a name that reaches the same socket, so the clients still work.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AdvertisedListenerIT {

    @TempDir
    Path dir;

    @Test
    void aStandaloneBrokerAdvertisesTheConfiguredHostInMetadataAndDescribeCluster() throws Exception {
        int clientPort = freePort();
        Map<String, String> props = new HashMap<>(Map.of(
                "node.id",
                "0",
                "listeners",
                "PLAINTEXT://127.0.0.1:" + clientPort,
                "advertised.listeners",
                "PLAINTEXT://localhost:" + clientPort,
                "log.dirs",
                dir.resolve("logs").toString()));
        BrokerServer server = new BrokerServer(BrokerConfig.from(props)).start();
        try {
            assertAdvertises("127.0.0.1:" + clientPort, "localhost", clientPort);
        } finally {
            server.close();
        }
    }

    @Test
    void aQuorumBrokerRegistersTheAdvertisedEndpoint() throws Exception {
        int controllerPort = freePort();
        int clientPort = freePort();
        Map<String, String> props = new HashMap<>(Map.of(
                "node.id",
                "0",
                "process.roles",
                "broker,controller",
                "controller.quorum.voters",
                "0@127.0.0.1:" + controllerPort,
                "controller.listener.names",
                "CONTROLLER",
                "listeners",
                "PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:0",
                "advertised.listeners",
                "PLAINTEXT://localhost:" + clientPort,
                "log.dirs",
                dir.resolve("logs").toString()));
        BrokerServer server = new BrokerServer(BrokerConfig.from(props)).start();
        try {
            assertAdvertises("127.0.0.1:" + clientPort, "localhost", clientPort);
        } finally {
            server.close();
        }
    }

    private static void assertAdvertises(String bootstrap, String host, int port) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            assertThat(nodes).extracting(Node::host, Node::port).containsExactly(tuple(host, port));
            admin.createTopics(List.of(new NewTopic("advertised", 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            TopicDescription topic = admin.describeTopics(List.of("advertised"))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get("advertised");
            Node leader = topic.partitions().get(0).leader();
            assertThat(leader.host()).isEqualTo(host);
            assertThat(leader.port()).isEqualTo(port);
        }
    }

    private static int freePort() throws java.io.IOException {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }
}
