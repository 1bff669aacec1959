package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The mirror's own consumer group on Apache Kafka 4.1.1 with the consumer rebalance protocol (KIP-848,
 * {@code group.protocol=consumer}) and with static membership ({@code group.instance.id}): the mirror starts, its
 * streams and processes share the partitions, partitions that move are committed first, and a restarted static
 * member takes its partitions back at once.
 */
class MirrorGroupMembershipOnKafkaIT {
    /** Far above how long a restart takes, so a restart that had to wait for it fails the test. */
    private static final int CLASSIC_SESSION_TIMEOUT_MS = 60_000;
    /** Kafka's group.consumer.session.timeout.ms default (the brokers of the tests keep it). */
    private static final int CONSUMER_SESSION_TIMEOUT_MS = 45_000;

    private final MirrorFixture fixture = new MirrorFixture(TestCluster.Kind.KAFKA);
    private final TestCluster source = fixture.source();
    private final TestCluster target = fixture.target();

    private MirrorConfig.Builder settings(String group, String include, Map<String, String> consumerExtra) {
        MirrorConfig.Builder b = fixture.settings(group, include);
        Properties consumer = new Properties();
        consumer.putAll(b.build().consumerConfig());
        consumer.putAll(consumerExtra);
        return b.consumerConfig(consumer);
    }

    private ConsumerGroupDescription describe(String group) {
        try (Admin admin = source.admin()) {
            return admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("describe group " + group + ": " + e, e);
        }
    }

    /** True once the group has {@code members} members, each owning at least one partition. */
    private boolean everyMemberOwnsPartitions(String group, int members) {
        Collection<MemberDescription> m;
        try {
            m = describe(group).members();
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof java.util.concurrent.ExecutionException
                    && e.getCause().getCause() instanceof GroupIdNotFoundException) {
                return false; // not created yet
            }
            throw e;
        }
        return m.size() == members
                && m.stream().allMatch(d -> !d.assignment().topicPartitions().isEmpty());
    }

    private void assertExact(String topic, long records) {
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.sourceRecords()).isEqualTo(records);
        assertThat(report.targetRecords()).as(report.toString()).isEqualTo(records);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.unordered()).as(report.toString()).isZero();
        assertThat(report.digestsEqual()).as(report.toString()).isTrue();
    }

    @Test
    void withTheConsumerProtocolABacklogIsMirroredExactlyByStreamsThatShareThePartitions() throws Exception {
        // Given: 6 partitions x 3,000 records on the source
        String topic = "kip848.backlog";
        source.createTopic(topic, 6);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 6, 3_000);
        }

        // When: a mirror of two streams whose consumers speak the consumer protocol
        MirrorEngine engine =
                MirrorFixture.start(settings("g-kip848-backlog", topic, Map.of("group.protocol", "consumer"))
                        .numStreams(2)
                        .build());
        try {
            fixture.awaitTarget(topic, 18_000);
            // Then: one group of the new protocol, both streams members, each with partitions of its own
            Await.until(
                    "both streams own partitions",
                    Duration.ofSeconds(60),
                    () -> everyMemberOwnsPartitions("g-kip848-backlog", 2));
            assertThat(describe("g-kip848-backlog").type()).isEqualTo(GroupType.CONSUMER);
            assertThat(engine.state()).isEqualTo(MirrorEngine.State.RUNNING);
        } finally {
            MirrorFixture.stop(engine);
        }
        assertThat(engine.failure()).isNull();
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.STOPPED);
        assertExact(topic, 18_000);
        assertThat(source.committedOffsets("g-kip848-backlog", topic).values())
                .as("every partition committed at its end")
                .containsOnly(3_000L);
    }

    @Test
    void withTheConsumerProtocolPartitionsMovedBetweenProcessesAreCommittedFirst() throws Exception {
        // Given: a live load and one mirror process of the consumer protocol
        String topic = "kip848.rebal";
        source.createTopic(topic, 6);
        Map<String, String> kip848 = Map.of("group.protocol", "consumer");
        MirrorEngine first = MirrorFixture.start(
                settings("g-kip848-rebal", topic, kip848).numStreams(1).build());
        MirrorEngine second;
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 6, 3_000, 3_000)) {
            Await.until("mirroring has begun", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) > 1_000);

            // When: a second process of two streams joins, the three consumers share the partitions, then the
            // first process leaves
            second = MirrorFixture.start(
                    settings("g-kip848-rebal", topic, kip848).numStreams(2).build());
            Await.until(
                    "the three streams of both processes own partitions",
                    Duration.ofSeconds(60),
                    () -> everyMemberOwnsPartitions("g-kip848-rebal", 3));
            Await.until(
                    "more records mirrored after the join",
                    Duration.ofSeconds(60),
                    () -> target.endOffsetSum(topic) > 8_000);
            MirrorFixture.stop(first);
            load.awaitDone(120);
        }
        fixture.awaitTarget(topic, 18_000);
        MirrorFixture.stop(second);

        // Then: nothing lost, nothing copied twice across the moves
        assertThat(first.failure()).isNull();
        assertThat(second.failure()).isNull();
        assertExact(topic, 18_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void staticMembersOfSeveralStreamsDoNotFenceEachOtherAndARestartRejoinsAtOnce(String protocol) throws Exception {
        // Given: a mirror of two streams with a static member id, on the protocol under test
        String topic = "static." + protocol;
        String group = "g-static-" + protocol;
        source.createTopic(topic, 4);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 4, 1_000);
        }
        Map<String, String> extra = protocol.equals("classic")
                ? Map.of(
                        "group.instance.id",
                        "mirror-a",
                        "session.timeout.ms",
                        String.valueOf(CLASSIC_SESSION_TIMEOUT_MS))
                : Map.of("group.instance.id", "mirror-a", "group.protocol", "consumer");
        MirrorConfig settings = settings(group, topic, extra).numStreams(2).build();
        MirrorEngine engine = MirrorFixture.start(settings);
        try {
            fixture.awaitTarget(topic, 4_000);
            Await.until(
                    "both streams own partitions", Duration.ofSeconds(60), () -> everyMemberOwnsPartitions(group, 2));
            // Then: each stream is a static member of its own
            Set<String> ids = describe(group).members().stream()
                    .map(m -> m.groupInstanceId().orElse("<dynamic>"))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(ids).containsExactly("mirror-a-0", "mirror-a-1");
            assertThat(engine.state()).isEqualTo(MirrorEngine.State.RUNNING);
        } finally {
            MirrorFixture.stop(engine);
        }
        assertThat(engine.failure()).isNull();

        // When: more records arrive while the process is down, and it restarts with the same settings
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 4, 1_000, 1_000);
        }
        long restartedAt = System.nanoTime();
        MirrorEngine restarted = MirrorFixture.start(settings);
        try {
            // Then: it mirrors them long before the static members' session timeout could have run out
            int sessionTimeoutMs =
                    protocol.equals("classic") ? CLASSIC_SESSION_TIMEOUT_MS : CONSUMER_SESSION_TIMEOUT_MS;
            Await.until(
                    "the restarted process mirrors the new records",
                    Duration.ofMillis(sessionTimeoutMs / 2),
                    () -> target.endOffsetSum(topic) >= 8_000);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt);
            assertThat(tookMs).isLessThan(sessionTimeoutMs / 2);
            assertThat(restarted.state()).isEqualTo(MirrorEngine.State.RUNNING);
        } finally {
            MirrorFixture.stop(restarted);
        }
        assertThat(restarted.failure()).isNull();
        assertExact(topic, 8_000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"classic", "consumer"})
    void twoProcessesGivenTheSameStaticIdFailWithAnErrorThatSaysWhatToChange(String protocol) throws Exception {
        // Given: a running mirror process with a static member id
        String topic = "static.twice." + protocol;
        String group = "g-static-twice-" + protocol;
        source.createTopic(topic, 2);
        Map<String, String> extra = protocol.equals("classic")
                ? Map.of("group.instance.id", "mirror-b")
                : Map.of("group.instance.id", "mirror-b", "group.protocol", "consumer");
        MirrorConfig settings = settings(group, topic, extra).numStreams(1).build();
        MirrorEngine first = MirrorFixture.start(settings);
        MirrorEngine second = null;
        try {
            Await.until(
                    "the first process owns the partitions",
                    Duration.ofSeconds(60),
                    () -> everyMemberOwnsPartitions(group, 1));

            // When: a second process starts with the very same consumer settings
            second = MirrorFixture.start(settings);
            MirrorEngine both = second;
            Await.until(
                    "one of the two processes fails",
                    Duration.ofSeconds(60),
                    () -> first.state() == MirrorEngine.State.FAILED || both.state() == MirrorEngine.State.FAILED);

            // Then: the one that failed names the id and says to give each process its own
            MirrorEngine failed = first.state() == MirrorEngine.State.FAILED ? first : second;
            assertThat(failed.failure())
                    .hasMessageContaining("mirror-b-0")
                    .hasMessageContaining("give each mirror process a group.instance.id of its own");
        } finally {
            MirrorFixture.stop(first);
            if (second != null) {
                MirrorFixture.stop(second);
            }
        }
    }
}
