package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.CompanionCluster;
import dev.strait.testkit.KafkaCluster;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code strait failover --mirror-topics} as an operator runs it (its own JVM): a dry run lists the mirror topics
 * per partition and what would be cut; --execute cuts each partition to its last stable offset (the transaction
 * the copy left open and the records after it moved aside into a diverged topic, never deleted), promotes, and lets
 * an idempotent producer write right after the committed records; a second run finds them promoted. A topic whose
 * records past the stable offset cannot be moved aside is neither cut nor promoted, and copies on.
 */
class MirrorTopicFailoverIT {
    @TempDir
    Path dir;

    @Test
    void aDryRunListsAndAnExecutionCutsToTheStableOffsetMovingTheOpenTransactionAside() throws Exception {
        try (KafkaCluster source = KafkaCluster.start("promote-source", 1);
                CompanionCluster target = CompanionCluster.start("promote-target", 1);
                Admin sourceAdmin = admin(source.bootstrapServers());
                Admin targetAdmin = admin(target.bootstrapServers())) {
            // Given: partition 0 holds 30 plain records, a committed transaction of 5 (and its marker), a transaction
            // of 5 still open and 10 plain records after it; partition 1 holds 20 plain records. A mirror topic
            // copies both.
            TopicPartition tp0 = new TopicPartition("ledger", 0);
            TopicPartition tp1 = new TopicPartition("ledger", 1);
            sourceAdmin
                    .createTopics(List.of(new NewTopic("ledger", 2, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> plain = producer(source.bootstrapServers(), null)) {
                send(plain, 0, "v", 30);
                send(plain, 1, "w", 20);
            }
            try (KafkaProducer<String, String> done = producer(source.bootstrapServers(), "ledger-done")) {
                done.initTransactions();
                done.beginTransaction();
                send(done, 0, "done-", 5);
                done.commitTransaction();
            }
            KafkaProducer<String, String> open = producer(source.bootstrapServers(), "ledger-open");
            open.initTransactions();
            open.beginTransaction();
            send(open, 0, "open-", 5);
            try (KafkaProducer<String, String> plain = producer(source.bootstrapServers(), null)) {
                send(plain, 0, "after-", 10);
            }
            long stable0 = 36; // 30 plain, 5 committed, 1 commit marker
            long end0 = stable0 + 15;
            createMirror(targetAdmin, source.bootstrapServers(), "ledger", 2);
            assertThat(offset(sourceAdmin, tp0, false)).isEqualTo(end0);
            Await.until(
                    "the copy",
                    Duration.ofSeconds(60),
                    () -> offset(targetAdmin, tp0, false) == end0 && offset(targetAdmin, tp1, false) == 20);
            Path config = config(source.bootstrapServers(), target.bootstrapServers());

            // When: a dry run
            MirrorProcess.Run dry = strait("failover", "--config", config.toString(), "--mirror-topics", "ledger");

            // Then: listed with what would be cut, nothing changed
            assertThat(dry.code()).as(dry.err()).isZero();
            assertThat(dry.out())
                    .contains("ledger", "would promote", "would promote 1 of 1 mirror topics (2 partitions)")
                    .contains("1 partitions would be cut to their stable offset (15 offsets moved aside)");
            assertThat(offset(targetAdmin, tp0, false)).isEqualTo(end0);
            assertThat(offset(targetAdmin, tp0, true)).isEqualTo(stable0);
            assertThat(topicsStartingWith(targetAdmin, "ledger.diverged-")).isEmpty();

            // When: executed
            MirrorProcess.Run run = strait(
                    "failover", "--config", config.toString(), "--mirror-topics", "ledger", "--execute", "--json");

            // Then: each partition ends at its stable offset (no abort marker was written), nothing of the open
            // transaction nor what followed it is readable even read_uncommitted, and every committed record is
            // where it was
            assertThat(run.code()).as(run.err()).isZero();
            assertThat(run.out().trim())
                    .startsWith("{")
                    .contains("\"outcome\":\"promoted\"", "\"stableOffset\":36", "\"movedAside\":15");
            assertThat(offset(targetAdmin, tp0, false)).isEqualTo(stable0);
            assertThat(offset(targetAdmin, tp0, true)).isEqualTo(stable0);
            assertThat(offset(targetAdmin, tp1, false)).isEqualTo(20);
            List<ConsumerRecord<String, String>> kept = readUncommitted(target.bootstrapServers(), tp0);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                expected.add("0@" + i + "=v" + i);
            }
            for (int i = 0; i < 5; i++) {
                expected.add("0@" + (30 + i) + "=done-" + i);
            }
            assertThat(kept.stream().map(r -> r.partition() + "@" + r.offset() + "=" + r.value()))
                    .containsExactlyElementsOf(expected);
            assertThat(readUncommitted(target.bootstrapServers(), tp1)).hasSize(20);

            // And: the diverged topic holds exactly the cut records, each with its old offset in a header
            List<String> diverged = topicsStartingWith(targetAdmin, "ledger.diverged-");
            assertThat(diverged).hasSize(1);
            List<String> moved = new ArrayList<>();
            for (ConsumerRecord<String, String> r :
                    readUncommitted(target.bootstrapServers(), new TopicPartition(diverged.get(0), 0))) {
                Header old = r.headers().lastHeader("strait.diverged.offset");
                moved.add(new String(old.value(), StandardCharsets.UTF_8) + "=" + r.value());
            }
            List<String> cut = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                cut.add((stable0 + i) + "=open-" + i);
            }
            for (int i = 0; i < 10; i++) {
                cut.add((stable0 + 5 + i) + "=after-" + i);
            }
            assertThat(moved).containsExactlyElementsOf(cut);
            assertThat(readUncommitted(target.bootstrapServers(), new TopicPartition(diverged.get(0), 1)))
                    .isEmpty();
            assertThat(run.out()).contains("\"movedAsideTo\":\"" + diverged.get(0) + "\"");

            // And: an idempotent producer writes right after the committed records
            try (KafkaProducer<String, String> after = producer(target.bootstrapServers(), null)) {
                RecordMetadata written = after.send(new ProducerRecord<>("ledger", 0, "after", "failover"))
                        .get(30, TimeUnit.SECONDS);
                assertThat(written.offset()).isEqualTo(stable0);
            }

            // And: run again, the topic is found promoted and nothing more is cut
            MirrorProcess.Run again =
                    strait("failover", "--config", config.toString(), "--mirror-topics", "ledger", "--execute");
            assertThat(again.code()).as(again.err()).isZero();
            assertThat(again.out()).contains("already promoted");
            assertThat(offset(targetAdmin, tp0, false)).isEqualTo(stable0 + 1);

            // And: --groups and --mirror-topics together are refused
            MirrorProcess.Run both =
                    strait("failover", "--config", config.toString(), "--mirror-topics", "x", "--groups", "y");
            assertThat(both.code()).isEqualTo(2);
            assertThat(both.err()).contains("one of them");
            open.abortTransaction();
            open.close();
        }
    }

    @Test
    void aTopicWhoseNameLeavesNoRoomForTheSuffixIsPromotedWithAShortenedSideTopic() throws Exception {
        try (KafkaCluster source = KafkaCluster.start("promote-long-source", 1);
                CompanionCluster target = CompanionCluster.start("promote-long-target", 1);
                Admin sourceAdmin = admin(source.bootstrapServers());
                Admin targetAdmin = admin(target.bootstrapServers())) {
            // Given: a mirror topic whose name is too long for "<name>.diverged-<stamp>" (230 + 25 characters > 249),
            // with a transaction left open on the source and records after it: 10 plain, 3 open, 2 plain
            String topic = "long-" + "x".repeat(225);
            TopicPartition tp = new TopicPartition(topic, 0);
            KafkaProducer<String, String> open = openTransactionAfterTen(source, sourceAdmin, topic, "long-open");
            createMirror(targetAdmin, source.bootstrapServers(), topic, 1);
            Await.until("the copy", Duration.ofSeconds(60), () -> offset(targetAdmin, tp, false) == 15);
            Path config = config(source.bootstrapServers(), target.bootstrapServers());

            // When: executed
            MirrorProcess.Run run =
                    strait("failover", "--config", config.toString(), "--mirror-topics", "long-.*", "--execute");

            // Then: promoted and cut at the stable offset; the 5 records past it are in a side topic whose name is
            // the topic's shortened, with a digest, within 249 characters (it used to be refused: no legal name)
            assertThat(run.code()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("promoted 1 of 1 mirror topics (1 partitions); 1 partitions cut");
            assertThat(offset(targetAdmin, tp, false)).isEqualTo(10);
            assertThat(state(targetAdmin, topic)).isEqualTo("promoted");
            List<String> side = topicsStartingWith(targetAdmin, "long-x").stream()
                    .filter(n -> !n.equals(topic))
                    .toList();
            assertThat(side).singleElement().satisfies(name -> {
                assertThat(name).hasSizeLessThanOrEqualTo(249).contains(".diverged-");
                assertThat(run.out()).contains(name);
                assertThat(offset(targetAdmin, new TopicPartition(name, 0), false))
                        .isEqualTo(5);
            });
            open.abortTransaction();
            open.close();
        }
    }

    @Test
    void aTopicWhoseCutCannotBeSavedIsNotPromotedAndCopiesOnUncut() throws Exception {
        try (KafkaCluster source = KafkaCluster.start("promote-fail-source", 1);
                CompanionCluster target = CompanionCluster.start("promote-fail-target", 1);
                Admin sourceAdmin = admin(source.bootstrapServers());
                Admin targetAdmin = admin(target.bootstrapServers())) {
            // Given: a mirror topic with a transaction left open on the source and records after it (10 plain, 3
            // open, 2 plain), and every name its side topic could get in the next two minutes already taken
            String topic = "taken";
            TopicPartition tp = new TopicPartition(topic, 0);
            KafkaProducer<String, String> open = openTransactionAfterTen(source, sourceAdmin, topic, "taken-open");
            createMirror(targetAdmin, source.bootstrapServers(), topic, 1);
            Await.until("the copy", Duration.ofSeconds(60), () -> offset(targetAdmin, tp, false) == 15);
            Path config = config(source.bootstrapServers(), target.bootstrapServers());
            List<NewTopic> taken = new ArrayList<>();
            java.time.format.DateTimeFormatter stamp = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                    .withZone(java.time.ZoneOffset.UTC);
            java.time.Instant now = java.time.Instant.now();
            for (int s = -2; s <= 120; s++) {
                taken.add(new NewTopic(topic + ".diverged-" + stamp.format(now.plusSeconds(s)), 1, (short) 1));
            }
            targetAdmin.createTopics(taken).all().get(60, TimeUnit.SECONDS);

            // When: executed
            MirrorProcess.Run run =
                    strait("failover", "--config", config.toString(), "--mirror-topics", "taken", "--execute");

            // Then: not promoted, said why; nothing cut or moved aside, and the topic copies again (not left paused)
            assertThat(run.code()).as(run.out() + run.err()).isEqualTo(1);
            assertThat(run.out())
                    .contains("promoted 0 of 1 mirror topics (1 partitions); 0 partitions cut", "NOT promoted")
                    .contains(topic + ": not promoted: cannot create " + topic + ".diverged-")
                    .contains("; nothing was cut, " + topic + " is mirroring again; run the command again");
            assertThat(offset(targetAdmin, tp, false)).isEqualTo(15);
            assertThat(offset(targetAdmin, tp, true)).isEqualTo(10);
            assertThat(state(targetAdmin, topic)).isEqualTo("mirroring");
            for (NewTopic t : taken) {
                assertThat(offset(targetAdmin, new TopicPartition(t.name(), 0), false))
                        .as("nothing moved aside into %s", t.name())
                        .isZero();
            }
            try (KafkaProducer<String, String> plain = producer(source.bootstrapServers(), null)) {
                send(plain, topic, 0, "later-", 1);
            }
            Await.until("copied again", Duration.ofSeconds(60), () -> offset(targetAdmin, tp, false) == 16);
            open.abortTransaction();
            open.close();
        }
    }

    /** 10 plain records on {@code topic}, then 3 in a transaction left open, then 2 plain: its producer, open. */
    private static KafkaProducer<String, String> openTransactionAfterTen(
            KafkaCluster source, Admin sourceAdmin, String topic, String transactionalId) throws Exception {
        sourceAdmin
                .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        try (KafkaProducer<String, String> plain = producer(source.bootstrapServers(), null)) {
            send(plain, topic, 0, "v", 10);
        }
        KafkaProducer<String, String> open = producer(source.bootstrapServers(), transactionalId);
        open.initTransactions();
        open.beginTransaction();
        send(open, topic, 0, "open-", 3);
        try (KafkaProducer<String, String> plain = producer(source.bootstrapServers(), null)) {
            send(plain, topic, 0, "after-", 2);
        }
        return open;
    }

    private Path config(String source, String target) throws Exception {
        Path config = dir.resolve("failover.properties");
        Files.writeString(config, "source.bootstrap.servers=" + source + "\ntarget.bootstrap.servers=" + target + "\n");
        return config;
    }

    private static void createMirror(Admin targetAdmin, String source, String topic, int partitions) throws Exception {
        targetAdmin
                .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)
                        .configs(Map.of("strait.mirror.source.bootstrap.servers", source))))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static String state(Admin admin, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        ConfigEntry entry = admin.describeConfigs(List.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource)
                .get("strait.mirror.state");
        return entry == null ? "" : entry.value();
    }

    private MirrorProcess.Run strait(String... args) throws Exception {
        return MirrorProcess.strait(dir, args);
    }

    private static void send(KafkaProducer<String, String> producer, int partition, String prefix, int count)
            throws Exception {
        send(producer, "ledger", partition, prefix, count);
    }

    private static void send(
            KafkaProducer<String, String> producer, String topic, int partition, String prefix, int count)
            throws Exception {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(topic, partition, "k" + i, prefix + i));
        }
        producer.flush();
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    private static List<String> topicsStartingWith(Admin admin, String prefix) throws Exception {
        Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        return names.stream().filter(n -> n.startsWith(prefix)).sorted().toList();
    }

    /** Every record of one partition, aborted and open transactions included, up to its end. */
    private static List<ConsumerRecord<String, String>> readUncommitted(String bootstrap, TopicPartition tp) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (consumer.position(tp, Duration.ofSeconds(30)) < end) {
                assertThat(System.nanoTime()).as("read %s up to %d", tp, end).isLessThan(deadline);
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }

    private static long offset(Admin admin, TopicPartition tp, boolean stable) {
        try {
            return admin.listOffsets(
                            Map.of(tp, OffsetSpec.latest()),
                            new ListOffsetsOptions(
                                    stable ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED))
                    .partitionResult(tp)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        if (transactionalId != null) {
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(props);
    }
}
