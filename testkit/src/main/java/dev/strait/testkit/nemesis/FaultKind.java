package dev.strait.testkit.nemesis;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The faults the nemesis injects, Jepsen's families: a process frozen (SIGSTOP ... SIGCONT), links cut while others
 * stay up (packets dropped between the nodes' network namespaces; clients always reach every node), and processes
 * killed (SIGKILL) or restarted, and power cut (SIGKILL, and the node's lazy disk loses what was not synced). A fault names a role ("the leader of partition 2"), resolved when it starts.
 */
public enum FaultKind {
    /** SIGSTOP of the leader of a partition, shorter or longer than the broker session timeout. */
    PAUSE_LEADER(Family.PAUSE),
    /** SIGSTOP of one follower of a partition. */
    PAUSE_FOLLOWER(Family.PAUSE),
    /** SIGSTOP of the active controller. */
    PAUSE_CONTROLLER(Family.PAUSE),
    /** The leader of a partition cut from its followers and from the controller; clients still reach it. */
    ISOLATE_LEADER(Family.PARTITION),
    /** One follower of a partition cut from that partition's leader only; it still reaches the third node. */
    CUT_FOLLOWER_FROM_LEADER(Family.PARTITION),
    /** A fixed node (the minority) cut from the other two (the majority); clients reach both sides. */
    SPLIT_MINORITY(Family.PARTITION),
    /** Links between fixed pairs of nodes cut and healed in a quick, seeded rhythm. */
    FLAP(Family.PARTITION),
    /** SIGKILL of a partition's leader together with the active controller (one node or two), then restart. */
    KILL_LEADER_AND_CONTROLLER(Family.KILL),
    /** SIGKILL of the active controller while a CreateTopics of many partitions is in flight, then restart. */
    KILL_CONTROLLER_DURING_CREATE(Family.KILL),
    /** Every node in turn stopped (SIGTERM or SIGKILL), restarted, and waited for. */
    ROLLING_RESTART(Family.KILL),
    /** Power cut of one fixed node: SIGKILL, its lazy disk loses every unsynced write, restart later. */
    POWER_LOSS_NODE(Family.POWER),
    /**
     * Power cut of a partition's leader after the replication traffic (client port) between it and its followers was
     * cut, the controller port kept open, long enough for the ISR to shrink to the leader alone; then the links healed
     * and the leader restarted later. The followers are eligible leader replicas (KIP-966); one must be elected.
     */
    POWER_LOSS_LONE_LEADER(Family.POWER),
    /** A fixed node (the minority) cut from the other two, then its power cut while it is cut off; healed later. */
    POWER_LOSS_MINORITY(Family.POWER),
    /**
     * Power cut of every node at once, restarted later. Only with the fsync mode (acks=all waits for fsync), named
     * on its own: the families and {@code all} leave it out, since without fsync losing acknowledged records is
     * expected.
     */
    POWER_LOSS_ALL(Family.POWER);

    /** Whether a family or {@code all} selects this kind (not {@link #POWER_LOSS_ALL}, which needs the fsync mode). */
    private boolean inGroups() {
        return this != POWER_LOSS_ALL;
    }

    /** Jepsen's fault families; {@code --faults pause,partition} selects whole families. */
    public enum Family {
        PAUSE,
        PARTITION,
        KILL,
        /** Needs the lazy disk ({@link LazyDisk}): nodes' data directories are mounted on it when one is selected. */
        POWER
    }

    /** Whether any of {@code kinds} cuts power (the nodes then need lazy disks). */
    public static boolean anyPower(java.util.Collection<FaultKind> kinds) {
        return kinds.stream().anyMatch(k -> k.family == Family.POWER);
    }

    private final Family family;

    FaultKind(Family family) {
        this.family = family;
    }

    public Family family() {
        return family;
    }

    /** The name used in schedules and flags: {@code isolate-leader}. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Parses a comma-separated list of fault names ({@code isolate-leader}) and families ({@code pause},
     * {@code partition}, {@code kill}, {@code power}, {@code all}).
     */
    public static Set<FaultKind> parseList(String value) {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (String part : value.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            if (name.equals("all")) {
                for (FaultKind kind : values()) {
                    if (kind.inGroups()) {
                        kinds.add(kind);
                    }
                }
                continue;
            }
            boolean matched = false;
            for (Family family : Family.values()) {
                if (family.name().toLowerCase(Locale.ROOT).equals(name)) {
                    for (FaultKind kind : values()) {
                        if (kind.family == family && kind.inGroups()) {
                            kinds.add(kind);
                        }
                    }
                    matched = true;
                }
            }
            for (FaultKind kind : values()) {
                if (kind.flag().equals(name)) {
                    kinds.add(kind);
                    matched = true;
                }
            }
            if (!matched) {
                throw new IllegalArgumentException(
                        "unknown fault '" + part.trim() + "': expected pause, partition, kill, power,"
                                + " all or one of "
                                + String.join(
                                        ", ",
                                        EnumSet.allOf(FaultKind.class).stream()
                                                .map(FaultKind::flag)
                                                .toList()));
            }
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("no fault selected in '" + value + "'");
        }
        return kinds;
    }
}
