package dev.strait.cli.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.cli.container.EnvConfig.Group;
import dev.strait.cli.container.EnvConfig.Setting;
import dev.strait.settings.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EnvConfigTest {

    @ParameterizedTest
    @CsvSource({
        "BOOTSTRAP_SERVERS, bootstrap.servers",
        "GROUP_ID, group.id",
        "SASL_JAAS_CONFIG, sasl.jaas.config",
        "A__B, a_b",
        "A___B, a-b",
        "LOG_DIRS, log.dirs",
        "SOURCE_SSL_TRUSTSTORE_LOCATION, source.ssl.truststore.location",
        "MAX_LAG__RECORDS_X___Y, max.lag_records.x-y",
        "NUM_STREAMS, num.streams",
        "X9, x9"
    })
    void namesMapByTheKafkaImageConvention(String suffix, String key) {
        assertThat(EnvConfig.keyOf("STRAIT_CONSUMER_" + suffix, suffix)).isEqualTo(key);
        assertThat(EnvConfig.variableOf(Group.CONSUMER, key)).isEqualTo("STRAIT_CONSUMER_" + suffix);
    }

    @Test
    void variablesGoToTheirGroupsAndOthersAreIgnored() {
        // Given
        Map<String, String> env = Map.of(
                "STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "dc-a:9092",
                "STRAIT_PRODUCER_COMPRESSION_TYPE", "zstd",
                "STRAIT_LAG_SOURCE_BOOTSTRAP_SERVERS", "dc-a:9092",
                "STRAIT_CANARY_INTERVAL_MS", "5000",
                "STRAIT_BROKER_NODE_ID", "7",
                "STRAIT_MIRROR_NUM_STREAMS", "4",
                "STRAIT_MIRROR_ARGS", "--jmx false",
                "STRAIT_HEAP_OPTS", "-Xmx1g",
                "PATH", "/usr/bin",
                "HOME", "/root");

        // When
        EnvConfig cfg = EnvConfig.from(env);

        // Then
        assertThat(cfg.settings(Group.CONSUMER))
                .containsExactly(new Setting("STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "bootstrap.servers", "dc-a:9092"));
        assertThat(cfg.properties(Group.PRODUCER))
                .containsEntry("compression.type", "zstd")
                .hasSize(1);
        assertThat(cfg.properties(Group.LAG))
                .containsEntry("source.bootstrap.servers", "dc-a:9092")
                .hasSize(1);
        assertThat(cfg.properties(Group.CANARY))
                .containsEntry("interval.ms", "5000")
                .hasSize(1);
        assertThat(cfg.properties(Group.BROKER)).containsEntry("node.id", "7").hasSize(1);
        assertThat(cfg.properties(Group.MIRROR))
                .containsEntry("num.streams", "4")
                .hasSize(1);
        assertThat(cfg.launcher("STRAIT_MIRROR_ARGS")).isEqualTo("--jmx false");
        assertThat(cfg.launcher("STRAIT_HEAP_OPTS")).isEqualTo("-Xmx1g");
    }

    @Test
    void anEmptyValueCountsAsUnset() {
        EnvConfig cfg = EnvConfig.from(Map.of("STRAIT_CONSUMER_GROUP_ID", ""));

        assertThat(cfg.settings(Group.CONSUMER)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "STRAIT_CONSUMER_bootstrap_servers | environment variable STRAIT_CONSUMER_bootstrap_servers: has lower-case "
                        + "letters; write names upper case, _ for '.', __ for '_', ___ for '-', e.g. STRAIT_CONSUMER_BOOTSTRAP_SERVERS "
                        + "for bootstrap.servers",
                "STRAIT_CONSUMER_ | environment variable STRAIT_CONSUMER_: names no setting after the prefix",
                "STRAIT_PRODUCER_ACKS_ | environment variable STRAIT_PRODUCER_ACKS_: the setting name may not start or end with "
                        + "an underscore",
                "STRAIT_LAG__HTTP_PORT | environment variable STRAIT_LAG__HTTP_PORT: the setting name may not start or end with "
                        + "an underscore",
                "STRAIT_BROKER_LOG____DIRS | environment variable STRAIT_BROKER_LOG____DIRS: 4 underscores in a row; write names "
                        + "upper case, _ for '.', __ for '_', ___ for '-'",
                "STRAIT_CANARY_HTTP.PORT | environment variable STRAIT_CANARY_HTTP.PORT: has the character '.'; write names "
                        + "upper case, _ for '.', __ for '_', ___ for '-'"
            })
    void aBadNameIsOneLineNamingTheVariableAndTheRule(String variable, String message) {
        assertThatThrownBy(() -> EnvConfig.from(Map.of(variable, "x")))
                .isInstanceOf(ConfigException.class)
                .hasMessage(message)
                .hasMessageNotContaining("\n");
    }

    @Test
    void anUnknownStraitVariableIsRejectedWithTheKnownPrefixes() {
        assertThatThrownBy(() -> EnvConfig.from(Map.of("STRAIT_CONSUMR_BOOTSTRAP_SERVERS", "x")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "environment variable STRAIT_CONSUMR_BOOTSTRAP_SERVERS is not a Strait variable: "
                                + "settings go in STRAIT_CONSUMER_*, STRAIT_PRODUCER_*, STRAIT_MIRROR_*, STRAIT_LAG_*, STRAIT_CANARY_*, "
                                + "STRAIT_BROKER_*; the launcher's own are STRAIT_CLASSPATH, STRAIT_DATA_DIR")
                .hasMessageNotContaining("\n");
    }

    @Test
    void theFirstBadVariableInNameOrderIsReported() {
        assertThatThrownBy(() -> EnvConfig.from(Map.of("STRAIT_PRODUCER_x", "1", "STRAIT_CONSUMER_y", "2")))
                .hasMessageStartingWith("environment variable STRAIT_CONSUMER_y:");
    }

    @Test
    void namesTheRuleCannotWriteHaveNoVariable() {
        assertThat(EnvConfig.variableOf(Group.CONSUMER, "a_.b")).isNull();
        assertThat(EnvConfig.variableOf(Group.CONSUMER, "Upper")).isNull();
        assertThat(EnvConfig.variableOf(Group.CONSUMER, ".a")).isNull();
    }

    @Test
    void secretsAreRecognisedForMasking() {
        assertThat(EnvConfig.isSecret("sasl.jaas.config")).isTrue();
        assertThat(EnvConfig.isSecret("ssl.keystore.password")).isTrue();
        assertThat(EnvConfig.isSecret("source.sasl.jaas.config")).isTrue();
        assertThat(EnvConfig.isSecret("alert.webhook.url")).isTrue();
        assertThat(EnvConfig.isSecret("bootstrap.servers")).isFalse();
    }

    @Test
    void kubernetesServiceLinksAreIgnoredButSettingsEndingInPortAreNot() {
        // Given
        Map<String, String> env = Map.of(
                "STRAIT_MIRROR_SERVICE_HOST", "10.0.0.7",
                "STRAIT_MIRROR_SERVICE_PORT", "9101",
                "STRAIT_MIRROR_SERVICE_PORT_METRICS", "9101",
                "STRAIT_MIRROR_PORT", "tcp://10.0.0.7:9101",
                "STRAIT_MIRROR_PORT_9101_TCP", "tcp://10.0.0.7:9101",
                "STRAIT_MIRROR_PORT_9101_TCP_ADDR", "10.0.0.7",
                "STRAIT_SERVICE_HOST", "10.0.0.8",
                "STRAIT_LAG_HTTP_PORT", "9202");

        // When
        EnvConfig cfg = EnvConfig.from(env);

        // Then
        assertThat(cfg.settings(Group.MIRROR)).isEmpty();
        assertThat(cfg.properties(Group.LAG)).containsOnly(Map.entry("http.port", "9202"));
    }
}
