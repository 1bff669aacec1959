package dev.strait.mirror.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The mirror's own metrics, in one dropwizard registry that the JMX reporter, the HTTP endpoint and the
 * progress log all read. Thread-safe: streams and producer callbacks update it concurrently.
 */
public final class MirrorMetrics {
    public static final String PREFIX = "strait.mirror.";
    /** The states a stream goes through, lower case: one gauge each, counting the streams in it. */
    public static final List<String> STREAM_STATES = List.of("new", "running", "stopping", "stopped", "failed");

    private final MetricRegistry registry;
    private final Meter recordsIn;
    private final Meter bytesIn;
    private final Meter recordsOut;
    private final Meter bytesOut;
    private final Timer flushTime;
    private final Timer commitTime;
    private final Counter sendErrors;
    private final Counter commitFailures;
    private final Counter loopDrops;
    private final Counter handlerDrops;
    private final Counter sourceRecordsLost;
    private final Counter sourceRecordsDiverged;
    private final Histogram recordAgeMs;
    private static final int AGE_SAMPLE_EVERY = 16;
    private final java.util.concurrent.atomic.AtomicLong pendingRecordsOut =
            new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong pendingBytesOut = new java.util.concurrent.atomic.AtomicLong();
    /** Racy on purpose: it only picks which records are sampled. */
    private int ageSampleCounter;
    /** Consumer-read lag per source partition, replaced as a whole by each stream (immutable snapshots). */
    private final Map<Integer, Map<TopicPartition, Long>> lagByStream = new ConcurrentHashMap<>();

    private final Map<Integer, Map<TopicPartition, Long>> positionsByStream = new ConcurrentHashMap<>();

    /**
     * Lag and positions of the mirror topics a companion cluster copies ({@code --offset.preserving}): source end
     * minus target end, and the target end, per partition; replaced as a whole each round.
     */
    private volatile Map<TopicPartition, Long> linkedLag = Map.of();

    private volatile Map<TopicPartition, Long> linkedPositions = Map.of();

    /** Each stream's last state, kept after it stops: a failed stream must stay visible until the process ends. */
    private final Map<Integer, String> stateByStream = new ConcurrentHashMap<>();

    public MirrorMetrics(MetricRegistry registry) {
        this.registry = registry;
        this.recordsIn = registry.meter(PREFIX + "records-consumed");
        this.bytesIn = registry.meter(PREFIX + "bytes-consumed");
        this.recordsOut = registry.meter(PREFIX + "records-produced");
        this.bytesOut = registry.meter(PREFIX + "bytes-produced");
        this.flushTime = registry.timer(PREFIX + "flush-time");
        this.commitTime = registry.timer(PREFIX + "commit-time");
        this.sendErrors = registry.counter(PREFIX + "send-errors");
        this.commitFailures = registry.counter(PREFIX + "commit-failures");
        this.loopDrops = registry.counter(PREFIX + "records-dropped-loop");
        this.handlerDrops = registry.counter(PREFIX + "records-dropped-handler");
        this.sourceRecordsLost = registry.counter(PREFIX + "source-records-lost");
        this.sourceRecordsDiverged = registry.counter(PREFIX + "source-records-diverged");
        this.recordAgeMs = registry.register(
                PREFIX + "record-age-ms",
                new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build()));
        registry.gauge(PREFIX + "consumer-lag-records", () -> this::totalLag);
        for (String state : STREAM_STATES) {
            registry.gauge(PREFIX + "streams-" + state, () -> () -> streamsIn(state));
        }
    }

    public MetricRegistry registry() {
        return registry;
    }

    public void consumed(int records, long bytes) {
        recordsIn.mark(records);
        bytesIn.mark(bytes);
    }

    /**
     * One record acknowledged by the target. Runs on the producer's I/O thread for every record, so it only
     * bumps two counters (moved into the meters by {@link #sync()}) and samples one record in
     * {@value #AGE_SAMPLE_EVERY} for the latency histogram: the I/O thread is the one thread every stream shares.
     */
    public void produced(long bytes, long ageMs) {
        pendingRecordsOut.incrementAndGet();
        pendingBytesOut.addAndGet(bytes);
        if ((ageSampleCounter++ & (AGE_SAMPLE_EVERY - 1)) == 0) {
            recordAgeMs.update(Math.max(0, ageMs));
        }
    }

    /** Moves the acknowledged-record counts into the rate meters; called about once a second. */
    public void sync() {
        long records = pendingRecordsOut.getAndSet(0);
        long bytes = pendingBytesOut.getAndSet(0);
        if (records > 0) {
            recordsOut.mark(records);
            bytesOut.mark(bytes);
        }
    }

    public Timer.Context timeFlush() {
        return flushTime.time();
    }

    public Timer.Context timeCommit() {
        return commitTime.time();
    }

    public void sendError() {
        sendErrors.inc();
    }

    public void commitFailed() {
        commitFailures.inc();
    }

    public void droppedByLoopPrevention() {
        loopDrops.inc();
    }

    public void droppedByHandler() {
        handlerDrops.inc();
    }

    public void sourceRecordsLost(long n) {
        sourceRecordsLost.inc(n);
    }

    /** Records the mirror had read that the source then lost (its log diverged); their copies are on the target. */
    public void sourceRecordsDiverged(long n) {
        sourceRecordsDiverged.inc(n);
    }

    public long sourceRecordsDiverged() {
        return sourceRecordsDiverged.getCount();
    }

    public void consumerLag(int stream, Map<TopicPartition, Long> lag) {
        lagByStream.put(stream, Map.copyOf(lag));
    }

    /**
     * The lag of the mirror topics a companion cluster copies, exact (source end minus target end), and their
     * positions (the target end): reported with the streams' consumer lag and positions, under the same names.
     */
    public void linkedLag(Map<TopicPartition, Long> lag, Map<TopicPartition, Long> positions) {
        linkedLag = Map.copyOf(lag);
        linkedPositions = Map.copyOf(positions);
    }

    public void positions(int stream, Map<TopicPartition, Long> positions) {
        positionsByStream.put(stream, Map.copyOf(positions));
    }

    /** The stream's new state, one of {@link #STREAM_STATES} in any case. */
    public void streamState(int stream, String state) {
        String s = state.toLowerCase(Locale.ROOT);
        if (!STREAM_STATES.contains(s)) {
            throw new IllegalArgumentException("stream state " + state + " has no gauge: add it to STREAM_STATES");
        }
        stateByStream.put(stream, s);
    }

    private long streamsIn(String state) {
        return stateByStream.values().stream().filter(state::equals).count();
    }

    public void forgetStream(int stream) {
        lagByStream.remove(stream);
        positionsByStream.remove(stream);
    }

    /**
     * The mirror's read position per source partition: one past the last record a stream handed to the
     * producer. The lag monitor subtracts it from the source end offset for the consumer-read lag.
     */
    public Map<TopicPartition, Long> positions() {
        Map<TopicPartition, Long> all = new java.util.TreeMap<>(
                java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        positionsByStream.values().forEach(all::putAll);
        all.putAll(linkedPositions);
        return all;
    }

    /** Consumer-read lag of every partition any stream owns (records the source has that the mirror has not read). */
    public Map<TopicPartition, Long> consumerLag() {
        Map<TopicPartition, Long> all = new java.util.TreeMap<>(
                java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        lagByStream.values().forEach(all::putAll);
        all.putAll(linkedLag);
        return all;
    }

    public long totalLag() {
        long sum = 0;
        for (Map<TopicPartition, Long> m : lagByStream.values()) {
            for (long v : m.values()) {
                sum += v;
            }
        }
        for (long v : linkedLag.values()) {
            sum += v;
        }
        return sum;
    }

    public long recordsConsumed() {
        return recordsIn.getCount();
    }

    public long recordsProduced() {
        return recordsOut.getCount() + pendingRecordsOut.get();
    }

    public long sendErrors() {
        return sendErrors.getCount();
    }

    public long commits() {
        return commitTime.getCount();
    }

    public double producedRate() {
        return recordsOut.getOneMinuteRate();
    }

    public long sourceRecordsLost() {
        return sourceRecordsLost.getCount();
    }

    public Histogram recordAge() {
        return recordAgeMs;
    }
}
