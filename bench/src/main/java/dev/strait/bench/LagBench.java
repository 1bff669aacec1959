package dev.strait.bench;

import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.sample.LagSampler;
import dev.strait.lag.sample.LagSnapshot;
import dev.strait.mirror.progress.Progress;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.testkit.KafkaCluster;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The lag monitor's evaluation cost: T topics × P partitions on a source and a target cluster (one Kafka
 * node each), every partition with a few records, its mirror copy carrying provenance, and a committed
 * offset; then the time of each sampling cycle and the client calls it made to each cluster.
 * Usage: {@code bin/bench lag [--topics 100] [--partitions-per-topic 100] [--cycles 5] [--churn]}. With
 * {@code --churn} every partition gets a new record on both clusters between cycles (the worst case: every
 * newest target record and every oldest-unmirrored timestamp is read again); without it, cycles after the first
 * show the steady cost when partitions do not move (reads are skipped for unchanged end offsets).
 */
public final class LagBench {
    private LagBench() {}

    /** Command-line options; see {@link #usage()}. */
    record Options(int topics, int partitionsPerTopic, int cycles, boolean churn) {}

    /** The flags of {@code bin/bench lag} (picocli), with their defaults. */
    @Command(
            name = "bin/bench lag",
            description = "The lag monitor's evaluation cost: the time of each sampling cycle over T topics x P "
                    + "partitions on a one-node source and target, and the client calls it made.")
    static final class Flags {
        @Option(names = "--topics", paramLabel = "T", description = "Topics on each cluster.")
        int topics = 100;

        @Option(names = "--partitions-per-topic", paramLabel = "P", description = "Partitions of each topic.")
        int partitionsPerTopic = 100;

        @Option(names = "--cycles", paramLabel = "N", description = "Sampling cycles measured.")
        int cycles = 5;

        @Option(
                names = "--churn",
                description = "A new record on every partition of both clusters between cycles (the worst case).")
        boolean churn;
    }

    static String usage() {
        return BenchFlags.usage(new Flags());
    }

    /** The options, or null if help was asked for. */
    static @Nullable Options parse(String[] args) {
        Flags f = new Flags();
        if (!BenchFlags.parse(f, args)) {
            return null;
        }
        if (f.topics < 1 || f.partitionsPerTopic < 1 || f.cycles < 1) {
            throw new IllegalArgumentException("--topics, --partitions-per-topic and --cycles must be at least 1");
        }
        return new Options(f.topics, f.partitionsPerTopic, f.cycles, f.churn);
    }

    public static void main(String[] args) throws Exception {
        Options o = BenchFlags.parseOrExit("bench lag", args, LagBench::parse, LagBench::usage);
        if (o == null) {
            return;
        }
        int topics = o.topics();
        int perTopic = o.partitionsPerTopic();
        int cycles = o.cycles();
        boolean churn = o.churn();
        Map<String, String> broker = Map.of("log.index.size.max.bytes", "65536", "num.io.threads", "4");
        try (KafkaCluster source = KafkaCluster.start("lagbench-source", 1, broker);
                KafkaCluster target = KafkaCluster.start("lagbench-target", 1, broker)) {
            long t0 = System.nanoTime();
            String sourceId = prepare(source, target, topics, perTopic);
            System.out.printf(
                    Locale.ROOT,
                    "prepared %d partitions (%d topics) in %.1f s; source cluster %s%n",
                    topics * perTopic,
                    topics,
                    (System.nanoTime() - t0) / 1e9,
                    sourceId);
            Properties p = new Properties();
            p.put("source.bootstrap.servers", source.bootstrapServers());
            p.put("target.bootstrap.servers", target.bootstrapServers());
            p.put("mirror.group.id", "lagbench");
            p.put("topics", "lb\\..*");
            try (LagSampler sampler = new LagSampler(LagMonitorConfig.from(p), Time.SYSTEM)) {
                System.out.printf(
                        "%-6s %10s %12s %14s %14s %8s%n",
                        "cycle", "partitions", "cycle ms", "source calls", "target calls", "errors");
                Progress progress = BenchProgress.of("bench lag: sampling", null)
                        .evenSteps()
                        .start(cycles);
                for (int c = 1; c <= cycles; c++) {
                    progress.update(c - 1, "cycle " + c + " of " + cycles);
                    if (churn && c > 1) {
                        // Every partition moves on both clusters, so every newest record and timestamp is read again.
                        append(source, target, sourceId, topics, perTopic, c);
                    }
                    LagSnapshot s = sampler.sample();
                    long exactKnown = s.partitions().stream()
                            .filter(x -> x.lastMirroredOffset() >= 0)
                            .count();
                    progress.printAbove(
                            System.out,
                            String.format(
                                    Locale.ROOT,
                                    "%-6d %10d %12d %14d %14d %8d  (exact lag from provenance on %d)",
                                    c,
                                    s.partitions().size(),
                                    s.cycleMs(),
                                    s.sourceCalls(),
                                    s.targetCalls(),
                                    s.errors().size(),
                                    exactKnown));
                }
                progress.update(cycles, "done");
                progress.finish();
            }
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(KafkaCluster cluster) {
        Properties p = new Properties();
        p.put("bootstrap.servers", cluster.bootstrapServers());
        p.put("linger.ms", "20");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static void append(
            KafkaCluster source, KafkaCluster target, String sourceId, int topics, int perTopic, int round)
            throws Exception {
        try (KafkaProducer<byte[], byte[]> sprod = producer(source);
                KafkaProducer<byte[], byte[]> tprod = producer(target)) {
            for (int i = 0; i < topics; i++) {
                for (int p = 0; p < perTopic; p++) {
                    String topic = "lb." + i;
                    sprod.send(new ProducerRecord<>(topic, p, System.currentTimeMillis(), null, new byte[100]));
                    RecordHeaders h = new RecordHeaders();
                    // source offsets 0..2 exist from the start; round r adds offset r+1 on the source
                    h.add(Provenance.HEADER, new Provenance(sourceId, sourceId, topic, p, round).encode());
                    tprod.send(new ProducerRecord<>(topic, p, System.currentTimeMillis(), null, new byte[100], h));
                }
            }
            sprod.flush();
            tprod.flush();
        }
    }

    private static String prepare(KafkaCluster source, KafkaCluster target, int topics, int perTopic) throws Exception {
        String sourceId;
        try (Admin s = source.admin();
                Admin t = target.admin()) {
            sourceId = s.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            try (Progress creating = BenchProgress.of("bench lag: creating topics on both clusters", "topics")
                    .start(topics)) {
                for (int from = 0; from < topics; from += 10) {
                    List<NewTopic> batch = new ArrayList<>();
                    for (int i = from; i < Math.min(topics, from + 10); i++) {
                        batch.add(new NewTopic("lb." + i, perTopic, (short) 1));
                    }
                    s.createTopics(batch).all().get(300, TimeUnit.SECONDS);
                    t.createTopics(batch).all().get(300, TimeUnit.SECONDS);
                    creating.update(Math.min(topics, from + 10));
                }
            }
            try (Progress writable = BenchProgress.of("bench lag: waiting for writable partitions", "topics")
                    .start(topics)) {
                for (int i = 0; i < topics; i++) {
                    KafkaCluster.awaitWritable(s, "lb." + i, perTopic);
                    KafkaCluster.awaitWritable(t, "lb." + i, perTopic);
                    writable.update(i + 1);
                }
            }
            Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
            try (Progress writing = BenchProgress.of("bench lag: writing records", "topics")
                            .start(topics);
                    KafkaProducer<byte[], byte[]> sprod = producer(source);
                    KafkaProducer<byte[], byte[]> tprod = producer(target)) {
                for (int i = 0; i < topics; i++) {
                    writing.update(i);
                    for (int p = 0; p < perTopic; p++) {
                        String topic = "lb." + i;
                        // 3 records on the source, 2 mirrored, 1 committed: every lag figure is non-trivial.
                        for (int n = 0; n < 3; n++) {
                            sprod.send(new ProducerRecord<>(topic, p, System.currentTimeMillis(), null, new byte[100]));
                        }
                        for (int n = 0; n < 2; n++) {
                            RecordHeaders h = new RecordHeaders();
                            h.add(Provenance.HEADER, new Provenance(sourceId, sourceId, topic, p, n).encode());
                            tprod.send(
                                    new ProducerRecord<>(topic, p, System.currentTimeMillis(), null, new byte[100], h));
                        }
                        committed.put(new TopicPartition(topic, p), new OffsetAndMetadata(1));
                    }
                }
                sprod.flush();
                tprod.flush();
                writing.update(topics);
            }
            s.alterConsumerGroupOffsets("lagbench", committed).all().get(120, TimeUnit.SECONDS);
        }
        return sourceId;
    }
}
