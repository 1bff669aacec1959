package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.security.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
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
 * Three companion nodes secured end to end: a SASL_SSL client listener (SCRAM-SHA-512 users made through the
 * Admin API), replica fetchers over the same TLS listener authenticating with SCRAM-SHA-512 as the bootstrap
 * user and super user {@code User:broker},
 * the controller wire over mutual TLS, Kafka's StandardAuthorizer with {@code allow.everyone.if.no.acl.found=false}.
 * Users and ACLs made through one node are enforced by every node, also by one that was down while they changed
 * and got them from a metadata snapshot; the partition leader is killed in the middle of an acks=all stream and
 * every acknowledged record is read back once, in order, at its offset. Deletions of ACLs and credentials travel
 * the same way.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredClusterIT {

    private static final Pattern SNAPSHOT = Pattern.compile("(\\d{20})-(\\d{10})\\.checkpoint");
    private static final String TOPIC = "orders";
    private static final long WAIT_MS = 60_000;

    private static EmbeddedCluster cluster;
    private static String[] nodes;

    @BeforeAll
    static void start() {
        cluster = SecureConfigs.saslSslCluster(3, Map.of())
                // Replication authenticates with SCRAM as a bootstrap user, as config/broker-secured.properties
                .brokerConfig("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512")
                .brokerConfig(
                        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" "
                                + "password=\"" + SecureConfigs.BROKER_PASSWORD + "\";")
                .brokerConfig(
                        "strait.bootstrap.scram.credentials",
                        "SCRAM-SHA-512=[name=broker,password=" + SecureConfigs.BROKER_PASSWORD + "]")
                .brokerConfig("allow.everyone.if.no.acl.found", "false")
                .brokerConfig("min.insync.replicas", "2")
                .brokerConfig("metadata.log.max.record.bytes.between.snapshots", "2048")
                .brokerConfig("broker.session.timeout.ms", "3000")
                .brokerConfig("broker.heartbeat.interval.ms", "500")
                .start();
        nodes = cluster.bootstrapServers().split(",");
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void usersAndAclsMadeOnOneNodeHoldOnEveryNodeThroughALeaderKillAndASnapshotRestore() throws Exception {
        try (Admin admin = Admin.create(SecureConfigs.admin(nodes[0]))) {
            // Given: a user with WRITE and READ on the topic, one with nothing, made through node 0
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
            await(
                    "three replicas in sync",
                    () -> describe(admin).partitions().get(0).isr().size() == 3);
            createScramUsers(admin, "alice", "mallory");
            allow(admin, "User:alice", TOPIC, AclOperation.WRITE, AclOperation.READ);
            awaitEveryRunningNode("alice's ACLs and the users", 2, Set.of("alice", "mallory"));

            // Then: through the other nodes, mallory is refused and alice produces with acks=all
            String others = nodes[1] + "," + nodes[2];
            try (KafkaProducer<String, String> refused = producer(others, "mallory", false)) {
                assertThatThrownBy(() ->
                                refused.send(new ProducerRecord<>(TOPIC, "x")).get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            int victim = describe(admin).partitions().get(0).leader().id();
            List<String> values = new ArrayList<>();
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            try (KafkaProducer<String, String> producer = producer(others, "alice", true)) {
                send(producer, values, sends, 0, 200);
                sends.get(sends.size() - 1).get(60, TimeUnit.SECONDS);
                // When: the leader dies in the middle of the stream
                cluster.kill(victim);
                send(producer, values, sends, 200, 400);
                producer.flush();
            }
            long victimLogEnd;
            try (FileRaftStorage log = FileRaftStorage.open(metadataDir(victim))) {
                victimLogEnd = log.endOffset();
            }

            // Then: every send was acknowledged at its offset, and alice reads each record once, in order
            for (int i = 0; i < sends.size(); i++) {
                assertThat(sends.get(i).get(60, TimeUnit.SECONDS).offset())
                        .as("offset of record %d", i)
                        .isEqualTo(i);
            }
            String survivors = survivors(victim);
            assertThat(consume(survivors, "alice", values.size())).containsExactlyElementsOf(values);

            // When: while the victim is down, a user and ACLs are added; the others snapshot past its log end
            try (Admin survivorAdmin = Admin.create(SecureConfigs.admin(survivors))) {
                createScramUsers(survivorAdmin, "late");
                List<AclBinding> filler = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    filler.add(binding("User:late", "filler-topic-" + i, AclOperation.DESCRIBE));
                }
                filler.add(binding("User:late", TOPIC, AclOperation.READ));
                survivorAdmin.createAcls(filler).all().get(30, TimeUnit.SECONDS);
                awaitEveryRunningNode("late's ACLs", 2 + 41, Set.of("alice", "mallory", "late"));
            }
            await("the running nodes snapshot beyond the victim's metadata log end " + victimLogEnd, () -> {
                for (int node = 0; node < nodes.length; node++) {
                    if (node != victim && latestSnapshotEnd(node) <= victimLogEnd) {
                        return false;
                    }
                }
                return true;
            });
            cluster.resume(victim);
            awaitEveryRunningNode("every ACL and user on the restarted node", 43, Set.of("alice", "mallory", "late"));
            assertThat(latestSnapshotEnd(victim))
                    .as("the restarted node loaded a snapshot")
                    .isGreaterThan(victimLogEnd);
            await(
                    "the restarted node back in the ISR",
                    () -> describe(admin).partitions().get(0).isr().size() == 3);
            admin.electLeaders(ElectionType.PREFERRED, Set.of(new TopicPartition(TOPIC, 0)))
                    .partitions()
                    .get(30, TimeUnit.SECONDS);
            await(
                    "the restarted node leads again",
                    () -> describe(admin).partitions().get(0).leader().id() == victim);

            // Then: the restarted leader authenticates late (a credential it has only from the snapshot), serves
            // it the records (READ from the snapshot) and refuses its writes; alice still writes
            String restarted = nodes[victim];
            assertThat(consume(restarted, "late", values.size())).containsExactlyElementsOf(values);
            try (KafkaProducer<String, String> reader = producer(restarted, "late", false)) {
                assertThatThrownBy(() ->
                                reader.send(new ProducerRecord<>(TOPIC, "x")).get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            try (KafkaProducer<String, String> producer = producer(restarted, "alice", true)) {
                assertThat(producer.send(new ProducerRecord<>(TOPIC, "k", "after"))
                                .get(30, TimeUnit.SECONDS)
                                .offset())
                        .isEqualTo(values.size());
            }

            // When: through another node, alice loses WRITE and mallory's credential is deleted
            try (Admin other = Admin.create(SecureConfigs.admin(nodes[(victim + 1) % nodes.length]))) {
                other.deleteAcls(List.of(
                                binding("User:alice", TOPIC, AclOperation.WRITE).toFilter()))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                other.alterUserScramCredentials(
                                List.of(new UserScramCredentialDeletion("mallory", ScramMechanism.SCRAM_SHA_512)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            awaitEveryRunningNode("the deletions", 42, Set.of("alice", "late"), Set.of("mallory"));
            // Then: the leader refuses alice's writes and every node mallory's password
            try (KafkaProducer<String, String> refused = producer(restarted, "alice", false)) {
                assertThatThrownBy(() ->
                                refused.send(new ProducerRecord<>(TOPIC, "x")).get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            for (String node : nodes) {
                try (Admin gone =
                        Admin.create(SecureConfigs.client(node, "SCRAM-SHA-512", "mallory", "mallory-secret"))) {
                    assertThatThrownBy(() -> gone.listTopics().names().get(30, TimeUnit.SECONDS))
                            .as(node)
                            .hasCauseInstanceOf(SaslAuthenticationException.class);
                }
            }
        }
    }

    @Test
    void aWrongPasswordOrAnUntrustedCertificateIsRefusedWithOneClearError() throws Exception {
        try (Admin admin = Admin.create(SecureConfigs.admin(cluster.bootstrapServers()))) {
            createScramUsers(admin, "carol");
        }
        Map<String, Object> wrongPassword =
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-512", "carol", "not-carols-password");
        try (Admin refused = Admin.create(wrongPassword)) {
            assertThatThrownBy(() -> refused.listTopics().names().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .cause()
                    .hasMessageContaining("invalid credentials")
                    .hasMessageNotContaining("not-carols");
        }
        // A client that does not trust the cluster's CA (the JDK's default trust store).
        Map<String, Object> untrusted = new HashMap<>(
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-512", "carol", "carol-secret"));
        untrusted.keySet().removeIf(key -> key.startsWith("ssl.truststore."));
        try (Admin refused = Admin.create(untrusted)) {
            assertThatThrownBy(() -> refused.listTopics().names().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
        // A peer on the controller wire that trusts the CA but shows no certificate (ssl.client.auth=required).
        int controllerPort =
                cluster.node(0).config().controllerListener().orElseThrow().port();
        try (SSLSocket socket =
                (SSLSocket) trustOnlyContext().getSocketFactory().createSocket("127.0.0.1", controllerPort)) {
            socket.setSoTimeout(10_000);
            Throwable refused = catchThrowable(() -> {
                socket.startHandshake();
                // TLS 1.3 reports the refused client certificate on the first read
                if (socket.getInputStream().read() < 0) {
                    throw new SSLException("closed by the controller");
                }
            });
            // A timeout would mean the controller accepted the peer and waits for its Hello.
            assertThat(refused).isInstanceOf(IOException.class).isNotInstanceOf(SocketTimeoutException.class);
        }
        // and the cluster goes on: carol authenticates with the right password
        try (Admin carol = Admin.create(
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-512", "carol", "carol-secret"))) {
            assertThat(carol.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .hasSize(3);
        }
    }

    private static SSLContext trustOnlyContext() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(TestPki.get().trustStore())) {
            trust.load(in, TestPki.PASSWORD.toCharArray());
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    private static void createScramUsers(Admin admin, String... users) throws Exception {
        List<org.apache.kafka.clients.admin.UserScramCredentialAlteration> alterations = new ArrayList<>();
        for (String user : users) {
            alterations.add(new UserScramCredentialUpsertion(
                    user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), user + "-secret"));
        }
        admin.alterUserScramCredentials(alterations).all().get(30, TimeUnit.SECONDS);
    }

    private static AclBinding binding(String principal, String topic, AclOperation operation) {
        return new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    private static void allow(Admin admin, String principal, String topic, AclOperation... operations)
            throws Exception {
        List<AclBinding> bindings = new ArrayList<>();
        for (AclOperation operation : operations) {
            bindings.add(binding(principal, topic, operation));
        }
        admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
    }

    /** Until every running node's own metadata holds {@code acls} ACLs and SCRAM credentials of these users. */
    private static void awaitEveryRunningNode(String what, int acls, Set<String> users) throws Exception {
        awaitEveryRunningNode(what, acls, users, Set.of());
    }

    private static void awaitEveryRunningNode(String what, int acls, Set<String> users, Set<String> absent)
            throws Exception {
        await(what + " on every running node", () -> {
            for (int node = 0; node < nodes.length; node++) {
                BrokerServer server = cluster.node(node);
                if (server == null) {
                    continue;
                }
                var metadata = server.metadata();
                Set<String> withCredentials = new java.util.HashSet<>();
                metadata.scramCredentials().forEach(c -> withCredentials.add(c.user()));
                if (metadata.acls().size() != acls
                        || !withCredentials.containsAll(users)
                        || absent.stream().anyMatch(withCredentials::contains)) {
                    return false;
                }
            }
            return true;
        });
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

    private static KafkaProducer<String, String> producer(String bootstrap, String user, boolean idempotent) {
        Map<String, Object> props =
                new HashMap<>(SecureConfigs.client(bootstrap, "SCRAM-SHA-512", user, user + "-secret"));
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        props.put("acks", "all");
        props.put("enable.idempotence", Boolean.toString(idempotent));
        props.put("delivery.timeout.ms", "60000");
        props.put("request.timeout.ms", "5000");
        props.put("max.block.ms", "30000");
        props.put("linger.ms", "5");
        return new KafkaProducer<>(props);
    }

    /** The first {@code count} values of the partition from offset 0; asserts each sits at its own offset. */
    private static List<String> consume(String bootstrap, String user, int count) {
        Map<String, Object> props =
                new HashMap<>(SecureConfigs.client(bootstrap, "SCRAM-SHA-512", user, user + "-secret"));
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        props.put("auto.offset.reset", "earliest");
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(new TopicPartition(TOPIC, 0)));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            while (read.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    if (read.size() < count) {
                        assertThat(record.offset())
                                .as("offset of %s", record.value())
                                .isEqualTo(read.size());
                        read.add(record.value());
                    }
                }
            }
        }
        return read;
    }

    private static String survivors(int victim) {
        List<String> alive = new ArrayList<>();
        for (int node = 0; node < nodes.length; node++) {
            if (node != victim) {
                alive.add(nodes[node]);
            }
        }
        return String.join(",", alive);
    }

    private static TopicDescription describe(Admin admin) throws Exception {
        return admin.describeTopics(List.of(TOPIC))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(TOPIC);
    }

    private static Path metadataDir(int node) {
        return cluster.dataDir().resolve("node-" + node).resolve("__cluster_metadata-0");
    }

    /** End offset of the node's latest metadata snapshot, 0 if none. */
    private static long latestSnapshotEnd(int node) {
        try (Stream<Path> files = Files.list(metadataDir(node))) {
            long latest = 0;
            for (Path file : files.toList()) {
                Matcher name = SNAPSHOT.matcher(file.getFileName().toString());
                if (name.matches()) {
                    latest = Math.max(latest, Long.parseLong(name.group(1)));
                }
            }
            return latest;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(String what, Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("timed out waiting for " + what, last);
    }
}
