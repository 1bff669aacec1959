package dev.strait.lag.status;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.strait.lag.sample.LagSnapshot;
import dev.strait.lag.sample.PartitionLag;
import org.apache.kafka.common.TopicPartition;

/**
 * Burrow's idea, without hand-set thresholds: each partition keeps a sliding window of samples
 * (committed offset, lag) and its status follows from their shape:
 * <ul>
 *   <li>STOP: lag above zero and the committed offset has not moved for longer than {@code stopAfterMs};</li>
 *   <li>STALL: the window is full, lag stayed above zero and the committed offset never moved;</li>
 *   <li>REWIND: the committed offset moved backwards within the window;</li>
 *   <li>WARN: the window is full and lag grew across it (never shrank, and ended higher);</li>
 *   <li>OK otherwise, in particular a quiet partition whose lag is zero, however old its last commit.</li>
 * </ul>
 * ERR is the status of every partition in a cycle that could not read a cluster. The lag used is the exact
 * lag where known (the committed lag moves in steps of a commit interval and would cry wolf).
 * Optional hard thresholds on records and seconds are reported beside the status.
 *
 * <p>Not thread-safe: the sampling thread owns it.
 */
public final class StatusEvaluator {
    private record Sample(long timestampMs, long committed, long lag) {
    }

    /** A partition's verdict. Immutable. */
    public record PartitionStatus(PartitionLag lag, Status status, String reason, boolean thresholdCrossed) {
    }

    /** A cycle's verdict: the group's status is its worst partition's. Immutable. */
    public record GroupStatus(Status status, List<PartitionStatus> partitions, boolean thresholdCrossed,
                              LagSnapshot snapshot) {
        public GroupStatus {
            partitions = List.copyOf(partitions);
        }
    }

    private final int windowSize;
    private final long stopAfterMs;
    private final long maxLagRecords;
    private final long maxLagSeconds;
    private final Map<TopicPartition, Deque<Sample>> windows = new HashMap<>();
    private final Map<TopicPartition, Long> lastCommitChangeMs = new HashMap<>();

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
        Sample previous = window.peekLast();
        Sample current = new Sample(nowMs, p.committed(), p.bestLag());
        if (previous == null || previous.committed() != current.committed()) {
            lastCommitChangeMs.put(tp, nowMs);
        }
        window.addLast(current);
        while (window.size() > windowSize) {
            window.removeFirst();
        }
        boolean threshold = maxLagRecords >= 0 && current.lag() > maxLagRecords
            || maxLagSeconds >= 0 && p.timeLagMs() > maxLagSeconds * 1000;
        if (current.lag() > 0 && nowMs - lastCommitChangeMs.get(tp) > stopAfterMs) {
            return new PartitionStatus(p, Status.STOP, "lag " + current.lag() + " and no commit for "
                + (nowMs - lastCommitChangeMs.get(tp)) / 1000 + " s", threshold);
        }
        boolean full = window.size() == windowSize;
        if (full && allLagging(window) && sameCommitted(window)) {
            return new PartitionStatus(p, Status.STALL, "committed offset " + current.committed()
                + " did not move over " + windowSize + " samples while lag stayed above zero", threshold);
        }
        if (rewound(window)) {
            return new PartitionStatus(p, Status.REWIND, "committed offset moved backwards", threshold);
        }
        if (full && growing(window)) {
            return new PartitionStatus(p, Status.WARN, "lag grew from " + window.peekFirst().lag() + " to "
                + current.lag() + " over " + windowSize + " samples", threshold);
        }
        return new PartitionStatus(p, Status.OK, "", threshold);
    }

    private static boolean allLagging(Deque<Sample> window) {
        return window.stream().allMatch(s -> s.lag() > 0);
    }

    private static boolean sameCommitted(Deque<Sample> window) {
        long first = window.peekFirst().committed();
        return window.stream().allMatch(s -> s.committed() == first);
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

    private static boolean growing(Deque<Sample> window) {
        Sample prev = null;
        for (Sample s : window) {
            if (prev != null && s.lag() < prev.lag()) {
                return false;
            }
            prev = s;
        }
        return window.peekLast().lag() > window.peekFirst().lag();
    }
}
