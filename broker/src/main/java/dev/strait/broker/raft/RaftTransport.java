package dev.strait.broker.raft;

/**
 * Where a {@link RaftNode} puts outbound messages. Delivery is best effort: messages may be lost, delayed,
 * duplicated or reordered and the protocol copes with all of it. Implementations must not call back into the
 * node from {@code send}; the broker's adapter queues the message for its network thread, the simulation
 * schedules a delivery event.
 */
@FunctionalInterface
public interface RaftTransport {

    void send(RaftMessage message);
}
