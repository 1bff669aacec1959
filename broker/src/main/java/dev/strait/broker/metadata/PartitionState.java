package dev.strait.broker.metadata;

import java.util.List;

/**
 * A partition as the controller last committed it: leader and leader epoch, replicas in preference order (the
 * first is the preferred leader), in-sync replicas, and the partition epoch that every change bumps so a
 * stale AlterPartition can be refused; and, from a metadata quorum, the eligible leader replicas and last known
 * ELR (KIP-966); while a reassignment runs (KIP-455), the replicas being added and removed ({@code replicas} is
 * then the union of the target and the original replicas).
 */
public record PartitionState(
        int leader,
        int leaderEpoch,
        List<Integer> replicas,
        List<Integer> isr,
        int partitionEpoch,
        List<Integer> elr,
        List<Integer> lastKnownElr,
        List<Integer> addingReplicas,
        List<Integer> removingReplicas) {

    public static final int NO_LEADER = -1;

    /** Not being reassigned. */
    public PartitionState(
            int leader,
            int leaderEpoch,
            List<Integer> replicas,
            List<Integer> isr,
            int partitionEpoch,
            List<Integer> elr,
            List<Integer> lastKnownElr) {
        this(leader, leaderEpoch, replicas, isr, partitionEpoch, elr, lastKnownElr, List.of(), List.of());
    }

    /** Without eligible leader replicas (a source that keeps none, or none to keep). */
    public PartitionState(int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr, int partitionEpoch) {
        this(leader, leaderEpoch, replicas, isr, partitionEpoch, List.of(), List.of());
    }

    public PartitionState {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        elr = List.copyOf(elr);
        lastKnownElr = List.copyOf(lastKnownElr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
        if (!replicas.containsAll(isr)) {
            throw new IllegalArgumentException("ISR " + isr + " is not a subset of the replicas " + replicas);
        }
    }

    /** A partition of a one-node cluster: the node leads it in epoch 0 and is its only replica. */
    public static PartitionState singleNode(int nodeId) {
        return new PartitionState(nodeId, 0, List.of(nodeId), List.of(nodeId), 0);
    }

    /** Whether a reassignment (KIP-455) is running. */
    public boolean reassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    public boolean hasLeader() {
        return leader != NO_LEADER;
    }
}
