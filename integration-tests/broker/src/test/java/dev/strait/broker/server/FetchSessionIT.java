package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Incremental fetch sessions (KIP-227) as the 4.1.1 clients use them: a raw client walks through a session (a full
 * first fetch that opens it, incremental fetches that carry only what changed, a forgotten partition, a wrong epoch,
 * an unknown session, and a sessionless fetch), and a real consumer of 40 partitions reads every record once, in
 * order, through its sessions. Before, every answer carried session id 0 (no session).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FetchSessionIT {
    private static final String TOPIC = "sessions";

    @Test
    void aSessionCarriesOnlyWhatChangedAndRefusesWrongEpochs() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start();
                Admin admin = admin(cluster)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Uuid id = admin.describeTopics(List.of(TOPIC))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(TOPIC)
                    .topicId();
            produce(cluster, 0, 5);
            produce(cluster, 1, 5);
            produce(cluster, 2, 5);
            try (RawKafkaClient client = client(cluster)) {
                // When: a first fetch opens a session
                Map<TopicPartition, FetchRequest.PartitionData> all = new LinkedHashMap<>();
                for (int p = 0; p < 3; p++) {
                    all.put(new TopicPartition(TOPIC, p), at(id, 5));
                }
                FetchResponseData first = fetch(client, all, FetchMetadata.INITIAL, List.of());

                // Then: a session id, and every partition answered
                assertThat(first.errorCode()).isZero();
                assertThat(first.sessionId()).isNotZero();
                assertThat(partitions(first)).containsOnlyKeys(0, 1, 2);
                int session = first.sessionId();

                // When: partition 1 gets records, and an incremental fetch names nothing
                produce(cluster, 1, 3);
                FetchResponseData second = fetch(client, Map.of(), new FetchMetadata(session, 1), List.of());

                // Then: only partition 1, with its records
                assertThat(second.sessionId()).isEqualTo(session);
                assertThat(partitions(second)).containsOnlyKeys(1);
                assertThat(partitions(second).get(1).records().sizeInBytes()).isPositive();

                // When: the client moved on in partition 1 and forgets partition 2
                FetchResponseData third = fetch(
                        client,
                        Map.of(new TopicPartition(TOPIC, 1), at(id, 8)),
                        new FetchMetadata(session, 2),
                        List.of(new TopicIdPartition(id, 2, TOPIC)));

                // Then: nothing new anywhere: an empty answer (after the wait)
                assertThat(third.errorCode()).isZero();
                assertThat(partitions(third)).isEmpty();

                // When: partition 2, forgotten, gets records; partition 0 too
                produce(cluster, 2, 1);
                produce(cluster, 0, 1);
                FetchResponseData fourth = fetch(client, Map.of(), new FetchMetadata(session, 3), List.of());

                // Then: only partition 0
                assertThat(partitions(fourth)).containsOnlyKeys(0);

                // And: a replayed epoch, and an unknown session, are refused
                assertThat(Errors.forCode(fetch(client, Map.of(), new FetchMetadata(session, 3), List.of())
                                .errorCode()))
                        .isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
                assertThat(Errors.forCode(fetch(client, Map.of(), new FetchMetadata(session + 1, 1), List.of())
                                .errorCode()))
                        .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);

                // And: a sessionless full fetch answers every partition it names, with session id 0
                FetchResponseData legacy = fetch(client, all, FetchMetadata.LEGACY, List.of());
                assertThat(legacy.sessionId()).isZero();
                assertThat(partitions(legacy)).containsOnlyKeys(0, 1, 2);
            }
        }
    }

    @Test
    void aConsumerOfManyPartitionsReadsEveryRecordOnceInOrderThroughItsSessions() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start();
                Admin admin = admin(cluster)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 40, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            Map<Integer, List<String>> written = new HashMap<>();
            try (KafkaProducer<String, String> producer = producer(cluster)) {
                for (int round = 0; round < 3; round++) {
                    // a few partitions at a time, so most fetches have news from only some
                    for (int p = round; p < 40; p += 3) {
                        for (int i = 0; i < 20; i++) {
                            String value = "p" + p + "-r" + round + "-" + i;
                            producer.send(new ProducerRecord<>(TOPIC, p, null, value));
                            written.computeIfAbsent(p, k -> new ArrayList<>()).add(value);
                        }
                    }
                    producer.flush();
                }
            }
            Properties props = new Properties();
            props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, "sessions-reader");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "256");
            props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            Map<Integer, List<String>> read = new HashMap<>();
            int total = written.values().stream().mapToInt(List::size).sum();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                int count = 0;
                while (count < total && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        read.computeIfAbsent(r.partition(), k -> new ArrayList<>())
                                .add(r.value());
                        count++;
                    }
                }
            }
            assertThat(read).isEqualTo(written);
        }
    }

    private static FetchRequest.PartitionData at(Uuid id, long offset) {
        return new FetchRequest.PartitionData(id, offset, 0, 1 << 20, Optional.empty());
    }

    private static FetchResponseData fetch(
            RawKafkaClient client,
            Map<TopicPartition, FetchRequest.PartitionData> changed,
            FetchMetadata metadata,
            List<TopicIdPartition> forgotten)
            throws Exception {
        short version = ApiKeys.FETCH.latestVersion(false);
        FetchRequest request = FetchRequest.Builder.forConsumer(version, 300, 1, changed)
                .metadata(metadata)
                .removed(forgotten)
                .replaced(List.of())
                .build(version);
        return ((FetchResponse) client.call(request)).data();
    }

    private static Map<Integer, FetchResponseData.PartitionData> partitions(FetchResponseData response) {
        Map<Integer, FetchResponseData.PartitionData> out = new HashMap<>();
        response.responses().forEach(t -> t.partitions().forEach(p -> out.put(p.partitionIndex(), p)));
        return out;
    }

    private static void produce(EmbeddedCluster cluster, int partition, int count) {
        try (KafkaProducer<String, String> producer = producer(cluster)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, partition, null, "v" + i));
            }
            producer.flush();
        }
    }

    private static KafkaProducer<String, String> producer(EmbeddedCluster cluster) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static RawKafkaClient client(EmbeddedCluster cluster) throws Exception {
        String[] hostPort = cluster.bootstrapServers().split(",")[0].split(":");
        return new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]));
    }

    private static Admin admin(EmbeddedCluster cluster) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }
}
