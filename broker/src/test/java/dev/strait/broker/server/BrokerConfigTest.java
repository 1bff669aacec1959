package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
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
        BrokerConfig config = BrokerConfig.from(Map.of("node.id", "0", "log.dirs", "/a,/b",
                "log.retention.hours", "2", "log.segment.bytes", "1048576", "message.max.bytes", "5000",
                "listeners", "PLAINTEXT://localhost:0"));
        assertThat(config.logDirs()).containsExactly(Path.of("/a"), Path.of("/b"));
        assertThat(config.port()).isZero();
        assertThat(config.topicDefaults()).containsEntry("retention.ms", "7200000")
                .containsEntry("segment.bytes", "1048576").containsEntry("max.message.bytes", "5000");
    }

    @Test
    void badConfigIsOneLineNamingTheSetting() {
        assertThatThrownBy(() -> BrokerConfig.from(Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("node.id");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "num.io.threads", "zero")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value zero for configuration num.io.threads: not a number");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "listeners", "SSL://h:1")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("listeners");
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "log.message.timestamp.type", "Now")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("log.message.timestamp.type")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
