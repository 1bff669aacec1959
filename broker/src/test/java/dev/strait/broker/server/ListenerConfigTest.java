package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.server.BrokerConfig.Listener;
import dev.strait.settings.ConfigException;
import java.util.HashMap;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/** The listener settings, parsed on their own: good values, and one clear line for each bad one. */
class ListenerConfigTest {

    private static Map<String, String> props(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> refused(String setting, String... keyValues) {
        return assertThatThrownBy(() -> ListenerConfig.parse(props(keyValues)))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value ")
                .hasMessageContaining(" for configuration " + setting + ": ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void withNothingSetTheNodeListensOnKafkasDefaultPlaintextListener() {
        ListenerConfig settings = ListenerConfig.parse(Map.of());
        assertThat(settings.brokerListeners()).containsExactly(new Listener("PLAINTEXT", "127.0.0.1", 9092));
        assertThat(settings.protocols()).containsExactly(Map.entry("PLAINTEXT", "PLAINTEXT"));
        assertThat(settings.interBrokerListenerName()).isEqualTo("PLAINTEXT");
        assertThat(settings.controllerListener()).isEmpty();
        assertThat(settings.controllerListenerName()).isNull();
        assertThat(settings.controllerSecurityProtocol()).isEqualTo("PLAINTEXT");
        assertThat(settings.advertised()).isEmpty();
    }

    @Test
    void listenersAreNamedUpperCaseWithEmptyAndBracketedHosts() {
        ListenerConfig settings = ListenerConfig.parse(props(
                "listeners", " client://:9092, REPLICATION://[::1]:9093 ,controller://127.0.0.1:0",
                "controller.listener.names", "Controller",
                "listener.security.protocol.map", "CLIENT:SASL_SSL,replication:ssl,CONTROLLER:SSL",
                "inter.broker.listener.name", "replication"));
        assertThat(settings.brokerListeners())
                .containsExactly(new Listener("CLIENT", "0.0.0.0", 9092), new Listener("REPLICATION", "::1", 9093));
        assertThat(settings.controllerListener()).contains(new Listener("CONTROLLER", "127.0.0.1", 0));
        assertThat(settings.controllerNames()).containsExactly("CONTROLLER");
        assertThat(settings.controllerListenerName()).isEqualTo("CONTROLLER");
        assertThat(settings.protocols())
                .containsExactly(
                        Map.entry("CLIENT", "SASL_SSL"),
                        Map.entry("REPLICATION", "SSL"),
                        Map.entry("CONTROLLER", "SSL"));
        assertThat(settings.controllerSecurityProtocol()).isEqualTo("SSL");
        assertThat(settings.interBrokerListenerName()).isEqualTo("REPLICATION");
    }

    @Test
    void badListenersAreRefusedNamingListeners() {
        refused("listeners", "listeners", "PLAINTEXT//h:1").hasMessageContaining("expected NAME://host:port");
        refused("listeners", "listeners", "PLAINTEXT://h:1,,SSL://h:2").hasMessageContaining("expected NAME://");
        refused("listeners", "listeners", "PLAINTEXT://h:65536").hasMessageEndingWith("port must be <= 65535");
        refused("listeners", "listeners", "PLAINTEXT://h:99999999999").hasMessageEndingWith("port must be <= 65535");
        refused("listeners", "listeners", "PLAINTEXT://h:1,plaintext://h:2")
                .hasMessageEndingWith("listener name PLAINTEXT appears twice");
        refused("listeners", "listeners", "CONTROLLER://h:1", "controller.listener.names", "CONTROLLER")
                .hasMessageContaining("no broker listener");
        refused("listeners", "listeners", "SSL://h:1,SASL_SSL://h:2")
                .hasMessageContaining("set inter.broker.listener.name");
    }

    @Test
    void controllerListenerNamesNeedsANameWhenSet() {
        refused("controller.listener.names", "controller.listener.names", " , ")
                .hasMessageEndingWith("needs at least one name");
    }

    @Test
    void theProtocolMapIsCheckedEntryByEntry() {
        refused("listener.security.protocol.map", "listener.security.protocol.map", "PLAINTEXT")
                .hasMessageEndingWith("expected NAME:PROTOCOL,...");
        refused("listener.security.protocol.map", "listener.security.protocol.map", ":SSL")
                .hasMessageEndingWith("expected NAME:PROTOCOL,...");
        refused("listener.security.protocol.map", "listener.security.protocol.map", "PLAINTEXT:TLS")
                .hasMessageContaining("unknown security protocol TLS");
        refused("listener.security.protocol.map", "listeners", "CLIENT://h:1")
                .hasMessageContaining("no security protocol for listener CLIENT");
    }

    @Test
    void theControllerListenerIsPlaintextOnlyOnAnAllPlaintextNodeWithoutAMap() {
        ListenerConfig plain = ListenerConfig.parse(
                props("listeners", "PLAINTEXT://h:1,CONTROLLER://h:2", "controller.listener.names", "CONTROLLER"));
        assertThat(plain.protocols()).containsEntry("CONTROLLER", "PLAINTEXT");

        refused(
                        "listener.security.protocol.map",
                        "listeners",
                        "SSL://h:1,CONTROLLER://h:2",
                        "controller.listener.names",
                        "CONTROLLER")
                .hasMessageContaining("controller listener CONTROLLER defined in controller.listener.names");
        refused(
                        "listener.security.protocol.map",
                        "listeners",
                        "PLAINTEXT://h:1,CONTROLLER://h:2",
                        "controller.listener.names",
                        "CONTROLLER",
                        "listener.security.protocol.map",
                        "CONTROLLER:SASL_SSL,PLAINTEXT:PLAINTEXT")
                .hasMessageContaining("speaks PLAINTEXT or SSL");
    }

    @Test
    void aBrokerOnlyNodeTakesTheControllerProtocolFromTheMap() {
        ListenerConfig settings = ListenerConfig.parse(props(
                "listeners", "SSL://h:1",
                "controller.listener.names", "CONTROLLER",
                "listener.security.protocol.map", "SSL:SSL,CONTROLLER:SSL"));
        assertThat(settings.controllerListener()).isEmpty();
        assertThat(settings.protocols()).containsOnlyKeys("SSL");
        assertThat(settings.controllerSecurityProtocol()).isEqualTo("SSL");
    }

    @Test
    void advertisedListenersNameAReachableAddress() {
        ListenerConfig settings = ListenerConfig.parse(
                props("listeners", "PLAINTEXT://:9092", "advertised.listeners", " PLAINTEXT://broker1.example:19092 "));
        assertThat(settings.advertised())
                .containsExactly(Map.entry("PLAINTEXT", new Listener("PLAINTEXT", "broker1.example", 19092)));

        refused("advertised.listeners", "advertised.listeners", "PLAINTEXT://:9092")
                .hasMessageContaining("must name a reachable host and a port");
        refused("advertised.listeners", "advertised.listeners", "PLAINTEXT://h:0")
                .hasMessageContaining("must name a reachable host and a port");
        refused("advertised.listeners", "advertised.listeners", "nonsense")
                .hasMessageContaining("expected NAME://host:port");
    }

    @Test
    void theInterBrokerListenerIsNamedOrPickedByProtocol() {
        String listeners = "CLIENT://h:1,REPLICATION://h:2";
        String map = "CLIENT:SASL_SSL,REPLICATION:SSL";
        assertThat(ListenerConfig.parse(props(
                                "listeners", listeners,
                                "listener.security.protocol.map", map,
                                "security.inter.broker.protocol", "ssl"))
                        .interBrokerListenerName())
                .isEqualTo("REPLICATION");
        assertThat(ListenerConfig.parse(props("listeners", "SSL://h:1,PLAINTEXT://h:2"))
                        .interBrokerListenerName())
                .as("Kafka's default with several broker listeners")
                .isEqualTo("PLAINTEXT");

        refused(
                        "security.inter.broker.protocol",
                        "inter.broker.listener.name",
                        "PLAINTEXT",
                        "security.inter.broker.protocol",
                        "PLAINTEXT")
                .hasMessageContaining("not both");
        refused("inter.broker.listener.name", "inter.broker.listener.name", "OTHER")
                .hasMessageContaining("is not a broker listener among listeners [PLAINTEXT]");
        refused(
                        "inter.broker.listener.name",
                        "listeners",
                        "PLAINTEXT://h:1,CONTROLLER://h:2",
                        "controller.listener.names",
                        "CONTROLLER",
                        "inter.broker.listener.name",
                        "CONTROLLER")
                .hasMessageContaining("the controller listener carries no broker traffic");
        refused(
                        "security.inter.broker.protocol",
                        "listeners",
                        listeners,
                        "listener.security.protocol.map",
                        map,
                        "security.inter.broker.protocol",
                        "PLAINTEXT")
                .hasMessageContaining("no broker listener speaks it");
        refused(
                        "security.inter.broker.protocol",
                        "listeners",
                        listeners,
                        "listener.security.protocol.map",
                        "CLIENT:SSL,REPLICATION:SSL",
                        "security.inter.broker.protocol",
                        "SSL")
                .hasMessageContaining("several broker listeners speak it [CLIENT, REPLICATION]");
    }
}
