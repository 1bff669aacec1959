package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.BeginQuorumEpoch;
import dev.strait.broker.raft.RaftRole.Leader;

/**
 * A leader's two timed duties, and how long it has led. Check quorum: a leader that has not been fetched from by a
 * majority of voters within {@link RaftConfig#checkQuorumMs()} must resign, since another leader may have been
 * elected without it. Re-announcement: voters that have been silent for {@link RaftConfig#beginQuorumResendMs()}
 * get BeginQuorumEpoch again, because a voter that missed the first one (lost message, partition, restart) would
 * otherwise only find the leader by standing for election itself.
 *
 * <p>It exists so that the leader's timers sit apart from the node's transitions; the node acts on what
 * {@link #poll} says. Not thread-safe; owned by the node.
 */
final class LeaderDuties {

    private final int nodeId;
    private final RaftConfig config;
    private final RaftTransport transport;

    private long beginQuorumDeadlineMs = Long.MAX_VALUE;
    private long checkQuorumDeadlineMs = Long.MAX_VALUE;
    /** When this node last became leader (monotonic ms). */
    private long leaderSinceMs = Long.MAX_VALUE;

    LeaderDuties(int nodeId, RaftConfig config, RaftTransport transport) {
        this.nodeId = nodeId;
        this.config = config;
        this.transport = transport;
    }

    /** This node became leader at {@code nowMs}; it announces itself right after. */
    void start(long nowMs) {
        beginQuorumDeadlineMs = nowMs + config.beginQuorumResendMs();
        checkQuorumDeadlineMs = nowMs + config.checkQuorumMs();
        leaderSinceMs = nowMs;
    }

    /** This node no longer leads. */
    void stop() {
        beginQuorumDeadlineMs = Long.MAX_VALUE;
        checkQuorumDeadlineMs = Long.MAX_VALUE;
    }

    long nextDeadlineMs() {
        return Math.min(beginQuorumDeadlineMs, checkQuorumDeadlineMs);
    }

    /**
     * Does whatever duty is due at {@code nowMs} for {@code leader}.
     *
     * @return false if the leader must resign (a majority did not fetch within the check-quorum interval); nothing
     *     else was done then
     */
    boolean poll(Leader leader, long nowMs) {
        if (nowMs >= checkQuorumDeadlineMs) {
            if (!leader.progress().heardFromMajority(nowMs, config.checkQuorumMs())) {
                return false;
            }
            checkQuorumDeadlineMs = nowMs + Math.max(1, config.checkQuorumMs() / 4);
        }
        if (nowMs >= beginQuorumDeadlineMs) {
            for (int silent : leader.progress().silentVoters(nowMs, config.beginQuorumResendMs())) {
                transport.send(new BeginQuorumEpoch(nodeId, silent, leader.epoch()));
            }
            beginQuorumDeadlineMs = nowMs + config.beginQuorumResendMs();
        }
        return true;
    }

    /** See {@link RaftNode#leadershipConfirmedWithin}. */
    boolean confirmedWithin(Leader leader, long nowMs, long windowMs) {
        return nowMs - leaderSinceMs > windowMs && leader.progress().heardFromMajority(nowMs, windowMs);
    }
}
