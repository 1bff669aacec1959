package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.settings.ConfigException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerConfigTest {

    @Test
    void defaultsAreKafkas() {
        BrokerConfig config = BrokerConfig.from(Map.of("node.id", "3"));
        assertThat(config.nodeId()).isEqualTo(3);
        assertThat(config.host()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(9092);
        assertThat(config.numNetworkThreads()).isEqualTo(3);
        assertThat(config.numIoThreads()).isEqualTo(8);
        assertThat(config.queuedMaxRequests()).isEqualTo(500);
        assertThat(config.socketRequestMaxBytes()).isEqualTo(104857600);
        assertThat(config.numPartitions()).isEqualTo(1);
        assertThat(config.topicDefaults()).isEmpty();
    }

    @Test
    void brokerTopicDefaultsMapToTopicConfigNames() {
        BrokerConfig config = BrokerConfig.from(Map.of(
                "node.id",
                "0",
                "log.dirs",
                "/a,/b",
                "log.retention.hours",
                "2",
                "log.segment.bytes",
                "1048576",
                "message.max.bytes",
                "5000",
                "listeners",
                "PLAINTEXT://localhost:0"));
        assertThat(config.logDirs()).containsExactly(Path.of("/a"), Path.of("/b"));
        assertThat(config.port()).isZero();
        assertThat(config.topicDefaults())
                .containsEntry("retention.ms", "7200000")
                .containsEntry("segment.bytes", "1048576")
                .containsEntry("max.message.bytes", "5000");
    }

    @Test
    void badConfigIsOneLineNamingTheSetting() {
        assertThatThrownBy(() -> BrokerConfig.from(Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("node.id");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "num.io.threads", "zero")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value zero for configuration num.io.threads: not a number");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "listeners", "SSL//h:1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("listeners");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "listeners", "CLIENT://h:1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("listener.security.protocol.map")
                .hasMessageContaining("no security protocol for listener CLIENT");
        assertThat(BrokerConfig.from(Map.of("node.id", "0", "listeners", "SSL://h:1"))
                        .securityProtocol())
                .isEqualTo("SSL");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "log.message.timestamp.type", "Now")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("log.message.timestamp.type")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aPortTooLargeForAnIntIsOneLineNamingListeners() {
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "listeners", "PLAINTEXT://h:99999999999")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("for configuration listeners: port must be <= 65535");
    }

    @Test
    void aPathTheFileSystemRefusesIsOneLineNamingTheSetting() {
        for (String setting : List.of("log.dirs", "log.dir", "metadata.log.dir", "strait.boot.id.file")) {
            assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", setting, "/tmp/a\0b")))
                    .as(setting)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("for configuration " + setting + ": ");
        }
    }

    @Test
    void securitySettingsTheServerReadsAreResolvedWhenTheConfigIsBuilt() {
        BrokerConfig plain = BrokerConfig.from(Map.of("node.id", "0"));
        assertThat(plain.interBrokerSaslMechanism()).isNull();
        assertThat(plain.scramBootstrap()).isEmpty();

        BrokerConfig scram = BrokerConfig.from(Map.of(
                "node.id",
                "0",
                "sasl.mechanism.inter.broker.protocol",
                " scram-sha-512 ",
                "strait.bootstrap.scram.credentials",
                "SCRAM-SHA-512=[name=admin,password=admin-secret]"));
        assertThat(scram.interBrokerSaslMechanism()).isEqualTo("scram-sha-512");
        assertThat(scram.scramBootstrap()).isPresent();
    }

    @Test
    void logCleanerAndOffsetsTopicSettingsUseKafkaNamesAndDefaults() {
        // Given / When
        BrokerConfig defaults = BrokerConfig.from(Map.of("node.id", "0"));
        BrokerConfig set = BrokerConfig.from(Map.of(
                "node.id",
                "0",
                "offsets.topic.segment.bytes",
                "4096",
                "log.cleaner.enable",
                "false",
                "log.cleaner.backoff.ms",
                "250",
                "log.cleaner.dedupe.buffer.size",
                "1000000",
                "log.cleaner.io.max.bytes.per.second",
                "2.5E6",
                "log.cleanup.policy",
                "compact,delete",
                "log.cleaner.delete.retention.ms",
                "60000"));

        // Then
        assertThat(defaults.offsetsTopicSegmentBytes()).isEqualTo(104_857_600);
        assertThat(defaults.logCleanerEnable()).isTrue();
        assertThat(defaults.logCleanerBackoffMs()).isEqualTo(15_000);
        assertThat(defaults.logCleanerDedupeBufferSize()).isEqualTo(134_217_728);
        assertThat(defaults.logCleanerIoMaxBytesPerSecond()).as("no limit").isZero();
        assertThat(set.offsetsTopicSegmentBytes()).isEqualTo(4096);
        assertThat(set.logCleanerEnable()).isFalse();
        assertThat(set.logCleanerBackoffMs()).isEqualTo(250);
        assertThat(set.logCleanerDedupeBufferSize()).isEqualTo(1_000_000);
        assertThat(set.logCleanerIoMaxBytesPerSecond()).isEqualTo(2_500_000);
        assertThat(set.topicDefaults())
                .containsEntry("cleanup.policy", "compact,delete")
                .containsEntry("delete.retention.ms", "60000");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "log.cleaner.backoff.ms", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("log.cleaner.backoff.ms");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "log.cleaner.enable", "yes")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("log.cleaner.enable");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "log.cleanup.policy", "archive")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("log.cleanup.policy");
    }
}
