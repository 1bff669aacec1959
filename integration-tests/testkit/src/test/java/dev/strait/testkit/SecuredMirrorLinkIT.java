package dev.strait.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * A mirror topic whose source is an Apache Kafka 4.1.1 cluster on SASL_SSL (SCRAM-SHA-512) with ACLs, reached
 * through a link defined in the companion broker's settings: the credentials stay in the broker's configuration.
 */
class SecuredMirrorLinkIT {

    @Test
    void aLinkWithTheSourcesClientSecurityCopiesAtTheSourceOffsets() throws Exception {
        KafkaSecurity security = KafkaSecurity.saslSsl("admin", "admin-secret", Map.of("dr-link", "link-secret"));
        try (KafkaCluster source = KafkaCluster.startSecured("linked-source", 1, security)) {
            // Given: a topic on the secured source that the link's user may read, with records in it
            TopicPartition tp = new TopicPartition("secured.orders", 0);
            try (Admin admin = Admin.create(source.clientProperties())) {
                admin.createTopics(List.of(new NewTopic(tp.topic(), 2, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                ResourcePattern topic = new ResourcePattern(ResourceType.TOPIC, tp.topic(), PatternType.LITERAL);
                admin.createAcls(List.of(
                                new AclBinding(topic, allow("User:dr-link", AclOperation.READ)),
                                new AclBinding(topic, allow("User:dr-link", AclOperation.DESCRIBE))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            Properties producerProps = source.clientProperties();
            producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            producerProps.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps)) {
                for (int i = 0; i < 500; i++) {
                    byte[] value = ("secured-" + i).getBytes(StandardCharsets.UTF_8);
                    producer.send(new ProducerRecord<>(tp.topic(), i % 2, value, value));
                }
                producer.flush();
            }

            // When: the companion broker defines link dc1 with the link user's client settings, and a topic names it
            Map<String, String> brokerConfig = new HashMap<>();
            source.clientProperties("dr-link", "link-secret")
                    .forEach((k, v) -> brokerConfig.put("strait.mirror.link.dc1." + k, String.valueOf(v)));
            try (CompanionCluster target = CompanionCluster.start("linked-target", 1, brokerConfig);
                    Admin targetAdmin = Admin.create(
                            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers()))) {
                targetAdmin
                        .createTopics(List.of(
                                new NewTopic(tp.topic(), 2, (short) 1).configs(Map.of("strait.mirror.link", "dc1"))))
                        .all()
                        .get(30, TimeUnit.SECONDS);

                // Then: every record at its source offset
                long sourceEnd;
                try (Admin admin = Admin.create(source.clientProperties())) {
                    sourceEnd = PartitionReads.end(admin, tp);
                }
                assertThat(sourceEnd).isEqualTo(250);
                Await.until(
                        "the secured source copied",
                        Duration.ofSeconds(60),
                        () -> PartitionReads.end(targetAdmin, tp) == sourceEnd);
                Properties sourceRead = source.clientProperties();
                Properties targetRead = new Properties();
                targetRead.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers());
                assertThat(PartitionReads.records(targetRead, tp, "read_uncommitted"))
                        .hasSize(250)
                        .isEqualTo(PartitionReads.records(sourceRead, tp, "read_uncommitted"));
            }
        }
    }

    private static AccessControlEntry allow(String principal, AclOperation operation) {
        return new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW);
    }
}
