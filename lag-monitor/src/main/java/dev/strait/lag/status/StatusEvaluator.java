package dev.strait.lag.status;

import dev.strait.lag.sample.LagSnapshot;
import dev.strait.lag.sample.PartitionLag;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Burrow's consumer lag evaluation rules (linkedin/Burrow wiki, "Consumer Lag Evaluation Rules"), without
 * hand-set thresholds. Each partition keeps a sliding window of {@code windowSize} samples (committed offset,
 * lag, source end offset) and the commits seen (each time the committed offset moved, with when); the rules
 * run in Burrow's order, the first that holds decides:
 * <ol>
 *   <li>OK when the lag is zero now or anywhere in the window: nothing further is checked;</li>
 *   <li>REWIND when the committed offset went backwards between two samples of the window;</li>
 *   <li>STOP when the mirror stopped committing: the time since the last commit is longer than the span
 *   of the window's commits (Burrow's rule; before the window holds {@code windowSize} commits, longer than
 *   {@code stopAfterMs}), unless the committed offset reached the source end offset of the previous sample
 *   (the recent-zero guard: at the previous sample the mirror had everything, so the partition was idle and has
 *   just received records, and the mirror gets time);</li>
 *   <li>STALL when the window is full and the committed offset never moved;</li>
 *   <li>WARN when the window is full and the lag never decreased from one sample to the next (it grew or
 *   stood still: the mirror keeps up at best, it does not catch up);</li>
 *   <li>OK otherwise.</li>
 * </ol>
 * The window counts samples; {@link dev.strait.lag.config.LagMonitorConfig} refuses a window whose span does
 * not exceed the mirror's commit interval, so a healthy mirror commits within every window. The lag is the
 * exact lag where known (it is never above the committed lag). ERR is the status of every partition in a
 * cycle that could not read a cluster. Optional hard thresholds on records and seconds are reported beside.
 *
 * <p>Not thread-safe: the sampling thread owns it.
 */
public final class StatusEvaluator {
    private record Sample(long timestampMs, long committed, long lag, long sourceEnd) {}

    private record Commit(long offset, long seenAtMs) {}

    /** A partition's verdict. Immutable. */
    public record PartitionStatus(PartitionLag lag, Status status, String reason, boolean thresholdCrossed) {}

    /** A cycle's verdict: the group's status is its worst partition's. Immutable. */
    public record GroupStatus(
            Status status, List<PartitionStatus> partitions, boolean thresholdCrossed, LagSnapshot snapshot) {
        public GroupStatus {
            partitions = List.copyOf(partitions);
        }
    }

    private final int windowSize;
    private final long stopAfterMs;
    private final long maxLagRecords;
    private final long maxLagSeconds;
    private final Map<TopicPartition, Deque<Sample>> windows = new HashMap<>();
    private final Map<TopicPartition, Deque<Commit>> commits = new HashMap<>();

    public StatusEvaluator(int windowSize, long stopAfterMs, long maxLagRecords, long maxLagSeconds) {
        if (windowSize < 2) {
            throw new IllegalArgumentException("window size must be at least 2");
        }
        this.windowSize = windowSize;
        this.stopAfterMs = stopAfterMs;
        this.maxLagRecords = maxLagRecords;
        this.maxLagSeconds = maxLagSeconds;
    }

    public GroupStatus evaluate(LagSnapshot snapshot) {
        List<PartitionStatus> out = new ArrayList<>();
        Status group = Status.OK;
        boolean anyThreshold = false;
        for (PartitionLag p : snapshot.partitions()) {
            PartitionStatus ps = snapshot.failed()
                    ? new PartitionStatus(p, Status.ERR, String.join("; ", snapshot.errors()), false)
                    : evaluate(p, snapshot.timestampMs());
            out.add(ps);
            group = group.worst(ps.status());
            anyThreshold |= ps.thresholdCrossed();
        }
        if (snapshot.failed()) {
            group = Status.ERR;
        }
        return new GroupStatus(group, out, anyThreshold, snapshot);
    }

    private PartitionStatus evaluate(PartitionLag p, long nowMs) {
        TopicPartition tp = new TopicPartition(p.topic(), p.partition());
        Deque<Sample> window = windows.computeIfAbsent(tp, k -> new ArrayDeque<>());
        Deque<Commit> seen = commits.computeIfAbsent(tp, k -> new ArrayDeque<>());
        Sample previous = window.peekLast();
        Sample current = new Sample(nowMs, p.committed(), p.bestLag(), p.sourceEnd());
        if (previous == null || previous.committed() != current.committed()) {
            seen.addLast(new Commit(current.committed(), nowMs));
            while (seen.size() > windowSize) {
                seen.removeFirst();
            }
        }
        window.addLast(current);
        while (window.size() > windowSize) {
            window.removeFirst();
        }
        boolean threshold = maxLagRecords >= 0 && current.lag() > maxLagRecords
                || maxLagSeconds >= 0 && p.timeLagMs() > maxLagSeconds * 1000;
        Status status = Status.OK;
        String reason = "";
        if (current.lag() > 0 && lagNeverZero(window)) {
            boolean full = window.size() == windowSize;
            if (rewound(window)) {
                status = Status.REWIND;
                reason = "committed offset moved backwards within the window";
            } else if (stopped(window, seen, nowMs)) {
                status = Status.STOP;
                reason = "lag " + current.lag() + " and no commit for "
                        + (nowMs - seen.peekLast().seenAtMs()) / 1000 + " s";
            } else if (full && sameCommitted(window)) {
                status = Status.STALL;
                reason = "committed offset " + current.committed() + " did not move over " + windowSize
                        + " samples while lag stayed above zero";
            } else if (full && lagNeverDecreased(window)) {
                status = Status.WARN;
                reason = "lag did not decrease over " + windowSize + " samples ("
                        + window.peekFirst().lag() + " to " + current.lag() + ")";
            }
        }
        return new PartitionStatus(p, status, reason, threshold);
    }

    private static boolean lagNeverZero(Deque<Sample> window) {
        return window.stream().allMatch(s -> s.lag() != 0);
    }

    private static boolean rewound(Deque<Sample> window) {
        Sample prev = null;
        for (Sample s : window) {
            if (prev != null && prev.committed() >= 0 && s.committed() >= 0 && s.committed() < prev.committed()) {
                return true;
            }
            prev = s;
        }
        return false;
    }

    private boolean stopped(Deque<Sample> window, Deque<Commit> seen, long nowMs) {
        // The recent-zero guard: at the previous sample the mirror had everything the source had, so the lag is
        // from records that arrived since; give it time to commit them.
        long committed = window.peekLast().committed();
        Sample previous = null;
        for (Sample s : window) {
            if (s != window.peekLast()) {
                previous = s;
            }
        }
        if (previous != null && previous.sourceEnd() >= 0 && committed >= previous.sourceEnd()) {
            return false;
        }
        long last = seen.peekLast().seenAtMs();
        if (seen.size() < windowSize) {
            return nowMs - last > stopAfterMs;
        }
        return nowMs - last > last - seen.peekFirst().seenAtMs();
    }

    private static boolean sameCommitted(Deque<Sample> window) {
        long first = window.peekFirst().committed();
        return window.stream().allMatch(s -> s.committed() == first);
    }

    private static boolean lagNeverDecreased(Deque<Sample> window) {
        Sample prev = null;
        for (Sample s : window) {
            if (prev != null && s.lag() < prev.lag()) {
                return false;
            }
            prev = s;
        }
        return true;
    }
}
