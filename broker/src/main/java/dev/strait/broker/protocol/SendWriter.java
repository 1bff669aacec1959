package dev.strait.broker.protocol;

import dev.strait.broker.network.ResponseWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * Adapts a kafka-clients {@link Send} (size prefix, response header, body; file-backed records via
 * {@link FileChannel#transferTo}, zero-copy) to the network layer's {@link ResponseWriter}.
 */
final class SendWriter implements ResponseWriter {

    private final Send send;

    SendWriter(Send send) {
        this.send = send;
    }

    @Override
    public boolean writeTo(SocketChannel channel) throws IOException {
        send.writeTo(new SocketTransferableChannel(channel));
        return send.completed();
    }

    long size() {
        return send.size();
    }

    /** A plain non-blocking socket as Kafka's {@link TransferableChannel}. */
    private static final class SocketTransferableChannel implements TransferableChannel {
        private final SocketChannel socket;

        SocketTransferableChannel(SocketChannel socket) {
            this.socket = socket;
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
            return fileChannel.transferTo(position, count, socket);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return socket.write(srcs, offset, length);
        }

        @Override
        public long write(ByteBuffer[] srcs) throws IOException {
            return socket.write(srcs);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return socket.write(src);
        }

        @Override
        public boolean isOpen() {
            return socket.isOpen();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
