package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.CompanionCluster;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.KafkaSecurity;
import dev.strait.testkit.PartitionReads;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/mirror-maker --offset.preserving --offset.preserving.link dc1} from a SASL_SSL (SCRAM-SHA-512) Apache
 * Kafka 4.1.1 cluster with ACLs: the companion broker reaches the source through the link its own settings define
 * (the link user may only read), the mirror process through its consumer config; records land at the source's
 * offsets, a group's offsets follow verbatim and a consumer's ACL follows the topic (--sync.topic.acls).
 */
class SecuredOffsetPreservingMirrorIT {
    @TempDir
    Path dir;

    @Test
    void aSecuredSourceIsMirroredThroughALink() throws Exception {
        KafkaSecurity security = KafkaSecurity.saslSsl("admin", "admin-secret", Map.of("dr-link", "link-secret"));
        try (KafkaCluster source = KafkaCluster.startSecured("op-secured-source", 1, security)) {
            // Given: a topic the link user may read, records, and a group's commits on the secured source
            TopicPartition p0 = new TopicPartition("sec.orders", 0);
            TopicPartition p1 = new TopicPartition("sec.orders", 1);
            try (Admin admin = Admin.create(source.clientProperties())) {
                admin.createTopics(List.of(new NewTopic("sec.orders", 2, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                ResourcePattern topic = new ResourcePattern(ResourceType.TOPIC, "sec.orders", PatternType.LITERAL);
                admin.createAcls(List.of(
                                new AclBinding(topic, allow(AclOperation.READ)),
                                new AclBinding(topic, allow(AclOperation.DESCRIBE)),
                                // A consumer application's ACL, which --sync.topic.acls carries to the mirror topic.
                                new AclBinding(
                                        topic,
                                        new AccessControlEntry(
                                                "User:billing", "*", AclOperation.READ, AclPermissionType.ALLOW))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                Properties producerProps = source.clientProperties();
                producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
                    for (int i = 0; i < 300; i++) {
                        producer.send(new ProducerRecord<>("sec.orders", i % 2, "k" + i, "v" + i));
                    }
                    producer.flush();
                }
                admin.alterConsumerGroupOffsets(
                                "sec-app", Map.of(p0, new OffsetAndMetadata(40), p1, new OffsetAndMetadata(150)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            Map<String, String> brokerConfig = new HashMap<>();
            source.clientProperties("dr-link", "link-secret")
                    .forEach((k, v) -> brokerConfig.put("strait.mirror.link.dc1." + k, String.valueOf(v)));
            // ACLs enforced on the companion too; its PLAINTEXT clients (the mirror process) are super users here.
            brokerConfig.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            brokerConfig.put("super.users", "User:ANONYMOUS");
            try (CompanionCluster target = CompanionCluster.start("op-secured-target", 1, brokerConfig)) {
                List<String> consumerLines = new ArrayList<>();
                source.clientProperties().forEach((k, v) -> consumerLines.add(k + "=" + v));
                consumerLines.add("group.id=sec-mirror");
                // Topics are looked at (and their settings and ACLs synced) on the consumer's metadata refresh.
                consumerLines.add("metadata.max.age.ms=1000");

                // When
                try (MirrorProcess mirror = MirrorProcess.start(
                                dir,
                                "mirror",
                                List.of(
                                        "--consumer.config",
                                        file("c.properties", consumerLines),
                                        "--producer.config",
                                        file("p.properties", List.of("bootstrap.servers=" + target.bootstrapServers())),
                                        "--whitelist",
                                        "sec\\..*",
                                        "--offset.preserving",
                                        "--offset.preserving.link",
                                        "dc1",
                                        "--groups",
                                        "sec-.*",
                                        "--sync.group.offsets.interval.ms",
                                        "500",
                                        "--sync.topic.acls",
                                        "true",
                                        "--sync.topics.interval.ms",
                                        "1000",
                                        "--jmx",
                                        "false"));
                        Admin sourceAdmin = Admin.create(source.clientProperties());
                        Admin targetAdmin = Admin.create(
                                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers()))) {
                    // Then: the records at the source's offsets, the topic naming the link, the group verbatim
                    for (TopicPartition tp : List.of(p0, p1)) {
                        long end = PartitionReads.end(sourceAdmin, tp);
                        assertThat(end).isEqualTo(150);
                        Await.until(
                                tp + " copied (mirror log: " + mirror.log() + ")",
                                Duration.ofSeconds(90),
                                () -> PartitionReads.end(targetAdmin, tp) == end);
                        Properties targetRead = new Properties();
                        targetRead.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers());
                        assertThat(PartitionReads.records(targetRead, tp, "read_uncommitted"))
                                .isEqualTo(PartitionReads.records(source.clientProperties(), tp, "read_uncommitted"));
                    }
                    try {
                        Await.until("the consumer's ACL on the mirror topic", Duration.ofSeconds(60), () -> {
                            try {
                                return targetAdmin
                                        .describeAcls(new AclBindingFilter(
                                                new ResourcePatternFilter(
                                                        ResourceType.TOPIC, "sec.orders", PatternType.LITERAL),
                                                AccessControlEntryFilter.ANY))
                                        .values()
                                        .get(10, TimeUnit.SECONDS)
                                        .stream()
                                        .anyMatch(b -> b.entry().principal().equals("User:billing")
                                                && b.entry().operation() == AclOperation.READ);
                            } catch (Exception e) {
                                return false;
                            }
                        });
                    } catch (AssertionError e) {
                        throw new AssertionError(e.getMessage() + "; mirror log: " + mirror.log(), e);
                    }
                    Await.until("the group's offsets on the target", Duration.ofSeconds(60), () -> {
                        try {
                            Map<TopicPartition, OffsetAndMetadata> offsets = targetAdmin
                                    .listConsumerGroupOffsets("sec-app")
                                    .partitionsToOffsetAndMetadata()
                                    .get(10, TimeUnit.SECONDS);
                            return offsets.get(p0) != null
                                    && offsets.get(p0).offset() == 40
                                    && offsets.get(p1) != null
                                    && offsets.get(p1).offset() == 150;
                        } catch (Exception e) {
                            return false;
                        }
                    });
                }
            }
        }
    }

    private static AccessControlEntry allow(AclOperation operation) {
        return new AccessControlEntry("User:dr-link", "*", operation, AclPermissionType.ALLOW);
    }

    private String file(String name, List<String> lines) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return file.toString();
    }
}
