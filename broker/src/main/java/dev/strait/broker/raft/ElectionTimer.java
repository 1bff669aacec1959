package dev.strait.broker.raft;

import java.util.Random;

/**
 * When a {@link RaftNode} stands for election (or, as an observer, looks for a leader again), and when it last
 * heard from the leader it follows. Each reset draws a random jitter on top of the election timeout so that voters
 * rarely stand at once; the draws come from the node's seeded {@link Random}, so a simulation replays exactly.
 *
 * <p>It exists so that the timeout, its jitter and the leader-contact rule of pre-votes (KIP-996) are written
 * once, apart from the transitions that reset them. Not thread-safe; owned by the node.
 */
final class ElectionTimer {

    private final RaftConfig config;
    private final Random random;

    private long deadlineMs = Long.MAX_VALUE;
    /** When a follower last heard from its leader; while recent, it refuses pre-votes. */
    private long lastLeaderContactMs = Long.MIN_VALUE / 2;

    ElectionTimer(RaftConfig config, Random random) {
        this.config = config;
        this.random = random;
    }

    long deadlineMs() {
        return deadlineMs;
    }

    /**
     * Restarts the timeout from {@code nowMs}, jitter included; if the node is not {@code armed} (an observer that
     * follows no one has no election to stand in) it stops it instead.
     */
    void reset(long nowMs, boolean armed) {
        if (!armed) {
            deadlineMs = Long.MAX_VALUE;
            return;
        }
        long jitterMs = config.electionJitterMs() == 0 ? 0 : (long) random.nextInt((int) config.electionJitterMs() + 1);
        deadlineMs = nowMs + config.electionTimeoutMs() + jitterMs;
    }

    /** Stops the timeout: a leader stands in no election. */
    void stop() {
        deadlineMs = Long.MAX_VALUE;
    }

    /** The leader this node follows was heard from: it refuses pre-votes and waits for it a while longer. */
    void onLeaderContact(long nowMs, boolean armed) {
        lastLeaderContactMs = nowMs;
        reset(nowMs, armed);
    }

    /**
     * The leader this node follows is gone, as far as the transport can tell: pre-votes are granted from now on, and
     * the timeout fires within half the jitter unless it was due sooner.
     */
    void onLeaderUnreachable(long nowMs) {
        lastLeaderContactMs = Long.MIN_VALUE / 2;
        long delayMs = config.electionJitterMs() == 0 ? 0 : random.nextInt((int) config.electionJitterMs() / 2 + 1);
        deadlineMs = Math.min(deadlineMs, nowMs + delayMs);
    }

    /** Whether the followed leader was heard from within an election timeout before {@code nowMs}. */
    boolean leaderHeardRecently(long nowMs) {
        return nowMs - lastLeaderContactMs < config.electionTimeoutMs();
    }
}
