package dev.strait.cli.container;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.cli.container.ContainerLaunch.ConfigFile;
import dev.strait.cli.container.ContainerLaunch.Plan;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.settings.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerLaunchTest {
    @TempDir
    Path dir;

    private Plan plan(Map<String, String> env, String... args) {
        return ContainerLaunch.plan(
                List.of(args), EnvConfig.from(env), dir.resolve("run"), dir.resolve("data"), "dc-b-mirror");
    }

    private static Map<String, String> mirrorEnv() {
        Map<String, String> env = new HashMap<>();
        env.put("STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "dc-a-broker:9092");
        env.put("STRAIT_CONSUMER_GROUP_ID", "dc-b-mirror");
        env.put("STRAIT_PRODUCER_BOOTSTRAP_SERVERS", "dc-b-broker:9092");
        env.put("STRAIT_MIRROR_WHITELIST", "orders.*");
        return env;
    }

    @Test
    void mirrorFromTheEnvironmentAlone() {
        // When
        Plan plan = plan(mirrorEnv(), "mirror");

        // Then
        Path run = dir.resolve("run");
        assertThat(plan.args())
                .containsExactly(
                        "mirror",
                        "--whitelist",
                        "orders.*",
                        "--metrics.port",
                        "9101",
                        "--metrics.host",
                        "0.0.0.0",
                        "--consumer.config",
                        run.resolve("consumer.properties").toString(),
                        "--producer.config",
                        run.resolve("producer.properties").toString());
        assertThat(plan.files())
                .extracting(ConfigFile::path)
                .containsExactly(run.resolve("consumer.properties"), run.resolve("producer.properties"));
        assertThat(plan.files().get(0).props())
                .containsOnly(Map.entry("bootstrap.servers", "dc-a-broker:9092"), Map.entry("group.id", "dc-b-mirror"));
        assertThat(plan.files().get(0).base()).isEqualTo("container defaults");
        assertThat(plan.health()).isEqualTo("http 127.0.0.1 9101 /healthz");
    }

    @Test
    void anExplicitFileIsTheBaseAndTheEnvironmentOverridesIt() throws Exception {
        // Given
        Path file = dir.resolve("consumer.properties");
        Files.writeString(file, "bootstrap.servers=old:9092\ngroup.id=g\nsecurity.protocol=SSL\n");
        Map<String, String> env = new HashMap<>();
        env.put("STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "new:9092");
        env.put("STRAIT_PRODUCER_BOOTSTRAP_SERVERS", "t:9092");

        // When
        Plan plan = plan(env, "mirror", "--consumer.config=" + file, "--whitelist", "x");

        // Then
        ConfigFile consumer = plan.files().get(0);
        assertThat(consumer.props())
                .containsOnly(
                        Map.entry("bootstrap.servers", "new:9092"),
                        Map.entry("group.id", "g"),
                        Map.entry("security.protocol", "SSL"));
        assertThat(consumer.base()).isEqualTo("--consumer.config " + file);
        assertThat(plan.args())
                .contains("--consumer.config=" + dir.resolve("run").resolve("consumer.properties"))
                .doesNotContain("--consumer.config=" + file);
    }

    @Test
    void anExplicitFileWithoutVariablesIsUsedAsItIs() throws Exception {
        // Given
        Path consumer = dir.resolve("c.properties");
        Path producer = dir.resolve("p.properties");
        Files.writeString(consumer, "bootstrap.servers=a:1\ngroup.id=g\n");
        Files.writeString(producer, "bootstrap.servers=b:1\n");

        // When
        Plan plan = plan(
                Map.of(),
                "mirror",
                "--consumer.config",
                consumer.toString(),
                "--producer.config",
                producer.toString(),
                "--include",
                "x",
                "--metrics.port",
                "9200");

        // Then
        assertThat(plan.files()).isEmpty();
        assertThat(plan.args())
                .containsExactly(
                        "mirror",
                        "--consumer.config",
                        consumer.toString(),
                        "--producer.config",
                        producer.toString(),
                        "--include",
                        "x",
                        "--metrics.port",
                        "9200",
                        "--metrics.host",
                        "0.0.0.0");
        assertThat(plan.health()).isEqualTo("http 127.0.0.1 9200 /healthz");
    }

    @Test
    void theCommandLineWinsOverAFlagVariableAndMirrorArgsComeFirst() {
        // Given
        Map<String, String> env = mirrorEnv();
        env.put("STRAIT_MIRROR_NUM_STREAMS", "4");
        env.put("STRAIT_MIRROR_INCLUDE", "ignored-because-whitelist-is-an-alias");
        env.put("STRAIT_MIRROR_ARGS", "  --jmx false   --progress.interval.ms 5000 ");

        // When
        Plan plan = plan(env, "mirror", "--num.streams", "2", "--whitelist", "cli.*");

        // Then
        assertThat(plan.args())
                .startsWith(
                        "mirror",
                        "--jmx",
                        "false",
                        "--progress.interval.ms",
                        "5000",
                        "--num.streams",
                        "2",
                        "--whitelist",
                        "cli.*",
                        "--metrics.port");
        assertThat(String.join(" ", plan.args()))
                .doesNotContain("--num.streams 4")
                .doesNotContain("orders.*")
                .doesNotContain("ignored");
    }

    @Test
    void aFlagVariableThatNamesNoFlagIsOneLine() {
        Map<String, String> env = mirrorEnv();
        env.put("STRAIT_MIRROR_NUM_STREAM", "4");

        assertThatThrownBy(() -> plan(env, "mirror"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "environment variable STRAIT_MIRROR_NUM_STREAM: the mirror has no flag --num.stream that takes "
                                + "a value (see 'strait mirror --help')");
    }

    @Test
    void theHelpFlagVariableIsRefused() {
        Map<String, String> env = mirrorEnv();
        env.put("STRAIT_MIRROR_HELP", "true");

        assertThatThrownBy(() -> plan(env, "mirror")).hasMessageContaining("no flag --help that takes a value");
    }

    @Test
    void noSourceClusterNamesTheVariableToSet() {
        Map<String, String> env = mirrorEnv();
        env.remove("STRAIT_CONSUMER_BOOTSTRAP_SERVERS");

        assertThatThrownBy(() -> plan(env, "mirror"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "no bootstrap.servers (the source cluster's host:port list): set STRAIT_CONSUMER_BOOTSTRAP_SERVERS, "
                                + "or mount a properties file and pass --consumer.config FILE");
    }

    @Test
    void noGroupNamesTheVariableToSet() {
        Map<String, String> env = mirrorEnv();
        env.remove("STRAIT_CONSUMER_GROUP_ID");

        assertThatThrownBy(() -> plan(env, "mirror"))
                .hasMessageStartingWith("no group.id (the mirror's consumer group): " + "set STRAIT_CONSUMER_GROUP_ID");
    }

    @Test
    void metricsTurnedOffMeansNoHealthEndpoint() {
        assertThat(plan(mirrorEnv(), "mirror", "--metrics.port", "-1").health()).isEqualTo("none");
    }

    @Test
    void lagMonitorDaemonGetsContainerDefaultsThenTheEnvironment() {
        // Given
        Map<String, String> env = Map.of(
                "STRAIT_LAG_SOURCE_BOOTSTRAP_SERVERS",
                "dc-a-broker:9092",
                "STRAIT_LAG_TARGET_BOOTSTRAP_SERVERS",
                "dc-b-broker:9092",
                "STRAIT_LAG_MIRROR_GROUP_ID",
                "dc-b-mirror",
                "STRAIT_LAG_TOPICS",
                "orders.*",
                "STRAIT_LAG_HTTP_PORT",
                "9202");

        // When
        Plan plan = plan(env, "lag-monitor");

        // Then
        Path file = dir.resolve("run").resolve("lag-monitor.properties");
        assertThat(plan.args()).containsExactly("lag-monitor", "--config", file.toString());
        assertThat(plan.files().get(0).props())
                .containsEntry("http.host", "0.0.0.0")
                .containsEntry("http.port", "9202")
                .containsEntry("mirror.group.id", "dc-b-mirror")
                .hasSize(6);
        assertThat(plan.health()).isEqualTo("http 127.0.0.1 9202 /healthz");
    }

    @Test
    void lagMonitorCheckIsAOneShotThatLeavesTheHealthFileAlone() {
        Plan plan = plan(Map.of("STRAIT_LAG_SOURCE_BOOTSTRAP_SERVERS", "a:1"), "lag-monitor", "check", "--json");

        assertThat(plan.args())
                .containsExactly(
                        "lag-monitor",
                        "check",
                        "--json",
                        "--config",
                        dir.resolve("run")
                                .resolve("lag-monitor-check.properties")
                                .toString());
        assertThat(plan.health()).isNull();
    }

    @Test
    void canaryWithAnExplicitFileAndNoVariablesReadsItOnlyForTheHealthEndpoint() throws Exception {
        Path file = dir.resolve("canary.properties");
        Files.writeString(file, "source.bootstrap.servers=a:1\ntarget.bootstrap.servers=b:1\nhttp.port=9300\n");

        Plan plan = plan(Map.of(), "canary", "--config", file.toString());

        assertThat(plan.files()).isEmpty();
        assertThat(plan.args()).containsExactly("canary", "--config", file.toString());
        assertThat(plan.health()).isEqualTo("http 127.0.0.1 9300 /healthz");
    }

    @Test
    void canaryDefaultsToPort9103() {
        Plan plan = plan(Map.of("STRAIT_CANARY_SOURCE_BOOTSTRAP_SERVERS", "a:1"), "canary");

        assertThat(plan.files().get(0).props())
                .containsEntry("http.port", "9103")
                .containsEntry("http.host", "0.0.0.0");
        assertThat(plan.health()).isEqualTo("http 127.0.0.1 9103 /healthz");
    }

    @Test
    void brokerDefaultsListenOnTheHostNameAndKeepDataOnTheVolume() {
        Plan plan = plan(Map.of("STRAIT_BROKER_NUM_PARTITIONS", "3"), "broker");

        Path file = dir.resolve("run").resolve("broker.properties");
        assertThat(plan.args()).containsExactly("broker", file.toString());
        assertThat(plan.files().get(0).props())
                .containsOnly(
                        Map.entry("node.id", "1"),
                        Map.entry("listeners", "PLAINTEXT://dc-b-mirror:9092"),
                        Map.entry(
                                "log.dirs",
                                dir.resolve("data").resolve("broker").toString()),
                        Map.entry("num.partitions", "3"));
        assertThat(plan.health()).isEqualTo("kafka dc-b-mirror 9092");
    }

    @Test
    void brokerListenerFromTheEnvironmentDecidesTheHealthProbe() {
        Plan plan = plan(Map.of("STRAIT_BROKER_LISTENERS", "PLAINTEXT://0.0.0.0:19092"), "broker");

        assertThat(plan.health()).isEqualTo("kafka 127.0.0.1 19092");
    }

    @Test
    void aClusterNodeIsProbedOnItsClientListenerNotItsControllerListener() {
        Plan plan = plan(
                Map.of(
                        "STRAIT_BROKER_LISTENERS",
                        "CONTROLLER://127.0.0.1:19192,PLAINTEXT://0.0.0.0:19092",
                        "STRAIT_BROKER_CONTROLLER_LISTENER_NAMES",
                        "CONTROLLER",
                        "STRAIT_BROKER_PROCESS_ROLES",
                        "broker,controller",
                        "STRAIT_BROKER_CONTROLLER_QUORUM_VOTERS",
                        "1@127.0.0.1:19192"),
                "broker");

        assertThat(plan.health()).isEqualTo("kafka 127.0.0.1 19092");
    }

    @Test
    void aTlsClientListenerIsProbedInsideTls() {
        Map<String, String> env = Map.of(
                "STRAIT_BROKER_LISTENERS",
                "SECURE://0.0.0.0:19092,CONTROLLER://127.0.0.1:19192",
                "STRAIT_BROKER_CONTROLLER_LISTENER_NAMES",
                "CONTROLLER",
                "STRAIT_BROKER_LISTENER_SECURITY_PROTOCOL_MAP",
                "SECURE:SASL_SSL,CONTROLLER:SSL");
        assertThat(plan(env, "broker").health()).isEqualTo("kafka-tls 127.0.0.1 19092");
        assertThat(plan(Map.of("STRAIT_BROKER_LISTENERS", "SSL://0.0.0.0:9093"), "broker")
                        .health())
                .isEqualTo("kafka-tls 127.0.0.1 9093");
        assertThat(plan(Map.of("STRAIT_BROKER_LISTENERS", "SASL_PLAINTEXT://0.0.0.0:9094"), "broker")
                        .health())
                .as("SASL without TLS answers ApiVersions in the clear")
                .isEqualTo("kafka 127.0.0.1 9094");
    }

    @Test
    void brokerExplicitFileIsReplacedByTheGeneratedCopyOnlyWithVariables() throws Exception {
        Path file = dir.resolve("server.properties");
        Files.writeString(file, "node.id=5\nlisteners=PLAINTEXT://broker-5:9092\nlog.dirs=/data\n");

        assertThat(plan(Map.of(), "broker", file.toString()).args()).containsExactly("broker", file.toString());
        Plan withEnv = plan(Map.of("STRAIT_BROKER_NODE_ID", "6"), "broker", file.toString());
        assertThat(withEnv.args())
                .containsExactly(
                        "broker",
                        dir.resolve("run").resolve("broker.properties").toString());
        assertThat(withEnv.files().get(0).props()).containsEntry("node.id", "6").containsEntry("log.dirs", "/data");
    }

    @Test
    void helpAndOtherCommandsPassThrough() {
        assertThat(plan(Map.of(), "mirror", "--help").args()).containsExactly("mirror", "--help");
        assertThat(plan(Map.of(), "demo", "--duration", "20").args()).containsExactly("demo", "--duration", "20");
        assertThat(plan(Map.of(), "--version").args()).containsExactly("--version");
    }

    @Test
    void aMissingExplicitFileIsOneLine() {
        Map<String, String> env = mirrorEnv();

        assertThatThrownBy(() -> plan(
                        env, "mirror", "--consumer.config", dir.resolve("nope").toString()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("--consumer.config file not found: ");
    }

    @Test
    void dryRunWritesTheFilesPrivatelyAndPrintsTheCommandWithSecretsMasked() throws Exception {
        // Given
        Map<String, String> env = mirrorEnv();
        env.put(
                "STRAIT_CONSUMER_SASL_JAAS_CONFIG",
                "org.apache.kafka.common.security.plain.PlainLoginModule required " + "username=\"u\" password=\"p\";");
        env.put("STRAIT_RUN_DIR", dir.resolve("run").toString());
        env.put("STRAIT_DRY_RUN", "1");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        // When
        int code = ContainerMain.run(
                new String[] {"mirror", "--whitelist", "a b"},
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        // Then
        Path consumer = dir.resolve("run").resolve("consumer.properties");
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(code).isZero();
        assertThat(printed)
                .contains("command: strait mirror --whitelist 'a b' --metrics.port 9101 --metrics.host 0.0.0.0 "
                        + "--consumer.config " + consumer)
                .contains("file: " + consumer
                        + " (base: container defaults; environment: STRAIT_CONSUMER_BOOTSTRAP_SERVERS, "
                        + "STRAIT_CONSUMER_GROUP_ID, STRAIT_CONSUMER_SASL_JAAS_CONFIG)")
                .contains("  sasl.jaas.config=******")
                .contains("health: http 127.0.0.1 9101 /healthz")
                .doesNotContain("password=");
        assertThat(ClientConfigs.load(consumer, "x"))
                .containsEntry("sasl.jaas.config", env.get("STRAIT_CONSUMER_SASL_JAAS_CONFIG"))
                .containsEntry("group.id", "dc-b-mirror");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(consumer)))
                .isEqualTo("rw-------");
        assertThat(dir.resolve("run").resolve("health")).doesNotExist();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void badInputIsOneLineAndExitCode2() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int code = ContainerMain.run(
                new String[] {"mirror"},
                Map.of("STRAIT_CONSUMER_group_id", "g"),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("strait: error: environment variable " + "STRAIT_CONSUMER_group_id: has lower-case letters")
                .hasLineCount(1);
    }
}
