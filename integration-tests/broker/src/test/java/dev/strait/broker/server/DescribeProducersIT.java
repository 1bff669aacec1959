package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DescribeProducers with the 4.1.1 Admin (what {@code kafka-transactions describe-producers} calls): a partition's
 * idempotent producer with its epoch and last sequence, and on a mirror topic the source's producer, copied with
 * its batches. Before, the call failed with UnsupportedVersionException.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DescribeProducersIT {
    private static final TopicPartition TP = new TopicPartition("audit", 0);

    @Test
    void aPartitionsProducersAreDescribedAndAMirrorShowsTheSourcesProducers() throws Exception {
        try (EmbeddedCluster source = EmbeddedCluster.builder().nodes(1).start();
                EmbeddedCluster target = EmbeddedCluster.builder().nodes(1).start();
                Admin sourceAdmin = admin(source);
                Admin targetAdmin = admin(target)) {
            // Given: an idempotent producer wrote 10 records, one send at a time
            sourceAdmin
                    .createTopics(List.of(new NewTopic(TP.topic(), 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> producer = producer(source)) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(TP.topic(), 0, null, "r" + i))
                            .get(30, TimeUnit.SECONDS);
                }
            }

            // When
            List<ProducerState> onSource = describe(sourceAdmin);

            // Then
            assertThat(onSource).singleElement().satisfies(p -> {
                assertThat(p.producerEpoch()).isZero();
                assertThat(p.lastSequence()).isEqualTo(9);
                assertThat(p.currentTransactionStartOffset()).isEmpty();
            });

            // When: the topic is mirrored
            targetAdmin
                    .createTopics(List.of(new NewTopic(TP.topic(), 1, (short) 1)
                            .configs(Map.of("strait.mirror.source.bootstrap.servers", source.bootstrapServers()))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            Await.until("the copy", Duration.ofSeconds(60), () -> end(targetAdmin) == 10);

            // Then: the copy holds the same producer, at the same sequence
            assertThat(describe(targetAdmin)).singleElement().satisfies(p -> {
                assertThat(p.producerId()).isEqualTo(onSource.get(0).producerId());
                assertThat(p.lastSequence()).isEqualTo(9);
            });
        }
    }

    private static List<ProducerState> describe(Admin admin) throws Exception {
        return admin.describeProducers(List.of(TP))
                .partitionResult(TP)
                .get(30, TimeUnit.SECONDS)
                .activeProducers();
    }

    private static long end(Admin admin) {
        try {
            return admin.listOffsets(Map.of(TP, OffsetSpec.latest()))
                    .partitionResult(TP)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
        } catch (Exception e) {
            return -1;
        }
    }

    private static KafkaProducer<String, String> producer(EmbeddedCluster cluster) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static Admin admin(EmbeddedCluster cluster) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }
}
