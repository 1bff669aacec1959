package dev.strait.broker.protocol;

import dev.strait.broker.network.ResponseWriter;
import dev.strait.broker.network.TransportChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * Adapts a kafka-clients {@link Send} (size prefix, response header, body; file-backed records via
 * {@link FileChannel#transferTo}, zero-copy over plain TCP) to the network layer's {@link ResponseWriter}.
 */
final class SendWriter implements ResponseWriter {

    private final Send send;

    SendWriter(Send send) {
        this.send = send;
    }

    @Override
    public boolean writeTo(TransportChannel channel) throws IOException {
        send.writeTo(new TransportTransferableChannel(channel));
        return send.completed(); // TLS records still pending are flushed by the processor
    }

    @Override
    public long size() {
        return send.size();
    }

    /** A connection's transport (plain TCP or TLS) as Kafka's {@link TransferableChannel}. */
    private static final class TransportTransferableChannel implements TransferableChannel {
        private final TransportChannel socket;

        TransportTransferableChannel(TransportChannel socket) {
            this.socket = socket;
        }

        @Override
        public boolean hasPendingWrites() {
            return socket.hasPendingWrites();
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
            return socket.transferFrom(fileChannel, position, count);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return socket.write(srcs, offset, length);
        }

        @Override
        public long write(ByteBuffer[] srcs) throws IOException {
            return socket.write(srcs, 0, srcs.length);
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
        public void close() {
            // the processor owns the connection and closes it
        }
    }
}
