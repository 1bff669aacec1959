package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.Await;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The image built from the repository's Dockerfile, run the way docs/operating.md describes: configured only by
 * environment variables, on a network with two Apache Kafka 4.1.1 containers (the source and the target, reached
 * by their network aliases) and a companion broker container. Runs where a Docker engine is available and is
 * reported as skipped (not passed) where none is. The first run builds the image (Maven inside Docker: minutes).
 */
@Testcontainers(disabledWithoutDocker = true)
class DockerImageIT {
    private static final String KAFKA_IMAGE = "apache/kafka:4.1.1";
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Duration BUILD_AND_START = Duration.ofMinutes(15);

    /** Built once for the class (on first use), removed when the JVM exits. */
    private static final ImageFromDockerfile IMAGE = new ImageFromDockerfile("strait-it/strait", true)
        .withDockerfile(REPO.resolve("Dockerfile"));
    private static final Network NETWORK = Network.newNetwork();

    @Container
    static final KafkaContainer SOURCE = new KafkaContainer(KAFKA_IMAGE).withNetwork(NETWORK)
        .withNetworkAliases("source").withListener("source:19092");
    @Container
    static final KafkaContainer TARGET = new KafkaContainer(KAFKA_IMAGE).withNetwork(NETWORK)
        .withNetworkAliases("target").withListener("target:19092");

    @Test
    void theMirrorRoleCopiesABacklogAndStopsCleanlyOnSigterm() throws Exception {
        // Given
        createTopic(SOURCE.getBootstrapServers(), "it.orders", 3);
        try (TestProducer producer = new TestProducer(SOURCE.getBootstrapServers())) {
            producer.produce("it.orders", 3, 1_000);
        }
        try (GenericContainer<?> mirror = strait("mirror")
            .withEnv("STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "source:19092")
            .withEnv("STRAIT_CONSUMER_GROUP_ID", "it-docker")
            .withEnv("STRAIT_PRODUCER_BOOTSTRAP_SERVERS", "target:19092")
            .withEnv("STRAIT_MIRROR_WHITELIST", "it\\..*")
            .withEnv("STRAIT_MIRROR_NUM_STREAMS", "2")
            .withEnv("STRAIT_MIRROR_OFFSET_COMMIT_INTERVAL_MS", "1000")
            .withExposedPorts(9101)
            .waitingFor(Wait.forHttp("/healthz").forPort(9101).forStatusCode(200).withStartupTimeout(BUILD_AND_START))) {

            // When
            mirror.start();
            Await.until("3,000 records on the target", Duration.ofMinutes(2), () -> targetCount("it.orders") >= 3_000);
            Await.until("Docker reports the mirror healthy", Duration.ofMinutes(2), () -> "healthy".equals(health(mirror)));
            DockerClient docker = DockerClientFactory.instance().client();
            docker.stopContainerCmd(mirror.getContainerId()).withTimeout(60).exec();

            // Then
            InspectContainerResponse.ContainerState state = docker.inspectContainerCmd(mirror.getContainerId()).exec()
                .getState();
            assertThat(state.getExitCodeLong()).as(mirror.getLogs()).isEqualTo(143L);
            assertThat(mirror.getLogs()).contains("consumer.properties: container defaults, overridden by "
                + "STRAIT_CONSUMER_BOOTSTRAP_SERVERS, STRAIT_CONSUMER_GROUP_ID").contains("Mirror stopped");
        }
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src = TopicReader.readAll(SOURCE.getBootstrapServers(), "it.orders");
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst = TopicReader.readAll(TARGET.getBootstrapServers(), "it.orders");
        MirrorCheck.Report report = MirrorCheck.compare(src, "it.orders", dst);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.digestsEqual()).as(report.toString()).isTrue();
    }

    @Test
    void theBrokerRoleIsHealthyAndTheMirrorWritesIntoItThenTheLagMonitorAuditsIt() throws Exception {
        // Given
        createTopic(SOURCE.getBootstrapServers(), "it.payments", 2);
        try (TestProducer producer = new TestProducer(SOURCE.getBootstrapServers())) {
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
                 .waitingFor(Wait.forLogMessage(".*serving on port 9092.*", 1).withStartupTimeout(BUILD_AND_START));
             GenericContainer<?> mirror = strait("mirror")
                 .withEnv("STRAIT_CONSUMER_BOOTSTRAP_SERVERS", "source:19092")
                 .withEnv("STRAIT_CONSUMER_GROUP_ID", "it-docker-broker")
                 .withEnv("STRAIT_PRODUCER_BOOTSTRAP_SERVERS", "strait-broker:9092")
                 .withEnv("STRAIT_MIRROR_ARGS", "--whitelist it\\.payments --offset.commit.interval.ms 1000")
                 .withExposedPorts(9101)
                 .waitingFor(Wait.forHttp("/healthz").forPort(9101).forStatusCode(200).withStartupTimeout(BUILD_AND_START))) {
            broker.start();
            Await.until("Docker reports the broker healthy", Duration.ofMinutes(2), () -> "healthy".equals(health(broker)));

            // When
            mirror.start();
            Await.until("the lag monitor's check passes with no lag", Duration.ofMinutes(2),
                () -> runOnce(lagEnv, "lag-monitor", "check", "--max-lag-records", "0", "--samples", "2").exitCode() == 0);
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
        assertThat(run.logs().strip()).isEqualTo("strait: error: environment variable STRAIT_CONSUMER_bootstrap_servers: "
            + "has lower-case letters; write names upper case, _ for '.', __ for '_', ___ for '-', e.g. "
            + "STRAIT_CONSUMER_BOOTSTRAP_SERVERS for bootstrap.servers");
    }

    private static GenericContainer<?> strait(String role) {
        return new GenericContainer<>(IMAGE).withNetwork(NETWORK).withCommand(role)
            .withEnv("STRAIT_HEAP_OPTS", "-Xmx256m");
    }

    private record OneShot(long exitCode, String logs) {
    }

    /** Runs the image once to completion (any exit code) and returns its exit code and output. */
    private static OneShot runOnce(Map<String, String> env, String... command) {
        try (GenericContainer<?> c = strait(command[0]).withCommand(command).withEnv(env)
            .withStartupCheckStrategy(new UntilExited().withTimeout(BUILD_AND_START))) {
            c.start();
            return new OneShot(c.getCurrentContainerInfo().getState().getExitCodeLong(), c.getLogs());
        }
    }

    /** Start-up is done when the container has exited, whatever its exit code. */
    private static final class UntilExited extends StartupCheckStrategy {
        @Override
        public StartupStatus checkStartupState(DockerClient dockerClient, String containerId) {
            return Boolean.TRUE.equals(getCurrentState(dockerClient, containerId).getRunning())
                ? StartupStatus.NOT_YET_KNOWN : StartupStatus.SUCCESSFUL;
        }
    }

    private static String health(GenericContainer<?> container) {
        InspectContainerResponse.ContainerState state = container.getCurrentContainerInfo().getState();
        return state.getHealth() == null ? "none" : state.getHealth().getStatus();
    }

    private static long targetCount(String topic) {
        try {
            return TopicReader.count(TopicReader.readAll(TARGET.getBootstrapServers(), topic));
        } catch (IllegalStateException notYet) {
            return 0;
        }
    }

    private static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
            KafkaCluster.awaitWritable(admin, topic, partitions);
        }
    }
}
