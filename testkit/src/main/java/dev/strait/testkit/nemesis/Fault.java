package dev.strait.testkit.nemesis;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One step of a fault schedule, as generated from the seed: what to do, when (from the start of the fault phase), for
 * how long, and to whom. Roles ("the leader of partition 2", "the active controller") are resolved against the
 * cluster when the step starts; fixed nodes (the minority of a split, flapping links, the order of a rolling
 * restart) are named by node id. Which fields matter depends on the kind; the others are zero or empty.
 *
 * @param index      1-based position in the schedule
 * @param kind       what to do
 * @param atMs       planned start, from the start of the fault phase
 * @param durationMs how long the fault holds: pause or cut time, or down time of killed nodes
 * @param budgetMs   the time the schedule reserves for the step (a rolling restart also waits for each node)
 * @param partition  the workload partition whose leader or follower is the target
 * @param pick       which follower (index into the sorted followers) or which node (split)
 * @param longPause  for pauses: planned longer than the session timeout
 * @param delayMs    for a kill during CreateTopics: from sending the request to the SIGKILL; for a power cut of a
 *                   minority: how long it is cut off before; of a lone leader: the longest wait for the ISR to shrink
 * @param createPartitions for a kill during CreateTopics: the new topic's partition count
 * @param toggles    for flapping: the link changes, in order
 * @param restarts   for a rolling restart: the nodes in order, each with its signal and down time
 */
public record Fault(
        int index,
        FaultKind kind,
        long atMs,
        long durationMs,
        long budgetMs,
        int partition,
        int pick,
        boolean longPause,
        long delayMs,
        int createPartitions,
        List<LinkToggle> toggles,
        List<RestartStep> restarts) {

    public Fault {
        toggles = List.copyOf(toggles);
        restarts = List.copyOf(restarts);
    }

    /** At {@code atMs} after the flap began, the link between nodes {@code a} and {@code b} is cut or healed. */
    public record LinkToggle(long atMs, int a, int b, boolean cut) {
        @Override
        public String toString() {
            return a + "-" + b + " " + (cut ? "cut" : "heal") + " +" + seconds(atMs);
        }
    }

    /** One node of a rolling restart: SIGKILL or SIGTERM, and how long it stays down before it is started again. */
    public record RestartStep(int node, boolean sigkill, long downMs) {
        @Override
        public String toString() {
            return "node " + node + " (" + (sigkill ? "SIGKILL" : "SIGTERM") + ", down " + seconds(downMs) + ")";
        }
    }

    /** One line, e.g. {@code #3 at 41.2 s isolate-leader p0 for 14.0 s}. */
    public String describe() {
        String what = switch (kind) {
            case PAUSE_LEADER -> "p" + partition + " for " + seconds(durationMs) + pauseLength();
            case PAUSE_FOLLOWER ->
                "p" + partition + " follower #" + pick + " for " + seconds(durationMs) + pauseLength();
            case PAUSE_CONTROLLER -> "for " + seconds(durationMs) + pauseLength();
            case ISOLATE_LEADER ->
                "p" + partition + " from its followers and the controller for " + seconds(durationMs);
            case CUT_FOLLOWER_FROM_LEADER ->
                "p" + partition + " follower #" + pick + " from the leader only for " + seconds(durationMs);
            case SPLIT_MINORITY -> "node " + pick + " | the other two for " + seconds(durationMs);
            case FLAP ->
                "for " + seconds(durationMs) + ": "
                        + toggles.stream().map(LinkToggle::toString).collect(Collectors.joining(", "));
            case KILL_LEADER_AND_CONTROLLER -> "p" + partition + ", restart after " + seconds(durationMs);
            case KILL_CONTROLLER_DURING_CREATE ->
                createPartitions + " partitions, SIGKILL " + delayMs + " ms after the request, restart after "
                        + seconds(durationMs);
            case ROLLING_RESTART -> restarts.stream().map(RestartStep::toString).collect(Collectors.joining(", "));
            case POWER_LOSS_NODE -> "node " + pick + ", restart after " + seconds(durationMs);
            case POWER_LOSS_LONE_LEADER ->
                "p" + partition + ": replication to its followers cut until the ISR is the leader alone (at most "
                        + seconds(delayMs) + "), restart after " + seconds(durationMs);
            case POWER_LOSS_ALL -> "every node, restart after " + seconds(durationMs);
            case POWER_LOSS_MINORITY ->
                "node " + pick + " cut from the other two, power cut after " + seconds(delayMs) + ", restart after "
                        + seconds(durationMs);
        };
        return String.format(Locale.ROOT, "#%d at %6s %-30s %s", index, seconds(atMs), kind.flag(), what);
    }

    private String pauseLength() {
        return longPause ? " (longer than the session timeout)" : " (shorter than the session timeout)";
    }

    static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    @Override
    public String toString() {
        return describe();
    }
}
