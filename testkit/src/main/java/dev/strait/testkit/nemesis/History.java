package dev.strait.testkit.nemesis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the workload saw, recorded from many threads: every acknowledged record with the offset it was acknowledged
 * at, every record a consumer read, every offset commit the group coordinator acknowledged, and every committed
 * offset read back. The {@link Checker} judges a {@link #snapshot()} of it.
 *
 * <p>A record's value names it: {@code <producer>:<partition>:<number>}, the producer being {@code w<worker>.<generation>}
 * (a producer that hit a fatal error is replaced by the next generation).
 */
public final class History {
    /**
     * An acknowledged record: the producer's callback said it was written at {@code offset}, {@code atMs} after the
     * run began (to line it up with the fault log).
     */
    public record Ack(String producer, int partition, long number, long offset, long atMs) {
        public String value() {
            return producer + ":" + partition + ":" + number;
        }
    }

    /**
     * A committed offset for one partition: one that the coordinator acknowledged to a consumer ({@code acked}), or
     * one read back with OffsetFetch; the interval is when the call ran (a later call must not see less).
     */
    public record OffsetEvent(int partition, long offset, long startNanos, long endNanos, boolean acked, String who) {}

    /** Two different values read at one offset by the consumers. */
    public record ReadConflict(int partition, long offset, String first, String second) {}

    private final ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<OffsetEvent> offsetEvents = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ReadConflict> readConflicts = new ConcurrentLinkedQueue<>();
    private final Map<Integer, Map<Long, String>> consumed = new ConcurrentHashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong consumedCount = new AtomicLong();
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final Map<Integer, AtomicLong> lastAckNanos = new ConcurrentHashMap<>();
    private final Map<Integer, Long> finalCommitted = new ConcurrentHashMap<>();
    private final long startNanos;

    /** A history whose times count from {@code startNanos} (System.nanoTime of the run's start). */
    public History(long startNanos) {
        this.startNanos = startNanos;
    }

    public History() {
        this(System.nanoTime());
    }

    public void sent() {
        sent.incrementAndGet();
    }

    public void acked(String producer, int partition, long number, long offset) {
        long now = System.nanoTime();
        acks.add(new Ack(producer, partition, number, offset, (now - startNanos) / 1_000_000));
        lastAckNanos.computeIfAbsent(partition, p -> new AtomicLong()).set(now);
    }

    /** A send that failed or was never sent: neither acknowledged nor known to be absent. */
    public void failed(Throwable cause) {
        failed.incrementAndGet();
        failures.computeIfAbsent(cause.getClass().getSimpleName(), k -> new AtomicLong())
                .incrementAndGet();
    }

    public void consumed(int partition, long offset, String value) {
        consumedCount.incrementAndGet();
        String first = consumed.computeIfAbsent(partition, p -> new ConcurrentHashMap<>())
                .putIfAbsent(offset, value);
        if (first != null && !first.equals(value)) {
            readConflicts.add(new ReadConflict(partition, offset, first, value));
        }
    }

    public void offsetCommitted(int partition, long offset, long startNanos, long endNanos, String consumer) {
        offsetEvents.add(new OffsetEvent(partition, offset, startNanos, endNanos, true, consumer));
    }

    public void committedOffsetRead(int partition, long offset, long startNanos, long endNanos) {
        offsetEvents.add(new OffsetEvent(partition, offset, startNanos, endNanos, false, "OffsetFetch"));
    }

    /** The group's committed offsets once everything healed and the consumers stopped. */
    public void finalCommitted(Map<Integer, Long> offsets) {
        finalCommitted.putAll(offsets);
    }

    public long ackCount() {
        return acks.size();
    }

    /** When partition {@code p} last had a record acknowledged (System.nanoTime), or 0. */
    public long lastAckNanos(int partition) {
        AtomicLong last = lastAckNanos.get(partition);
        return last == null ? 0 : last.get();
    }

    public long sentCount() {
        return sent.get();
    }

    public long failedCount() {
        return failed.get();
    }

    public long consumedCount() {
        return consumedCount.get();
    }

    public Map<String, Long> failuresByType() {
        Map<String, Long> result = new TreeMap<>();
        failures.forEach((k, v) -> result.put(k, v.get()));
        return result;
    }

    /** An immutable copy for the checker. */
    public Snapshot snapshot() {
        Map<Integer, Map<Long, String>> reads = new TreeMap<>();
        consumed.forEach((p, m) -> reads.put(p, new TreeMap<>(m)));
        return new Snapshot(
                new ArrayList<>(acks),
                reads,
                new ArrayList<>(readConflicts),
                new ArrayList<>(offsetEvents),
                new TreeMap<>(finalCommitted),
                startNanos);
    }

    /** The history as the checker sees it. */
    public record Snapshot(
            List<Ack> acks,
            Map<Integer, Map<Long, String>> consumed,
            List<ReadConflict> readConflicts,
            List<OffsetEvent> offsetEvents,
            Map<Integer, Long> finalCommitted,
            long startNanos) {
        public Snapshot {
            acks = List.copyOf(acks);
            consumed = Map.copyOf(consumed);
            readConflicts = List.copyOf(readConflicts);
            offsetEvents = List.copyOf(offsetEvents);
            finalCommitted = Map.copyOf(finalCommitted);
        }
    }
}
