package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.server.BrokerConfig.Listener;
import dev.strait.settings.ConfigException;
import java.util.HashMap;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/** The voter and role settings, parsed on their own: good values, and one clear line for each bad one. */
class QuorumVotersTest {

    private static final String VOTERS = "controller.quorum.voters";

    private static Map<String, String> props(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    private static QuorumVoters parse(int nodeId, String... keyValues) {
        Map<String, String> props = props(keyValues);
        return QuorumVoters.parse(props, nodeId, ListenerConfig.parse(props));
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> refused(String setting, String... keyValues) {
        return assertThatThrownBy(() -> parse(1, keyValues))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(setting)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void withNothingSetTheNodeIsStandalone() {
        // When
        QuorumVoters quorum = parse(1);
        // Then
        assertThat(quorum.voters()).isEmpty();
        assertThat(quorum.processRoles()).isEmpty();
    }

    @Test
    void votersAreIdAtHostPortSortedById() {
        assertThat(QuorumVoters.parseVoters("2@h2:9093, 0@[::1]:9091,1@h1:9092"))
                .containsExactly(
                        Map.entry(0, new Listener("CONTROLLER", "::1", 9091)),
                        Map.entry(1, new Listener("CONTROLLER", "h1", 9092)),
                        Map.entry(2, new Listener("CONTROLLER", "h2", 9093)));
        assertThat(QuorumVoters.parseVoters(" ")).isEmpty();
        assertThat(QuorumVoters.parseVoters(null)).isEmpty();
    }

    @Test
    void badVotersAreRefusedNamingControllerQuorumVoters() {
        refused(VOTERS, VOTERS, "h1:9093").hasMessageEndingWith("expected id@host:port[,id@host:port]");
        refused(VOTERS, VOTERS, "1@h1:9093,,2@h2:9093").hasMessageEndingWith("expected id@host:port[,id@host:port]");
        refused(VOTERS, VOTERS, "99999999999@h1:9093").hasMessageEndingWith("id or port out of range");
        refused(VOTERS, VOTERS, "1@h1:0").hasMessageEndingWith("port must be 1..65535 in 1@h1:0");
        refused(VOTERS, VOTERS, "1@h1:9093,1@h2:9093").hasMessageEndingWith("voter 1 appears twice");
    }

    @Test
    void aVoterHasTheControllerRoleAndAControllerListener() {
        // When
        QuorumVoters quorum = parse(
                1,
                "process.roles",
                "Controller, broker",
                VOTERS,
                "1@h1:9093",
                "controller.listener.names",
                "CONTROLLER",
                "listeners",
                "PLAINTEXT://:9092,CONTROLLER://:9093");
        // Then
        assertThat(quorum.processRoles()).containsExactly("broker", "controller");
        assertThat(quorum.voters()).containsOnlyKeys(1);
    }

    @Test
    void rolesAndVotersThatDoNotFitAreRefusedNamingTheSetting() {
        refused("process.roles", "process.roles", "broker,,controller")
                .hasMessageEndingWith("expected broker, controller or broker,controller");
        refused("process.roles", "process.roles", "controller")
                .hasMessageEndingWith("a controller-only node is not supported yet; use broker,controller");
        refused(VOTERS, "process.roles", "broker").hasMessageContaining("it is required when process.roles is set");
        refused("process.roles", VOTERS, "1@h1:9093").hasMessageContaining("it is required with");
        refused("controller.listener.names", "process.roles", "broker", VOTERS, "2@h2:9093")
                .hasMessageContaining("it is required with controller.quorum.voters");
        refused(VOTERS, "process.roles", "broker", VOTERS, "1@h1:9093", "controller.listener.names", "CONTROLLER")
                .hasMessageEndingWith("node.id 1 is a voter but process.roles lacks controller");
        refused(
                        "listeners",
                        "process.roles",
                        "broker,controller",
                        VOTERS,
                        "1@h1:9093",
                        "controller.listener.names",
                        "CONTROLLER")
                .hasMessageContaining("a controller needs a listener named in controller.listener.names");
    }
}
