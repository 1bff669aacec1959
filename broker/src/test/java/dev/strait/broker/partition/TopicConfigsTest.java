package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.junit.jupiter.api.Test;

/** Every topic config of Kafka 4.1.1 (read from Kafka's own LogConfig) is accepted and checked as Kafka checks it. */
class TopicConfigsTest {

    @Test
    void everyKafkaTopicConfigIsDefinedWithKafkasTypeAndDefaultAndDocumented() {
        Map<String, TopicConfigs.Documentation> documented = TopicConfigs.documentation().stream()
                .collect(Collectors.toMap(TopicConfigs.Documentation::name, d -> d));
        for (ConfigDef.ConfigKey key : kafkaKeys()) {
            TopicConfigs.Documentation doc = documented.get(key.name);
            assertThat(doc).as(key.name).isNotNull();
            assertThat(doc.type().name()).as(key.name).isEqualTo(key.type.name());
            String kafkaDefault = key.defaultValue instanceof List<?> list
                    ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
                    : String.valueOf(key.defaultValue);
            assertThat(doc.defaultValue()).as(key.name).isEqualTo(kafkaDefault);
            assertThat(doc.effect()).as(key.name).isNotBlank();
        }
        assertThat(KafkaTopicConfigValues.VALID.keySet())
                .as("the test values cover every Kafka topic config")
                .containsExactlyInAnyOrderElementsOf(
                        kafkaKeys().stream().map(k -> k.name).toList());
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
                .hasMessageContaining("Tiered Storage functionality is disabled");
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
        return LogConfig.configDefCopy().configKeys().values().stream()
                .filter(k -> !k.internalConfig)
                .toList();
    }
}
