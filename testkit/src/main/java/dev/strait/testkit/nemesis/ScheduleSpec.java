package dev.strait.testkit.nemesis;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a schedule is generated from, besides the seed. Two runs with the same seed and the same spec get the same
 * schedule, so a failing run is replayed with the seed and these values.
 *
 * @param faultPhaseMs     how long faults are injected (the run then heals, waits for recovery and checks)
 * @param sessionTimeoutMs the brokers' {@code broker.session.timeout.ms}: pauses are drawn shorter and longer
 * @param nodes            cluster size (node ids 1..nodes)
 * @param partitions       workload partitions (faults target their leaders and followers)
 * @param createPartitions partitions of the topic created while the controller is killed
 * @param kinds            the faults to draw from
 */
public record ScheduleSpec(
        long faultPhaseMs,
        long sessionTimeoutMs,
        int nodes,
        int partitions,
        int createPartitions,
        Set<FaultKind> kinds) {

    public ScheduleSpec {
        if (faultPhaseMs < 1_000) {
            throw new IllegalArgumentException("the fault phase must last at least 1 s, got " + faultPhaseMs + " ms");
        }
        if (nodes < 3) {
            throw new IllegalArgumentException("the nemesis needs at least 3 nodes, got " + nodes);
        }
        if (partitions < 1 || createPartitions < 1) {
            throw new IllegalArgumentException("partition counts must be positive");
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("no fault kinds selected");
        }
        kinds = Set.copyOf(EnumSet.copyOf(kinds));
    }

    /** The flags that reproduce this spec on the bench command line. */
    public String flags() {
        String faults = kinds.equals(FaultKind.parseList("all"))
                ? "all"
                : EnumSet.copyOf(kinds).stream().map(FaultKind::flag).collect(Collectors.joining(","));
        return "--fault-phase-s " + (faultPhaseMs / 1000) + " --faults " + faults + " --partitions " + partitions
                + " --create-partitions " + createPartitions + " --session-timeout-ms " + sessionTimeoutMs;
    }
}
