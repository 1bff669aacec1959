package dev.strait.broker.controller;

import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The controller's rules for one partition's leader, ISR and eligible leader replicas (ELR, KIP-966), as pure
 * functions of the partition's state and what is known of the nodes. {@link QuorumController} applies them to every
 * partition it decides on; the replication simulation applies the same ones to its partition, so that what it
 * checks (no acknowledged record lost through any schedule of crashes and power losses) is checked against the
 * rules production runs.
 */
public final class PartitionChanges {

    /** No node stopped uncleanly. */
    public static final IntPredicate NONE = id -> false;

    /** A partition's ELR and last known ELR, in replica order. */
    public record Eligible(List<Integer> elr, List<Integer> lastKnownElr) {
        public static final Eligible NONE = new Eligible(List.of(), List.of());

        public Eligible {
            elr = List.copyOf(elr);
            lastKnownElr = List.copyOf(lastKnownElr);
        }
    }

    private PartitionChanges() {}

    /**
     * The partition once it is brought in line with the nodes {@code live} accepts and nodes
     * {@code anyUncleanlyStopped} names are dropped from its ISR and ELR: members that are not live leave the ISR
     * unless none would be left, in which case the ISR keeps its members that did not stop uncleanly (they stay
     * eligible, as Kafka's ELR keeps them); the leader stays if it is live and in that ISR, else the first live ISR
     * member in replica order leads in a new epoch, else the first live ELR member, which becomes the ISR alone,
     * else nobody (-1). The ELR follows {@link #nextElr}. A single-replica partition ignores unclean stops: no
     * other copy could hold more than its one replica, so taking it out would only keep the partition offline
     * (Kafka 4.1 leaves it so until an unclean election; Strait keeps it eligible, see docs/operating.md).
     *
     * @return {@code state} itself when nothing changes
     */
    public static PartitionState reconcile(
            PartitionState state, int minIsr, IntPredicate live, IntPredicate anyUncleanlyStopped) {
        IntPredicate uncleanlyStopped = state.replicas().size() > 1 ? anyUncleanlyStopped : NONE;
        List<Integer> isr = members(state.isr(), id -> live.test(id) && !uncleanlyStopped.test(id));
        if (isr.isEmpty()) {
            isr = members(state.isr(), id -> !uncleanlyStopped.test(id));
        }
        int leader = state.leader();
        if (leader == -1 || !live.test(leader) || !isr.contains(leader)) {
            leader = firstInReplicaOrder(state.replicas(), isr, live);
            if (leader == -1) {
                List<Integer> eligible = members(state.elr(), id -> !uncleanlyStopped.test(id));
                leader = firstInReplicaOrder(state.replicas(), eligible, live);
                if (leader != -1) {
                    isr = List.of(leader);
                }
            }
        }
        Eligible next = nextElr(state, isr, minIsr, uncleanlyStopped);
        if (leader == state.leader()
                && isr.equals(state.isr())
                && next.elr().equals(state.elr())
                && next.lastKnownElr().equals(state.lastKnownElr())) {
            return state;
        }
        int leaderEpoch = leader != state.leader() ? state.leaderEpoch() + 1 : state.leaderEpoch();
        return new PartitionState(state.replicas(), isr, leader, leaderEpoch, next.elr(), next.lastKnownElr());
    }

    /** Whether {@link #reconcile} led {@code next} from the ELR: its leader was not in the ISR of {@code before}. */
    public static boolean electedFromElr(PartitionState before, PartitionState next) {
        return next.leader() != -1
                && next.leader() != before.leader()
                && !before.isr().contains(next.leader());
    }

    /**
     * The partition once its leader's AlterPartition to {@code newIsr} (validated by the caller: distinct replicas
     * including the leader) is accepted: the ISR in replica order, leader and leader epoch unchanged, the ELR per
     * {@link #nextElr}.
     */
    public static PartitionState alterIsr(PartitionState state, List<Integer> newIsr, int minIsr) {
        List<Integer> ordered = inReplicaOrder(state.replicas(), new HashSet<>(newIsr));
        Eligible next = nextElr(state, ordered, minIsr, NONE);
        return new PartitionState(
                state.replicas(), ordered, state.leader(), state.leaderEpoch(), next.elr(), next.lastKnownElr());
    }

    /**
     * The ELR once the ISR of {@code state} becomes {@code newIsr} (KIP-966): empty if the new ISR has
     * {@code minIsr} members; otherwise the old ELR and every member that left the ISR, less the new ISR and
     * nodes that stopped uncleanly. While the ISR is that small the high watermark does not move, so what a
     * member held when it left is every committed record. The last known ELR gathers those that left both
     * (stopped uncleanly) and empties with the ELR.
     */
    public static Eligible nextElr(
            PartitionState state, List<Integer> newIsr, int minIsr, IntPredicate uncleanlyStopped) {
        if (newIsr.size() >= minIsr) {
            return Eligible.NONE;
        }
        Set<Integer> candidates = new HashSet<>(state.elr());
        candidates.addAll(state.isr());
        newIsr.forEach(candidates::remove);
        Set<Integer> lastKnown = new HashSet<>(state.lastKnownElr());
        lastKnown.addAll(candidates);
        candidates.removeIf(uncleanlyStopped::test);
        newIsr.forEach(lastKnown::remove);
        lastKnown.removeAll(candidates);
        return new Eligible(inReplicaOrder(state.replicas(), candidates), inReplicaOrder(state.replicas(), lastKnown));
    }

    /** The first of {@code replicas} that is in {@code among} and {@code live}, or -1. */
    public static int firstInReplicaOrder(List<Integer> replicas, List<Integer> among, IntPredicate live) {
        for (int replica : replicas) {
            if (among.contains(replica) && live.test(replica)) {
                return replica;
            }
        }
        return -1;
    }

    static List<Integer> inReplicaOrder(List<Integer> replicas, Set<Integer> members) {
        List<Integer> ordered = new ArrayList<>();
        for (int replica : replicas) {
            if (members.contains(replica)) {
                ordered.add(replica);
            }
        }
        return ordered;
    }

    private static List<Integer> members(List<Integer> list, IntPredicate keep) {
        List<Integer> kept = new ArrayList<>();
        for (int id : list) {
            if (keep.test(id)) {
                kept.add(id);
            }
        }
        return kept;
    }
}
