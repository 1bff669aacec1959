/**
 * The socket layer, Kafka's reactor model, knowing nothing of the Kafka protocol beyond size-prefixed frames.
 *
 * <p>Per listener, {@link dev.strait.broker.network.SocketServer} runs one acceptor thread that hands connections
 * round-robin to {@code num.network.threads} processors, each with its own {@link java.nio.channels.Selector}.
 * A processor reads whole frames (a frame above {@code socket.request.max.bytes}, or a negative size, closes the
 * connection with a log line), mutes the connection, and puts the frame on one bounded request queue
 * ({@code queued.max.requests}); when the queue is full, frames wait in the processor and their connections stay
 * muted (backpressure; nothing is dropped). {@code num.io.threads} handler threads take frames and call the
 * {@link dev.strait.broker.network.RequestDispatcher}; it answers through the
 * {@link dev.strait.broker.network.NetworkRequest} (respond, no response, or close), from any thread and at any
 * later time. The processor unmutes the connection once the response is written, so each connection has one
 * request in flight and responses keep request order.
 */
package dev.strait.broker.network;
