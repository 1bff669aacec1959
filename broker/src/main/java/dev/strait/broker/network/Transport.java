package dev.strait.broker.network;

import java.io.IOException;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * One connection's byte stream as its processor drives it: plain TCP, or TLS over the JDK's {@code SSLEngine}.
 * Confined to the processor's thread.
 */
interface Transport extends TransportChannel {

    /**
     * Advances the handshake as far as the socket allows without blocking.
     *
     * @return true once the transport is ready for application bytes (always, for plain TCP)
     * @throws IOException if the handshake failed (the peer speaks no TLS, an untrusted certificate...)
     */
    boolean handshake() throws IOException;

    /** The selection-key interest the unfinished handshake waits for ({@code OP_READ} or {@code OP_WRITE}). */
    int handshakeInterest();

    /** @return plaintext bytes read into {@code dst}, 0 if none are available now, -1 once the peer closed */
    int read(ByteBuffer dst) throws IOException;

    /** Whether bytes already read from the socket may still yield plaintext without another readiness event. */
    boolean hasBufferedInput();

    /**
     * Writes what earlier writes left pending.
     *
     * @return true once nothing is pending
     */
    boolean flush() throws IOException;

    /** The TLS session once the handshake finished; null for plain TCP. */
    @Nullable
    SSLSession tlsSession();

    /** Closes the socket; TLS first sends close_notify, as far as the socket takes it without blocking. */
    void close();
}
