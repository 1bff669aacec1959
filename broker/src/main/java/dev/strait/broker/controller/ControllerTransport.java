package dev.strait.broker.controller;

import dev.strait.time.Time;
import java.io.IOException;

/**
 * How a node's {@link QuorumRuntime} reaches the other nodes: best-effort delivery of {@link ControllerMessage}s
 * plus what the connections tell about the peers. Production uses {@link ControllerChannel} (TCP); a test may
 * put an in-memory network here.
 */
interface ControllerTransport extends AutoCloseable {

    /** Receives from the transport's threads; every method must return promptly and never block. */
    interface Receiver {

        /** A decoded frame from some peer. */
        void onMessage(ControllerMessage message);

        /** A connection with {@code peer} is open, or a frame from it just arrived: its process is there. */
        void onPeerReachable(int peer);

        /**
         * The last open connection with {@code peer} closed, or a connection attempt was refused (nothing listens
         * on its address). A live process reconnects within moments; a paused or partitioned one gives no such
         * signal, so this is evidence of death only, never a requirement for it.
         */
        void onPeerUnreachable(int peer);
    }

    /** Opens a transport for one node. */
    @FunctionalInterface
    interface Factory {
        ControllerTransport create(QuorumConfig settings, Time time, Receiver receiver);
    }

    /** Binds this node's listener, if it has one, and starts accepting; returns the bound port or -1. */
    int start() throws IOException;

    /** Queues {@code message} for {@code destination}; drops it if there is no route or no room. */
    void send(int destination, ControllerMessage message);

    @Override
    void close();
}
