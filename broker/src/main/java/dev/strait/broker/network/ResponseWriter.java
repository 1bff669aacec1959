package dev.strait.broker.network;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * A serialized response that a processor writes to a non-blocking socket, possibly over several calls. The
 * network layer knows nothing about its contents (the protocol adapter builds it, zero-copy where it can).
 */
public interface ResponseWriter {

    /**
     * Writes as much as the socket takes without blocking.
     *
     * @return true once the whole response has been written
     */
    boolean writeTo(SocketChannel channel) throws IOException;

    /** Releases resources if the connection closes before the response was written; default does nothing. */
    default void release() {
    }
}
