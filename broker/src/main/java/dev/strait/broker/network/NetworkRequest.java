package dev.strait.broker.network;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One whole request frame (without its size prefix) read from a connection, plus the way back to that connection.
 * Exactly one completion call takes effect; later ones are ignored.
 */
public final class NetworkRequest {

    private final Processor processor;
    private final ConnectionContext connection;
    private final String connectionId;
    private final ByteBuffer payload;
    private final AtomicBoolean completed = new AtomicBoolean();
    private final RequestObserver observer;
    private final int requestBytes;
    private final long receivedNanos;
    /** Set by the protocol layer once it parsed the header; read by whichever thread completes the request. */
    private volatile @Nullable String api;

    NetworkRequest(Processor processor, ConnectionContext connection, ByteBuffer payload, RequestObserver observer) {
        this.processor = processor;
        this.connection = connection;
        this.connectionId = connection.id();
        this.payload = payload;
        this.observer = observer;
        this.requestBytes = payload.remaining();
        this.receivedNanos = observer.nanoseconds();
    }

    /** Names the request's Kafka API, for the request metrics; the protocol layer calls it once it parsed one. */
    public void tagApi(String name) {
        this.api = name;
    }

    private void observe(@Nullable ResponseWriter response) {
        observer.onCompleted(
                api, observer.nanoseconds() - receivedNanos, requestBytes, response == null ? 0 : response.size());
    }

    public String connectionId() {
        return connectionId;
    }

    public InetSocketAddress clientAddress() {
        return connection.clientAddress();
    }

    /** The connection this request came on: listener, TLS session, the protocol layer's attachment. */
    public ConnectionContext connection() {
        return connection;
    }

    /** The frame, header and body, positioned at its start. Owned by this request; never reused. */
    public ByteBuffer payload() {
        return payload;
    }

    /** Sends {@code response} and then unmutes the connection. */
    public void respond(ResponseWriter response) {
        if (completed.compareAndSet(false, true)) {
            observe(response);
            processor.enqueueResponse(new Processor.Response(connectionId, response, false));
        } else {
            response.release();
        }
    }

    /** Sends {@code response} and then closes the connection (a refused SASL authentication). */
    public void respondAndClose(ResponseWriter response) {
        if (completed.compareAndSet(false, true)) {
            observe(response);
            processor.enqueueResponse(new Processor.Response(connectionId, response, true));
        } else {
            response.release();
        }
    }

    /** Unmutes the connection without sending anything (Produce with acks=0). */
    public void noResponse() {
        if (completed.compareAndSet(false, true)) {
            observe(null);
            processor.enqueueResponse(new Processor.Response(connectionId, null, false));
        }
    }

    /** Closes the connection (unparseable request). */
    public void closeConnection() {
        if (completed.compareAndSet(false, true)) {
            observe(null);
            processor.enqueueResponse(new Processor.Response(connectionId, null, true));
        }
    }

    @Override
    public String toString() {
        return "NetworkRequest[" + connectionId + ", " + payload.remaining() + " bytes]";
    }
}
