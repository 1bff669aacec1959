package dev.strait.broker.controller;

import dev.strait.time.Time;

/**
 * How long this node may still trust that it leads what its metadata says it leads, for reads served from a
 * leader's memory: the group coordinator's committed offsets (issue 22). A leader cut off from the controller goes on
 * believing its metadata until it learns otherwise, which it may never do while cut off; meanwhile the controller
 * fences it and elects another leader, whose acknowledged commits the old one does not have. The lease ends before
 * that election can happen, so a coordinator that serves only while it holds the lease never answers below a commit
 * acknowledged by a later leader.
 *
 * <p>Renewal: by a heartbeat of this node that the active controller answered OK (not fenced). The lease then holds
 * until the heartbeat's SEND time, on this node's monotonic clock, plus {@link #durationMs}. Heartbeats are sent often
 * enough ({@link #renewEveryMs}) that a live node keeps it.
 *
 * <p>Why no other leader can have been elected while the lease holds. Another leader of a partition this node leads
 * is elected only after the controller fenced this node (an unfenced leader loses its leadership only by a controlled
 * shutdown, which it asked for, or an operator's reassignment or preferred-leader election: see below). Let the
 * heartbeat be sent at {@code s} and reach controller C at {@code r >= s}. Whoever fences this node at {@code T}:
 * <ul>
 *   <li>C itself: on the session timeout, {@code T > r + broker.session.timeout.ms}; on connection evidence (fast
 *       fencing) only if no heartbeat arrived after the connections closed, so {@code T >= r + fastFenceGraceMs}.</li>
 *   <li>A controller C2 activated later at {@code X}: it fences no sooner than {@code X + activationGraceMs}. C answers
 *       a heartbeat only while its Raft leadership is confirmed ({@code QuorumLoop}: a majority of voters fetched
 *       from it within half an election timeout {@code W} before {@code r}, and it was not elected within {@code W}).
 *       Every voter of that majority other than C (and C2, if it is one) last heard from C at or after
 *       {@code r - W}, and grants a pre-vote, which a candidate needs from a majority before it asks for votes, only
 *       an election timeout after its last contact with its leader; the two majorities share a voter, so
 *       {@code X >= r - W + electionTimeoutMs > r} and {@code T > r + activationGraceMs}.</li>
 * </ul>
 * So {@code T >= s + min(fastFenceGraceMs, activationGraceMs)} ({@link QuorumController#fencingLowerBoundMs}), and the
 * lease is shorter than that by a margin.
 *
 * <p>Clock assumption: no timeouts are compared across machines, only durations, each measured on one node's
 * monotonic clock (this node's from {@code s}, the controllers' from {@code r} and {@code X}, the voters' from their
 * last contact); the assumption is that those clocks run at rates within {@link #CLOCK_RATE_MARGIN} of one another
 * (and that a paused process's clock keeps running, which monotonic clocks do). A stopped node (SIGSTOP) that resumes
 * after its lease lapsed serves nothing until its next heartbeat is answered.
 *
 * <p>Not covered: an operator's leader move (reassignment, ElectLeaders) of a node that keeps heartbeating; the node
 * learns it from the metadata log, which it follows while it heartbeats, as Kafka's brokers do. A voter whose
 * connection to a live Raft leader closes gives up on it at once ({@code RaftNode.onPeerUnreachable}), without the
 * election timeout the second case above relies on; a lease granted by that leader within {@code W} before may then
 * outlive the next controller's activation grace. A closed connection (not a silent one) between two live
 * controllers is rare. The renewal waits until this node's metadata log reached the controller's answer, but the
 * replica layer applies it to partitions (and the coordinator resigns) a moment later.
 *
 * <p>Thread-safe: renewed by the quorum loop, read by the coordinator's loops.
 */
public final class ReadLease {

    /** The lease is this fraction of the fencing bound: room for clocks that run at slightly different rates. */
    static final double CLOCK_RATE_MARGIN = 0.8;

    private final Time time;
    private final long durationMs;
    private volatile long heldUntilMs = Long.MIN_VALUE;

    /**
     * @param time              this node's clock; its monotonic reading is the one heartbeats are stamped with
     * @param fencingLowerBound the earliest, after a heartbeat reached the controller, that another node can lead
     *                          in this node's place ({@link QuorumController#fencingLowerBoundMs})
     */
    ReadLease(Time time, long fencingLowerBound) {
        if (fencingLowerBound <= 0) {
            throw new IllegalArgumentException("fencing lower bound must be positive: " + fencingLowerBound);
        }
        this.time = time;
        this.durationMs = Math.max(1, (long) (fencingLowerBound * CLOCK_RATE_MARGIN));
    }

    /** How long the lease holds after a heartbeat was sent. */
    long durationMs() {
        return durationMs;
    }

    /** How often heartbeats must go out for a live node to hold the lease without gaps. */
    long renewEveryMs() {
        return Math.max(1, durationMs / 3);
    }

    /** The active controller answered OK, unfenced, to a heartbeat sent at {@code sentAtMs} (monotonic). */
    synchronized void renew(long sentAtMs) {
        heldUntilMs = Math.max(heldUntilMs, sentAtMs + durationMs);
    }

    /** The controller fenced this node, or it registered anew: nothing it leads can be trusted until renewed. */
    synchronized void revoke() {
        heldUntilMs = Long.MIN_VALUE;
    }

    /** Whether no other node can have been made leader in this node's place yet. */
    public boolean holds() {
        return time.hiResClockMs() < heldUntilMs;
    }
}
