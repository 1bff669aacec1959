package dev.strait.broker.network;

import org.jspecify.annotations.Nullable;

/**
 * Told of every request a listener completes, for the broker's request metrics. Called on whichever thread
 * completes the request (a handler thread, or the thread finishing a delayed operation), so it must be
 * thread-safe and must not block.
 */
public interface RequestObserver {

    /** Observes nothing: a listener without metrics. */
    RequestObserver NONE = new RequestObserver() {
        @Override
        public long nanoseconds() {
            return 0;
        }

        @Override
        public void onCompleted(@Nullable String api, long latencyNanos, int requestBytes, long responseBytes) {}
    };

    /** The monotonic clock latencies are measured with (the network layer reads no clock of its own). */
    long nanoseconds();

    /**
     * A request was answered (or deliberately left unanswered, or its connection closed).
     *
     * @param api the name of the Kafka API the protocol layer tagged the request with (Produce, Fetch...), or null
     *     if it never parsed one (a bare SASL token, an unparseable frame)
     * @param latencyNanos from the whole frame having been read to the completion call
     * @param requestBytes the frame's size, without its size prefix
     * @param responseBytes the response's size on the wire, 0 if none was sent
     */
    void onCompleted(@Nullable String api, long latencyNanos, int requestBytes, long responseBytes);
}
