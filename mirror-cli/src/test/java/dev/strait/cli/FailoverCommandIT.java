package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.SharedClusters;
import dev.strait.time.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code strait failover} as an operator runs it (a separate JVM: stdout, stderr, exit code), after a mirror
 * process with {@code --groups} was killed with SIGKILL and restarted, so the target holds a re-copied range.
 */
class FailoverCommandIT {
    @TempDir
    Path dir;

    private MirrorProcess.Run strait(String... args) throws Exception {
        return MirrorProcess.strait(dir, args);
    }

    private static long sum(Map<Integer, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void afterAMirrorSigkillTheFailoverIsStillExact() throws Exception {
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        String topic = "drkill";
        int perPartition = 30_000;
        source.createTopic(topic, 2);
        Map<TopicPartition, OffsetAndMetadata> app = Map.of(
                new TopicPartition(topic, 0),
                new OffsetAndMetadata(20_000),
                new TopicPartition(topic, 1),
                new OffsetAndMetadata(25_000));
        try (Admin admin = source.admin()) {
            admin.alterConsumerGroupOffsets("app-kill", app).all().get(30, TimeUnit.SECONDS);
        }
        List<String> args = MirrorProcessSuite.args(
                dir,
                source,
                target,
                "m-drkill",
                topic,
                "--groups",
                "app-kill",
                "--sync.group.offsets.interval.ms",
                "500");

        // Given: under a live load the mirror is killed after a commit, with an uncommitted tail on the target (copied
        // again after the restart), then restarted
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 2, perPartition, 3_000);
                MirrorProcess first = MirrorProcess.start(dir, "first", args)) {
            // Killed while the load still runs and the target holds copies past the last commit: that tail is what
            // the restart copies again (after the load, a caught-up mirror may have committed everything it wrote).
            Await.until("a commit made, copies past it, the load still running", Duration.ofSeconds(120), () -> {
                long copied = target.endOffsetSum(topic);
                long committed = sum(source.committedOffsets("m-drkill", topic));
                return copied >= 5_000
                        && committed > 0
                        && copied > committed + 100
                        && source.endOffsetSum(topic) < 2L * perPartition;
            });
            first.kill9();
            load.awaitDone(120);
        }
        try (MirrorProcess second = MirrorProcess.start(dir, "second", args)) {
            Await.until(
                    "everything committed after the restart",
                    Duration.ofSeconds(180),
                    () -> sum(source.committedOffsets("m-drkill", topic)) == 2L * perPartition);
            Await.until(
                    "the group synced",
                    Duration.ofSeconds(60),
                    () -> target.committedOffsets("app-kill", topic).size() == 2);
            assertThat(second.terminate(60)).as(second.log()).isNotEqualTo(-1);
        }
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.lost()).isZero();
        System.out.printf("failover after SIGKILL: %s%n", report);
        assertThat(report.duplicates()).as("the restart copied a range again").isPositive();

        Path config = dir.resolve("failover.properties");
        Files.writeString(
                config,
                "source.bootstrap.servers=" + source.bootstrapServers() + "\ntarget.bootstrap.servers="
                        + target.bootstrapServers() + "\n");

        // When: a dry run, then the real thing
        MirrorProcess.Run dry = strait("failover", "--config", config.toString(), "--groups", "app-kill", "--json");
        assertThat(dry.code()).as(dry.out() + dry.err()).isZero();
        assertThat(dry.out().trim())
                .startsWith("{\"mode\":\"dry-run\"")
                .endsWith("}")
                .contains("\"group\":\"app-kill\"")
                .contains("\"readAgain\":0")
                .doesNotContain("\"exact\":false");
        JsonNode parsed = new ObjectMapper().readTree(dry.out());
        assertThat(parsed.get("groups").get(0).get("group").textValue()).isEqualTo("app-kill");
        MirrorProcess.Run dryExecute =
                strait("failover", "--config", config.toString(), "--groups", "no-such-group", "--execute", "--json");
        assertThat(new ObjectMapper().readTree(dryExecute.out()).get("mode").textValue())
                .as(dryExecute.out() + dryExecute.err())
                .isEqualTo("execute");
        assertThat(dryExecute.err()).as("no progress with --json").doesNotContain("failover: moving groups");
        MirrorProcess.Run exec = strait("failover", "--config", config.toString(), "--groups", "app-kill", "--execute");
        assertThat(exec.code()).as(exec.out() + exec.err()).isZero();
        assertThat(exec.out()).contains("group app-kill").contains("=> moved").contains("moved 1 of 1 groups");
        assertThat(exec.out())
                .startsWith("strait failover: ")
                .doesNotContain("\r")
                .doesNotContain("moving groups");
        assertThat(exec.err()).contains("\rfailover: moving groups [####################]  1/1 groups  100%");

        // Then: reading as the group on the target gives every record it had not consumed, none it had
        Set<String> seen = new HashSet<>();
        long again = 0;
        long duplicates = 0;
        for (ConsumerRecord<byte[], byte[]> r : readAsGroup(target, "app-kill", topic)) {
            Provenance p = Provenance.from(r.headers());
            long committed = p.partition() == 0 ? 20_000 : 25_000;
            if (p.offset() < committed) {
                again++;
            } else if (!seen.add(p.partition() + "@" + p.offset())) {
                duplicates++;
            }
        }
        assertThat(again).as("records read again").isZero();
        assertThat(seen).as("records the group had not consumed").hasSize(10_000 + 5_000);
        // The mirror's own duplicates (its uncommitted tail, copied twice) can only be read if they lie ahead.
        assertThat(duplicates).isLessThanOrEqualTo(report.duplicates());
    }

    @Test
    void badInputExitsTwoAndAGroupActiveOnTheTargetExitsOne() throws Exception {
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        Path config = dir.resolve("f.properties");
        Files.writeString(
                config,
                "source.bootstrap.servers=" + source.bootstrapServers() + "\ntarget.bootstrap.servers="
                        + target.bootstrapServers() + "\n");
        assertThat(strait("failover", "--groups", "x").code()).isEqualTo(2);
        assertThat(strait("failover", "--config", config.toString(), "--groups", "x", "--dry-run", "--execute")
                        .code())
                .isEqualTo(2);
        MirrorProcess.Run regex = strait("failover", "--config", config.toString(), "--groups", "(");
        assertThat(regex.code()).isEqualTo(2);
        assertThat(regex.err()).contains("--groups is not a valid regex");
        Path bad = dir.resolve("bad.properties");
        Files.writeString(bad, "bootstrap.servers=x:1\n");
        MirrorProcess.Run unknown = strait("failover", "--config", bad.toString(), "--groups", "x");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("'source.' or 'target.' prefix");
        Path nowhere = dir.resolve("nowhere.properties");
        Files.writeString(
                nowhere,
                "source.bootstrap.servers=127.0.0.1:" + KafkaCluster.freePort()
                        + "\ntarget.bootstrap.servers=127.0.0.1:" + KafkaCluster.freePort() + "\n");
        MirrorProcess.Run unreachable = strait("failover", "--config", nowhere.toString(), "--groups", "x");
        assertThat(unreachable.code()).isEqualTo(1);
        assertThat(unreachable.err()).contains("cannot reach the target cluster");

        // A group with a member on the target is not moved: exit 1, and the group is named
        String topic = "drlive";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        try (Admin admin = source.admin()) {
            admin.alterConsumerGroupOffsets("app-live", Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<byte[], byte[]> live = consumer(target, "app-live", "earliest")) {
            live.subscribe(List.of(topic));
            Await.until("the target consumer joins", Duration.ofSeconds(60), () -> {
                live.poll(Duration.ofMillis(100));
                return !live.assignment().isEmpty();
            });
            MirrorProcess.Run refused =
                    strait("failover", "--config", config.toString(), "--groups", "app-live", "--execute");
            assertThat(refused.code()).as(refused.out() + refused.err()).isEqualTo(1);
            assertThat(refused.out()).contains("NOT moved: app-live").contains("1 members are active on the target");
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaCluster cluster, String group, String reset) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Reads a topic from the group's committed offsets to its end (assigned, so the group gets no member). */
    private static List<ConsumerRecord<byte[], byte[]>> readAsGroup(KafkaCluster cluster, String group, String topic) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer(cluster, group, "none")) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            c.assign(parts);
            Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, Duration.ofSeconds(30)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (parts.stream().anyMatch(tp -> c.position(tp, Duration.ofSeconds(30)) < end.get(tp))) {
                assertThat(System.nanoTime()).as("reading finishes").isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }
}
