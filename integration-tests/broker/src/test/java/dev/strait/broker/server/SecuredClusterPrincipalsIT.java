package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.strait.broker.security.TestPki;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.security.KeyStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's rule for the principals nodes speak to each other as: one that is not a super user needs CLUSTER_ACTION
 * on the cluster. Here the replica fetchers authenticate as {@code User:broker}, which is not in
 * {@code super.users}: no acks=all write completes until an admin grants it CLUSTER_ACTION, then the followers
 * catch up. On the controller wire, a certificate the CA signed is not enough: its principal must be a super user
 * (the nodes' own) or hold CLUSTER_ACTION.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredClusterPrincipalsIT {

    private static final String NODE_PRINCIPAL = "User:" + TestPki.subject("broker");

    @Test
    void nodesThatAreNotSuperUsersNeedClusterAction() throws Exception {
        try (EmbeddedCluster cluster = SecureConfigs.saslSslCluster(3, Map.of())
                        .brokerConfig("super.users", "User:admin;" + NODE_PRINCIPAL)
                        .brokerConfig("listener.name.controller.ssl.principal.mapping.rules", "DEFAULT")
                        .brokerConfig("min.insync.replicas", "2")
                        .start();
                Admin admin = Admin.create(SecureConfigs.admin(cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("replicated", 1, (short) 3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            // Given: the followers' fetches are refused, so an acks=all write cannot be acknowledged
            KafkaProducer<String, String> refused = adminProducer(cluster, 8_000);
            try {
                assertThatThrownBy(() -> refused.send(new ProducerRecord<>("replicated", "refused"))
                                .get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class);
            } finally {
                refused.close(Duration.ZERO); // its retries would only wait for the followers
            }
            // and a peer with a certificate of the cluster's CA but another principal may not use the controller wire
            int controllerPort =
                    cluster.node(0).config().controllerListener().orElseThrow().port();
            assertThat(controllerConnectionStaysOpen(controllerPort, "intruder"))
                    .isFalse();
            assertThat(controllerConnectionStaysOpen(controllerPort, "broker")).isTrue();

            // When: User:broker, and the intruder's principal, get CLUSTER_ACTION
            admin.createAcls(
                            List.of(clusterAction("User:broker"), clusterAction("User:" + TestPki.subject("intruder"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);

            // Then: the followers catch up and acks=all writes complete
            SecuredClusterIT.await("an acks=all write acknowledged", () -> {
                try (KafkaProducer<String, String> producer = adminProducer(cluster, 10_000)) {
                    producer.send(new ProducerRecord<>("replicated", "granted")).get(30, TimeUnit.SECONDS);
                    return true;
                }
            });
            SecuredClusterIT.await(
                    "three replicas in sync",
                    () -> admin.describeTopics(List.of("replicated"))
                                    .allTopicNames()
                                    .get(30, TimeUnit.SECONDS)
                                    .get("replicated")
                                    .partitions()
                                    .get(0)
                                    .isr()
                                    .size()
                            == 3);
            // and the controller wire admits the principal once node 0's metadata holds its ACL
            SecuredClusterIT.await(
                    "the intruder's principal admitted",
                    () -> controllerConnectionStaysOpen(controllerPort, "intruder"));
        }
    }

    private static AclBinding clusterAction(String principal) {
        return new AclBinding(
                new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                new AccessControlEntry(principal, "*", AclOperation.CLUSTER_ACTION, AclPermissionType.ALLOW));
    }

    private static KafkaProducer<String, String> adminProducer(EmbeddedCluster cluster, int deliveryTimeoutMs) {
        Map<String, Object> props = new HashMap<>(SecureConfigs.admin(cluster.bootstrapServers()));
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        props.put("acks", "all");
        props.put("request.timeout.ms", Integer.toString(deliveryTimeoutMs / 2));
        props.put("delivery.timeout.ms", Integer.toString(deliveryTimeoutMs));
        props.put("linger.ms", "0");
        return new KafkaProducer<>(props);
    }

    /**
     * Connects to a controller listener with {@code identity}'s certificate: false if the node closes the
     * connection (refused), true if it still holds it after two seconds (admitted; it waits for a Hello).
     */
    private static boolean controllerConnectionStaysOpen(int port, String identity) throws Exception {
        try (SSLSocket socket = (SSLSocket) context(identity).getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(2_000);
            Throwable outcome = catchThrowable(() -> {
                socket.startHandshake();
                if (socket.getInputStream().read() < 0) {
                    throw new java.io.EOFException("closed by the node");
                }
            });
            return outcome instanceof SocketTimeoutException;
        }
    }

    private static SSLContext context(String identity) throws Exception {
        TestPki pki = TestPki.get();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(pki.keyStore(identity))) {
            keys.load(in, TestPki.PASSWORD.toCharArray());
        }
        KeyManagerFactory keyFactory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyFactory.init(keys, TestPki.PASSWORD.toCharArray());
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(pki.trustStore())) {
            trust.load(in, TestPki.PASSWORD.toCharArray());
        }
        TrustManagerFactory trustFactory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustFactory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyFactory.getKeyManagers(), trustFactory.getTrustManagers(), null);
        return context;
    }
}
