package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mirror as users run it, a separate JVM, killed with SIGKILL, stopped with SIGTERM, failing on a record
 * the target refuses, and two processes sharing a group; run once per cluster kind, Apache Kafka 4.1.1
 * ({@link MirrorProcessOnKafkaIT}) and Strait's companion broker ({@link MirrorProcessOnCompanionIT}).
 */
abstract class MirrorProcessSuite {
    private final TestCluster source;
    private final TestCluster target;

    @TempDir
    Path dir;

    MirrorProcessSuite(TestCluster.Kind kind) {
        source = SharedClusters.source(kind);
        target = SharedClusters.target(kind);
    }

    static List<String> args(
            Path dir, TestCluster source, TestCluster target, String group, String include, String... extra)
            throws IOException {
        Path consumer = dir.resolve(group + "-consumer.properties");
        Files.writeString(
                consumer,
                "bootstrap.servers=" + source.bootstrapServers() + "\ngroup.id=" + group
                        + "\nauto.offset.reset=earliest\nsession.timeout.ms=10000\nheartbeat.interval.ms=2000\n"
                        + "metadata.max.age.ms=2000\n");
        Path producer = dir.resolve(group + "-producer.properties");
        Files.writeString(producer, "bootstrap.servers=" + target.bootstrapServers() + "\n");
        List<String> args = new ArrayList<>(List.of(
                "--consumer.config",
                consumer.toString(),
                "--producer.config",
                producer.toString(),
                "--whitelist",
                include,
                "--offset.commit.interval.ms",
                "1000",
                "--progress.interval.ms",
                "5000"));
        args.addAll(List.of(extra));
        return args;
    }

    private static long sum(Map<Integer, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void killedWithSigkillAndRestartedLosesNothingAndDuplicatesOnlyTheUncommittedTail() throws Exception {
        // Given: a backlog of 200,000 records and a mirror copying it
        String topic = "crash";
        int perPartition = 50_000;
        source.createTopic(topic, 4);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 4, perPartition);
        }
        List<String> args = args(dir, source, target, "g-crash", topic, "--num.streams", "2");
        try (MirrorProcess first = MirrorProcess.start(dir, "first", args)) {
            // A fast machine copies a third of the backlog within the first commit interval: wait for a commit
            // too, so that the kill leaves both a committed head and an uncommitted tail.
            Await.until(
                    "a third of the backlog mirrored and a commit made",
                    Duration.ofSeconds(120),
                    () -> target.endOffsetSum(topic) >= 60_000 && sum(source.committedOffsets("g-crash", topic)) > 0);

            // When: kill -9 mid-stream
            first.kill9();
        }
        // Requests already on the wire (records and commits) may still land: let them settle before measuring.
        // The measures at the kill, per partition: the committed offset on the source, and the position the copy
        // reached, the target partition's end (preserve mode, a fresh topic: target offset = source offset).
        Await.until(
                "the target stops growing",
                Duration.ofSeconds(30),
                new Stable(() -> endOffsets(target, topic).toString()));
        Map<Integer, Long> landedAtKill = endOffsets(target, topic);
        Map<Integer, Long> committedByPartition = source.committedOffsets("g-crash", topic);
        long onTargetAtKill = sum(landedAtKill);
        long committedAtKill = sum(committedByPartition);
        assertThat(committedAtKill).as("commits happened before the kill").isPositive();
        for (int p = 0; p < 4; p++) {
            assertThat(committedByPartition.getOrDefault(p, 0L))
                    .as("partition %d: never committed past what the target has", p)
                    .isLessThanOrEqualTo(landedAtKill.getOrDefault(p, 0L));
        }

        try (MirrorProcess second = MirrorProcess.start(dir, "second", args)) {
            Await.until(
                    "everything committed after the restart",
                    Duration.ofSeconds(180),
                    () -> sum(source.committedOffsets("g-crash", topic)) == 4L * perPartition);
            assertThat(second.terminate(60)).as(second.log()).isNotEqualTo(-1);
        }

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.sourceRecords()).isEqualTo(4L * perPartition);
        System.out.printf(
                "crash test: on target at kill %d, committed at kill %d, duplicates %d, report %s%n",
                onTargetAtKill, committedAtKill, report.duplicates(), report);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.mismatched()).as(report.toString()).isZero();
        assertThat(report.unordered())
                .as("first copies in source order, per partition: " + report)
                .isZero();
        assertThat(report.targetRecords()).isEqualTo(4L * perPartition + report.duplicates());
        // Per partition (preserve mode: target partition = source partition): the restart resumes at the committed
        // offset, so exactly the uncommitted tail that had landed, [committed, landed at the kill), is copied a
        // second time, each record once more, and nothing else. Both ends come from the measures at the kill, not
        // from the report.
        assertThat(report.duplicatedOffsets().keySet())
                .as("partitions with duplicates")
                .isSubsetOf(0, 1, 2, 3);
        for (int p = 0; p < 4; p++) {
            assertThat(report.duplicatedOffsets().getOrDefault(p, List.of()))
                    .as("partition %d: source offsets copied twice", p)
                    .containsExactlyElementsOf(
                            offsets(committedByPartition.getOrDefault(p, 0L), landedAtKill.getOrDefault(p, 0L)));
        }
        assertThat(report.duplicates()).as(report.toString()).isEqualTo(onTargetAtKill - committedAtKill);
    }

    /** The offsets {@code from} (inclusive) to {@code to} (exclusive), in order. */
    private static List<Long> offsets(long from, long to) {
        return java.util.stream.LongStream.range(from, to).boxed().toList();
    }

    /**
     * The partitions of {@code topic} a mirror process owns, by its log: what its streams were assigned, less what
     * they gave up (revoked, or lost).
     */
    static java.util.Set<Integer> owned(String log, String topic) {
        java.util.Set<Integer> owned = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "Partitions (assigned|revoked|lost without a rebalance handshake): \\[([^\\]]*)\\]")
                .matcher(log);
        while (m.find()) {
            for (String tp : m.group(2).split(",\\s*")) {
                if (tp.startsWith(topic + "-")) {
                    int p = Integer.parseInt(tp.substring(topic.length() + 1));
                    if (m.group(1).equals("assigned")) {
                        owned.add(p);
                    } else {
                        owned.remove(p);
                    }
                }
            }
        }
        return owned;
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    /** End offset of every partition of a topic, by partition number. */
    static Map<Integer, Long> endOffsets(TestCluster cluster, String topic) {
        try (org.apache.kafka.clients.admin.Admin admin = cluster.admin()) {
            var desc = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS)
                    .get(topic);
            Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> specs =
                    new java.util.HashMap<>();
            desc.partitions()
                    .forEach(p -> specs.put(
                            new org.apache.kafka.common.TopicPartition(topic, p.partition()),
                            org.apache.kafka.clients.admin.OffsetSpec.latest()));
            Map<Integer, Long> out = new java.util.TreeMap<>();
            admin.listOffsets(specs)
                    .all()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS)
                    .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
            return out;
        } catch (Exception e) {
            throw new IllegalStateException("could not read the end offsets of " + topic + " on " + cluster.name(), e);
        }
    }

    @Test
    void stoppedWithSigtermAndRestartedCopiesNothingTwice() throws Exception {
        // Given: a live load and a running mirror
        String topic = "graceful";
        source.createTopic(topic, 3);
        List<String> args = args(dir, source, target, "g-graceful", topic, "--num.streams", "2");
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 3, 8_000, 6_000)) {
            try (MirrorProcess first = MirrorProcess.start(dir, "first", args)) {
                Await.until("mirroring under way", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) >= 5_000);

                // When: SIGTERM mid-stream, then a restart
                int code = first.terminate(120);
                assertThat(code).as(first.log()).isIn(0, 143);
                assertThat(first.log()).contains("Mirror stopped");
            }
            try (MirrorProcess second = MirrorProcess.start(dir, "second", args)) {
                load.awaitDone(120);
                Await.until(
                        "everything mirrored",
                        Duration.ofSeconds(120),
                        () -> sum(source.committedOffsets("g-graceful", topic)) == 24_000);
                second.terminate(60);
            }
        }

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.unordered()).as(report.toString()).isZero();
        assertThat(report.digestsEqual()).as(report.toString()).isTrue();
    }

    /**
     * 100 records in one source partition; the target topic accepts at most 64 KiB per batch and the record
     * at {@code refusedOffset} is 100 KB of random (incompressible) bytes.
     */
    private void topicWithOneRefusedRecord(String topic, int refusedOffset) {
        source.createTopic(topic, 1);
        target.createTopic(topic, 1, Map.of("max.message.bytes", "65536"));
        byte[] big = new byte[100_000];
        new java.util.Random(refusedOffset).nextBytes(big);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            for (int i = 0; i < 100; i++) {
                ProducerRecord<byte[], byte[]> r = TestProducer.record(topic, 0, i, 1_700_000_000_000L + i, 100);
                producer.send(
                        i == refusedOffset
                                ? new ProducerRecord<>(topic, 0, r.timestamp(), r.key(), big, r.headers())
                                : r);
            }
        }
    }

    @Test
    void aRecordTheTargetRefusesStopsTheMirrorWithoutCommittingPastIt() throws Exception {
        // Given: the target topic accepts at most 64 KiB per batch; source record 50 is 100 KB of random bytes
        String topic = "abort";
        topicWithOneRefusedRecord(topic, 50);

        // When
        int code;
        String log;
        try (MirrorProcess mirror = MirrorProcess.start(dir, "abort", args(dir, source, target, "g-abort", topic))) {
            code = mirror.waitFor(120);
            log = mirror.log();
        }

        // Then
        assertThat(code).as(log).isEqualTo(1);
        assertThat(log)
                .contains("abort-0@50")
                .contains("RecordTooLargeException")
                .contains("max.message.bytes=65536");
        Map<Integer, Long> committed = source.committedOffsets("g-abort", topic);
        assertThat(committed.getOrDefault(0, 0L))
                .as("committed offset of abort-0: not past the refused record, and "
                        + "everything before it was acknowledged")
                .isEqualTo(50L);
        assertThat(target.endOffsetSum(topic))
                .as("records before it are on the target")
                .isGreaterThanOrEqualTo(50);
    }

    @Test
    void withAbortOffARefusedRecordIsCountedAndSkipped() throws Exception {
        // Given
        String topic = "skip";
        topicWithOneRefusedRecord(topic, 20);

        // When
        try (MirrorProcess mirror = MirrorProcess.start(
                dir, "skip", args(dir, source, target, "g-skip", topic, "--abort.on.send.failure", "false"))) {
            Await.until(
                    "everything but the refused record mirrored and committed",
                    Duration.ofSeconds(60),
                    () -> source.committedOffsets("g-skip", topic).getOrDefault(0, 0L) == 100L);
            assertThat(mirror.isAlive()).isTrue();
            mirror.terminate(60);
            assertThat(mirror.log()).contains("Skipping source record skip-0@20");
        }

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.lost()).as(report.toString()).isEqualTo(1);
        assertThat(report.lostSamples()).containsExactly("0@20");
    }

    @Test
    void whenOneOfTwoMirrorProcessesIsKilledTheOtherTakesOverWithoutLoss() throws Exception {
        // Given: two mirror processes in one group and a live load
        String topic = "ha";
        source.createTopic(topic, 4);
        java.util.Set<Integer> killedOwned;
        Map<Integer, Long> committedAtKill = new java.util.TreeMap<>();
        Map<Integer, Long> landedAtKill = new java.util.TreeMap<>();
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 4, 10_000, 5_000);
                MirrorProcess a =
                        MirrorProcess.start(dir, "a", args(dir, source, target, "g-ha", topic, "--num.streams", "2"));
                MirrorProcess b =
                        MirrorProcess.start(dir, "b", args(dir, source, target, "g-ha", topic, "--num.streams", "2"))) {
            Await.until(
                    "both processes own partitions",
                    Duration.ofSeconds(60),
                    () -> a.log().contains("Partitions assigned") && b.log().contains("Partitions assigned"));
            Await.until("mirroring under way", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) >= 8_000);

            // a commit on each of a's partitions too, so that its uncommitted tail has a lower end above 0
            Await.until("the process to be killed committed on each partition it owns", Duration.ofSeconds(60), () -> {
                java.util.Set<Integer> owns = owned(a.log(), topic);
                Map<Integer, Long> committed = source.committedOffsets("g-ha", topic);
                return !owns.isEmpty() && owns.stream().allMatch(p -> committed.getOrDefault(p, 0L) > 0);
            });

            // When
            killedOwned = owned(a.log(), topic);
            int takeOversBefore = count(b.log(), "Partitions assigned");
            a.kill9();
            // The measures at the kill, for the killed process's partitions: where their copy stopped on the target
            // (once requests on the wire landed) and their committed offsets. b takes them over only after the
            // session timeout (10 s), so they hold still meanwhile.
            assertThat(killedOwned)
                    .as("partitions the killed process owned, by its log")
                    .isNotEmpty();
            Await.until(
                    "the killed process's partitions stop growing on the target",
                    Duration.ofSeconds(8),
                    new Stable(() -> endOffsets(target, topic).entrySet().stream()
                            .filter(e -> killedOwned.contains(e.getKey()))
                            .toList()
                            .toString()));
            Map<Integer, Long> ends = endOffsets(target, topic);
            Map<Integer, Long> committed = source.committedOffsets("g-ha", topic);
            for (int p : killedOwned) {
                landedAtKill.put(p, ends.getOrDefault(p, 0L));
                committedAtKill.put(p, committed.getOrDefault(p, 0L));
            }
            assertThat(count(b.log(), "Partitions assigned"))
                    .as("b had not been assigned the killed process's partitions yet when they were measured:\n"
                            + b.log())
                    .isEqualTo(takeOversBefore);
            load.awaitDone(120);
            Await.until(
                    "b mirrored and committed everything",
                    Duration.ofSeconds(120),
                    () -> sum(source.committedOffsets("g-ha", topic)) == 40_000);
            assertThat(b.isAlive()).isTrue();
            b.terminate(60);
        }

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        System.out.printf(
                "ha test: killed process owned %s, committed at kill %s, landed at kill %s, report %s%n",
                killedOwned, committedAtKill, landedAtKill, report);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.mismatched()).as(report.toString()).isZero();
        assertThat(report.foreign()).as(report.toString()).isZero();
        assertThat(report.targetRecords()).isEqualTo(40_000 + report.duplicates());
        // The duplicate bound: the survivor re-copies the killed process's partitions from their committed
        // offsets, so exactly their uncommitted tail that had landed, [committed, landed at the kill), comes twice;
        // the survivor's own partitions, never handed over, have none. Both ends come from the measures at the
        // kill, not from the report.
        for (int p = 0; p < 4; p++) {
            List<Long> expected =
                    killedOwned.contains(p) ? offsets(committedAtKill.get(p), landedAtKill.get(p)) : List.of();
            assertThat(report.duplicatedOffsets().getOrDefault(p, List.of()))
                    .as("partition %d (%s): source offsets copied twice", p, killedOwned.contains(p) ? "killed" : "b's")
                    .containsExactlyElementsOf(expected);
        }
    }

    /** True once a reading (e.g. a topic's end offsets) has not changed for a second. */
    static final class Stable implements java.util.function.BooleanSupplier {
        private final java.util.function.Supplier<String> reading;
        private String last;
        private long since;

        Stable(java.util.function.Supplier<String> reading) {
            this.reading = reading;
        }

        @Override
        public boolean getAsBoolean() {
            long now = System.nanoTime();
            String value = reading.get();
            if (!value.equals(last)) {
                last = value;
                since = now;
                return false;
            }
            return now - since >= 1_000_000_000L;
        }
    }
}
