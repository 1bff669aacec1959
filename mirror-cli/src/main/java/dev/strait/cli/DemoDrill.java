package dev.strait.cli;

import dev.strait.broker.server.EmbeddedCluster;
import dev.strait.cli.failover.FailoverCommand;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.mirror.sync.Clusters;
import dev.strait.time.Time;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * The demo's failover drill. During the run an application (consumer group {@value #GROUP}) reads the orders
 * topic on the source, slower than the load, committing every second; the mirror syncs the group's offsets to the
 * target. At the end the application stops, the whole source cluster is stopped, {@code strait failover --execute}
 * moves the group from the target's own records (the mirror's sync topic), and the group resumes on the target:
 * it must read every record it had not consumed and none it had (by each record's provenance).
 *
 * <p>Threading: {@link App} runs its own consumer thread; the rest runs on the demo's main thread.
 */
final class DemoDrill {
    static final String GROUP = "demo-app";
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    private DemoDrill() {}

    /** The application on the source: a consumer of one topic at a bounded rate, committing every second. */
    static final class App implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final String topic;
        private final int recordsPerSecond;
        private final Time time;
        private final Thread thread;
        private final AtomicLong consumed = new AtomicLong();
        private volatile boolean running = true;
        private volatile @Nullable Throwable error;

        /** {@code client}: the source's connection and security settings. */
        App(Properties client, String topic, int recordsPerSecond, Time time) {
            Properties p = new Properties();
            p.putAll(client);
            p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, "strait-demo-app");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
            this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            this.topic = topic;
            this.recordsPerSecond = Math.max(1, recordsPerSecond);
            this.time = time;
            this.thread = new Thread(this::run, "strait-demo-app");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void run() {
            try {
                consumer.subscribe(List.of(topic));
                long start = time.milliseconds();
                long nextCommit = start + 1000;
                while (running) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
                    consumed.addAndGet(records.count());
                    long now = time.milliseconds();
                    if (now >= nextCommit) {
                        commit();
                        nextCommit = now + 1000;
                    }
                    // Slower than the load, so that the group is behind when the drill starts.
                    long due = start + consumed.get() * 1000 / recordsPerSecond;
                    if (due > now) {
                        time.sleep(Math.min(500, due - now));
                    }
                }
                commit();
            } catch (Throwable t) {
                error = t;
            } finally {
                consumer.close(Duration.ofSeconds(10));
            }
        }

        private void commit() {
            try {
                consumer.commitSync(Duration.ofSeconds(10));
            } catch (RuntimeException e) {
                // A commit lost in a broker failover or a rebalance: the next one covers it.
            }
        }

        /** Stops reading, commits what it read and leaves the group; returns how many records it had read. */
        long stop() throws InterruptedException {
            running = false;
            thread.join(30_000);
            return consumed.get();
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }

        @Nullable
        Throwable error() {
            return error;
        }
    }

    /** What the drill found. */
    record Result(
            long consumedOnSource,
            long unconsumed,
            long readOnTarget,
            long readAgain,
            long skipped,
            long duplicates,
            int failoverExit) {
        boolean exact() {
            return failoverExit == 0 && readAgain == 0 && skipped == 0;
        }
    }

    /**
     * Runs the drill after the application stopped and the mirror synced its last commit and stopped: stops the
     * source, fails the group over with the real command, and reads as the group on the target.
     */
    static Result run(
            PrintStream out,
            DemoSecurity security,
            EmbeddedCluster source,
            EmbeddedCluster target,
            String topic,
            long consumed,
            Time time)
            throws Exception {
        Map<TopicPartition, Long> committed;
        Map<TopicPartition, Long> sourceEnds;
        try (Admin admin = Admin.create(security.admin(source.bootstrapServers()))) {
            committed = new HashMap<>();
            Clusters.committed(admin, List.of(GROUP), 30_000)
                    .getOrDefault(GROUP, Map.of())
                    .forEach((tp, om) -> committed.put(tp, om.offset()));
            sourceEnds = Clusters.endOffsets(admin, Clusters.partitions(admin, List.of(topic), 30_000), 30_000);
        }
        long unconsumed = 0;
        for (Map.Entry<TopicPartition, Long> e : sourceEnds.entrySet()) {
            unconsumed += e.getValue() - committed.getOrDefault(e.getKey(), 0L);
        }
        out.println();
        out.println("==== failover drill ====");
        out.printf(
                Locale.ROOT,
                ">>> %s read %,d records of %s on the source and stopped; %,d it has not read%n",
                GROUP,
                consumed,
                topic,
                unconsumed);
        out.println(">>> stopping the whole source cluster");
        source.stop();
        // Owner-only from the start: with --secure it holds strait failover's password.
        Path config = Files.createTempFile(
                "strait-demo-failover-",
                ".properties",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            security.sourceAndTarget(
                            DemoSecurity.Principal.FAILOVER, source.bootstrapServers(), target.bootstrapServers())
                    .store(w, "strait failover of the demo's drill");
        }
        out.println("$ bin/strait failover --config " + config + " --groups " + GROUP + " --execute");
        out.flush();
        int exit;
        try {
            exit = Cli.execute(new FailoverCommand(), "failover", new String[] {
                "--config", config.toString(), "--groups", GROUP, "--execute"
            });
        } finally {
            System.out.flush();
            Files.deleteIfExists(config);
        }
        out.printf(">>> %s resumes on the target%n", GROUP);
        Result r = readOnTarget(
                security.client(DemoSecurity.Principal.APP, target.bootstrapServers()),
                topic,
                committed,
                sourceEnds,
                consumed,
                unconsumed,
                exit,
                time);
        out.printf(
                Locale.ROOT,
                "%s on the target: read %,d records; read again %,d, skipped %,d (copies the mirror wrote "
                        + "twice: %,d)%n",
                GROUP,
                r.readOnTarget(),
                r.readAgain(),
                r.skipped(),
                r.duplicates());
        return r;
    }

    /** Joins the group on the target, reads to the end and compares with what it had not read on the source. */
    private static Result readOnTarget(
            Properties targetClient,
            String topic,
            Map<TopicPartition, Long> committed,
            Map<TopicPartition, Long> sourceEnds,
            long consumed,
            long unconsumed,
            int exit,
            Time time) {
        Properties p = new Properties();
        p.putAll(targetClient);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "strait-demo-app-dr");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // The failover wrote every partition's offset: a missing one must fail, not silently start somewhere.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, exit == 0 ? "none" : "earliest");
        Set<String> seen = new HashSet<>();
        long read = 0;
        long again = 0;
        long duplicates = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = time.milliseconds() + READ_TIMEOUT.toMillis();
            Map<TopicPartition, Long> ends = null;
            while (time.milliseconds() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    Provenance prov = Provenance.from(r.headers());
                    if (prov == null) {
                        continue;
                    }
                    read++;
                    TopicPartition sp = new TopicPartition(prov.topic(), prov.partition());
                    if (prov.offset() < committed.getOrDefault(sp, 0L)) {
                        again++;
                    } else if (!seen.add(sp + "@" + prov.offset())) {
                        duplicates++;
                    }
                }
                if (consumer.assignment().isEmpty()) {
                    continue;
                }
                if (ends == null) {
                    ends = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30));
                }
                if (caughtUp(consumer, ends)) {
                    break;
                }
            }
            consumer.commitSync(Duration.ofSeconds(10));
        }
        long skipped = 0;
        for (Map.Entry<TopicPartition, Long> e : sourceEnds.entrySet()) {
            for (long o = committed.getOrDefault(e.getKey(), 0L); o < e.getValue(); o++) {
                if (!seen.contains(e.getKey() + "@" + o)) {
                    skipped++;
                }
            }
        }
        return new Result(consumed, unconsumed, read, again, skipped, duplicates, exit);
    }

    private static boolean caughtUp(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey(), Duration.ofSeconds(10)) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
