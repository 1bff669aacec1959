package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.partition.KafkaTopicConfigValues;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
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
 * default; CreateTopics, IncrementalAlterConfigs and kafka-configs set every valid value, those the broker does not
 * act on included; a bad value is refused with INVALID_CONFIG naming the config; and the produce-time timestamp
 * limits act as in Kafka.
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
    void kafkaConfigsSetsTheNewConfigsIncludingValuesTheBrokerDoesNotActOn() throws Exception {
        createTopic("configs-tool", Map.of());

        KafkaTool.Result set = configs(
                "--entity-type",
                "topics",
                "--entity-name",
                "configs-tool",
                "--alter",
                "--add-config",
                "min.compaction.lag.ms=1000,max.compaction.lag.ms=60000,message.timestamp.after.max.ms=5000,"
                        + "compression.type=gzip,preallocate=true,min.cleanable.dirty.ratio=0.2,"
                        + "unclean.leader.election.enable=true,segment.jitter.ms=100,flush.messages=10");
        assertThat(set.exitCode()).as(set.toString()).isZero();
        Map<String, ConfigEntry> described = describe("configs-tool");
        assertThat(described.get("min.compaction.lag.ms").value()).isEqualTo("1000");
        assertThat(described.get("min.compaction.lag.ms").source())
                .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(described.get("min.cleanable.dirty.ratio").value()).isEqualTo("0.2");
        assertThat(described.get("compression.type").value()).isEqualTo("gzip");
        assertThat(described.get("unclean.leader.election.enable").value()).isEqualTo("true");

        KafkaTool.Result tiered = configs(
                "--entity-type",
                "topics",
                "--entity-name",
                "configs-tool",
                "--alter",
                "--add-config",
                "remote.storage.enable=true");
        assertThat(tiered.exitCode()).as(tiered.toString()).isNotZero();
        assertThat(tiered.stdout() + tiered.stderr())
                .as(tiered.toString())
                .contains("remote.storage.enable")
                .contains("Tiered Storage functionality is disabled");
    }

    @Test
    void everyKafkaTopicConfigRoundTripsThroughCreateTopicsAndIncrementalAlterConfigs() throws Exception {
        // Given every Kafka topic config with a valid value other than its default
        Map<String, String> valid = KafkaTopicConfigValues.VALID;

        // When a topic is created with all of them, and another gets them by IncrementalAlterConfigs
        createTopic("configs-created", valid);
        createTopic("configs-altered", Map.of());
        ConfigResource altered = new ConfigResource(ConfigResource.Type.TOPIC, "configs-altered");
        admin.incrementalAlterConfigs(Map.of(
                        altered,
                        valid.entrySet().stream()
                                .map(e -> new AlterConfigOp(
                                        new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                                .toList()))
                .all()
                .get(TIMEOUT_S, TimeUnit.SECONDS);

        // Then DescribeConfigs shows each as the topic's own, with the value set
        for (String topic : List.of("configs-created", "configs-altered")) {
            Map<String, ConfigEntry> described = describe(topic);
            valid.forEach((name, value) -> {
                assertThat(described.get(name)).as("%s %s", topic, name).isNotNull();
                assertThat(described.get(name).value()).as("%s %s", topic, name).isEqualTo(value);
                assertThat(described.get(name).source())
                        .as("%s %s", topic, name)
                        .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            });
        }

        // And deleting them brings back the defaults
        admin.incrementalAlterConfigs(Map.of(
                        altered,
                        valid.keySet().stream()
                                .map(name -> new AlterConfigOp(new ConfigEntry(name, ""), AlterConfigOp.OpType.DELETE))
                                .toList()))
                .all()
                .get(TIMEOUT_S, TimeUnit.SECONDS);
        Map<String, ConfigEntry> reset = describe("configs-altered");
        valid.keySet()
                .forEach(name -> assertThat(reset.get(name).source())
                        .as(name)
                        .isIn(ConfigEntry.ConfigSource.DEFAULT_CONFIG, ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG));
    }

    @Test
    void everyBadValueIsRefusedWithInvalidConfigNamingTheConfig() throws Exception {
        createTopic("configs-bad-target", Map.of());
        ConfigResource target = new ConfigResource(ConfigResource.Type.TOPIC, "configs-bad-target");
        for (Map.Entry<String, String> invalid : KafkaTopicConfigValues.INVALID.entrySet()) {
            assertThatThrownBy(() -> createTopic(
                            "configs-bad-" + invalid.getKey().replace('.', '-'),
                            Map.of(invalid.getKey(), invalid.getValue())))
                    .as("create with %s", invalid)
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining(invalid.getKey());
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(
                                    target,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry(invalid.getKey(), invalid.getValue()),
                                            AlterConfigOp.OpType.SET))))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS))
                    .as("alter with %s", invalid)
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining(invalid.getKey());
        }
        assertThatThrownBy(() -> createTopic(
                        "configs-bad-lags", Map.of("min.compaction.lag.ms", "60000", "max.compaction.lag.ms", "1000")))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("min.compaction.lag.ms");
        assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS))
                .noneMatch(name -> name.startsWith("configs-bad-") && !name.equals("configs-bad-target"));
        assertThat(describe("configs-bad-target").values())
                .noneMatch(e -> e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
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
