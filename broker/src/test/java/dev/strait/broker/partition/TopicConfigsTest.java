package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.TimestampType;
import dev.strait.settings.Setting;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * Every topic config of Kafka 4.1.1 (read from Kafka's own LogConfig) is declared with Kafka's type and default,
 * accepted and checked as Kafka checks it, and read into the log's config.
 */
class TopicConfigsTest {

    @Test
    void everyKafkaTopicConfigIsDefinedWithKafkasTypeAndDefaultAndDocumented() {
        Map<String, Setting<?>> declared =
                TopicConfigSettings.all().stream().collect(Collectors.toMap(Setting::name, s -> s));
        for (ConfigDef.ConfigKey key : kafkaKeys()) {
            Setting<?> setting = declared.get(key.name);
            assertThat(setting).as(key.name).isNotNull();
            assertThat(setting.type().name()).as(key.name).isEqualTo(key.type.name());
            String kafkaDefault = key.defaultValue instanceof List<?> list
                    ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
                    : String.valueOf(key.defaultValue);
            assertThat(setting.defaultValue()).as(key.name).isEqualTo(kafkaDefault);
            assertThat(TopicConfigs.BUILT_IN_DEFAULTS.get(key.name))
                    .as(key.name)
                    .isEqualTo(kafkaDefault);
            assertThat(setting.doc()).as(key.name).isNotBlank();
            assertThat(TopicConfigs.type(key.name).name()).as(key.name).isEqualTo(key.type.name());
        }
        assertThat(KafkaTopicConfigValues.VALID.keySet())
                .as("the test values cover every Kafka topic config")
                .containsExactlyInAnyOrderElementsOf(
                        kafkaKeys().stream().map(k -> k.name).toList());
        assertThat(TopicConfigs.supportedKeys())
                .as("Kafka's, and Strait's own")
                .containsAll(KafkaTopicConfigValues.VALID.keySet())
                .contains("flush.on.ack", "strait.mirror.link", "strait.mirror.truncate.id");
    }

    @Test
    void theBuiltInDefaultsAreTheLogsDefaults() {
        assertThat(TopicConfigs.toLogConfig(Map.of())).isEqualTo(LogConfig.defaults());
        assertThat(TopicConfigs.toLogConfig(TopicConfigs.BUILT_IN_DEFAULTS)).isEqualTo(LogConfig.defaults());
    }

    @Test
    void theLogConfigIsReadFromKafkaNamesTrimmedAndIgnoresWhatTheLogDoesNotActOn() {
        // When
        LogConfig config = TopicConfigs.toLogConfig(Map.of(
                "segment.bytes", " 2048 ",
                "retention.ms", "-1",
                "message.timestamp.type", "LogAppendTime",
                "cleanup.policy", "compact, delete",
                "flush.on.ack", "TRUE",
                "min.compaction.lag.ms", "5",
                "message.timestamp.after.max.ms", "60000",
                "unclean.leader.election.enable", "true"));

        // Then
        assertThat(config)
                .isEqualTo(LogConfig.defaults()
                        .withSegmentBytes(2048)
                        .withRetentionMs(-1)
                        .withTimestampType(TimestampType.LOG_APPEND_TIME)
                        .withCleanupPolicy(LogConfig.CleanupPolicy.COMPACT_DELETE)
                        .withFlushOnAck(true)
                        .withCompactionLags(5, LogConfig.DEFAULT_MAX_COMPACTION_LAG_MS)
                        .withTimestampLimits(LogConfig.DEFAULT_TIMESTAMP_BEFORE_MAX_MS, 60_000));
        assertThat(TopicConfigs.toLogConfig(Map.of("cleanup.policy", "compact")).cleanupPolicy())
                .isEqualTo(LogConfig.CleanupPolicy.COMPACT);
        assertThatThrownBy(() -> TopicConfigs.toLogConfig(Map.of("segment.bytes", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid value x for configuration segment.bytes: not a number");
        assertThatThrownBy(() -> TopicConfigs.toLogConfig(Map.of("no.such.config", "1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown topic config 'no.such.config'");
    }

    @Test
    void refusalsNameTheConfigTheValueAndWhatIsAllowedInKafkasWording() {
        assertRefused("cleanup.policy", "shred", "shred is not allowed: expected a list of delete or compact");
        assertRefused("cleanup.policy", " , ", "name at least one of delete and compact");
        assertRefused("segment.bytes", "60", "must be >= 61");
        assertRefused("segment.bytes", "3000000000", "must be <= 2147483647");
        assertRefused("compression.gzip.level", "0", "must be -1 or between 1 and 9");
        assertRefused("compression.gzip.level", "10", "must be between -1 and 9");
        assertRefused("min.cleanable.dirty.ratio", "1.5", "must be between 0 and 1");
        assertRefused("min.cleanable.dirty.ratio", "NaN", "must be between 0 and 1");
        assertRefused("preallocate", "yes", "expected true or false");
        assertRefused(
                "remote.storage.enable",
                "TRUE",
                "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log"
                        + " storage.");
        assertRefused(
                "leader.replication.throttled.replicas",
                "*,0:1",
                "must be * or a list of partition:broker pairs such as 0:101,1:102");
        assertRefused("strait.mirror.source.bootstrap.servers", "kafka-1", "'kafka-1' is not host:port");
        assertRefused(
                "strait.mirror.source.bootstrap.servers",
                "a:1,b:99999",
                "'b:99999' has port 99999 outside" + " 1-65535");
        assertRefused("strait.mirror.link", "east/1", "a link name is letters, digits, '_' and '-'");
        assertRefused(
                "strait.mirror.source.topic.id",
                "abc",
                "a topic id is 22 characters of base64url, as kafka-topics shows it");
        assertRefused("strait.mirror.state", "gone", "expected (empty), mirroring, paused or promoted");
        assertRefused("strait.mirror.truncate.offsets", "0:-1", "'0:-1' is not partition:offset");
        assertRefused(
                "strait.mirror.truncate.id", "a b", "a truncation id is at most 64 letters, digits, '_', '.' and '-'");
        assertThatCode(() -> TopicConfigs.validate(Map.of(
                        "strait.mirror.source.bootstrap.servers", " a:1, b:2 ",
                        "strait.mirror.source.topic.id", "AAAAAAAAAAAAAAAAAAAAAA",
                        "strait.mirror.state", "paused",
                        "strait.mirror.truncate.offsets", "0:12,1:0",
                        "strait.mirror.truncate.id", "failback-1.2",
                        "follower.replication.throttled.replicas", "0:101, 1:102")))
                .doesNotThrowAnyException();
    }

    private static void assertRefused(String name, String value, String reason) {
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of(name, value)))
                .as("%s=%s", name, value)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid value " + value + " for configuration " + name + ": " + reason);
    }

    @Test
    void everyValidValueIsAcceptedAloneAndTogether() {
        KafkaTopicConfigValues.VALID.forEach(
                (name, value) -> assertThatCode(() -> TopicConfigs.validate(Map.of(name, value)))
                        .as("%s=%s", name, value)
                        .doesNotThrowAnyException());
        assertThatCode(() -> TopicConfigs.validate(KafkaTopicConfigValues.VALID))
                .doesNotThrowAnyException();
    }

    @Test
    void everyBadValueIsRefusedNamingTheConfig() {
        KafkaTopicConfigValues.INVALID.forEach(
                (name, value) -> assertThatThrownBy(() -> TopicConfigs.validate(Map.of(name, value)))
                        .as("%s=%s", name, value)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(name)
                        .hasMessageContaining(value));
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of("remote.storage.enable", "true")))
                .hasMessage("Invalid value true for configuration remote.storage.enable: Tiered Storage functionality"
                        + " is disabled in the broker. Topic cannot be configured with remote log storage.");
    }

    @Test
    void aMinimumCompactionLagAboveTheMaximumIsRefusedAsByKafka() {
        assertThatThrownBy(() -> TopicConfigs.validate(
                        Map.of("min.compaction.lag.ms", "60000", "max.compaction.lag.ms", "1000")))
                .hasMessage(
                        "conflict topic config setting min.compaction.lag.ms (60000) > max.compaction.lag.ms (1000)");
        assertThatCode(() ->
                        TopicConfigs.validate(Map.of("min.compaction.lag.ms", "1000", "max.compaction.lag.ms", "1000")))
                .doesNotThrowAnyException();
    }

    private static List<ConfigDef.ConfigKey> kafkaKeys() {
        return org.apache.kafka.storage.internals.log.LogConfig.configDefCopy().configKeys().values().stream()
                .filter(k -> !k.internalConfig)
                .toList();
    }
}
