package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every topic config Kafka 4.1.1 defines (read from Kafka's own LogConfig) is described with Kafka's type and
 * default; kafka-configs sets them; a valid value the broker does not implement is refused naming what it
 * supports; and the produce-time timestamp limits act as in Kafka.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TopicConfigsIT {

    private static final long TIMEOUT_S = 30;
    private static final String CONFIGS = "kafka.admin.ConfigCommand";
    private static EmbeddedCluster cluster;
    private static Admin admin;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.builder().start();
        admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyKafkaTopicConfigIsDescribedWithKafkasTypeAndDefault() throws Exception {
        createTopic("configs-all", Map.of());
        Map<String, ConfigEntry> described = describe("configs-all");

        for (ConfigDef.ConfigKey key : LogConfig.configDefCopy().configKeys().values()) {
            if (key.internalConfig) {
                continue;
            }
            ConfigEntry entry = described.get(key.name);
            assertThat(entry).as(key.name).isNotNull();
            assertThat(entry.source())
                    .as(key.name)
                    .isIn(ConfigEntry.ConfigSource.DEFAULT_CONFIG, ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
            assertThat(entry.type().name()).as(key.name).isEqualTo(key.type.name());
            String kafkaDefault = key.defaultValue instanceof List<?> list
                    ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
                    : String.valueOf(key.defaultValue);
            if (entry.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG) {
                assertThat(entry.value()).as(key.name).isEqualTo(kafkaDefault);
            }
        }
    }

    @Test
    void kafkaConfigsSetsTheNewConfigsAndRefusesValuesTheBrokerDoesNotImplementNamingWhatItDoes() throws Exception {
        createTopic("configs-tool", Map.of());

        KafkaTool.Result set = configs(
                "--entity-type",
                "topics",
                "--entity-name",
                "configs-tool",
                "--alter",
                "--add-config",
                "min.compaction.lag.ms=1000,max.compaction.lag.ms=60000,message.timestamp.after.max.ms=5000,"
                        + "compression.type=producer,preallocate=true,min.cleanable.dirty.ratio=0.2");
        assertThat(set.exitCode()).as(set.toString()).isZero();
        Map<String, ConfigEntry> described = describe("configs-tool");
        assertThat(described.get("min.compaction.lag.ms").value()).isEqualTo("1000");
        assertThat(described.get("min.compaction.lag.ms").source())
                .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(described.get("min.cleanable.dirty.ratio").value()).isEqualTo("0.2");

        KafkaTool.Result gzip = configs(
                "--entity-type",
                "topics",
                "--entity-name",
                "configs-tool",
                "--alter",
                "--add-config",
                "compression.type=gzip");
        assertThat(gzip.exitCode()).as(gzip.toString()).isNotZero();
        assertThat(gzip.stdout() + gzip.stderr())
                .as(gzip.toString())
                .contains("compression.type")
                .contains("only producer is supported");

        for (Map.Entry<String, String> invalid : Map.of(
                        "min.compaction.lag.ms", "-1",
                        "max.compaction.lag.ms", "0",
                        "compression.type", "brotli",
                        "compression.zstd.level", "23",
                        "min.cleanable.dirty.ratio", "1.5",
                        "preallocate", "maybe",
                        "message.timestamp.before.max.ms", "soon",
                        "unclean.leader.election.enable", "true")
                .entrySet()) {
            assertThatThrownBy(() -> createTopic(
                            "configs-bad-" + invalid.getKey().replace('.', '-'),
                            Map.of(invalid.getKey(), invalid.getValue())))
                    .as(invalid.toString())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining(invalid.getKey());
        }
    }

    @Test
    void producedTimestampsOutsideTheTopicsLimitsAreRefusedAsByKafka() throws Exception {
        createTopic("configs-ts-default", Map.of());
        createTopic("configs-ts-before", Map.of("message.timestamp.before.max.ms", "60000"));
        createTopic("configs-ts-append", Map.of("message.timestamp.type", "LogAppendTime"));
        long now = System.currentTimeMillis();
        long twoHours = TimeUnit.HOURS.toMillis(2);
        try (KafkaProducer<String, String> producer =
                KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of("acks", "all", "retries", "0"))) {
            // Kafka 4's default message.timestamp.after.max.ms: one hour
            assertThat(refused(producer, "configs-ts-default", now + twoHours)).isTrue();
            assertThat(refused(producer, "configs-ts-default", now - twoHours)).isFalse();
            assertThat(refused(producer, "configs-ts-before", now - twoHours)).isTrue();
            assertThat(refused(producer, "configs-ts-before", now)).isFalse();
            // LogAppendTime stamps the broker's time: the producer's timestamps are not checked
            assertThat(refused(producer, "configs-ts-append", now + twoHours)).isFalse();
        }
        List<ConsumerRecord<String, String>> appended = KafkaClientsRoundTripIT.consumeFromStart(
                cluster.bootstrapServers(), new TopicPartition("configs-ts-append", 0), 1);
        assertThat(appended.get(0).timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(appended.get(0).timestamp()).isLessThan(now + twoHours);
    }

    /** Whether the broker refused a record with this timestamp (InvalidTimestampException). */
    private static boolean refused(KafkaProducer<String, String> producer, String topic, long timestamp)
            throws Exception {
        try {
            RecordMetadata written = producer.send(new ProducerRecord<>(topic, 0, timestamp, "k", "v"))
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            return written.offset() < 0;
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(InvalidTimestampException.class);
            return true;
        }
    }

    private static void createTopic(String name, Map<String, String> configs) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, 1, (short) 1).configs(configs)))
                .all()
                .get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static Map<String, ConfigEntry> describe(String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin
                .describeConfigs(List.of(resource))
                .all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)
                .get(resource)
                .entries()
                .stream()
                .collect(Collectors.toMap(ConfigEntry::name, e -> e));
    }

    private KafkaTool.Result configs(String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = cluster.bootstrapServers();
        System.arraycopy(args, 0, all, 2, args.length);
        return KafkaTool.run(dir, CONFIGS, null, all);
    }
}
