package dev.strait.broker.metadata;

import java.util.List;
import java.util.Objects;

/**
 * The metadata quorum as its leader described it (what Kafka's DescribeQuorum answers). Immutable.
 *
 * @param leaderId      the Raft leader, which is the active controller
 * @param leaderEpoch   its epoch
 * @param highWatermark the committed end of the metadata log
 * @param voters        every voter, the leader included
 * @param observers     non-voters that fetch the metadata log from the leader
 * @param voterNodes    the voters' controller endpoints
 */
public record QuorumStatus(
        int leaderId,
        int leaderEpoch,
        long highWatermark,
        List<Replica> voters,
        List<Replica> observers,
        List<VoterNode> voterNodes) {

    public QuorumStatus {
        voters = List.copyOf(voters);
        observers = List.copyOf(observers);
        voterNodes = List.copyOf(voterNodes);
    }

    /**
     * @param logEndOffset          -1 if the leader has not heard from it in its epoch
     * @param lastFetchTimestamp    the leader's wall-clock time of its latest fetch; -1 if unknown
     * @param lastCaughtUpTimestamp the leader's wall-clock time at which it last held all the leader held; -1 if
     *                              unknown
     */
    public record Replica(int nodeId, long logEndOffset, long lastFetchTimestamp, long lastCaughtUpTimestamp) {}

    /** A voter's controller listener. */
    public record VoterNode(int nodeId, String listenerName, String host, int port) {
        public VoterNode {
            Objects.requireNonNull(listenerName, "listenerName");
            Objects.requireNonNull(host, "host");
        }
    }
}
