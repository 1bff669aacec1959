package dev.strait.broker.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * One blocking Kafka-protocol connection from this broker to another: framing, one request in flight, the read
 * timeout, and SASL. The clients built on it (a follower's, a mirror fetcher's) choose what to send. Not
 * thread-safe.
 */
final class WireChannel implements AutoCloseable {
    private static final int MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

    private final String clientId;
    /** Who answers, for messages: "the leader", "source broker 3". */
    private final String peer;

    private final Socket socket;
    private final WritableByteChannel output;
    private final ReadableByteChannel timedInput;
    private int correlationId;

    private WireChannel(String clientId, String peer, Socket socket) throws IOException {
        this.clientId = clientId;
        this.peer = peer;
        this.socket = socket;
        this.output = Channels.newChannel(socket.getOutputStream());
        // Reads through the socket's stream honour SO_TIMEOUT; a channel's own reads would not.
        this.timedInput = Channels.newChannel(socket.getInputStream());
    }

    /** Connects with {@code timeoutMs} as connect and read timeout, secured and authenticated as {@code security} says. */
    static WireChannel connect(
            String clientId, String peer, String host, int port, int timeoutMs, InterBrokerSecurity security)
            throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            Socket secured = security.wrap(socket, host, port);
            WireChannel channel = new WireChannel(clientId, peer, secured);
            if (security.usesSasl()) {
                channel.authenticate(security);
            }
            return channel;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** SaslHandshake v1 and SaslAuthenticate with this broker's credentials, as a Kafka broker's client does. */
    private void authenticate(InterBrokerSecurity security) throws IOException {
        SaslHandshakeResponse handshake = (SaslHandshakeResponse) send(
                ApiKeys.SASL_HANDSHAKE,
                (short) 1,
                new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(security.mechanism()))
                        .build((short) 1));
        if (handshake.error() != Errors.NONE) {
            throw new IOException(peer + " refused SASL mechanism " + security.mechanism() + " (" + handshake.error()
                    + "; it enables " + handshake.data().mechanisms() + ")");
        }
        javax.security.sasl.SaslClient sasl = security.newSaslClient();
        try {
            byte[] token = sasl.hasInitialResponse() ? sasl.evaluateChallenge(new byte[0]) : new byte[0];
            while (true) {
                SaslAuthenticateResponse response = (SaslAuthenticateResponse) send(
                        ApiKeys.SASL_AUTHENTICATE,
                        (short) 2,
                        new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token))
                                .build((short) 2));
                if (response.error() != Errors.NONE) {
                    throw new IOException(peer + " refused this broker's credentials (" + security.mechanism() + "): "
                            + response.errorMessage());
                }
                if (sasl.isComplete()) {
                    return;
                }
                token = sasl.evaluateChallenge(response.saslAuthBytes());
                if (sasl.isComplete() && (token == null || token.length == 0)) {
                    return;
                }
            }
        } finally {
            sasl.dispose();
        }
    }

    /** Sends a request and waits for its response. */
    AbstractResponse send(ApiKeys key, short version, AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(key, version, clientId, ++correlationId);
        ByteBuffer payload = request.serializeWithHeader(header);
        ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
        frame.putInt(payload.remaining()).put(payload).flip();
        while (frame.hasRemaining()) {
            output.write(frame);
        }
        socket.getOutputStream().flush();
        ByteBuffer responseSize = ByteBuffer.allocate(4);
        readFully(responseSize);
        int length = responseSize.getInt(0);
        if (length < 0 || length > MAX_RESPONSE_BYTES) {
            throw new IOException("response of " + length + " bytes from " + peer);
        }
        ByteBuffer response = ByteBuffer.allocate(length);
        readFully(response);
        response.flip();
        try {
            return AbstractResponse.parseResponse(response, header);
        } catch (RuntimeException e) {
            throw new IOException("cannot parse the " + key + " response from " + peer, e);
        }
    }

    private void readFully(ByteBuffer buffer) throws IOException {
        try {
            while (buffer.hasRemaining()) {
                if (timedInput.read(buffer) < 0) {
                    throw new EOFException(peer + " closed the connection");
                }
            }
        } catch (SocketTimeoutException e) {
            throw new IOException("no response from " + peer + " within " + socket.getSoTimeout() + " ms", e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
    }

    @Override
    public String toString() {
        return clientId + " -> " + socket.getRemoteSocketAddress();
    }
}
