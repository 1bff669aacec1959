package dev.strait.broker.network;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * TLS over a non-blocking socket with the JDK's {@link SSLEngine}, server side.
 *
 * <p>Buffers: {@code netIn} holds encrypted bytes read from the socket and not yet unwrapped (fill mode);
 * {@code appIn} the decrypted bytes not yet handed out (drain mode); {@code netOut} encrypted bytes not yet
 * written to the socket (drain mode). Each starts at the session's packet or application buffer size and grows
 * when the engine says it must (BUFFER_OVERFLOW, or BUFFER_UNDERFLOW with a full buffer). A write wraps only into
 * an empty {@code netOut}, so bytes a caller handed over are either encrypted and pending or not taken at all.
 *
 * <p>Failures: anything the engine refuses (a peer speaking plaintext or garbage, an untrusted or missing client
 * certificate, a protocol mismatch) surfaces as an {@link IOException} and the processor closes this connection
 * only. Renegotiation is refused as Kafka refuses it; TLS 1.3 post-handshake messages (session tickets, key
 * updates) are processed in place.
 */
final class TlsTransport implements Transport {

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final int FILE_CHUNK_BYTES = 32 * 1024;

    private final SocketChannel channel;
    private final SSLEngine engine;
    private ByteBuffer netIn;
    private ByteBuffer appIn;
    private ByteBuffer netOut;
    /** Allocated on the first file write. */
    private @Nullable ByteBuffer fileChunk;

    private boolean handshakeDone;
    private boolean inboundClosed;
    private int interest = SelectionKey.OP_READ;

    TlsTransport(SocketChannel channel, SSLEngine engine) throws SSLException {
        this.channel = channel;
        this.engine = engine;
        SSLSession session = engine.getSession();
        this.netIn = ByteBuffer.allocate(session.getPacketBufferSize());
        this.appIn = ByteBuffer.allocate(session.getApplicationBufferSize()).flip();
        this.netOut = ByteBuffer.allocate(session.getPacketBufferSize()).flip();
        engine.setUseClientMode(false);
        engine.beginHandshake();
    }

    @Override
    public boolean handshake() throws IOException {
        if (handshakeDone) {
            return true;
        }
        while (true) {
            if (!flush()) {
                interest = SelectionKey.OP_WRITE;
                return false;
            }
            HandshakeStatus status = engine.getHandshakeStatus();
            switch (status) {
                case NEED_TASK:
                    runDelegatedTasks();
                    break;
                case NEED_WRAP:
                    wrapHandshake();
                    break;
                case NEED_UNWRAP:
                case NEED_UNWRAP_AGAIN:
                    if (!unwrapHandshake()) {
                        interest = SelectionKey.OP_READ;
                        return false;
                    }
                    break;
                case FINISHED:
                case NOT_HANDSHAKING:
                default:
                    if (!flush()) {
                        interest = SelectionKey.OP_WRITE;
                        return false;
                    }
                    handshakeDone = true;
                    return true;
            }
        }
    }

    @Override
    public int handshakeInterest() {
        return interest;
    }

    private void runDelegatedTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            // On the network thread, as Kafka runs them: certificate checks are short, and the alternative, a
            // pool with callbacks into this thread, is state this class would have to synchronise.
            task.run();
        }
    }

    private void wrapHandshake() throws IOException {
        // netOut is empty here (flushed above)
        while (true) {
            netOut.clear();
            SSLEngineResult result = engine.wrap(EMPTY, netOut);
            netOut.flip();
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                netOut = ByteBuffer.allocate(Math.max(
                                netOut.capacity() * 2, engine.getSession().getPacketBufferSize()))
                        .flip();
                continue;
            }
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new SSLException("TLS engine closed during the handshake");
            }
            return;
        }
    }

    /** @return false if more bytes must arrive from the socket first */
    private boolean unwrapHandshake() throws IOException {
        while (true) {
            if (netIn.position() > 0) {
                SSLEngineResult result = unwrap();
                if (result.getStatus() == SSLEngineResult.Status.OK) {
                    return true;
                }
                if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                    throw new SSLException("the peer closed TLS during the handshake");
                }
                // BUFFER_UNDERFLOW: a record is incomplete
            }
            int n = channel.read(netIn);
            if (n < 0) {
                throw new EOFException("the peer closed the connection during the TLS handshake");
            }
            if (n == 0) {
                return false;
            }
        }
    }

    /**
     * Unwraps what {@code netIn} holds into {@code appIn}, growing either buffer as the engine asks. Never returns
     * BUFFER_OVERFLOW; BUFFER_UNDERFLOW means more socket bytes are needed (and {@code netIn} has room for them).
     */
    private SSLEngineResult unwrap() throws SSLException {
        while (true) {
            netIn.flip();
            appIn.compact();
            SSLEngineResult result;
            try {
                result = engine.unwrap(netIn, appIn);
            } finally {
                netIn.compact();
                appIn.flip();
            }
            if (result.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                runDelegatedTasks();
            }
            switch (result.getStatus()) {
                case BUFFER_OVERFLOW:
                    int appSize = engine.getSession().getApplicationBufferSize();
                    ByteBuffer larger =
                            ByteBuffer.allocate(Math.max(appSize, appIn.capacity() * 2) + appIn.remaining());
                    larger.put(appIn).flip();
                    appIn = larger;
                    continue;
                case BUFFER_UNDERFLOW:
                    int packetSize = engine.getSession().getPacketBufferSize();
                    if (netIn.position() == netIn.capacity()) {
                        ByteBuffer grown = ByteBuffer.allocate(Math.max(packetSize, netIn.capacity() * 2));
                        netIn.flip();
                        grown.put(netIn);
                        netIn = grown;
                    }
                    return result;
                default:
                    return result;
            }
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (appIn.hasRemaining()) {
            return drainAppIn(dst);
        }
        if (inboundClosed) {
            return -1;
        }
        boolean eof = false;
        while (true) {
            SSLEngineResult result = netIn.position() > 0 ? unwrap() : null;
            if (result != null && result.getStatus() == SSLEngineResult.Status.CLOSED) {
                inboundClosed = true; // close_notify: the peer is done
                return appIn.hasRemaining() ? drainAppIn(dst) : -1;
            }
            if (result != null && result.getStatus() == SSLEngineResult.Status.OK) {
                handlePostHandshake(result);
                if (appIn.hasRemaining()) {
                    return drainAppIn(dst);
                }
                if (netIn.position() > 0) {
                    continue; // another record is buffered
                }
            }
            if (eof) {
                if (netIn.position() > 0) {
                    throw new EOFException("the peer closed the connection inside a TLS record");
                }
                return -1;
            }
            int n = channel.read(netIn);
            if (n < 0) {
                eof = true;
                continue;
            }
            if (n == 0) {
                return 0;
            }
        }
    }

    private void handlePostHandshake(SSLEngineResult result) throws IOException {
        HandshakeStatus status = result.getHandshakeStatus();
        if (status == HandshakeStatus.NEED_WRAP
                || status == HandshakeStatus.NEED_UNWRAP
                || status == HandshakeStatus.NEED_TASK) {
            if (!engine.getSession().getProtocol().startsWith("TLSv1.3")) {
                throw new SSLException("TLS renegotiation is not supported");
            }
            runDelegatedTasks();
            if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP && flush()) {
                wrapHandshake(); // a TLS 1.3 key update answer; flushed with the next write
            }
        }
    }

    private int drainAppIn(ByteBuffer dst) {
        int n = Math.min(dst.remaining(), appIn.remaining());
        ByteBuffer slice = appIn.duplicate();
        slice.limit(slice.position() + n);
        dst.put(slice);
        appIn.position(appIn.position() + n);
        return n;
    }

    @Override
    public boolean hasBufferedInput() {
        return appIn.hasRemaining() || netIn.position() > 0;
    }

    @Override
    public boolean flush() throws IOException {
        while (netOut.hasRemaining()) {
            if (channel.write(netOut) == 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public @Nullable SSLSession tlsSession() {
        return handshakeDone ? engine.getSession() : null;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) write(new ByteBuffer[] {src}, 0, 1);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        if (!flush()) {
            return 0;
        }
        long taken = 0;
        while (hasRemaining(srcs, offset, length)) {
            netOut.clear();
            SSLEngineResult result;
            try {
                result = engine.wrap(srcs, offset, length, netOut);
            } finally {
                netOut.flip();
            }
            if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                netOut = ByteBuffer.allocate(Math.max(
                                netOut.capacity() * 2, engine.getSession().getPacketBufferSize()))
                        .flip();
                continue;
            }
            if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                throw new SSLException("TLS is closed for writing");
            }
            taken += result.bytesConsumed();
            if (!flush()) {
                break;
            }
        }
        return taken;
    }

    private static boolean hasRemaining(ByteBuffer[] srcs, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (srcs[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        if (!flush()) {
            return 0;
        }
        ByteBuffer chunk = fileChunk;
        if (chunk == null) {
            chunk = ByteBuffer.allocate(FILE_CHUNK_BYTES);
            fileChunk = chunk;
        }
        chunk.clear();
        chunk.limit((int) Math.min(count, chunk.capacity()));
        long at = position;
        while (chunk.hasRemaining()) {
            int n = file.read(chunk, at);
            if (n < 0) {
                break;
            }
            at += n;
        }
        chunk.flip();
        if (!chunk.hasRemaining()) {
            throw new EOFException("file ended at " + position + " before " + count + " more bytes");
        }
        // Bytes of the chunk not taken now are read from the file again on the next call.
        return write(chunk);
    }

    @Override
    public boolean hasPendingWrites() {
        return netOut.hasRemaining();
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() {
        try {
            if (handshakeDone && !engine.isOutboundDone() && flush()) {
                engine.closeOutbound();
                netOut.clear();
                engine.wrap(EMPTY, netOut); // close_notify
                netOut.flip();
                flush(); // best effort: a peer that reads no more does not hold the close up
            }
        } catch (IOException | RuntimeException e) {
            // the socket closes anyway
        } finally {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing left to do
            }
        }
    }
}
