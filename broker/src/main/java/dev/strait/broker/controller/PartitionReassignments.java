package dev.strait.broker.controller;

import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.function.IntPredicate;

/**
 * The controller's rules for partition reassignment (KIP-455), as pure functions of a partition's state, as Kafka
 * 4.1's controller applies them:
 *
 * <pre>
 *   start(target)    replicas = target, then the current replicas not in it; adding = target - current,
 *                    removing = current - target; ISR, leader and epochs unchanged. The added replicas see
 *                    themselves in the replica set and follow the leader.
 *   complete         once every target replica is in the ISR (the leader adds a replica only once it has caught
 *                    up to the high watermark): replicas = target, ISR = ISR ∩ target, the leader stays if it is
 *                    a target replica, else the first live target replica leads in a new leader epoch. Every
 *                    member of that ISR was in the ISR before, so it holds every acknowledged record.
 *   revert (cancel)  replicas = replicas - adding, ISR = ISR - adding, the leader stays unless it was being
 *                    added, in which case the first live remaining ISR member leads in a new epoch.
 * </pre>
 *
 * A new target while a reassignment runs starts from the current replica set (the union), as Kafka's does.
 */
final class PartitionReassignments {

    private PartitionReassignments() {}

    /** The partition with a reassignment to {@code target} (validated: distinct, non-empty) started. */
    static PartitionState start(PartitionState state, List<Integer> target) {
        List<Integer> replicas = new ArrayList<>(target);
        List<Integer> removing = new ArrayList<>();
        for (int id : state.replicas()) {
            if (!target.contains(id)) {
                replicas.add(id);
                removing.add(id);
            }
        }
        List<Integer> adding =
                target.stream().filter(id -> !state.replicas().contains(id)).toList();
        return new PartitionState(
                replicas,
                state.isr(),
                state.leader(),
                state.leaderEpoch(),
                state.elr(),
                state.lastKnownElr(),
                adding,
                removing);
    }

    /**
     * The partition with its reassignment completed, if one runs and every target replica is in the ISR;
     * otherwise empty.
     */
    static Optional<PartitionState> maybeComplete(PartitionState state, IntPredicate live) {
        if (!state.reassigning()) {
            return Optional.empty();
        }
        List<Integer> target = state.targetReplicas();
        if (!state.isr().containsAll(target)) {
            return Optional.empty();
        }
        List<Integer> isr = PartitionChanges.inReplicaOrder(target, new HashSet<>(state.isr()));
        int leader = state.leader();
        if (!target.contains(leader)) {
            // None live: leaderless until one is back (each holds every committed record), as an election would.
            leader = PartitionChanges.firstInReplicaOrder(target, isr, live);
        }
        int leaderEpoch = leader != state.leader() ? state.leaderEpoch() + 1 : state.leaderEpoch();
        // The ISR is the whole replica set now, at least min.insync.replicas (capped at the replica count): no ELR.
        return Optional.of(new PartitionState(target, isr, leader, leaderEpoch, List.of(), List.of()));
    }

    /**
     * The partition with its running reassignment cancelled (KIP-455: back to the replicas it had), or empty
     * when no replica of the ISR would remain: every ISR member is one being added, so going back would leave
     * the partition without a replica known to hold the acknowledged records.
     */
    static Optional<PartitionState> revert(PartitionState state, IntPredicate live) {
        List<Integer> adding = state.addingReplicas();
        List<Integer> replicas = state.originalReplicas();
        List<Integer> isr =
                state.isr().stream().filter(id -> !adding.contains(id)).toList();
        if (isr.isEmpty()) {
            return Optional.empty();
        }
        int leader = state.leader();
        if (leader == -1 || adding.contains(leader)) {
            leader = PartitionChanges.firstInReplicaOrder(replicas, isr, live);
        }
        int leaderEpoch = leader != state.leader() ? state.leaderEpoch() + 1 : state.leaderEpoch();
        List<Integer> elr = state.elr().stream().filter(replicas::contains).toList();
        List<Integer> lastKnownElr =
                state.lastKnownElr().stream().filter(replicas::contains).toList();
        return Optional.of(new PartitionState(replicas, isr, leader, leaderEpoch, elr, lastKnownElr));
    }
}
