package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.controller.QuorumConfig;
import dev.strait.settings.ConfigException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The KRaft-style keys: process.roles, controller.quorum.voters, controller listener, advertised listeners. */
class BrokerConfigQuorumTest {

    private static Map<String, String> quorum() {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("controller.quorum.voters", "0@127.0.0.1:9190,1@127.0.0.1:9191,2@localhost:9192");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0");
        return props;
    }

    private static Map<String, String> with(String... keyValues) {
        Map<String, String> props = quorum();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] == null) {
                props.remove(keyValues[i]);
            } else {
                props.put(keyValues[i], keyValues[i + 1]);
            }
        }
        return props;
    }

    @Test
    void aStandaloneConfigHasNoQuorumAndKeepsItsListener() {
        BrokerConfig config = BrokerConfig.from(Map.of("node.id", "0", "listeners", "PLAINTEXT://127.0.0.1:0"));
        assertThat(config.hasControllerQuorum()).isFalse();
        assertThat(config.processRoles()).isEmpty();
        assertThat(config.controllerListener()).isEmpty();
        assertThat(config.listenerName()).isEqualTo("PLAINTEXT");
        assertThat(config.port()).isZero();
        assertThat(config.brokerSessionTimeoutMs()).isEqualTo(9000);
        assertThat(config.brokerHeartbeatIntervalMs()).isEqualTo(2000);
        assertThat(config.metadataLogDir()).isEmpty();
    }

    /** Issue 11, defect 7: the offsets topic no longer follows default.replication.factor. */
    @Test
    void theOffsetsTopicHasThreeReplicasInAQuorumAsKafkasAndOneOnAStandaloneNode() {
        assertThat(BrokerConfig.from(quorum()).offsetsTopicReplicationFactor()).isEqualTo(3);
        assertThat(BrokerConfig.from(with("default.replication.factor", "1")).offsetsTopicReplicationFactor())
                .isEqualTo(3);
        assertThat(BrokerConfig.from(with("offsets.topic.replication.factor", "2"))
                        .offsetsTopicReplicationFactor())
                .isEqualTo(2);
        assertThatThrownBy(() -> BrokerConfig.from(with("offsets.topic.replication.factor", "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("offsets.topic.replication.factor");

        BrokerConfig standalone = BrokerConfig.from(Map.of("node.id", "0"));
        assertThat(standalone.offsetsTopicReplicationFactor())
                .as("the metadata source's default: one replica")
                .isEqualTo(-1);
        assertThat(BrokerConfig.from(Map.of("node.id", "0", "offsets.topic.replication.factor", "1"))
                        .offsetsTopicReplicationFactor())
                .isEqualTo(1);
        assertThatThrownBy(() -> BrokerConfig.from(Map.of("node.id", "0", "offsets.topic.replication.factor", "3")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("offsets.topic.replication.factor")
                .hasMessageContaining("standalone");
    }

    @Test
    void aQuorumConfigParsesEveryKey() {
        BrokerConfig config = BrokerConfig.from(with(
                "advertised.listeners",
                "PLAINTEXT://broker1.example:19092",
                "broker.session.timeout.ms",
                "6000",
                "broker.heartbeat.interval.ms",
                "500",
                "metadata.log.dir",
                "/data/meta",
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"));
        assertThat(config.hasControllerQuorum()).isTrue();
        assertThat(config.processRoles()).containsExactlyInAnyOrder("broker", "controller");
        assertThat(config.controllerQuorumVoters()).containsOnlyKeys(0, 1, 2);
        assertThat(config.controllerQuorumVoters().get(2))
                .isEqualTo(new BrokerConfig.Listener("CONTROLLER", "localhost", 9192));
        assertThat(config.controllerListener()).contains(new BrokerConfig.Listener("CONTROLLER", "127.0.0.1", 0));
        assertThat(config.listenerName()).isEqualTo("PLAINTEXT");
        assertThat(config.host()).isEqualTo("127.0.0.1");
        assertThat(config.advertisedListener())
                .contains(new BrokerConfig.Listener("PLAINTEXT", "broker1.example", 19092));
        assertThat(config.brokerSessionTimeoutMs()).isEqualTo(6000);
        assertThat(config.brokerHeartbeatIntervalMs()).isEqualTo(500);
        assertThat(config.metadataLogDir()).contains(Path.of("/data/meta"));
    }

    @Test
    void theQuorumSettingsBindTheVotersPortWhenTheControllerListenerSaysZero() {
        BrokerConfig config = BrokerConfig.from(with("default.replication.factor", "3"));
        QuorumConfig settings = MetadataSources.quorumConfig(config, Path.of("/logs"));
        assertThat(settings.nodeId()).isEqualTo(1);
        assertThat(settings.isVoter()).isTrue();
        assertThat(settings.listenPort()).isEqualTo(9191);
        assertThat(settings.listenHost()).isEqualTo("127.0.0.1");
        assertThat(settings.voters()).containsOnlyKeys(0, 1, 2);
        assertThat(settings.metadataLogDir()).isEqualTo(Path.of("/logs/__cluster_metadata-0"));
        assertThat(settings.defaultReplicationFactor()).isEqualTo(3);
        assertThat(settings.sessionTimeoutMs()).isEqualTo(9000);

        BrokerConfig brokerOnly = BrokerConfig.from(
                with("node.id", "7", "process.roles", "broker", "listeners", "PLAINTEXT://127.0.0.1:0"));
        QuorumConfig observer = MetadataSources.quorumConfig(brokerOnly, Path.of("/logs"));
        assertThat(observer.isVoter()).isFalse();
        assertThat(observer.listenPort()).isEqualTo(-1);
    }

    @Test
    void badValuesAreOneLineNamingTheSetting() {
        assertBad(with("process.roles", "broker,zookeeper"), "process.roles");
        assertBad(with("process.roles", "controller"), "process.roles");
        assertBad(with("process.roles", null), "process.roles");
        assertBad(with("controller.quorum.voters", null), "controller.quorum.voters");
        assertBad(with("controller.quorum.voters", "0@127.0.0.1"), "controller.quorum.voters");
        assertBad(with("controller.quorum.voters", "x@127.0.0.1:9190"), "controller.quorum.voters");
        assertBad(with("controller.quorum.voters", "1@127.0.0.1:0"), "controller.quorum.voters");
        assertBad(with("controller.quorum.voters", "1@127.0.0.1:70000"), "controller.quorum.voters");
        assertBad(with("controller.quorum.voters", "1@h:1,1@h:2"), "controller.quorum.voters");
        assertBad(with("controller.quorum.voters", "0@127.0.0.1:9190"), "controller.quorum.voters");
        assertBad(with("process.roles", "broker"), "controller.quorum.voters");
        assertBad(with("controller.listener.names", null), "controller.listener.names");
        assertBad(with("listeners", "PLAINTEXT://127.0.0.1:0"), "listeners");
        assertBad(with("listeners", "PLAINTEXT://127.0.0.1:0,OTHER://127.0.0.1:0"), "OTHER");
        assertBad(with("listeners", "PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:1"), "listeners");
        assertBad(with("listeners", "CONTROLLER://127.0.0.1:0"), "listeners");
        assertBad(with("listeners", "PLAINTEXT://127.0.0.1:0;CONTROLLER://127.0.0.1:0"), "listeners");
        assertBad(with("advertised.listeners", "PLAINTEXT://0.0.0.0:9092"), "advertised.listeners");
        assertBad(with("advertised.listeners", "PLAINTEXT//h:1"), "advertised.listeners");
        assertBad(with("listener.security.protocol.map", "PLAINTEXT:SSL"), "listener.security.protocol.map");
        assertBad(with("broker.session.timeout.ms", "soon"), "broker.session.timeout.ms");
        assertBad(with("broker.heartbeat.interval.ms", "0"), "broker.heartbeat.interval.ms");
        assertBad(with("broker.heartbeat.interval.ms", "9000"), "broker.heartbeat.interval.ms");
        assertBad(Map.of("node.id", "0", "listeners", "PLAINTEXT://a:1,PLAINTEXT2://b:2"), "PLAINTEXT2");
        assertBad(Map.of("node.id", "0", "process.roles", "broker,controller"), "controller.quorum.voters");
    }

    private static void assertBad(Map<String, String> props, String setting) {
        assertThatThrownBy(() -> BrokerConfig.from(props))
                .as("%s", props)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(setting)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void interBrokerAndControllerSecurityUseKafkasNamesAndRefuseWhatIsNotSupported() {
        // Given: a SASL_SSL broker listener and an SSL controller listener
        Map<String, String> secured = with(
                "listeners",
                "SASL_SSL://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                "listener.security.protocol.map",
                "SASL_SSL:SASL_SSL,CONTROLLER:SSL");
        Map<String, String> byName = new HashMap<>(secured);
        byName.put("inter.broker.listener.name", "sasl_ssl");
        Map<String, String> byProtocol = new HashMap<>(secured);
        byProtocol.put("security.inter.broker.protocol", "SASL_SSL");

        // Then: naming the one broker listener, or its protocol, is accepted
        assertThat(BrokerConfig.from(byName).controllerSecurityProtocol()).isEqualTo("SSL");
        assertThat(BrokerConfig.from(byProtocol).securityProtocol()).isEqualTo("SASL_SSL");
        // and anything else is one line naming the setting
        Map<String, String> both = new HashMap<>(byName);
        both.put("security.inter.broker.protocol", "SASL_SSL");
        Map<String, String> otherListener = new HashMap<>(secured);
        otherListener.put("inter.broker.listener.name", "REPLICATION");
        Map<String, String> otherProtocol = new HashMap<>(secured);
        otherProtocol.put("security.inter.broker.protocol", "PLAINTEXT");
        Map<String, String> saslController = with(
                "listeners",
                "SASL_SSL://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                "listener.security.protocol.map",
                "SASL_SSL:SASL_SSL,CONTROLLER:SASL_SSL",
                "sasl.mechanism.controller.protocol",
                "SCRAM-SHA-512");
        assertThatThrownBy(() -> BrokerConfig.from(both))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> BrokerConfig.from(otherListener))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("inter.broker.listener.name")
                .hasMessageContaining("SASL_SSL");
        assertThatThrownBy(() -> BrokerConfig.from(otherProtocol))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.inter.broker.protocol")
                .hasMessageContaining("SASL_SSL:SASL_SSL");
        assertThatThrownBy(() -> BrokerConfig.from(saslController))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sasl.mechanism.controller.protocol");
    }

    private static Map<String, String> twoBrokerListeners(String... keyValues) {
        Map<String, String> props = with(
                "listeners",
                "CLIENT://127.0.0.1:0,REPLICATION://127.0.0.1:9093,CONTROLLER://127.0.0.1:0",
                "listener.security.protocol.map",
                "CLIENT:SASL_SSL,REPLICATION:SSL,CONTROLLER:SSL");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    @Test
    void severalBrokerListenersEachKeepTheirProtocolAndTheInterBrokerOneIsChosenAsKafka() {
        BrokerConfig byName = BrokerConfig.from(twoBrokerListeners(
                "inter.broker.listener.name",
                "replication",
                "advertised.listeners",
                "CLIENT://client.example:9092,REPLICATION://repl.example:9093"));
        assertThat(byName.brokerListeners())
                .extracting(BrokerConfig.Listener::name)
                .containsExactly("CLIENT", "REPLICATION");
        assertThat(byName.listenerName()).isEqualTo("CLIENT");
        assertThat(byName.interBrokerListenerName()).isEqualTo("REPLICATION");
        assertThat(byName.listenerProtocols())
                .containsEntry("CLIENT", "SASL_SSL")
                .containsEntry("REPLICATION", "SSL");
        assertThat(byName.advertisedListener("REPLICATION"))
                .hasValue(new BrokerConfig.Listener("REPLICATION", "repl.example", 9093));
        assertThat(byName.advertisedListener()).hasValue(new BrokerConfig.Listener("CLIENT", "client.example", 9092));
        // security.inter.broker.protocol picks the one broker listener speaking it
        assertThat(BrokerConfig.from(twoBrokerListeners("security.inter.broker.protocol", "SSL"))
                        .interBrokerListenerName())
                .isEqualTo("REPLICATION");
        // with neither setting, Kafka's default: the listener named PLAINTEXT
        assertThat(BrokerConfig.from(with(
                                "listeners",
                                "CLIENT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0," + "CONTROLLER://127.0.0.1:0",
                                "listener.security.protocol.map",
                                "CLIENT:SASL_PLAINTEXT,PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"))
                        .interBrokerListenerName())
                .isEqualTo("PLAINTEXT");
    }

    @Test
    void aBadInterBrokerListenerAmongSeveralIsOneLineNamingTheSetting() {
        assertBad(twoBrokerListeners(), "inter.broker.listener.name");
        assertBad(twoBrokerListeners("inter.broker.listener.name", "OTHER"), "inter.broker.listener.name");
        assertBad(twoBrokerListeners("inter.broker.listener.name", "CONTROLLER"), "controller listener");
        assertBad(twoBrokerListeners("security.inter.broker.protocol", "PLAINTEXT"), "security.inter.broker.protocol");
        assertBad(
                twoBrokerListeners(
                        "listener.security.protocol.map",
                        "CLIENT:SSL,REPLICATION:SSL,CONTROLLER:SSL",
                        "security.inter.broker.protocol",
                        "SSL"),
                "several broker listeners speak it");
        assertBad(
                twoBrokerListeners(
                        "inter.broker.listener.name", "REPLICATION", "security.inter.broker.protocol", "SSL"),
                "not both");
        assertBad(
                twoBrokerListeners(
                        "inter.broker.listener.name",
                        "REPLICATION",
                        "listener.security.protocol.map",
                        "CLIENT:SASL_SSL,CONTROLLER:SSL"),
                "REPLICATION");
        assertBad(
                twoBrokerListeners(
                        "inter.broker.listener.name",
                        "REPLICATION",
                        "advertised.listeners",
                        "CLIENT://h:1,REPLICATION://0.0.0.0:2"),
                "advertised.listeners");
    }
}
