package dev.strait.broker.network;

import java.io.IOException;

/**
 * A serialized response that a processor writes to a connection's non-blocking transport (plain TCP or TLS),
 * possibly over several calls. The network layer knows nothing about its contents (the protocol adapter builds
 * it, zero-copy where the transport allows).
 */
public interface ResponseWriter {

    /**
     * Writes as much as the transport takes without blocking.
     *
     * @return true once the whole response has been written
     */
    boolean writeTo(TransportChannel channel) throws IOException;

    /** The response's size on the wire, size prefix included, for the byte metrics; 0 if unknown. */
    default long size() {
        return 0;
    }

    /** Releases resources if the connection closes before the response was written; default does nothing. */
    default void release() {}
}
