package dev.strait.broker.controller;

import dev.strait.time.Time;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Evidence, from this node's connections, that another node's process is gone: since when each peer has had no
 * open connection with this node and sent nothing (a refused connect counts as well). Kept whatever this node's
 * role, so that a newly active controller starts with what it saw while it was a follower.
 *
 * <p>Only a liveness hint for fast fencing ({@link QuorumController}): a paused (SIGSTOP) or partitioned process
 * keeps its connections open or silent and so never shows up here; its fencing still waits for its session
 * timeout, and safety never depends on this class.
 *
 * <p>Thread-safe: the transport's threads report, the quorum loop reads.
 */
final class PeerLiveness implements ControllerTransport.Receiver {

    private final Time time;
    private final ControllerTransport.Receiver next;
    private final Map<Integer, Long> unreachableSinceMs = new ConcurrentHashMap<>();

    /** @param next receives every message and every unreachable peer too (the runtime's inbound queue) */
    PeerLiveness(Time time, ControllerTransport.Receiver next) {
        this.time = time;
        this.next = next;
    }

    @Override
    public void onMessage(ControllerMessage message) {
        next.onMessage(message);
    }

    @Override
    public void onPeerReachable(int peer) {
        reachable(peer);
    }

    @Override
    public void onPeerUnreachable(int peer) {
        unreachableSinceMs.putIfAbsent(peer, time.hiResClockMs());
        next.onPeerUnreachable(peer);
    }

    /** The peer is there: it connected, sent a frame, or registered through a controller. */
    void reachable(int peer) {
        if (!unreachableSinceMs.isEmpty()) {
            unreachableSinceMs.remove(peer);
        }
    }

    /** Since when (monotonic ms) the peer has been unreachable without a sign of life, if it has. */
    OptionalLong unreachableSinceMs(int peer) {
        Long since = unreachableSinceMs.get(peer);
        return since == null ? OptionalLong.empty() : OptionalLong.of(since);
    }
}
