package dev.strait.broker.raft;

import java.util.Set;
import java.util.TreeSet;

/**
 * The role a {@link RaftNode} plays in its current epoch. Each role holds only what that role needs; the node
 * replaces the role object on every transition (see the table in {@link RaftNode}).
 */
sealed interface RaftRole {

    int epoch();

    /** Knows the epoch but not its leader; may have voted ({@code votedFor}) in it. Observers start here. */
    record Unattached(int epoch, int votedFor) implements RaftRole {
    }

    /** Follows {@code leaderId}, fetching from it. */
    record Follower(int epoch, int leaderId) implements RaftRole {
    }

    /** Asked the other voters to vote for it in {@code epoch}; collects their grants. */
    final class Candidate implements RaftRole {
        private final int epoch;
        private final Set<Integer> granted = new TreeSet<>();

        Candidate(int epoch, int selfId) {
            this.epoch = epoch;
            granted.add(selfId);
        }

        @Override
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
    record Leader(int epoch, LeaderProgress progress) implements RaftRole {
    }

    /**
     * A leader that lost contact with a majority (or restarted) and stepped down without knowing a successor.
     * It voted for itself in this epoch, so it waits out an election timeout and then stands in the next epoch.
     */
    record Resigned(int epoch) implements RaftRole {
    }
}
