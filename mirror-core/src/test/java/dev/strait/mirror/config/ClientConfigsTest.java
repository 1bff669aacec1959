package dev.strait.mirror.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.settings.ConfigException;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

class ClientConfigsTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void consumerNeverResetsOnItsOwnAndNeverAutoCommits() {
        Properties c = ClientConfigs.consumer(
                props("bootstrap.servers", "h:1", "group.id", "g", "auto.offset.reset", "latest"), 2);

        assertThat(c.getProperty("auto.offset.reset")).isEqualTo("none");
        assertThat(c.getProperty("enable.auto.commit")).isEqualTo("false");
        assertThat(c.getProperty("client.id")).isEqualTo("strait-mirror-2");
        assertThat(c.getProperty("partition.assignment.strategy")).contains("CooperativeSticky");
    }

    @Test
    void userAssignmentStrategyIsKept() {
        Properties c = ClientConfigs.consumer(
                props(
                        "bootstrap.servers",
                        "h:1",
                        "group.id",
                        "g",
                        "partition.assignment.strategy",
                        "org.apache.kafka.clients.consumer.RoundRobinAssignor"),
                0);

        assertThat(c.getProperty("partition.assignment.strategy")).endsWith("RoundRobinAssignor");
    }

    @Test
    void autoCommitIsAnError() {
        assertThatThrownBy(() -> ClientConfigs.consumer(
                        props("bootstrap.servers", "h:1", "group.id", "g", "enable.auto.commit", "true"), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("enable.auto.commit");
    }

    @Test
    void missingGroupOrBootstrapIsAnError() {
        assertThatThrownBy(() -> ClientConfigs.consumer(props("bootstrap.servers", "h:1"), 0))
                .hasMessageContaining("group.id");
        assertThatThrownBy(() -> ClientConfigs.producer(props())).hasMessageContaining("bootstrap.servers");
    }

    @Test
    void producerDefaultsKeepTheGuarantees() {
        Properties p = ClientConfigs.producer(props("bootstrap.servers", "h:1"));

        assertThat(p.getProperty("acks")).isEqualTo("all");
        assertThat(p.getProperty("enable.idempotence")).isEqualTo("true");
        assertThat(p.getProperty("max.in.flight.requests.per.connection")).isEqualTo("5");
        assertThat(p.getProperty("retries")).isEqualTo(String.valueOf(Integer.MAX_VALUE));
    }

    @Test
    void weakeningOverridesAreKeptButNamed() {
        Properties user = props("bootstrap.servers", "h:1", "acks", "1", "enable.idempotence", "false", "retries", "3");

        assertThat(ClientConfigs.producer(user).getProperty("acks")).isEqualTo("1");
        assertThat(ClientConfigs.weakenings(user)).hasSize(3);
        assertThat(ClientConfigs.weakenings(props("acks", "-1"))).isEmpty();
    }

    @Test
    void adminGetsOnlyConnectionSettings() {
        Properties a = ClientConfigs.admin(
                props("bootstrap.servers", "h:1", "group.id", "g", "security.protocol", "SSL", "linger.ms", "5"), "x");

        assertThat(a)
                .containsEntry("bootstrap.servers", "h:1")
                .containsEntry("security.protocol", "SSL")
                .doesNotContainKey("group.id")
                .doesNotContainKey("linger.ms");
    }

    @Test
    void consumerReadsCommittedTransactionsOnlyUnlessTold() {
        assertThat(ClientConfigs.consumer(props("bootstrap.servers", "h:1", "group.id", "g"), 0)
                        .getProperty("isolation.level"))
                .isEqualTo("read_committed");
        assertThat(ClientConfigs.consumer(
                                props(
                                        "bootstrap.servers",
                                        "h:1",
                                        "group.id",
                                        "g",
                                        "isolation.level",
                                        "read_uncommitted"),
                                0)
                        .getProperty("isolation.level"))
                .isEqualTo("read_uncommitted");
    }

    @Test
    void withoutIdempotenceOneRequestInFlightKeepsOrder() {
        Properties p = ClientConfigs.producer(props(
                "bootstrap.servers",
                "h:1",
                "enable.idempotence",
                "false",
                "max.in.flight.requests.per.connection",
                "5"));

        assertThat(p.getProperty("max.in.flight.requests.per.connection")).isEqualTo("1");
        assertThat(ClientConfigs.weakenings(
                        props("enable.idempotence", "false", "max.in.flight.requests.per.connection", "5")))
                .anySatisfy(w -> assertThat(w).contains("overridden to 1"));
        assertThat(ClientConfigs.producer(props("bootstrap.servers", "h:1"))
                        .getProperty("max.in.flight.requests.per.connection"))
                .isEqualTo("5");
    }

    @Test
    void sendNeverBlocksLongerThanADelivery() {
        assertThat(ClientConfigs.producer(props("bootstrap.servers", "h:1")).getProperty("max.block.ms"))
                .isEqualTo("120000");
        assertThat(ClientConfigs.producer(props("bootstrap.servers", "h:1", "delivery.timeout.ms", "5000"))
                        .getProperty("max.block.ms"))
                .isEqualTo("5000");
    }

    /** kafka-clients validates the protocol-specific settings when the consumer is built, before any connection. */
    private static void buildAndClose(Properties config) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
        }
    }

    @Test
    void theConsumerProtocolGetsNoClientSideAssignorAndKafkaClientsAcceptsTheConfig() {
        Properties c = ClientConfigs.consumer(
                props("bootstrap.servers", "127.0.0.1:9", "group.id", "g", "group.protocol", "consumer"), 1);

        assertThat(c.getProperty("partition.assignment.strategy")).isNull();
        assertThat(c.getProperty("group.protocol")).isEqualTo("consumer");
        buildAndClose(c);
        buildAndClose(ClientConfigs.consumer(
                props(
                        "bootstrap.servers", "127.0.0.1:9",
                        "group.id", "g",
                        "group.protocol", "CONSUMER",
                        "group.remote.assignor", "range"),
                0));
        buildAndClose(ClientConfigs.consumer(props("bootstrap.servers", "127.0.0.1:9", "group.id", "g"), 0));
    }

    @Test
    void settingsTheChosenProtocolDoesNotHaveAreRefusedWithWhatToUseInstead() {
        assertThatThrownBy(() -> ClientConfigs.consumer(
                        props(
                                "bootstrap.servers", "h:1",
                                "group.id", "g",
                                "group.protocol", "consumer",
                                "session.timeout.ms", "10000"),
                        0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("session.timeout.ms")
                .hasMessageContaining("group.consumer.session.timeout.ms");
        assertThatThrownBy(() -> ClientConfigs.consumer(
                        props(
                                "bootstrap.servers",
                                "h:1",
                                "group.id",
                                "g",
                                "group.protocol",
                                "consumer",
                                "partition.assignment.strategy",
                                "org.apache.kafka.clients.consumer.RoundRobinAssignor"),
                        0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.remote.assignor");
        assertThatThrownBy(() -> ClientConfigs.consumer(
                        props("bootstrap.servers", "h:1", "group.id", "g", "group.remote.assignor", "uniform"), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.protocol=consumer");
        assertThatThrownBy(() -> ClientConfigs.consumer(
                        props("bootstrap.servers", "h:1", "group.id", "g", "group.protocol", "kip848"), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("classic or consumer");
    }

    @Test
    void eachStreamGetsItsOwnStableStaticMemberId() {
        Properties user = props("bootstrap.servers", "h:1", "group.id", "g", "group.instance.id", "mirror-a");

        assertThat(ClientConfigs.consumer(user, 0).getProperty("group.instance.id"))
                .isEqualTo("mirror-a-0");
        assertThat(ClientConfigs.consumer(user, 3).getProperty("group.instance.id"))
                .isEqualTo("mirror-a-3");
        assertThat(ClientConfigs.consumer(user, 3).getProperty("group.instance.id"))
                .as("the same stream of a restarted process gets the same id")
                .isEqualTo("mirror-a-3");
        assertThat(ClientConfigs.consumer(props("bootstrap.servers", "h:1", "group.id", "g"), 1)
                        .getProperty("group.instance.id"))
                .isNull();
        assertThatThrownBy(() -> ClientConfigs.consumer(
                        props("bootstrap.servers", "h:1", "group.id", "g", "group.instance.id", " "), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("group.instance.id");
    }
}
