package dev.strait.broker.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A blocking client on a plain socket for requests built with kafka-clients' classes, one at a time or sent
 * ahead and read later, for schedules that need exact control over what a producer sends and when.
 */
final class RawKafkaClient implements AutoCloseable {

    private final Socket socket = new Socket();
    private int correlationId;

    RawKafkaClient(String host, int port) throws IOException {
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(60_000);
    }

    /** Sends a request without waiting for its answer; pass the header to {@link #receive}. */
    RequestHeader send(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-client", correlationId++);
        ByteBuffer buffer = request.serializeWithHeader(header);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(buffer.remaining());
        out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
        out.flush();
        return header;
    }

    /** Reads the next response, which must answer {@code header}. */
    AbstractResponse receive(RequestHeader header) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
    }

    AbstractResponse call(AbstractRequest request) throws IOException {
        return receive(send(request));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
