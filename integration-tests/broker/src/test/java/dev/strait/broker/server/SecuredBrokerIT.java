package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.security.TestPki;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One companion node with a SASL_SSL listener and Kafka's StandardAuthorizer, driven with kafka-clients: wrong
 * passwords are refused, SCRAM users made through the Admin API authenticate, each unauthorized produce, fetch,
 * group join and topic creation is refused with Kafka's error, ACLs granted through the Admin API open exactly
 * what they name, and the bootstrap SCRAM user exists from the first start. kcat (librdkafka, a non-Java client)
 * produces with acks=all and consumes back over SASL_SSL with PLAIN and the test CA's PEM; its wrong password and
 * its produce without WRITE are refused ({@link Kcat#require}: skipped without kcat outside CI, failed in CI).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SecuredBrokerIT {

    private static final Duration KCAT_TIMEOUT = Duration.ofSeconds(60);
    private static EmbeddedCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = SecureConfigs.saslSslCluster(1, Map.of("kcat", KCAT_PASSWORD)).start();
        admin = Admin.create(SecureConfigs.admin(cluster.bootstrapServers()));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
        if (kcatCa != null) {
            try {
                Files.deleteIfExists(kcatCa);
            } catch (java.io.IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }

    private static void createScramUser(String user, String password, ScramMechanism mechanism) throws Exception {
        admin.alterUserScramCredentials(List.of(
                        new UserScramCredentialUpsertion(user, new ScramCredentialInfo(mechanism, 4096), password)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static void allow(
            String principal, ResourceType type, String name, PatternType pattern, AclOperation... operations)
            throws Exception {
        List<AclBinding> bindings = new ArrayList<>();
        for (AclOperation operation : operations) {
            bindings.add(new AclBinding(
                    new ResourcePattern(type, name, pattern),
                    new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
        }
        admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
    }

    private static Map<String, Object> producerConfig(Map<String, Object> client) {
        Map<String, Object> props = new HashMap<>(client);
        props.put("key.serializer", StringSerializer.class.getName());
        props.put("value.serializer", StringSerializer.class.getName());
        props.put("max.block.ms", "20000");
        props.put("delivery.timeout.ms", "20000");
        props.put("request.timeout.ms", "10000");
        return props;
    }

    private static Map<String, Object> consumerConfig(Map<String, Object> client, String group) {
        Map<String, Object> props = new HashMap<>(client);
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", StringDeserializer.class.getName());
        props.put("auto.offset.reset", "earliest");
        props.put("enable.auto.commit", "false");
        if (group != null) {
            props.put("group.id", group);
        }
        return props;
    }

    private static Throwable rootOf(Throwable e) {
        Throwable t = e;
        while ((t instanceof ExecutionException
                        || t instanceof org.apache.kafka.common.KafkaException
                                && !(t instanceof org.apache.kafka.common.errors.ApiException))
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    @Test
    void wrongPasswordsAreRefusedForPlainAndScram() throws Exception {
        createScramUser("carol", "carol-secret", ScramMechanism.SCRAM_SHA_256);
        for (Map<String, Object> wrong : List.of(
                SecureConfigs.client(cluster.bootstrapServers(), "PLAIN", "admin", "not-the-password"),
                SecureConfigs.client(cluster.bootstrapServers(), "PLAIN", "nobody", "x"),
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-256", "carol", "wrong"),
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-512", "carol", "carol-secret"))) {
            try (Admin refused = Admin.create(wrong)) {
                assertThatThrownBy(() -> refused.listTopics().names().get(30, TimeUnit.SECONDS))
                        .as("%s as %s", wrong.get("sasl.mechanism"), wrong.get("sasl.jaas.config"))
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
            }
        }
        try (Admin carol = Admin.create(
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-256", "carol", "carol-secret"))) {
            assertThat(carol.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .isNotEmpty();
        }
    }

    @Test
    void theBootstrapScramUserExistsFromTheFirstStart() throws Exception {
        Map<String, UserScramCredentialsDescription> described = admin.describeUserScramCredentials(
                        List.of(SecureConfigs.BOOTSTRAP_SCRAM_USER))
                .all()
                .get(30, TimeUnit.SECONDS);
        assertThat(described.get(SecureConfigs.BOOTSTRAP_SCRAM_USER).credentialInfos())
                .extracting(ScramCredentialInfo::mechanism)
                .containsExactly(ScramMechanism.SCRAM_SHA_512);
        try (Admin ops = Admin.create(SecureConfigs.client(
                cluster.bootstrapServers(),
                "SCRAM-SHA-512",
                SecureConfigs.BOOTSTRAP_SCRAM_USER,
                SecureConfigs.BOOTSTRAP_SCRAM_PASSWORD))) {
            assertThat(ops.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
        }
    }

    @Test
    void everyUnauthorizedOperationIsRefusedWithKafkasErrorUntilAnAclGrantsIt() throws Exception {
        String topic = "secured.orders";
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        createScramUser("alice", "alice-secret", ScramMechanism.SCRAM_SHA_512);
        Map<String, Object> alice =
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-512", "alice", "alice-secret");

        // Topic creation without CREATE
        try (Admin aliceAdmin = Admin.create(alice)) {
            assertThatThrownBy(() -> aliceAdmin
                            .createTopics(List.of(new NewTopic("secured.alices", 1, (short) 1)))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            // Metadata: an unauthorized topic is not listed
            assertThat(aliceAdmin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .doesNotContain(topic);
        }
        // Produce without WRITE
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(alice))) {
            assertThatThrownBy(() ->
                            producer.send(new ProducerRecord<>(topic, "k", "v")).get(30, TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(rootOf(e)).isInstanceOf(TopicAuthorizationException.class));
        }
        // Fetch without READ
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(alice, null))) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            assertThatThrownBy(() -> pollUntilRecords(consumer, 1))
                    .satisfies(e -> assertThat(rootOf(e)).isInstanceOf(TopicAuthorizationException.class));
        }

        // Grant WRITE: produce works
        allow("User:alice", ResourceType.TOPIC, "secured.", PatternType.PREFIXED, AclOperation.WRITE);
        RecordMetadata written;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(alice))) {
            written = producer.send(new ProducerRecord<>(topic, "k", "v1")).get(30, TimeUnit.SECONDS);
        }
        assertThat(written.offset()).isZero();

        // READ on the topic but not the group: joining the group is refused
        allow("User:alice", ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.READ);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(alice, "alice-group"))) {
            consumer.subscribe(List.of(topic));
            assertThatThrownBy(() -> pollUntilRecords(consumer, 1))
                    .satisfies(e -> assertThat(rootOf(e)).isInstanceOf(GroupAuthorizationException.class));
        }
        // With the group: consumed, and the commit works
        allow("User:alice", ResourceType.GROUP, "alice-", PatternType.PREFIXED, AclOperation.READ);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(alice, "alice-group"))) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> records = pollUntilRecords(consumer, 1);
            assertThat(records).extracting(ConsumerRecord::value).containsExactly("v1");
            consumer.commitSync(Duration.ofSeconds(30));
        }

        // A deny wins over the prefixed allow
        admin.createAcls(List.of(new AclBinding(
                        new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                        new AccessControlEntry("User:alice", "*", AclOperation.WRITE, AclPermissionType.DENY))))
                .all()
                .get(30, TimeUnit.SECONDS);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(alice))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "k", "v2"))
                            .get(30, TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(rootOf(e)).isInstanceOf(TopicAuthorizationException.class));
        }

        // The ACLs read back as granted, and delete by filter
        var aliceAcls = admin.describeAcls(new AclBindingFilter(
                        ResourcePatternFilter.ANY,
                        new AccessControlEntryFilter("User:alice", null, AclOperation.ANY, AclPermissionType.ANY)))
                .values()
                .get(30, TimeUnit.SECONDS);
        assertThat(aliceAcls).hasSize(4);
        var deleted = admin.deleteAcls(List.of(new AclBindingFilter(
                        new ResourcePatternFilter(ResourceType.TOPIC, topic, PatternType.LITERAL),
                        AccessControlEntryFilter.ANY)))
                .all()
                .get(30, TimeUnit.SECONDS);
        assertThat(deleted).hasSize(2);
        assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS).stream()
                        .filter(b -> b.entry().principal().equals("User:alice"))
                        .toList())
                .extracting(b -> b.pattern().name())
                .containsExactlyInAnyOrder("secured.", "alice-");
    }

    @Test
    void aclApisNeedClusterPermissions() throws Exception {
        createScramUser("mallory", "mallory-secret", ScramMechanism.SCRAM_SHA_256);
        try (Admin mallory = Admin.create(
                SecureConfigs.client(cluster.bootstrapServers(), "SCRAM-SHA-256", "mallory", "mallory-secret"))) {
            assertThatThrownBy(() -> mallory.createAcls(List.of(new AclBinding(
                                    new ResourcePattern(ResourceType.TOPIC, "*", PatternType.LITERAL),
                                    new AccessControlEntry(
                                            "User:mallory", "*", AclOperation.ALL, AclPermissionType.ALLOW))))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.ClusterAuthorizationException.class);
            assertThatThrownBy(() ->
                            mallory.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.ClusterAuthorizationException.class);
            assertThatThrownBy(() -> mallory.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                                    "mallory", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "x")))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.ClusterAuthorizationException.class);
            assertThat(mallory.describeConsumerGroups(Set.of("x")).all())
                    .failsWithin(Duration.ofSeconds(30))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(GroupAuthorizationException.class);
        }
    }

    private static final String KCAT_PASSWORD = "kcat-secret";

    private static Path kcatCa;

    /** The test CA's certificate as PEM (librdkafka takes no PKCS#12 trust store), written once. */
    private static synchronized Path kcatCa() throws Exception {
        if (kcatCa == null) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(TestPki.get().trustStore())) {
                trust.load(in, TestPki.PASSWORD.toCharArray());
            }
            StringBuilder pem = new StringBuilder();
            for (String alias : Collections.list(trust.aliases())) {
                pem.append("-----BEGIN CERTIFICATE-----\n")
                        .append(Base64.getMimeEncoder(64, new byte[] {'\n'})
                                .encodeToString(trust.getCertificate(alias).getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            }
            Path file = Files.createTempFile("strait-kcat-ca-", ".pem");
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
            kcatCa = file;
        }
        return kcatCa;
    }

    /** kcat's settings file (-F): SASL PLAIN over TLS, the test CA's PEM as its trust anchor. */
    private static Path kcatConfig(String password) throws Exception {
        Path file = Files.createTempFile("strait-kcat-", ".conf");
        Files.writeString(
                file,
                "bootstrap.servers=" + cluster.bootstrapServers() + "\n"
                        + "security.protocol=SASL_SSL\n"
                        + "sasl.mechanisms=PLAIN\n"
                        + "sasl.username=kcat\n"
                        + "sasl.password=" + password + "\n"
                        + "ssl.ca.location=" + kcatCa() + "\n",
                StandardCharsets.UTF_8);
        return file;
    }

    private static long endOffset(TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }

    @Test
    void kcatProducesWithAcksAllAndConsumesEveryRecordOnceInOrder() throws Exception {
        Kcat.require();
        String topic = "kcat.events";
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        allow("User:kcat", ResourceType.TOPIC, "kcat.", PatternType.PREFIXED, AclOperation.WRITE, AclOperation.READ);
        Path config = kcatConfig(KCAT_PASSWORD);
        try {
            int count = 500;
            StringBuilder input = new StringBuilder();
            for (int i = 0; i < count; i++) {
                input.append("key-")
                        .append(i)
                        .append(':')
                        .append("value-")
                        .append(i)
                        .append('\n');
            }
            ChildRun.Result produced = Kcat.run(
                    KCAT_TIMEOUT,
                    input.toString(),
                    List.of("-P", "-F", config.toString(), "-t", topic, "-p", "0", "-K", ":", "-X", "acks=all"));
            assertThat(produced.exitCode()).as("%s", produced).isZero();
            assertThat(produced.stderr()).as("%s", produced).doesNotContain("ERROR");
            assertThat(endOffset(new TopicPartition(topic, 0))).isEqualTo(count);

            ChildRun.Result consumed = Kcat.run(
                    KCAT_TIMEOUT,
                    "",
                    List.of(
                            "-C",
                            "-F",
                            config.toString(),
                            "-t",
                            topic,
                            "-p",
                            "0",
                            "-e",
                            "-o",
                            "beginning",
                            "-f",
                            "%o %k %s\n"));
            assertThat(consumed.exitCode()).as("%s", consumed).isZero();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                expected.add(i + " key-" + i + " value-" + i);
            }
            // Every acknowledged record exactly once, in order, at its offset.
            assertThat(consumed.stdout().lines().toList()).containsExactlyElementsOf(expected);
        } finally {
            Files.deleteIfExists(config);
        }
    }

    @Test
    void kcatWithAWrongPasswordIsRefused() throws Exception {
        Kcat.require();
        Path config = kcatConfig("not-the-password");
        try {
            ChildRun.Result listed = Kcat.run(KCAT_TIMEOUT, "", List.of("-L", "-F", config.toString(), "-m", "10"));
            assertThat(listed.exitCode()).as("%s", listed).isNotZero();
            assertThat(listed.stderr()).as("%s", listed).contains("Authentication failed");
            assertThat(listed.stdout()).as("%s", listed).doesNotContain("broker");
        } finally {
            Files.deleteIfExists(config);
        }
    }

    @Test
    void kcatProducingWithoutWriteIsRefusedWithTopicAuthorizationFailed() throws Exception {
        Kcat.require();
        String topic = "kcat-readonly";
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        // READ (so DESCRIBE: the topic's metadata is visible) but no WRITE: the Produce request itself is refused.
        allow("User:kcat", ResourceType.TOPIC, topic, PatternType.LITERAL, AclOperation.READ);
        Path config = kcatConfig(KCAT_PASSWORD);
        try {
            ChildRun.Result produced = Kcat.run(
                    KCAT_TIMEOUT,
                    "k:refused\n",
                    List.of("-P", "-F", config.toString(), "-t", topic, "-p", "0", "-K", ":", "-X", "acks=all"));
            assertThat(produced.exitCode()).as("%s", produced).isNotZero();
            assertThat(produced.stderr()).as("%s", produced).contains("Topic authorization failed");
            assertThat(endOffset(new TopicPartition(topic, 0))).isZero();
        } finally {
            Files.deleteIfExists(config);
        }
    }

    private static List<ConsumerRecord<String, String>> pollUntilRecords(
            KafkaConsumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (records.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(500)).forEach(records::add);
        }
        assertThat(records).as("records within 30 s").hasSizeGreaterThanOrEqualTo(count);
        return records;
    }
}
