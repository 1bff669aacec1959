package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.raft.RaftConfig;
import dev.strait.settings.ConfigException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kafka's metadata snapshot settings reach the Raft node; bad values fail at startup with their name. */
class BrokerConfigSnapshotTest {

    private static Map<String, String> quorum(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", "0@127.0.0.1:9190,1@127.0.0.1:9191,2@localhost:9192");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    @Test
    void defaultsAreKafkas() {
        BrokerConfig config = BrokerConfig.from(quorum());
        RaftConfig raft =
                MetadataSources.quorumConfig(config, Path.of("/tmp/x")).raftConfig();
        assertThat(raft.maxRecordBytesBetweenSnapshots()).isEqualTo(20L * 1024 * 1024);
        assertThat(raft.maxSnapshotIntervalMs()).isEqualTo(3_600_000L);
    }

    @Test
    void settingsReachTheRaftNode() {
        BrokerConfig config = BrokerConfig.from(quorum(
                "metadata.log.max.record.bytes.between.snapshots",
                "4096",
                "metadata.log.max.snapshot.interval.ms",
                "0"));
        RaftConfig raft =
                MetadataSources.quorumConfig(config, Path.of("/tmp/x")).raftConfig();
        assertThat(raft.maxRecordBytesBetweenSnapshots()).isEqualTo(4096);
        assertThat(raft.maxSnapshotIntervalMs()).isZero();
    }

    @Test
    void badValuesAreRefusedWithTheirName() {
        assertThatThrownBy(() -> BrokerConfig.from(quorum("metadata.log.max.record.bytes.between.snapshots", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("metadata.log.max.record.bytes.between");
        assertThatThrownBy(() -> BrokerConfig.from(quorum("metadata.log.max.snapshot.interval.ms", "-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("metadata.log.max.snapshot.interval.ms");
        assertThatThrownBy(() -> BrokerConfig.from(quorum("metadata.log.max.snapshot.interval.ms", "often")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("not a number");
    }
}
