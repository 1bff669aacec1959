package dev.strait.mirror.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Steps the disaster recovery tests share: a mirror with group sync, group positions, reading as a group. */
final class DrFixture {
    private DrFixture() {}

    static MirrorConfig.Builder mirror(
            TestCluster source, TestCluster target, String mirrorGroup, String include, String groups) {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", source.bootstrapServers());
        consumer.put("group.id", mirrorGroup);
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", target.bootstrapServers());
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include)
                .offsetCommitIntervalMs(1000)
                .sync(new SyncConfig(
                        groups == null ? null : GroupFilter.of(groups, null, "--groups", "--groups.exclude"),
                        500,
                        true,
                        SyncConfig.DEFAULT_SYNC_TOPIC,
                        TopicSyncConfig.defaults()));
    }

    /** The config file of {@code strait failover} and {@code failback} for these clusters ({@code prefix} may be null). */
    static FailoverConfig failoverConfig(TestCluster source, TestCluster target, String prefix) {
        Properties p = new Properties();
        p.put("source.bootstrap.servers", source.bootstrapServers());
        p.put("target.bootstrap.servers", target.bootstrapServers());
        if (prefix != null) {
            p.put("topic.prefix", prefix);
        }
        return FailoverConfig.parse(p);
    }

    static MirrorEngine start(MirrorConfig settings) {
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }

    static void stop(MirrorEngine engine) throws InterruptedException {
        engine.requestStop();
        assertThat(engine.awaitTermination(Duration.ofSeconds(90)))
                .as("engine stops")
                .isTrue();
    }

    /** Commits offsets for a group that has no members (as its consumers would have). */
    static void commit(TestCluster cluster, String group, String topic, Map<Integer, Long> offsets) {
        Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
        offsets.forEach((p, o) -> m.put(new TopicPartition(topic, p), new OffsetAndMetadata(o)));
        try (Admin admin = cluster.admin()) {
            admin.alterConsumerGroupOffsets(group, m).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("commit for " + group + " failed", e);
        }
    }

    static Map<Integer, Long> ends(TestCluster cluster, String topic, int partitions) {
        try (Admin admin = cluster.admin()) {
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> specs = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                specs.put(new TopicPartition(topic, p), org.apache.kafka.clients.admin.OffsetSpec.latest());
            }
            Map<Integer, Long> out = new TreeMap<>();
            admin.listOffsets(specs)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, i) -> out.put(tp.partition(), i.offset()));
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads {@code topic} on {@code cluster} as a member of {@code group}, from the group's committed offsets
     * ({@code reset} where it has none) to the end, without committing.
     */
    static List<ConsumerRecord<byte[], byte[]>> readAsGroup(
            TestCluster cluster, String group, String topic, String reset) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            // Assign rather than subscribe: the group's offsets are used, and the group stays without members.
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                boolean done = true;
                for (TopicPartition tp : parts) {
                    if (consumer.position(tp, Duration.ofSeconds(30)) < end.get(tp)) {
                        done = false;
                    }
                }
                if (done) {
                    break;
                }
                assertThat(System.nanoTime())
                        .as("reading %s as %s finishes", topic, group)
                        .isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }

    /**
     * What a group read on the target, by the source position of each record; {@code foreign} counts records of
     * the target's own (no provenance), which a group without a committed offset reads from the start.
     */
    record Outcome(long read, long readAgain, long skipped, long duplicates, long foreign) {}

    /**
     * Compares what a group read on the target with what it had not consumed on the source: every source
     * record of {@code sourceTopic} at or after the group's committed offset (from {@code firstOf} where it had
     * none) up to {@code ends}. Read again = records below the committed offset; skipped = unconsumed ones not read.
     */
    static Outcome outcome(
            List<ConsumerRecord<byte[], byte[]>> read,
            String sourceTopic,
            Map<Integer, Long> committed,
            Map<Integer, Long> firstOf,
            Map<Integer, Long> ends) {
        Set<String> seen = new HashSet<>();
        long again = 0;
        long duplicates = 0;
        long foreign = 0;
        for (ConsumerRecord<byte[], byte[]> r : read) {
            Provenance p = Provenance.from(r.headers());
            if (p == null) {
                foreign++;
                continue;
            }
            assertThat(p.topic()).isEqualTo(sourceTopic);
            long c = committed.getOrDefault(p.partition(), firstOf.getOrDefault(p.partition(), 0L));
            if (p.offset() < c) {
                again++;
            } else if (!seen.add(p.partition() + "@" + p.offset())) {
                duplicates++;
            }
        }
        long skipped = 0;
        for (Map.Entry<Integer, Long> e : ends.entrySet()) {
            long c = committed.getOrDefault(e.getKey(), firstOf.getOrDefault(e.getKey(), 0L));
            for (long o = c; o < e.getValue(); o++) {
                if (!seen.contains(e.getKey() + "@" + o)) {
                    skipped++;
                }
            }
        }
        return new Outcome(read.size(), again, skipped, duplicates, foreign);
    }

    /**
     * Writes records of the target's own (no provenance) into {@code topic} on {@code cluster} before any mirror
     * copies into it, {@code counts.get(p)} on partition p: with different counts per partition, a copy's target
     * offset differs from its source offset by a different amount on each partition, so a translation that
     * returned the source offset (or mixed up partitions) would put a group at the wrong place.
     */
    static void prefill(TestCluster cluster, String topic, Map<Integer, Integer> counts) {
        cluster.createTopic(topic, counts.size());
        try (TestProducer producer = new TestProducer(cluster.bootstrapServers())) {
            counts.forEach((p, n) -> {
                for (int i = 0; i < n; i++) {
                    producer.raw().send(TestProducer.record(topic, p, 900_000 + i, 1_600_000_000_000L + i, 64));
                }
            });
            producer.raw().flush();
        }
        Map<Integer, Long> expected = new TreeMap<>();
        counts.forEach((p, n) -> expected.put(p, (long) n));
        assertThat(ends(cluster, topic, counts.size()))
                .as("records of the target's own in %s", topic)
                .isEqualTo(expected);
    }

    /**
     * Source offsets as target offsets in a topic pre-filled with {@code fill} and then mirrored in preserve mode:
     * each moved by its partition's fill.
     */
    static Map<Integer, Long> shifted(Map<Integer, Long> sourceOffsets, Map<Integer, Integer> fill) {
        Map<Integer, Long> out = new TreeMap<>();
        sourceOffsets.forEach((p, o) -> out.put(p, o + fill.getOrDefault(p, 0)));
        return out;
    }

    static void awaitTargetOffsets(TestCluster target, String group, String topic, Map<Integer, Long> expected) {
        Await.until(
                "group " + group + " at " + expected + " on target topic " + topic,
                Duration.ofSeconds(90),
                () -> target.committedOffsets(group, topic).equals(expected));
    }
}
