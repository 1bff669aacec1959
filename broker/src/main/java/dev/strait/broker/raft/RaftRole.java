package dev.strait.broker.raft;

import java.util.Set;
import java.util.TreeSet;

/**
 * The role a {@link RaftNode} plays in its current epoch. Each role holds only what that role needs; the node
 * replaces the role object on every transition (see the table in {@link RaftNode}).
 */
sealed interface RaftRole
        permits RaftRole.Unattached,
                RaftRole.Follower,
                RaftRole.Prospective,
                RaftRole.Candidate,
                RaftRole.Leader,
                RaftRole.Resigned {

    int epoch();

    /** Knows the epoch but not its leader; may have voted ({@code votedFor}) in it. Observers start here. */
    record Unattached(int epoch, int votedFor) implements RaftRole {}

    /** Follows {@code leaderId}, fetching from it. */
    record Follower(int epoch, int leaderId) implements RaftRole {}

    /**
     * Its election timeout fired; it asks the voters for pre-votes before standing in the next epoch. Keeps
     * fetching from {@code leaderId} (-1 if none), and returns to following it if it answers.
     */
    final class Prospective extends Ballot implements RaftRole {
        private final int leaderId;

        Prospective(int epoch, int selfId, int leaderId) {
            super(epoch, selfId);
            this.leaderId = leaderId;
        }

        int leaderId() {
            return leaderId;
        }
    }

    /** Asked the other voters to vote for it in {@code epoch}; collects their grants. */
    final class Candidate extends Ballot implements RaftRole {
        Candidate(int epoch, int selfId) {
            super(epoch, selfId);
        }
    }

    /** The grants collected by a prospective candidate or a candidate. */
    abstract class Ballot {
        private final int epoch;
        private final Set<Integer> granted = new TreeSet<>();

        Ballot(int epoch, int selfId) {
            this.epoch = epoch;
            granted.add(selfId);
        }

        public int epoch() {
            return epoch;
        }

        /** Returns how many voters (itself included) granted the vote so far. */
        int recordGrant(int voterId) {
            granted.add(voterId);
            return granted.size();
        }

        int grants() {
            return granted.size();
        }
    }

    /** Leads {@code epoch}; {@link LeaderProgress} tracks the voters. */
    record Leader(int epoch, LeaderProgress progress) implements RaftRole {}

    /**
     * A leader that lost contact with a majority (or restarted) and stepped down without knowing a successor.
     * It voted for itself in this epoch, so it waits out an election timeout and then stands in the next epoch.
     */
    record Resigned(int epoch) implements RaftRole {}
}
