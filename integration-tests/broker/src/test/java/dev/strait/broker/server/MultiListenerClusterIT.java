package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.security.TestPki;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14: three nodes with two broker listeners, as Kafka deployments separate client and replication traffic:
 * {@code CLIENT} (SASL_SSL; SCRAM users, PLAIN for the admin) and {@code REPLICATION} (SASL_PLAINTEXT, PLAIN,
 * its own user {@code replicator}, which is no super user), named by {@code inter.broker.listener.name}. The
 * client listener's own JAAS identity is the super user {@code admin}: were replica fetchers to use the client
 * listener, they would need no ACL at all. Clients of each listener see that listener's endpoints only; replication
 * follows the replicator's CLUSTER_ACTION; an acks=all stream through a leader kill reads back whole and in order.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MultiListenerClusterIT {

    private static final String TOPIC = "payments";
    private static final String REPLICATOR_PASSWORD = "replicator-secret";
    private static final long WAIT_MS = 60_000;

    private static EmbeddedCluster cluster;

    @BeforeAll
    static void start() {
        TestPki pki = TestPki.get();
        EmbeddedCluster.Builder builder =
                EmbeddedCluster.builder().nodes(3).clientListener("CLIENT").replicationListener("REPLICATION");
        pki.sslConfigs("", "broker").forEach(builder::brokerConfig);
        builder.brokerConfig(
                        "listener.security.protocol.map", "CLIENT:SASL_SSL,REPLICATION:SASL_PLAINTEXT,CONTROLLER:SSL")
                .brokerConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512")
                .brokerConfig("listener.name.replication.sasl.enabled.mechanisms", "PLAIN")
                .brokerConfig("sasl.mechanism.inter.broker.protocol", "PLAIN")
                .brokerConfig(
                        "listener.name.client.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
                                + "password=\"" + SecureConfigs.ADMIN_PASSWORD + "\" user_admin=\""
                                + SecureConfigs.ADMIN_PASSWORD + "\";")
                .brokerConfig(
                        "listener.name.replication.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"replicator\" "
                                + "password=\"" + REPLICATOR_PASSWORD + "\" user_replicator=\"" + REPLICATOR_PASSWORD
                                + "\";")
                .brokerConfig("strait.bootstrap.scram.credentials", "SCRAM-SHA-512=[name=alice,password=alice-secret]")
                .brokerConfig("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                // User:broker is the controller wire's mutual-TLS certificate principal; replicator is no super user
                .brokerConfig("super.users", "User:admin;User:broker")
                .brokerConfig("allow.everyone.if.no.acl.found", "false")
                .brokerConfig("listener.name.controller.ssl.client.auth", "required")
                .brokerConfig(
                        "listener.name.controller.ssl.principal.mapping.rules", "RULE:^CN=([^,]*),.*$/$1/,DEFAULT")
                .brokerConfig("min.insync.replicas", "2")
                .brokerConfig("replica.lag.time.max.ms", "4000")
                .brokerConfig("broker.session.timeout.ms", "3000")
                .brokerConfig("broker.heartbeat.interval.ms", "500");
        cluster = builder.start();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void clientsSeeTheirListenerAndReplicasFetchAsTheReplicationUserThroughALeaderKill() throws Exception {
        Set<Integer> clientPorts = ports(cluster.bootstrapServers());
        Set<Integer> replicationPorts = ports(cluster.replicationBootstrapServers());
        try (Admin admin = Admin.create(SecureConfigs.admin(cluster.bootstrapServers()))) {
            // Then: Metadata and DescribeCluster through the client listener name client endpoints only, as
            // FindCoordinator does, and through the replication listener replication endpoints only
            SecuredClusterIT.await(
                    "three brokers at their client endpoints",
                    () -> ports(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                            .equals(clientPorts));
            try (Admin replication = Admin.create(replicationClient())) {
                SecuredClusterIT.await(
                        "three brokers at their replication endpoints",
                        () -> ports(replication.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                                .equals(replicationPorts));
            }
            // (a coordinator at a replication endpoint would be a SASL_PLAINTEXT port this TLS client cannot use)
            assertThat(admin.listConsumerGroupOffsets("any-group")
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS))
                    .isEmpty();

            // Given: the replication user may replicate; alice may write and read the topic
            AclBinding replicate = new AclBinding(
                    new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry(
                            "User:replicator", "*", AclOperation.CLUSTER_ACTION, AclPermissionType.ALLOW));
            admin.createAcls(List.of(
                            replicate,
                            topicAcl("User:alice", AclOperation.WRITE),
                            topicAcl("User:alice", AclOperation.READ)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
            SecuredClusterIT.await("three replicas in sync", () -> isr(admin) == 3);
            // CreateTopics answers once the answering node holds the topic; the admin's next describe may go to
            // a node still applying it (Kafka's metadata propagates the same way)
            SecuredClusterIT.await("the topic on every node", () -> {
                for (int node = 0; node < 3; node++) {
                    if (cluster.node(node).metadata().topic(TOPIC).isEmpty()) {
                        return false;
                    }
                }
                return true;
            });
            assertThat(ports(describe(admin).partitions().get(0).replicas())).isEqualTo(clientPorts);

            // When: the replication user loses CLUSTER_ACTION, the followers' fetches are refused: they leave the
            // ISR (the client listener's super-user identity does not help them)
            admin.deleteAcls(List.of(replicate.toFilter())).all().get(30, TimeUnit.SECONDS);
            SecuredClusterIT.await("the followers out of the ISR", () -> isr(admin) == 1);
            // and once it is granted again they catch up
            admin.createAcls(List.of(replicate)).all().get(30, TimeUnit.SECONDS);
            SecuredClusterIT.await("three replicas in sync again", () -> isr(admin) == 3);

            // When: alice streams with acks=all and the leader dies in the middle
            int victim = describe(admin).partitions().get(0).leader().id();
            List<String> values = new ArrayList<>();
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            try (KafkaProducer<String, String> producer = producer(cluster.bootstrapServers())) {
                send(producer, values, sends, 0, 150);
                sends.get(sends.size() - 1).get(60, TimeUnit.SECONDS);
                cluster.kill(victim);
                send(producer, values, sends, 150, 300);
                producer.flush();
            }

            // Then: every record was acknowledged at its offset and reads back once, in order
            for (int i = 0; i < sends.size(); i++) {
                assertThat(sends.get(i).get(60, TimeUnit.SECONDS).offset())
                        .as("offset of record %d", i)
                        .isEqualTo(i);
            }
            assertThat(consume(survivors(victim), values.size())).containsExactlyElementsOf(values);
        }
    }

    private static AclBinding topicAcl(String principal, AclOperation operation) {
        return new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    private static Map<String, Object> replicationClient() {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", cluster.replicationBootstrapServers());
        props.put("security.protocol", "SASL_PLAINTEXT");
        props.put("sasl.mechanism", "PLAIN");
        props.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"replicator\" "
                        + "password=\"" + REPLICATOR_PASSWORD + "\";");
        return props;
    }

    private static Set<Integer> ports(String bootstrap) {
        Set<Integer> ports = new HashSet<>();
        for (String server : bootstrap.split(",")) {
            ports.add(Integer.parseInt(server.substring(server.lastIndexOf(':') + 1)));
        }
        return ports;
    }

    private static Set<Integer> ports(java.util.Collection<Node> nodes) {
        Set<Integer> ports = new HashSet<>();
        for (Node node : nodes) {
            ports.add(node.port());
        }
        return ports;
    }

    private static TopicDescription describe(Admin admin) throws Exception {
        return admin.describeTopics(List.of(TOPIC))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(TOPIC);
    }

    private static int isr(Admin admin) throws Exception {
        return describe(admin).partitions().get(0).isr().size();
    }

    private static String survivors(int victim) {
        List<String> servers =
                new ArrayList<>(List.of(cluster.bootstrapServers().split(",")));
        servers.remove(victim);
        return String.join(",", servers);
    }

    private static void send(
            KafkaProducer<String, String> producer,
            List<String> values,
            List<Future<RecordMetadata>> sends,
            int from,
            int to) {
        for (int i = from; i < to; i++) {
            values.add("v" + i);
            sends.add(producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)));
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Map<String, Object> props =
                new HashMap<>(SecureConfigs.client(bootstrap, "SCRAM-SHA-512", "alice", "alice-secret"));
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        props.put("acks", "all");
        props.put("enable.idempotence", "true");
        props.put("delivery.timeout.ms", "60000");
        props.put("request.timeout.ms", "5000");
        props.put("max.block.ms", "30000");
        props.put("linger.ms", "5");
        return new KafkaProducer<>(props);
    }

    /** The first {@code count} values of the partition from offset 0; asserts each sits at its own offset. */
    private static List<String> consume(String bootstrap, int count) {
        Map<String, Object> props =
                new HashMap<>(SecureConfigs.client(bootstrap, "SCRAM-SHA-512", "alice", "alice-secret"));
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        props.put("auto.offset.reset", "earliest");
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new TopicPartition(TOPIC, 0)));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (read.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(java.time.Duration.ofMillis(500))) {
                    assertThat(record.offset())
                            .as("offset of %s", record.value())
                            .isEqualTo(read.size());
                    read.add(record.value());
                }
            }
        }
        return read;
    }
}
