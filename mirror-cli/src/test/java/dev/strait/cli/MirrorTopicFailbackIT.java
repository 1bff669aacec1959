package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.CompanionCluster;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole DR lifecycle of mirror topics with {@code bin/strait} as an operator runs it, between two companion
 * clusters: A's topic is mirrored to B; B is promoted while producers still write to A (so A holds records B never
 * got); idempotent producers go on on B; failback makes A a mirror of B again, saving A's divergent records into a
 * topic of their own; then the same the other way round (A promoted, B failed back). Checked like a history:
 * every record a producer had acknowledged is, at the end, either in the live topic at the offset it was
 * acknowledged at, or in a diverged topic with that offset in its header; never lost, never twice.
 */
class MirrorTopicFailbackIT {
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 2;

    @TempDir
    Path dir;

    @Test
    void failoverUnderLoadFailbackAndAgainKeepEveryAcknowledgedRecord() throws Exception {
        try (CompanionCluster a = CompanionCluster.start("lifecycle-a", 1);
                CompanionCluster b = CompanionCluster.start("lifecycle-b", 1);
                Admin adminA = admin(a.bootstrapServers());
                Admin adminB = admin(b.bootstrapServers())) {
            // Given: orders on A, mirrored to B, 400 records copied
            createTopic(adminA, 1);
            List<Acked> acked = new ArrayList<>(produce(a.bootstrapServers(), "a-before", 400));
            mirrorOnB(adminA, adminB, a.bootstrapServers());
            Path aToB = config("a-to-b.properties", a.bootstrapServers(), b.bootstrapServers());
            Path bToA = config("b-to-a.properties", b.bootstrapServers(), a.bootstrapServers());

            // When: B is promoted while a producer keeps writing to A (A goes on taking writes B never gets)
            Load load = new Load(a.bootstrapServers(), "a-during");
            load.start();
            Await.until("load on A", Duration.ofSeconds(30), () -> load.acked.size() >= 200);
            MirrorProcess.Run failover = MirrorProcess.strait(
                    dir, "failover", "--config", aToB.toString(), "--mirror-topics", TOPIC, "--execute");
            Await.until("more load on A after the promote", Duration.ofSeconds(30), () -> load.acked.size() >= 600);
            load.stop();
            acked.addAll(load.acked);
            assertThat(failover.code()).as(failover.err()).isZero();
            assertThat(failover.out()).contains("promoted 1 of 1 mirror topics");

            // And: B's brokers kept the lineage of A's epochs they copied, and the promote its end
            Map<Integer, Long> bEndsAtPromote = ends(adminB);
            Map<String, String> bConfigs = mirrorConfigs(adminB);
            assertThat(bConfigs.get("strait.mirror.source.lineage"))
                    .contains("0=")
                    .contains(";1=");
            assertThat(bConfigs.get("strait.mirror.promoted.offsets"))
                    .isEqualTo("0:" + bEndsAtPromote.get(0) + ",1:" + bEndsAtPromote.get(1));

            // And: idempotent producers write to B after the copy
            List<Acked> onB = produce(b.bootstrapServers(), "b-after", 300);
            acked.addAll(onB);
            for (int p = 0; p < PARTITIONS; p++) {
                int partition = p;
                assertThat(onB.stream()
                                .filter(r -> r.partition() == partition)
                                .map(Acked::offset)
                                .sorted())
                        .as("B's own records follow the copy without a gap, partition %d", p)
                        .first()
                        .isEqualTo(bEndsAtPromote.get(p));
            }

            // When: a dry run of the failback, then the failback
            MirrorProcess.Run dry =
                    MirrorProcess.strait(dir, "failback", "--config", aToB.toString(), "--mirror-topics", TOPIC);
            assertThat(dry.code()).as(dry.err()).isZero();
            assertThat(dry.out()).contains("would fail back 1 of 1 mirror topics");
            MirrorProcess.Run failback = MirrorProcess.strait(
                    dir, "failback", "--config", aToB.toString(), "--mirror-topics", TOPIC, "--execute", "--json");

            // Then: A copies B, at B's offsets; A's divergent records are in a topic of their own
            assertThat(failback.code()).as(failback.err() + failback.out()).isZero();
            assertThat(failback.out().trim()).startsWith("{").contains("\"outcome\":\"failed_back\"");
            assertThat(failback.err()).contains("(from leader-epoch lineage)").doesNotContain("comparing records");
            String diverged = divergedTopic(adminA);
            Await.until(
                    "A caught up with B",
                    Duration.ofSeconds(60),
                    () -> ends(adminA).equals(ends(adminB)));
            assertThat(read(a.bootstrapServers(), TOPIC)).isEqualTo(read(b.bootstrapServers(), TOPIC));
            assertThat(read(a.bootstrapServers(), diverged)).isNotEmpty();
            checkHistory(acked, read(b.bootstrapServers(), TOPIC), List.of(read(a.bootstrapServers(), diverged)));

            // When: again, the other way round: A promoted, written to, and B failed back
            MirrorProcess.Run failoverToA = MirrorProcess.strait(
                    dir, "failover", "--config", bToA.toString(), "--mirror-topics", TOPIC, "--execute");
            assertThat(failoverToA.code()).as(failoverToA.err()).isZero();
            Await.until("A takes producers", Duration.ofSeconds(30), () -> {
                try {
                    acked.addAll(produce(a.bootstrapServers(), "a-again", 2));
                    return true;
                } catch (Exception e) {
                    return false;
                }
            });
            acked.addAll(produce(a.bootstrapServers(), "a-again", 200));
            MirrorProcess.Run failbackToB = MirrorProcess.strait(
                    dir, "failback", "--config", bToA.toString(), "--mirror-topics", TOPIC, "--execute");

            // Then: B copies A; B had nothing of its own past the point, so nothing was saved or cut
            assertThat(failbackToB.code())
                    .as(failbackToB.err() + failbackToB.out())
                    .isZero();
            assertThat(failbackToB.out()).contains("failed back 1 of 1 mirror topics; 0 divergent records saved");
            assertThat(failbackToB.err())
                    .contains("(from leader-epoch lineage)")
                    .doesNotContain("comparing records");
            Await.until(
                    "B caught up with A",
                    Duration.ofSeconds(60),
                    () -> ends(adminB).equals(ends(adminA)));
            List<Row> live = read(a.bootstrapServers(), TOPIC);
            assertThat(read(b.bootstrapServers(), TOPIC)).isEqualTo(live);
            checkHistory(acked, live, List.of(read(a.bootstrapServers(), diverged)));
        }
    }

    @Test
    void aLeaderChangeOnTheOldSourceBeforeTheFailoverGivesTheLineageTwoEpochs() throws Exception {
        try (CompanionCluster a = CompanionCluster.start("lineage-a", 3);
                CompanionCluster b = CompanionCluster.start("lineage-b", 1);
                Admin adminA = admin(a.bootstrapServers());
                Admin adminB = admin(b.bootstrapServers())) {
            // Given: orders on A (three nodes), mirrored to B
            createTopic(adminA, 3);
            List<Acked> acked = new ArrayList<>(produce(a.bootstrapServers(), "a-first", 200));
            mirrorOnB(adminA, adminB, a.bootstrapServers());

            // And: partition 0's leader on A dies; its new leader takes writes in a new epoch, B copies them
            int leader = adminA.describeTopics(List.of(TOPIC))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(TOPIC)
                    .partitions()
                    .get(0)
                    .leader()
                    .id();
            a.killNode(leader);
            acked.addAll(produce(a.bootstrapServers(), "a-second", 200));
            a.restartNode(leader);
            Await.until(
                    "copied to B again",
                    Duration.ofSeconds(60),
                    () -> ends(adminB).equals(ends(adminA)));
            String lineage = mirrorConfigs(adminB).get("strait.mirror.source.lineage");
            String partition0 = lineage.substring(lineage.indexOf("0="), lineage.indexOf(';'));
            assertThat(partition0.split(":")).as(lineage).hasSizeGreaterThanOrEqualTo(4);

            // When: B is promoted, A (whose producers did not move) takes more writes, B takes its own
            Path aToB = config("a-to-b.properties", a.bootstrapServers(), b.bootstrapServers());
            MirrorProcess.Run failover = MirrorProcess.strait(
                    dir, "failover", "--config", aToB.toString(), "--mirror-topics", TOPIC, "--execute");
            assertThat(failover.code()).as(failover.err()).isZero();
            acked.addAll(produce(a.bootstrapServers(), "a-after", 100));
            acked.addAll(produce(b.bootstrapServers(), "b-after", 60));
            MirrorProcess.Run failback = MirrorProcess.strait(
                    dir, "failback", "--config", aToB.toString(), "--mirror-topics", TOPIC, "--execute");

            // Then: the parting point came from lineage; A's records after the promote are saved, the rest kept
            assertThat(failback.code()).as(failback.err() + failback.out()).isZero();
            assertThat(failback.err()).contains("(from leader-epoch lineage)").doesNotContain("comparing records");
            String diverged = divergedTopic(adminA);
            Await.until(
                    "A caught up with B",
                    Duration.ofSeconds(60),
                    () -> ends(adminA).equals(ends(adminB)));
            List<Row> live = read(b.bootstrapServers(), TOPIC);
            assertThat(read(a.bootstrapServers(), TOPIC)).isEqualTo(live);
            List<Row> saved = read(a.bootstrapServers(), diverged);
            assertThat(saved).hasSize(100).allSatisfy(r -> assertThat(r.value()).startsWith("a-after-"));
            checkHistory(acked, live, List.of(saved));
        }
    }

    @Test
    void recordsIdenticalOnBothSidesPastThePartingPointDoNotHideIt() throws Exception {
        try (CompanionCluster a = CompanionCluster.start("identical-a", 1);
                CompanionCluster b = CompanionCluster.start("identical-b", 1);
                Admin adminA = admin(a.bootstrapServers());
                Admin adminB = admin(b.bootstrapServers())) {
            // Given: orders on A, mirrored to B, B promoted
            createTopic(adminA, 1);
            produce(a.bootstrapServers(), "a-first", 200);
            mirrorOnB(adminA, adminB, a.bootstrapServers());
            Path aToB = config("a-to-b.properties", a.bootstrapServers(), b.bootstrapServers());
            MirrorProcess.Run failover = MirrorProcess.strait(
                    dir, "failover", "--config", aToB.toString(), "--mirror-topics", TOPIC, "--execute");
            assertThat(failover.code()).as(failover.err()).isZero();
            long partedAt = ends(adminB).get(0);

            // And: each side writes one record of its own to partition 0, then nine that are the same on both
            // (same value, no key, same timestamp): records compared by bisection agree past the parting point
            long timestamp = 1_700_000_000_000L;
            produceAt(a.bootstrapServers(), timestamp, "a-own", 9);
            produceAt(b.bootstrapServers(), timestamp, "b-own", 9);

            // When
            MirrorProcess.Run failback = MirrorProcess.strait(
                    dir, "failback", "--config", aToB.toString(), "--mirror-topics", TOPIC, "--execute");

            // Then: A's ten records are saved from the parting point on, and A copies B's
            assertThat(failback.code()).as(failback.err() + failback.out()).isZero();
            Await.until(
                    "A caught up with B",
                    Duration.ofSeconds(60),
                    () -> ends(adminA).equals(ends(adminB)));
            List<Row> live = read(b.bootstrapServers(), TOPIC);
            assertThat(read(a.bootstrapServers(), TOPIC)).isEqualTo(live);
            assertThat(live)
                    .filteredOn(r -> r.partition() == 0 && r.offset() == partedAt)
                    .extracting(Row::value)
                    .containsExactly("b-own");
            List<Row> saved = read(a.bootstrapServers(), divergedTopic(adminA));
            assertThat(saved).hasSize(10).first().satisfies(r -> {
                assertThat(r.value()).isEqualTo("a-own");
                assertThat(r.oldOffset()).isEqualTo(partedAt);
            });
            assertThat(failback.err()).contains("(from leader-epoch lineage)");
        }
    }

    /** To partition 0, in order: {@code first}, then {@code same} records "same", all at {@code timestamp}. */
    private static void createTopic(Admin admin, int replicationFactor) throws Exception {
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) replicationFactor)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    /** Makes B's topic a mirror of A's and waits until it has copied all of it. */
    private static void mirrorOnB(Admin adminA, Admin adminB, String aBootstrap) throws Exception {
        adminB.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)
                        .configs(Map.of("strait.mirror.source.bootstrap.servers", aBootstrap))))
                .all()
                .get(30, TimeUnit.SECONDS);
        Await.until("copied to B", Duration.ofSeconds(60), () -> ends(adminB).equals(ends(adminA)));
    }

    private static void produceAt(String bootstrap, long timestamp, String first, int same) throws Exception {
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            producer.send(new ProducerRecord<>(TOPIC, 0, timestamp, null, first))
                    .get(30, TimeUnit.SECONDS);
            for (int i = 0; i < same; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, timestamp, null, "same"))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static Map<String, String> mirrorConfigs(Admin admin) throws Exception {
        org.apache.kafka.common.config.ConfigResource resource = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.TOPIC, TOPIC);
        Map<String, String> out = new HashMap<>();
        admin.describeConfigs(List.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource)
                .entries()
                .forEach(e -> {
                    if (e.name().startsWith("strait.mirror.") && e.value() != null) {
                        out.put(e.name(), e.value());
                    }
                });
        return out;
    }

    /** Every acknowledged record is exactly once either live at its offset, or saved with that offset. */
    private static void checkHistory(List<Acked> acked, List<Row> live, List<List<Row>> saved) {
        Map<String, Row> liveAt = new HashMap<>();
        live.forEach(r -> liveAt.put(r.partition() + "@" + r.offset(), r));
        Map<String, Integer> savedAt = new HashMap<>();
        for (List<Row> topic : saved) {
            for (Row r : topic) {
                savedAt.merge(r.partition() + "@" + r.oldOffset() + "=" + r.value(), 1, Integer::sum);
            }
        }
        List<String> lost = new ArrayList<>();
        List<String> twice = new ArrayList<>();
        for (Acked r : acked) {
            Row there = liveAt.get(r.partition() + "@" + r.offset());
            boolean isLive = there != null && there.value().equals(r.value());
            int savedCount = savedAt.getOrDefault(r.partition() + "@" + r.offset() + "=" + r.value(), 0);
            if (!isLive && savedCount == 0) {
                lost.add(r.toString());
            }
            if ((isLive ? 1 : 0) + savedCount > 1) {
                twice.add(r.toString());
            }
        }
        assertThat(lost).as("acknowledged records lost").isEmpty();
        assertThat(twice).as("acknowledged records kept twice").isEmpty();
    }

    private static String divergedTopic(Admin admin) throws Exception {
        Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        List<String> diverged =
                names.stream().filter(n -> n.startsWith(TOPIC + ".diverged-")).toList();
        assertThat(diverged).hasSize(1);
        return diverged.get(0);
    }

    private Path config(String name, String source, String target) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, "source.bootstrap.servers=" + source + "\ntarget.bootstrap.servers=" + target + "\n");
        return file;
    }

    record Acked(int partition, long offset, String value) {}

    record Row(int partition, long offset, String value, long oldOffset) {}

    /** An idempotent producer writing until stopped (at most 20,000 records or 60 s), recording what was acked. */
    private static final class Load {
        final ConcurrentLinkedQueue<Acked> acked = new ConcurrentLinkedQueue<>();
        private final String bootstrap;
        private final String prefix;
        private final AtomicBoolean stop = new AtomicBoolean();
        private Thread thread;

        Load(String bootstrap, String prefix) {
            this.bootstrap = bootstrap;
            this.prefix = prefix;
        }

        void start() {
            thread = new Thread(() -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                try (KafkaProducer<String, String> producer = producer(bootstrap)) {
                    for (int i = 0; i < 20_000 && !stop.get() && System.nanoTime() < deadline; i++) {
                        String value = prefix + "-" + i;
                        RecordMetadata m = producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value))
                                .get(30, TimeUnit.SECONDS);
                        acked.add(new Acked(m.partition(), m.offset(), value));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            thread.start();
        }

        void stop() throws InterruptedException {
            stop.set(true);
            thread.join(60_000);
        }
    }

    private static List<Acked> produce(String bootstrap, String prefix, int count) throws Exception {
        List<Acked> out = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(bootstrap)) {
            List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
            List<String> values = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String value = prefix + "-" + i;
                values.add(value);
                sent.add(producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, value)));
            }
            for (int i = 0; i < count; i++) {
                RecordMetadata m = sent.get(i).get(30, TimeUnit.SECONDS);
                out.add(new Acked(m.partition(), m.offset(), values.get(i)));
            }
        }
        return out;
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    /** Every record of a topic, by partition then offset. */
    private static List<Row> read(String bootstrap, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<Row> rows = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            for (int p = 0; p < PARTITIONS; p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long end = consumer.endOffsets(List.of(tp)).get(tp);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        Header old = r.headers().lastHeader("strait.diverged.offset");
                        rows.add(new Row(
                                r.partition(),
                                r.offset(),
                                r.value(),
                                old == null ? -1 : Long.parseLong(new String(old.value(), StandardCharsets.UTF_8))));
                    }
                }
                assertThat(consumer.position(tp)).as("read %s to its end", tp).isEqualTo(end);
            }
        }
        return rows;
    }

    private static Map<Integer, Long> ends(Admin admin) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<Integer, Long> ends = new HashMap<>();
        try {
            admin.listOffsets(request)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
        } catch (Exception e) {
            return Map.of();
        }
        return ends;
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }
}
