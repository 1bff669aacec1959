package dev.strait.cli;

import dev.strait.mirror.provenance.Provenance;
import dev.strait.time.Time;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The demo's verdict, by sequence number: every record the source acknowledged must be on the target once,
 * in its source partition's order. Reads the demo topics on the target in full and names what is missing,
 * duplicated, reordered, and what arrived without having been acknowledged (a send that failed on the
 * client but landed: not a loss, and never allowed to offset one).
 */
final class DemoVerdict {
    /** What the target holds of the load. Immutable. */
    record Result(
            long acknowledged,
            long onTarget,
            long missing,
            long duplicated,
            long reordered,
            long unacknowledged,
            List<Long> missingSamples) {
        boolean nothingLost() {
            return missing == 0;
        }
    }

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(120);

    private DemoVerdict() {}

    /** {@code targetClient}: the target's connection and security settings. */
    static Result check(Properties targetClient, List<String> topics, BitSet acked, Time time) {
        BitSet seen = new BitSet();
        long onTarget = 0;
        long duplicated = 0;
        long reordered = 0;
        long unacknowledged = 0;
        Properties p = new Properties();
        p.putAll(targetClient);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "strait-demo-verdict");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (String topic : topics) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
                if (infos != null) {
                    infos.forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
                }
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
            // Per source partition, the provenance offset of the last copy seen: copies must come in its order.
            Map<TopicPartition, Long> lastSourceOffset = new HashMap<>();
            long deadline = time.milliseconds() + READ_TIMEOUT.toMillis();
            while (!caughtUp(consumer, ends)) {
                if (time.milliseconds() > deadline) {
                    throw new IllegalStateException(
                            "reading the target's demo topics did not finish in " + READ_TIMEOUT.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    long seq = DemoLoad.seqOf(r.headers());
                    if (seq < 0) {
                        continue;
                    }
                    onTarget++;
                    if (seen.get((int) seq)) {
                        duplicated++;
                        continue;
                    }
                    seen.set((int) seq);
                    if (!acked.get((int) seq)) {
                        unacknowledged++;
                    }
                    Provenance prov = Provenance.from(r.headers());
                    if (prov != null) {
                        Long last =
                                lastSourceOffset.put(new TopicPartition(prov.topic(), prov.partition()), prov.offset());
                        if (last != null && prov.offset() < last) {
                            reordered++;
                        }
                    }
                }
            }
        }
        BitSet missing = (BitSet) acked.clone();
        missing.andNot(seen);
        List<Long> samples = new ArrayList<>();
        for (int i = missing.nextSetBit(0); i >= 0 && samples.size() < 10; i = missing.nextSetBit(i + 1)) {
            samples.add((long) i);
        }
        return new Result(
                acked.cardinality(), onTarget, missing.cardinality(), duplicated, reordered, unacknowledged, samples);
    }

    private static boolean caughtUp(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    static void print(PrintStream out, Result r, long sendFailures) {
        out.printf(
                Locale.ROOT,
                "produced (acknowledged by the source): %,d (send failures: %,d)%n",
                r.acknowledged(),
                sendFailures);
        out.printf(
                Locale.ROOT,
                "on the target: %,d copies; every acknowledged record checked by its sequence number%n",
                r.onTarget());
        out.printf(
                Locale.ROOT,
                "lost: %,d%s   duplicated: %,d   reordered: %,d   arrived though not acknowledged: %,d%n",
                r.missing(),
                r.missing() == 0 ? "" : " (e.g. seq " + r.missingSamples() + ")",
                r.duplicated(),
                r.reordered(),
                r.unacknowledged());
    }
}
