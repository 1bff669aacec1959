package dev.strait.mirror.linked;

import dev.strait.time.Time;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.function.LongPredicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where two copies of a partition part: the first offset at which the old source and the cluster that copied it
 * (and then took writes of its own) no longer hold the same record. A mirror topic's copy is byte for byte at the
 * same offsets, so up to that point every record agrees in offset, timestamp, key, value and headers; after it,
 * each side holds records the other never saw. Found by bisection over the offsets both logs hold, comparing the
 * first record at or after each probe on both sides: about two reads per halving.
 *
 * <p>The fallback only: a mirror topic's batches carry the epochs of the cluster that holds them (the copy rewrites the
 * field), so a failback finds the point from the source epochs the copying brokers recorded ({@link LineageParting})
 * and uses records here only where none were recorded (a copy made by an older version), and to check the record
 * just below a point found from lineage ({@link #sameAt}).
 */
final class DivergencePoint implements AutoCloseable {
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaConsumer<byte[], byte[]> ours;
    private final KafkaConsumer<byte[], byte[]> theirs;
    private final TopicPartition ourPartition;
    private final TopicPartition theirPartition;
    private final Time time;

    /**
     * @param ourClient   client settings for the cluster whose log may run past the other's (the old source)
     * @param theirClient client settings for the cluster it will copy from
     */
    DivergencePoint(
            Properties ourClient,
            TopicPartition ourPartition,
            Properties theirClient,
            TopicPartition theirPartition,
            Time time) {
        this.ours = consumer(ourClient);
        this.theirs = consumer(theirClient);
        this.ourPartition = ourPartition;
        this.theirPartition = theirPartition;
        this.time = time;
        ours.assign(List.of(ourPartition));
        theirs.assign(List.of(theirPartition));
    }

    /**
     * The first offset where the two logs differ, between {@code from} (both hold what lies below, or neither
     * does) and {@code to} (the smaller end): {@code to} when they agree all the way.
     */
    long find(long from, long to) {
        return bisect(from, to, offset -> sameAt(offset, to));
    }

    /**
     * The bisection itself: the first offset in {@code [from, to)} where {@code sameAt} says no, {@code to} if none.
     * It assumes agreement is a prefix property, which two histories that hold an identical record at the same offset
     * after parting break (LineagePartingTest shows one); hence only the fallback where lineage is missing.
     */
    static long bisect(long from, long to, LongPredicate sameAt) {
        long lo = from;
        long hi = to;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (sameAt.test(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Whether the first record at or after {@code offset} (and below {@code end}) is the same on both sides; the
     * failback's cheap check of a parting point found from lineage (the record just below it).
     */
    boolean sameAt(long offset, long end) {
        Optional<Fingerprint> mine = firstAtOrAfter(ours, ourPartition, offset, end);
        Optional<Fingerprint> other = firstAtOrAfter(theirs, theirPartition, offset, end);
        return mine.equals(other);
    }

    private Optional<Fingerprint> firstAtOrAfter(
            KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long offset, long end) {
        consumer.seek(tp, offset);
        long deadline = time.milliseconds() + READ_TIMEOUT.toMillis();
        while (consumer.position(tp) < end) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() >= offset) {
                    return r.offset() < end ? Optional.of(Fingerprint.of(r)) : Optional.empty();
                }
            }
            if (time.milliseconds() > deadline) {
                throw new LinkException("could not read " + tp + " at offset " + offset + " within "
                        + READ_TIMEOUT.toSeconds() + " s to find where the two copies part");
            }
        }
        return Optional.empty(); // control records or compaction gaps up to the end
    }

    /** What must match for two records to be the same copy; byte arrays compared by content. */
    private record Fingerprint(long offset, long timestamp, byte[] key, byte[] value, List<Header> headers) {
        static Fingerprint of(ConsumerRecord<byte[], byte[]> r) {
            return new Fingerprint(
                    r.offset(),
                    r.timestamp(),
                    r.key(),
                    r.value(),
                    List.of(r.headers().toArray()));
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Fingerprint f)) {
                return false;
            }
            if (offset != f.offset
                    || timestamp != f.timestamp
                    || !Arrays.equals(key, f.key)
                    || !Arrays.equals(value, f.value)
                    || headers.size() != f.headers.size()) {
                return false;
            }
            for (int i = 0; i < headers.size(); i++) {
                if (!headers.get(i).key().equals(f.headers.get(i).key())
                        || !Arrays.equals(
                                headers.get(i).value(), f.headers.get(i).value())) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(offset) * 31 + Arrays.hashCode(value);
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Properties client) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return new KafkaConsumer<>(props);
    }

    @Override
    public void close() {
        ours.close(Duration.ofSeconds(5));
        theirs.close(Duration.ofSeconds(5));
    }
}
