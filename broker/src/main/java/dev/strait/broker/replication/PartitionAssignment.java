package dev.strait.broker.replication;

import java.util.List;
import java.util.Set;

/**
 * A partition as the controller last committed it: the leader and its epoch, the replicas in preference
 * order, the in-sync replicas, and the partition epoch, which every ISR change bumps so that a stale
 * proposal can be recognised and refused.
 */
public record PartitionAssignment(
        int leader, int leaderEpoch, List<Integer> replicas, Set<Integer> isr, int partitionEpoch) {

    public static final int NO_LEADER = -1;

    public PartitionAssignment {
        replicas = List.copyOf(replicas);
        isr = Set.copyOf(isr);
        if (!replicas.containsAll(isr)) {
            throw new IllegalArgumentException("ISR " + isr + " is not a subset of the replicas " + replicas);
        }
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }
}
