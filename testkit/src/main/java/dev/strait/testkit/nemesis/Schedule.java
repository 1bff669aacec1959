package dev.strait.testkit.nemesis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A fault schedule: a pure function of the seed and the {@link ScheduleSpec}, so printing the seed is enough to
 * replay a run. One fault holds at a time; each is healed before a gap and the next one. Steps whose role needs the
 * cluster (a leader, the controller) are resolved when they start, so a replay injects the same faults at the same
 * times; which node holds a role then follows from the cluster, as it does in Jepsen.
 */
public record Schedule(long seed, ScheduleSpec spec, List<Fault> faults) {
    /** Faults begin this long into the fault phase, once the workload is acknowledged. */
    static final long WARM_UP_MS = 5_000;

    private static final long MIN_GAP_MS = 3_000;
    private static final long MAX_GAP_MS = 8_000;
    /** A rolling restart reserves this much per node beyond its down time, for the node to come back. */
    static final long ROLLING_WAIT_PER_NODE_MS = 10_000;
    /**
     * A lone-leader power cut waits at most this long for the ISR to shrink: replica.lag.time.max.ms (8 s) plus the
     * leader's check interval and the controller's commit.
     */
    static final long ISR_SHRINK_WAIT_MS = 20_000;

    public Schedule {
        faults = List.copyOf(faults);
    }

    public static Schedule generate(long seed, ScheduleSpec spec) {
        Random random = new Random(seed);
        // EnumSet: a fixed iteration order, so the draw does not depend on hash order (Set.copyOf is salted per JVM).
        List<FaultKind> kinds = new ArrayList<>(EnumSet.copyOf(spec.kinds()));
        List<Fault> faults = new ArrayList<>();
        long at = WARM_UP_MS;
        boolean created = false;
        boolean rolled = false;
        int misses = 0;
        while (misses < 8) {
            FaultKind kind = kinds.get(random.nextInt(kinds.size()));
            if ((kind == FaultKind.KILL_CONTROLLER_DURING_CREATE && created)
                    || (kind == FaultKind.ROLLING_RESTART && rolled)) {
                misses++;
                continue; // at most one of each per run: they are slow, and one big topic per run is enough load
            }
            Fault fault = draw(random, kind, faults.size() + 1, at, spec);
            if (at + fault.budgetMs() > spec.faultPhaseMs()) {
                misses++;
                continue;
            }
            faults.add(fault);
            created |= kind == FaultKind.KILL_CONTROLLER_DURING_CREATE;
            rolled |= kind == FaultKind.ROLLING_RESTART;
            at += fault.budgetMs() + between(random, MIN_GAP_MS, MAX_GAP_MS);
        }
        return new Schedule(seed, spec, faults);
    }

    private static Fault draw(Random random, FaultKind kind, int index, long at, ScheduleSpec spec) {
        long session = spec.sessionTimeoutMs();
        int partition = random.nextInt(spec.partitions());
        int pick = random.nextInt(spec.nodes());
        switch (kind) {
            case PAUSE_LEADER, PAUSE_FOLLOWER, PAUSE_CONTROLLER -> {
                boolean longPause = random.nextBoolean();
                long duration = longPause
                        ? between(random, session + 2_000, session + 8_000)
                        : between(random, 1_000, Math.max(1_500, session * 6 / 10));
                return fault(
                        index, kind, at, duration, duration, partition, pick, longPause, 0, 0, List.of(), List.of());
            }
            case ISOLATE_LEADER -> {
                long duration = between(random, session + 3_000, session + 14_000);
                return fault(index, kind, at, duration, duration, partition, pick, false, 0, 0, List.of(), List.of());
            }
            case CUT_FOLLOWER_FROM_LEADER -> {
                long duration = between(random, 4_000, 15_000);
                return fault(index, kind, at, duration, duration, partition, pick, false, 0, 0, List.of(), List.of());
            }
            case SPLIT_MINORITY -> {
                long duration = between(random, 4_000, 15_000);
                return fault(
                        index, kind, at, duration, duration, partition, 1 + pick, false, 0, 0, List.of(), List.of());
            }
            case FLAP -> {
                long duration = between(random, 6_000, 15_000);
                List<Fault.LinkToggle> toggles = new ArrayList<>();
                Map<Integer, Boolean> cut = new java.util.TreeMap<>();
                for (long t = 0; t < duration; t += between(random, 300, 2_500)) {
                    int a = 1 + random.nextInt(spec.nodes());
                    int b = 1 + random.nextInt(spec.nodes() - 1);
                    if (b >= a) {
                        b++;
                    }
                    int lo = Math.min(a, b);
                    int hi = Math.max(a, b);
                    int link = lo * 1000 + hi;
                    boolean nowCut = !cut.getOrDefault(link, false);
                    cut.put(link, nowCut);
                    toggles.add(new Fault.LinkToggle(t, lo, hi, nowCut));
                }
                return fault(index, kind, at, duration, duration, partition, pick, false, 0, 0, toggles, List.of());
            }
            case KILL_LEADER_AND_CONTROLLER -> {
                long down = between(random, 1_000, 10_000);
                return fault(index, kind, at, down, down, partition, pick, false, 0, 0, List.of(), List.of());
            }
            case KILL_CONTROLLER_DURING_CREATE -> {
                long down = between(random, 1_000, 8_000);
                long delay = between(random, 0, 400);
                return fault(
                        index,
                        kind,
                        at,
                        down,
                        down + delay,
                        partition,
                        pick,
                        false,
                        delay,
                        spec.createPartitions(),
                        List.of(),
                        List.of());
            }
            case ROLLING_RESTART -> {
                List<Integer> order = new ArrayList<>();
                for (int node = 1; node <= spec.nodes(); node++) {
                    order.add(node);
                }
                Collections.shuffle(order, random);
                List<Fault.RestartStep> steps = new ArrayList<>();
                long down = 0;
                for (int node : order) {
                    Fault.RestartStep step =
                            new Fault.RestartStep(node, random.nextBoolean(), between(random, 500, 3_000));
                    steps.add(step);
                    down += step.downMs();
                }
                return fault(
                        index,
                        kind,
                        at,
                        down,
                        down + spec.nodes() * ROLLING_WAIT_PER_NODE_MS,
                        partition,
                        pick,
                        false,
                        0,
                        0,
                        List.of(),
                        steps);
            }
            case POWER_LOSS_NODE -> {
                long down = between(random, 1_000, 8_000);
                return fault(index, kind, at, down, down, partition, 1 + pick, false, 0, 0, List.of(), List.of());
            }
            case POWER_LOSS_LONE_LEADER -> {
                long down = between(random, 1_000, 8_000);
                long shrinkWait = ISR_SHRINK_WAIT_MS;
                return fault(
                        index,
                        kind,
                        at,
                        down,
                        shrinkWait + down,
                        partition,
                        pick,
                        false,
                        shrinkWait,
                        0,
                        List.of(),
                        List.of());
            }
            case POWER_LOSS_ALL -> {
                long down = between(random, 1_000, 8_000);
                // Three nodes start again from unclean shutdowns: the budget leaves them time to elect and register.
                return fault(index, kind, at, down, down + 15_000, partition, pick, false, 0, 0, List.of(), List.of());
            }
            case POWER_LOSS_MINORITY -> {
                long cut = between(random, 2_000, 8_000);
                long down = between(random, 1_000, 8_000);
                return fault(
                        index, kind, at, down, cut + down, partition, 1 + pick, false, cut, 0, List.of(), List.of());
            }
            default -> throw new IllegalStateException("no generator for " + kind);
        }
    }

    private static Fault fault(
            int index,
            FaultKind kind,
            long at,
            long duration,
            long budget,
            int partition,
            int pick,
            boolean longPause,
            long delay,
            int createPartitions,
            List<Fault.LinkToggle> toggles,
            List<Fault.RestartStep> restarts) {
        return new Fault(
                index,
                kind,
                at,
                duration,
                budget,
                partition,
                pick,
                longPause,
                delay,
                createPartitions,
                toggles,
                restarts);
    }

    /** Uniform in [lo, hi]. */
    private static long between(Random random, long lo, long hi) {
        return hi <= lo ? lo : lo + (long) (random.nextDouble() * (hi - lo + 1));
    }

    /** How many faults of each kind the schedule holds. */
    public Map<FaultKind, Integer> countsByKind() {
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        for (Fault fault : faults) {
            counts.merge(fault.kind(), 1, Integer::sum);
        }
        return counts;
    }

    /** The seed, the spec and one line per fault. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("seed ")
                .append(seed)
                .append(": ")
                .append(faults.size())
                .append(" faults in ")
                .append(Fault.seconds(spec.faultPhaseMs()))
                .append(" (")
                .append(spec.flags())
                .append(")\n");
        for (Fault fault : faults) {
            sb.append("  ").append(fault.describe()).append('\n');
        }
        return sb.toString();
    }
}
