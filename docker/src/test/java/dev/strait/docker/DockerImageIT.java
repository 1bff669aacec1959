package dev.strait.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.command.InspectImageResponse;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.Docker;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.RequiresDocker;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The Strait image ({@link Docker#straitImage()}, built by docker/build-images.sh) run the way docs/operating.md
 * describes: configured only by environment variables, on a network with two Apache Kafka 4.1.1 containers (the
 * source and the target, reached by their network aliases) and a companion broker container. Needs Docker: fails
 * in CI without it, skipped elsewhere ({@link RequiresDocker}).
 */
@RequiresDocker(strait = true, kafka = true)
class DockerImageIT {
    /** Small JVMs on a shared 2-core machine: the serial collector, the C1 compiler only. */
    private static final String LEAN_JVM = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private static final Duration START = Duration.ofMinutes(3);

    private static Network network;
    private static KafkaContainer source;
    private static KafkaContainer target;

    @BeforeAll
    static void startKafka() {
        DockerImageName kafka = DockerImageName.parse(Docker.kafkaImage()).asCompatibleSubstituteFor("apache/kafka");
        network = Network.newNetwork();
        source = new KafkaContainer(kafka)
                .withNetwork(network)
                .withNetworkAliases("source")
                .withListener("source:19092")
                .withEnv("KAFKA_HEAP_OPTS", "-Xmx256m")
                .withEnv("KAFKA_JVM_PERFORMANCE_OPTS", LEAN_JVM)
                .withEnv("CLUSTER_ID", "c291cmNlLWNsdXN0ZXItMQ");
        target = new KafkaContainer(kafka)
                .withNetwork(network)
                .withNetworkAliases("target")
                .withListener("target:19092")
                .withEnv("KAFKA_HEAP_OPTS", "-Xmx256m")
                .withEnv("KAFKA_JVM_PERFORMANCE_OPTS", LEAN_JVM)
                .withEnv("CLUSTER_ID", "dGFyZ2V0LWNsdXN0ZXItMg");
        source.start();
        target.start();
    }

    @AfterAll
    static void stopKafka() {
        for (AutoCloseable c : new AutoCloseable[] {source, target, network}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("DockerImageIT: cleanup: " + e);
                }
            }
        }
    }

    @Test
    void theImageRunsAJreAsANonRootUserWithAHealthcheck() {
        // When
        InspectImageResponse image = DockerClientFactory.instance()
                .client()
                .inspectImageCmd(Docker.straitImage())
                .exec();
        OneShot whoAmI = runOnce(
                Map.of(), "bash", "-c", "id -u; java -version 2>&1 | head -1; command -v javac || echo no-javac");

        // Then
        assertThat(image.getConfig().getUser()).isEqualTo("10001:10001");
        assertThat(image.getConfig().getHealthcheck().getTest()).containsExactly("CMD", "/opt/strait/bin/healthcheck");
        assertThat(whoAmI.exitCode()).as(whoAmI.logs()).isZero();
        assertThat(whoAmI.logs().lines().toList())
                .as(whoAmI.logs())
                .hasSize(3)
                .element(0)
                .isEqualTo("10001");
        assertThat(whoAmI.logs().lines().toList().get(1)).contains("version \"17");
        assertThat(whoAmI.logs().lines().toList().get(2)).isEqualTo("no-javac");
        System.out.println(
                "DockerImageIT: image " + Docker.straitImage() + " is " + image.getSize() / 1_000_000 + " MB");
    }

    @Test
    void theMirrorRoleCopiesABacklogAndOnSigtermCommitsAndExits143() throws Exception {
        // Given
        createTopic(source.getBootstrapServers(), "it.orders", 3);
        try (TestProducer producer = new TestProducer(source.getBootstrapServers())) {
            producer.produce("it.orders", 3, 1_000);
        }
        try (GenericContainer<?> mirror = strait("mirror")
                .withEnv("STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "source:19092")
                .withEnv("STRAIT_CONSUMER_GROUP_ID", "it-docker")
                .withEnv("STRAIT_PRODUCER_BOOTSTRAP_SERVERS", "target:19092")
                .withEnv("STRAIT_MIRROR_WHITELIST", "it\\..*")
                .withEnv("STRAIT_MIRROR_NUM_STREAMS", "2")
                // Longer than the test: the only commit that can cover the whole backlog is the one SIGTERM makes.
                .withEnv("STRAIT_MIRROR_OFFSET_COMMIT_INTERVAL_MS", "600000")
                .withExposedPorts(9101)
                .waitingFor(Wait.forHttp("/healthz")
                        .forPort(9101)
                        .forStatusCode(200)
                        .withStartupTimeout(START))) {

            // When
            mirror.start();
            Await.until("3,000 records on the target", Duration.ofMinutes(2), () -> targetCount("it.orders") >= 3_000);
            Await.until(
                    "Docker reports the mirror healthy", Duration.ofMinutes(2), () -> "healthy".equals(health(mirror)));
            DockerClient docker = DockerClientFactory.instance().client();
            docker.stopContainerCmd(mirror.getContainerId()).withTimeout(60).exec();

            // Then
            InspectContainerResponse.ContainerState state =
                    docker.inspectContainerCmd(mirror.getContainerId()).exec().getState();
            assertThat(state.getExitCodeLong()).as(mirror.getLogs()).isEqualTo(143L);
            assertThat(mirror.getLogs())
                    .contains("consumer.properties: container defaults, overridden by "
                            + "STRAIT_CONSUMER_BOOTSTRAP_SERVERS, STRAIT_CONSUMER_GROUP_ID")
                    .contains("Mirror stopped");
        }
        assertThat(committed(source.getBootstrapServers(), "it-docker", "it.orders"))
                .as("the group's committed offsets after SIGTERM")
                .isEqualTo(Map.of(0, 1_000L, 1, 1_000L, 2, 1_000L));
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src =
                TopicReader.readAll(source.getBootstrapServers(), "it.orders");
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst =
                TopicReader.readAll(target.getBootstrapServers(), "it.orders");
        MirrorCheck.Report report = MirrorCheck.compare(src, "it.orders", dst);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.digestsEqual()).as(report.toString()).isTrue();
    }

    @Test
    void theBrokerRoleIsHealthyAndTheMirrorWritesIntoItThenTheLagMonitorAuditsIt() throws Exception {
        // Given
        createTopic(source.getBootstrapServers(), "it.payments", 2);
        try (TestProducer producer = new TestProducer(source.getBootstrapServers())) {
            producer.produce("it.payments", 2, 500);
        }
        Map<String, String> lagEnv = Map.of(
                "STRAIT_LAG_SOURCE_BOOTSTRAP_SERVERS", "source:19092",
                "STRAIT_LAG_TARGET_BOOTSTRAP_SERVERS", "strait-broker:9092",
                "STRAIT_LAG_MIRROR_GROUP_ID", "it-docker-broker",
                "STRAIT_LAG_TOPICS", "it\\.payments",
                "STRAIT_LAG_SAMPLE_INTERVAL_MS", "1000");
        try (GenericContainer<?> broker = strait("broker")
                        .withNetworkAliases("strait-broker")
                        .withCreateContainerCmdModifier(cmd -> cmd.withHostName("strait-broker"))
                        .withEnv("STRAIT_BROKER_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
                        .waitingFor(Wait.forLogMessage(".*serving on port 9092.*", 1)
                                .withStartupTimeout(START));
                GenericContainer<?> mirror = strait("mirror")
                        .withEnv("STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "source:19092")
                        .withEnv("STRAIT_CONSUMER_GROUP_ID", "it-docker-broker")
                        .withEnv("STRAIT_PRODUCER_BOOTSTRAP_SERVERS", "strait-broker:9092")
                        .withEnv("STRAIT_MIRROR_ARGS", "--whitelist it\\.payments --offset.commit.interval.ms 1000")
                        .withExposedPorts(9101)
                        .waitingFor(Wait.forHttp("/healthz")
                                .forPort(9101)
                                .forStatusCode(200)
                                .withStartupTimeout(START))) {
            broker.start();
            Await.until(
                    "Docker reports the broker healthy", Duration.ofMinutes(2), () -> "healthy".equals(health(broker)));

            // When
            mirror.start();
            Await.until(
                    "the lag monitor's check passes with no lag",
                    Duration.ofMinutes(2),
                    () -> runOnce(lagEnv, "lag-monitor", "check", "--max-lag-records", "0", "--samples", "2")
                                    .exitCode()
                            == 0);
            OneShot audit = runOnce(lagEnv, "lag-monitor", "audit");

            // Then
            assertThat(audit.exitCode()).as(audit.logs()).isZero();
            assertThat(broker.getLogs()).contains("broker.properties: container defaults");
        }
    }

    @Test
    void aBadVariableIsOneLineAndExitCode2() {
        // When
        OneShot run = runOnce(Map.of("STRAIT_CONSUMER_bootstrap_servers", "x"), "mirror");

        // Then
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.logs().strip())
                .isEqualTo("strait: error: environment variable STRAIT_CONSUMER_bootstrap_servers: "
                        + "has lower-case letters; write names upper case, _ for '.', __ for '_', ___ for '-', e.g. "
                        + "STRAIT_CONSUMER_BOOTSTRAP_SERVERS for bootstrap.servers");
    }

    private static GenericContainer<?> strait(String role) {
        return new GenericContainer<>(DockerImageName.parse(Docker.straitImage()))
                .withNetwork(network)
                .withCommand(role)
                .withEnv("STRAIT_HEAP_OPTS", "-Xmx256m " + LEAN_JVM);
    }

    private record OneShot(long exitCode, String logs) {}

    /** Runs the image once to completion (any exit code) and returns its exit code and output. */
    private static OneShot runOnce(Map<String, String> env, String... command) {
        try (GenericContainer<?> c = strait(command[0])
                .withCommand(command)
                .withEnv(env)
                .withStartupCheckStrategy(new UntilExited().withTimeout(START))) {
            c.start();
            return new OneShot(c.getCurrentContainerInfo().getState().getExitCodeLong(), c.getLogs());
        }
    }

    /** Start-up is done when the container has exited, whatever its exit code. */
    private static final class UntilExited extends StartupCheckStrategy {
        @Override
        public StartupStatus checkStartupState(DockerClient dockerClient, String containerId) {
            return Boolean.TRUE.equals(
                            getCurrentState(dockerClient, containerId).getRunning())
                    ? StartupStatus.NOT_YET_KNOWN
                    : StartupStatus.SUCCESSFUL;
        }
    }

    private static String health(GenericContainer<?> container) {
        InspectContainerResponse.ContainerState state =
                container.getCurrentContainerInfo().getState();
        return state.getHealth() == null ? "none" : state.getHealth().getStatus();
    }

    private static long targetCount(String topic) {
        try {
            return TopicReader.count(TopicReader.readAll(target.getBootstrapServers(), topic));
        } catch (IllegalStateException notYet) {
            return 0;
        }
    }

    private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get();
            KafkaCluster.awaitWritable(admin, topic, partitions);
        }
    }

    private static Map<Integer, Long> committed(String bootstrap, String group, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            return offsets.entrySet().stream()
                    .filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                    .collect(Collectors.toMap(
                            e -> e.getKey().partition(), e -> e.getValue().offset()));
        }
    }
}
