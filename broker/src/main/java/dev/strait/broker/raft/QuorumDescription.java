package dev.strait.broker.raft;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the leader of an epoch knows about the quorum at one instant (the content of Kafka's DescribeQuorum): an
 * immutable copy of its replication progress, safe to hand to other threads. Only a leader can describe the
 * quorum; a follower knows neither the other replicas' log ends nor when they last fetched.
 *
 * @param leaderId      the node that described itself as leader
 * @param leaderEpoch   its epoch
 * @param highWatermark the offset below which entries are committed, as this leader knows it
 * @param voters        every voter, the leader included, by node id
 * @param observers     non-voters that fetched from this leader in its epoch (within the last
 *                      {@link #OBSERVER_SESSION_MS} ms), by node id
 */
public record QuorumDescription(
        int leaderId, int leaderEpoch, long highWatermark, List<Replica> voters, List<Replica> observers) {

    /** An observer that has not fetched for this long is left out, as Kafka forgets it (five minutes). */
    public static final long OBSERVER_SESSION_MS = 300_000L;

    public QuorumDescription {
        voters = List.copyOf(voters);
        observers = List.copyOf(observers);
    }

    /**
     * One replica as the leader sees it. Times are in the clock the driver passes to the {@link RaftNode}; the
     * leader reports itself as fetching and caught up now.
     *
     * @param nodeId         the replica's node id
     * @param logEndOffset   the end of its log as its latest valid fetch confirmed; -1 if it has not fetched in
     *                       this epoch
     * @param lastFetchMs    when its latest valid fetch arrived; empty if none in this epoch
     * @param lastCaughtUpMs the latest time at which it is known to have held everything the leader held (Kafka's
     *                       rule: a fetch from the leader's end, or from the end the leader had at the previous
     *                       fetch); empty if never known
     */
    public record Replica(int nodeId, long logEndOffset, OptionalLong lastFetchMs, OptionalLong lastCaughtUpMs) {
        public Replica {
            Objects.requireNonNull(lastFetchMs, "lastFetchMs");
            Objects.requireNonNull(lastCaughtUpMs, "lastCaughtUpMs");
        }
    }
}
