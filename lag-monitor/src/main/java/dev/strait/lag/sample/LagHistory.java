package dev.strait.lag.sample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The last hour (or {@code spanMs}) of every partition's lag, for the status page's charts: one bounded ring per
 * partition, at most {@code capacity} points, the oldest dropped first. A partition not sampled for longer than the
 * span (a deleted topic) is forgotten. All rings together hold about {@code totalPoints} at most: a ring created
 * while there are N partitions holds at most {@code totalPoints / N} (never fewer than two), so a monitor of very many
 * partitions keeps less than the span rather than run out of memory. A failed cycle adds no point: its figures are unknown, not zero.
 *
 * <p>Not thread-safe: the sampling thread owns it and publishes {@link #snapshot()}s, which are immutable.
 */
public final class LagHistory {
    /** One sample of one partition: its best lag in records (exact where known) and its time lag. Immutable. */
    public record Point(long timestampMs, long lag, long timeLagMs) {}

    /** One partition's points, oldest first. Immutable. */
    public record Series(String topic, int partition, List<Point> points) {
        public Series {
            points = List.copyOf(points);
        }
    }

    /** Every partition's series, by topic then partition. Immutable. */
    public record Snapshot(long spanMs, List<Series> series) {
        public static final Snapshot EMPTY = new Snapshot(0, List.of());

        public Snapshot {
            series = List.copyOf(series);
        }
    }

    /** A fixed-size ring of points; the oldest is overwritten when full. */
    private static final class Ring {
        private final Point[] points;
        private int start;
        private int size;

        Ring(int capacity) {
            points = new Point[capacity];
        }

        void add(Point p) {
            if (size == points.length) {
                points[start] = p;
                start = (start + 1) % points.length;
            } else {
                points[(start + size) % points.length] = p;
                size++;
            }
        }

        void dropOlderThan(long cutoffMs) {
            while (size > 0 && points[start].timestampMs() < cutoffMs) {
                points[start] = null;
                start = (start + 1) % points.length;
                size--;
            }
        }

        List<Point> list() {
            List<Point> out = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                out.add(points[(start + i) % points.length]);
            }
            return out;
        }
    }

    private final long spanMs;
    private final int capacity;
    private final long totalPoints;
    private final Map<TopicPartition, Ring> rings = new HashMap<>();

    public LagHistory(long spanMs, int capacity, long totalPoints) {
        if (spanMs <= 0 || capacity < 1 || totalPoints < 1) {
            throw new IllegalArgumentException("a history needs a positive span and capacity");
        }
        this.spanMs = spanMs;
        this.capacity = capacity;
        this.totalPoints = totalPoints;
    }

    /**
     * An hour at {@code sampleIntervalMs}, but never more than {@code maxPoints} points per partition nor about
     * {@code totalPoints} in all.
     */
    public static LagHistory lastHour(long sampleIntervalMs, int maxPoints, long totalPoints) {
        long hour = 3_600_000;
        return new LagHistory(hour, (int) Math.max(2, Math.min(maxPoints, hour / sampleIntervalMs + 1)), totalPoints);
    }

    public void record(LagSnapshot snapshot) {
        if (!snapshot.failed()) {
            int size = (int) Math.max(
                    2,
                    Math.min(
                            capacity,
                            totalPoints / Math.max(1, snapshot.partitions().size())));
            for (PartitionLag p : snapshot.partitions()) {
                rings.computeIfAbsent(new TopicPartition(p.topic(), p.partition()), k -> new Ring(size))
                        .add(new Point(snapshot.timestampMs(), p.bestLag(), p.timeLagMs()));
            }
        }
        long cutoff = snapshot.timestampMs() - spanMs;
        for (Iterator<Ring> it = rings.values().iterator(); it.hasNext(); ) {
            Ring r = it.next();
            r.dropOlderThan(cutoff);
            if (r.size == 0) {
                it.remove();
            }
        }
    }

    public Snapshot snapshot() {
        List<Series> out = new ArrayList<>(rings.size());
        rings.forEach((tp, ring) -> out.add(new Series(tp.topic(), tp.partition(), ring.list())));
        out.sort(Comparator.comparing(Series::topic).thenComparingInt(Series::partition));
        return new Snapshot(spanMs, out);
    }
}
