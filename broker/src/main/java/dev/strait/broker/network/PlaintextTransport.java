package dev.strait.broker.network;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/** Plain TCP: reads and writes go straight to the socket, files zero-copy with {@code transferTo}. */
final class PlaintextTransport implements Transport {

    private final SocketChannel channel;

    PlaintextTransport(SocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public boolean handshake() {
        return true;
    }

    @Override
    public int handshakeInterest() {
        return SelectionKey.OP_READ;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return channel.read(dst);
    }

    @Override
    public boolean hasBufferedInput() {
        return false;
    }

    @Override
    public boolean flush() {
        return true;
    }

    @Override
    public @Nullable SSLSession tlsSession() {
        return null;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return channel.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return channel.write(srcs, offset, length);
    }

    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        return file.transferTo(position, count, channel);
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing: nothing left to do
        }
    }
}
