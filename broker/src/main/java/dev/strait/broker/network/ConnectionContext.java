package dev.strait.broker.network;

import java.net.InetSocketAddress;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * What the layers above the socket know of one connection: its listener, its peer, its TLS session once the
 * handshake is done, and one attachment the protocol layer keeps per connection (its authentication state).
 *
 * <p>Requests of a connection are handled one at a time (the processor mutes it in between), each handoff going
 * through the request and response queues; the attachment is volatile so that whichever handler thread takes
 * the next request sees what the previous one left.
 */
public final class ConnectionContext {

    private final String id;
    private final String listenerName;
    private final InetSocketAddress clientAddress;
    private volatile @Nullable SSLSession tlsSession;
    private volatile @Nullable Object attachment;

    ConnectionContext(String id, String listenerName, InetSocketAddress clientAddress) {
        this.id = id;
        this.listenerName = listenerName;
        this.clientAddress = clientAddress;
    }

    public String id() {
        return id;
    }

    /** The listener's name as configured, upper case (e.g. {@code SASL_SSL}, {@code CLIENT}). */
    public String listenerName() {
        return listenerName;
    }

    public InetSocketAddress clientAddress() {
        return clientAddress;
    }

    /** The TLS session of a TLS listener's connection (its handshake is done before any request); else empty. */
    public Optional<SSLSession> tlsSession() {
        return Optional.ofNullable(tlsSession);
    }

    void tlsSession(@Nullable SSLSession session) {
        this.tlsSession = session;
    }

    /** What the protocol layer attached to this connection, or null. */
    public @Nullable Object attachment() {
        return attachment;
    }

    public void attach(Object value) {
        this.attachment = value;
    }
}
