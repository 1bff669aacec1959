package dev.strait.broker.network;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The write side of one connection as a {@link ResponseWriter} sees it: plaintext bytes in, whatever the listener's
 * transport (plain TCP or TLS) makes of them on the socket. Non-blocking: every call takes what it can now.
 */
public interface TransportChannel {

    /** @return bytes of {@code src} taken (possibly 0 while earlier bytes still wait for the socket) */
    int write(ByteBuffer src) throws IOException;

    long write(ByteBuffer[] srcs, int offset, int length) throws IOException;

    /**
     * Sends up to {@code count} bytes of {@code file} from {@code position}: zero-copy over plain TCP, through a
     * buffer over TLS (the bytes must be encrypted).
     *
     * @return bytes of the file taken
     */
    long transferFrom(FileChannel file, long position, long count) throws IOException;

    /** Whether bytes already taken still wait to reach the socket (TLS records not yet written). */
    boolean hasPendingWrites();

    boolean isOpen();
}
