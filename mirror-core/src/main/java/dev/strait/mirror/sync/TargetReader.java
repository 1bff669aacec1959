package dev.strait.mirror.sync;

import dev.strait.mirror.provenance.Provenance;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * Reads what the mirror wrote back from the target: the provenance header of each record in a range, as
 * {@link Fact}s. Used to fill what the offset map does not know (records written before a restart and not yet
 * persisted, or an offset map that never existed) and, where a range is too large to read, to locate a source
 * offset by binary search. Not thread-safe: one caller at a time.
 */
public final class TargetReader implements TargetRecords, AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(200);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Properties adminProps = new Properties();
    /** Opened on first use. */
    private @Nullable Admin admin;

    private final String sourceCluster;
    private final Time time;
    private final long timeoutMs;

    /**
     * @param targetClient client settings of the target cluster (bootstrap and security; anything else is ignored
     *     where a consumer does not know it)
     * @param sourceCluster the cluster id whose copies are wanted (a record that passed through another cluster
     *     first names this one as its source)
     */
    public TargetReader(Properties targetClient, String sourceCluster, Time time, long timeoutMs) {
        Properties props = new Properties();
        for (String name : targetClient.stringPropertyNames()) {
            if (ConsumerConfig.configNames().contains(name)) {
                props.put(name, targetClient.getProperty(name));
            }
        }
        for (String name : targetClient.stringPropertyNames()) {
            if (AdminClientConfig.configNames().contains(name) && !name.equals(AdminClientConfig.CLIENT_ID_CONFIG)) {
                adminProps.put(name, targetClient.getProperty(name));
            }
        }
        adminProps.put(AdminClientConfig.CLIENT_ID_CONFIG, "strait-sync-reader-admin");
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        props.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "strait-sync-reader");
        this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.sourceCluster = sourceCluster;
        this.time = time;
        this.timeoutMs = timeoutMs;
    }

    /** What a read found: the copies in {@code [from, reachedTo)}; the rest of the range was not reached. */
    public record Range(long from, long reachedTo, List<Fact> facts) {}

    @Override
    public Map<String, String> topicIds(Collection<String> topics) {
        Map<String, String> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        if (admin == null) {
            admin = Admin.create(adminProps);
        }
        Map<String, KafkaFuture<TopicDescription>> described =
                admin.describeTopics(topics).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet()) {
            try {
                out.put(
                        e.getKey(),
                        e.getValue()
                                .get(timeoutMs, TimeUnit.MILLISECONDS)
                                .topicId()
                                .toString());
            } catch (ExecutionException ex) {
                // A topic that is gone has no id; one the principal may not describe is not checked (as before ids).
                if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)
                        && !(ex.getCause() instanceof TopicAuthorizationException)) {
                    throw new SyncException(
                            "could not describe target topic " + e.getKey() + ": "
                                    + (ex.getCause() == null ? ex : ex.getCause()).getMessage()
                                    + "; the mirror's target principal needs DESCRIBE on it",
                            ex.getCause());
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new SyncException("interrupted describing target topic " + e.getKey(), ex);
            } catch (TimeoutException ex) {
                throw new SyncException("timed out describing target topic " + e.getKey(), ex);
            }
        }
        return out;
    }

    /**
     * Reads {@code [from, to)} of {@code tp} (stopping earlier at the partition's end or after the timeout) and
     * returns the copies of this source cluster's records in it.
     */
    @Override
    public Range read(TopicPartition tp, long from, long to) {
        List<Fact> facts = new ArrayList<>();
        if (to <= from) {
            return new Range(from, from, facts);
        }
        consumer.assign(List.of(tp));
        consumer.seek(tp, from);
        long end = Math.min(
                to,
                consumer.endOffsets(List.of(tp), Duration.ofMillis(timeoutMs)).getOrDefault(tp, from));
        long deadline = time.milliseconds() + timeoutMs;
        long position = from;
        while (position < end && time.milliseconds() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                if (r.offset() >= end) {
                    continue;
                }
                Fact fact = factOf(r);
                if (fact != null) {
                    facts.add(fact);
                }
            }
            position = consumer.position(tp, Duration.ofMillis(timeoutMs));
        }
        return new Range(from, Math.min(position, end), facts);
    }

    @Override
    public Map<TopicPartition, Range> readEach(Map<TopicPartition, long[]> ranges) {
        Map<TopicPartition, Range> out = new HashMap<>();
        Map<TopicPartition, List<Fact>> facts = new HashMap<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        Map<TopicPartition, Long> positions = new HashMap<>();
        List<TopicPartition> wanted = new ArrayList<>();
        ranges.forEach((tp, r) -> {
            if (r[1] > r[0]) {
                wanted.add(tp);
            } else {
                out.put(tp, new Range(r[0], r[0], new ArrayList<>()));
            }
        });
        if (wanted.isEmpty()) {
            return out;
        }
        consumer.assign(wanted);
        Map<TopicPartition, Long> logEnds = consumer.endOffsets(wanted, Duration.ofMillis(timeoutMs));
        java.util.Set<TopicPartition> open = new java.util.HashSet<>();
        for (TopicPartition tp : wanted) {
            long from = known(ranges, tp)[0];
            long end = Math.min(known(ranges, tp)[1], logEnds.getOrDefault(tp, from));
            consumer.seek(tp, from);
            facts.put(tp, new ArrayList<>());
            ends.put(tp, end);
            positions.put(tp, from);
            if (from < end) {
                open.add(tp);
            }
        }
        long deadline = time.milliseconds() + timeoutMs;
        while (!open.isEmpty() && time.milliseconds() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (!open.contains(tp) || r.offset() >= known(ends, tp)) {
                    continue;
                }
                Fact fact = factOf(r);
                if (fact != null) {
                    known(facts, tp).add(fact);
                }
            }
            List<TopicPartition> done = new ArrayList<>();
            for (TopicPartition tp : open) {
                long position = consumer.position(tp, Duration.ofMillis(timeoutMs));
                positions.put(tp, position);
                if (position >= known(ends, tp)) {
                    done.add(tp);
                }
            }
            // What is read to its end is fetched no more while the others are.
            consumer.pause(done);
            done.forEach(open::remove);
        }
        consumer.resume(consumer.paused());
        for (TopicPartition tp : wanted) {
            long from = known(ranges, tp)[0];
            out.put(tp, new Range(from, Math.min(known(positions, tp), known(ends, tp)), known(facts, tp)));
        }
        return out;
    }

    /** What {@link #readEach} keeps for every partition it reads, which was put there before the reading. */
    private static <V> V known(Map<TopicPartition, V> byPartition, TopicPartition tp) {
        return Objects.requireNonNull(byPartition.get(tp), "kept for every partition read");
    }

    /** Reads a range and teaches it to {@code history}; returns the offset it reached. */
    public long fill(TargetHistory history, long from, long to) {
        return MapUpkeep.fill(this, history, from, to);
    }

    private @Nullable Fact factOf(ConsumerRecord<byte[], byte[]> r) {
        Provenance p = Provenance.from(r.headers());
        if (p == null || !p.sourceCluster().equals(sourceCluster)) {
            return null;
        }
        return new Fact(r.offset(), new TopicPartition(p.topic(), p.partition()), p.offset());
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}
