package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bad input on raw sockets: each bad connection is closed or answered, a healthy connection opened before it keeps
 * working, and a normal produce/consume round trip still works afterwards.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WireErrorsIT {

    private static final int SOCKET_TIMEOUT_MS = 5000;
    private static final short API_VERSIONS = 18;
    private static final short UNSUPPORTED_VERSION = 35;
    private static EmbeddedCluster cluster;
    private static int roundTrips;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.builder()
                .nodes(1)
                .brokerConfig("socket.request.max.bytes", "1048576")
                .start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @AfterEach
    void normalTrafficStillWorks() throws Exception {
        String topic = "after-bad-input-" + (roundTrips++);
        try (KafkaProducer<String, String> producer =
                KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
            producer.send(new ProducerRecord<>(topic, 0, "k", "still-alive")).get(20, TimeUnit.SECONDS);
        }
        List<ConsumerRecord<String, String>> records =
                KafkaClientsRoundTripIT.consumeFromStart(cluster.bootstrapServers(), new TopicPartition(topic, 0), 1);
        assertThat(records).extracting(ConsumerRecord::value).containsExactly("still-alive");
    }

    @Test
    void garbageClosesOnlyThatConnection() throws Exception {
        try (Socket healthy = connect();
                Socket bad = connect()) {
            byte[] garbage = new byte[64];
            new Random(42).nextBytes(garbage);
            garbage[0] = 0x7f; // api key 0x7fxx: unknown
            writeFrame(bad, garbage);
            assertClosed(bad);
            assertThat(apiVersionsErrorCode(healthy, (short) 0, 7)).isZero();
        }
    }

    @Test
    void oversizedFrameSizeClosesTheConnection() throws Exception {
        try (Socket bad = connect()) {
            new DataOutputStream(bad.getOutputStream()).writeInt(200 * 1024 * 1024);
            assertClosed(bad);
        }
        try (Socket negative = connect()) {
            new DataOutputStream(negative.getOutputStream()).writeInt(-5);
            assertClosed(negative);
        }
    }

    @Test
    void truncatedFramesCloseTheConnection() throws Exception {
        // The size prefix promises more than arrives before the client half-closes.
        try (Socket bad = connect()) {
            DataOutputStream out = new DataOutputStream(bad.getOutputStream());
            out.writeInt(100);
            out.write(header((short) 3, (short) 12, 1));
            out.flush();
            bad.shutdownOutput();
            assertClosed(bad);
        }
        // A complete frame whose Metadata v12 body is cut short.
        try (Socket bad = connect()) {
            ByteBuffer frame = ByteBuffer.allocate(64);
            frame.put(header((short) 3, (short) 12, 2)).put((byte) 0); // flexible header needs tagged fields
            frame.put((byte) 5); // compact array of 4 topics, then nothing
            writeFrame(bad, java.util.Arrays.copyOf(frame.array(), frame.position()));
            assertClosed(bad);
        }
    }

    @Test
    void unknownApiKeyClosesTheConnection() throws Exception {
        try (Socket bad = connect()) {
            writeFrame(bad, header((short) 4242, (short) 0, 3));
            assertClosed(bad);
        }
    }

    @Test
    void anUnsupportedVersionOfAKnownApiClosesTheConnection() throws Exception {
        try (Socket bad = connect()) {
            byte[] header = header((short) 3, (short) 99, 4); // Metadata v99
            writeFrame(bad, java.util.Arrays.copyOf(header, header.length + 1));
            assertClosed(bad);
        }
    }

    @Test
    void unknownApiVersionsVersionIsAnsweredWithUnsupportedVersion() throws Exception {
        try (Socket socket = connect()) {
            assertThat(apiVersionsErrorCode(socket, (short) 99, 11)).isEqualTo(UNSUPPORTED_VERSION);
            // and the connection stays usable
            assertThat(apiVersionsErrorCode(socket, (short) 0, 12)).isZero();
        }
    }

    private static Socket connect() throws IOException {
        String[] hostPort = cluster.bootstrapServers().split(":");
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), SOCKET_TIMEOUT_MS);
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        return socket;
    }

    /** Request header v1: api key, version, correlation id, client id. */
    private static byte[] header(short apiKey, short version, int correlationId) {
        byte[] clientId = "wire-test".getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer = ByteBuffer.allocate(10 + clientId.length);
        buffer.putShort(apiKey)
                .putShort(version)
                .putInt(correlationId)
                .putShort((short) clientId.length)
                .put(clientId);
        return buffer.array();
    }

    private static void writeFrame(Socket socket, byte[] payload) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(payload.length);
        out.write(payload);
        out.flush();
    }

    /**
     * Sends ApiVersions with an empty body (valid for v0-v2; for an unknown version the broker parses it as v0 and
     * answers v0), and returns the error code of the v0-header response.
     */
    private static short apiVersionsErrorCode(Socket socket, short version, int correlationId) throws IOException {
        byte[] header = header(API_VERSIONS, version, correlationId);
        // v3+ use the flexible request header v2: an empty tagged-field section follows the client id
        writeFrame(socket, version >= 3 ? java.util.Arrays.copyOf(header, header.length + 1) : header);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int size = in.readInt();
        assertThat(size).isBetween(6, 1 << 20);
        byte[] response = new byte[size];
        in.readFully(response);
        ByteBuffer buffer = ByteBuffer.wrap(response);
        assertThat(buffer.getInt()).isEqualTo(correlationId);
        return buffer.getShort();
    }

    private static void assertClosed(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            assertThat(in.read()).isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("connection was not closed within " + SOCKET_TIMEOUT_MS + " ms", e);
        } catch (IOException e) {
            // connection reset: closed as well
        }
    }
}
