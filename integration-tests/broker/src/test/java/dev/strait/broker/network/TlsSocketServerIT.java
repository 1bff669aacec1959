package dev.strait.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.security.TestPki;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyStore;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reactor with a TLS listener (the JDK's SSLEngine, certificates from the test CA): frames of every size
 * round-trip, files go out through the TLS buffer, mutual authentication exposes the client's certificate, and a
 * client speaking plaintext or garbage, or without a certificate where one is required, loses only its own
 * connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsSocketServerIT {

    private static final int SOCKET_TIMEOUT_MS = 10_000;
    private static SSLContext serverContext;
    private static SSLContext clientWithKey;
    private static SSLContext clientWithoutKey;

    @TempDir
    Path dir;

    @BeforeAll
    static void pki() throws Exception {
        TestPki pki = TestPki.get();
        serverContext = context(pki.keyStore("broker"), pki.trustStore());
        clientWithKey = context(pki.keyStore("client-app"), pki.trustStore());
        clientWithoutKey = context(null, pki.trustStore());
    }

    private static SSLContext context(Path keyStore, Path trustStore) throws Exception {
        KeyManagerFactory kmf = null;
        if (keyStore != null) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = new FileInputStream(keyStore.toFile())) {
                ks.load(in, TestPki.PASSWORD.toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, TestPki.PASSWORD.toCharArray());
        }
        KeyStore ts = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(trustStore.toFile())) {
            ts.load(in, TestPki.PASSWORD.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ts);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    private static TlsEngineFactory engines(boolean needClientAuth) {
        return (host, port) -> {
            SSLEngine engine = serverContext.createSSLEngine(host, port);
            engine.setUseClientMode(false);
            if (needClientAuth) {
                engine.setNeedClientAuth(true);
            }
            return engine;
        };
    }

    /** Echoes each frame; a frame "file" is answered with the test file's bytes through transferFrom. */
    private static SocketServer start(TlsEngineFactory tls, RequestDispatcher dispatcher) throws IOException {
        SocketServer server = new SocketServer(
                new SocketServer.Config("SSL", "127.0.0.1", 0, 2, 2, 10, 8 * 1024 * 1024, tls), dispatcher);
        server.start();
        return server;
    }

    private static ResponseWriter echo(ByteBuffer payload) {
        ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
        frame.putInt(payload.remaining()).put(payload.duplicate()).flip();
        return channel -> {
            channel.write(frame);
            return !frame.hasRemaining();
        };
    }

    private static SSLSocket tlsClient(SSLContext context, SocketServer server) throws IOException {
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.boundPort()), SOCKET_TIMEOUT_MS);
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        socket.startHandshake();
        return socket;
    }

    private static byte[] roundTrip(Socket socket, byte[] frame) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(frame.length);
        out.write(frame);
        out.flush();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        return answer;
    }

    @Test
    void framesOfEverySizeRoundTripOverTls() throws Exception {
        Random random = new Random(7);
        try (SocketServer server = start(engines(false), request -> request.respond(echo(request.payload())));
                SSLSocket socket = tlsClient(clientWithoutKey, server)) {
            for (int size : new int[] {0, 1, 100, 16 * 1024 - 5, 16 * 1024 + 1, 300_000, 3_000_000}) {
                byte[] frame = new byte[size];
                random.nextBytes(frame);
                assertThat(roundTrip(socket, frame))
                        .as("frame of %d bytes", size)
                        .isEqualTo(frame);
            }
            // Pipelined: several frames in one burst, answered in order.
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            for (int i = 0; i < 20; i++) {
                out.writeInt(1);
                out.write(i);
            }
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int i = 0; i < 20; i++) {
                assertThat(in.readInt()).isEqualTo(1);
                assertThat(in.read()).isEqualTo(i);
            }
        }
    }

    @Test
    void aFileGoesOutThroughTheTlsBuffer() throws Exception {
        byte[] content = new byte[1_000_003];
        new Random(3).nextBytes(content);
        Path file = dir.resolve("segment");
        Files.write(file, content);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
                SocketServer server = start(
                        engines(false),
                        request -> request.respond(new ResponseWriter() {
                            private final ByteBuffer size =
                                    ByteBuffer.allocate(4).putInt(0, content.length - 7);
                            private long position = 7; // not from the start: transferFrom honours the position

                            @Override
                            public boolean writeTo(TransportChannel transport) throws IOException {
                                if (size.hasRemaining()) {
                                    transport.write(size);
                                    if (size.hasRemaining()) {
                                        return false;
                                    }
                                }
                                while (position < content.length) {
                                    long n = transport.transferFrom(channel, position, content.length - position);
                                    if (n == 0) {
                                        return false;
                                    }
                                    position += n;
                                }
                                return true;
                            }
                        }));
                SSLSocket socket = tlsClient(clientWithoutKey, server)) {
            byte[] answer = roundTrip(socket, new byte[] {1});
            assertThat(answer).isEqualTo(java.util.Arrays.copyOfRange(content, 7, content.length));
        }
    }

    @Test
    void mutualTlsRequiresAClientCertificateAndExposesItsSubject() throws Exception {
        ConcurrentLinkedQueue<String> peers = new ConcurrentLinkedQueue<>();
        try (SocketServer server = start(engines(true), request -> {
            SSLSession session = request.connection().tlsSession().orElseThrow();
            try {
                peers.add(session.getPeerPrincipal().getName());
            } catch (IOException e) {
                peers.add("none: " + e);
            }
            request.respond(echo(request.payload()));
        })) {
            try (SSLSocket socket = tlsClient(clientWithKey, server)) {
                assertThat(roundTrip(socket, "hi".getBytes(StandardCharsets.UTF_8)))
                        .asString()
                        .isEqualTo("hi");
            }
            assertThat(peers).containsExactly("CN=client-app,O=Strait Test");

            // Without a certificate: the handshake, or the first read after it (TLS 1.3), fails.
            assertThatThrownBy(() -> {
                        try (SSLSocket socket = tlsClient(clientWithoutKey, server)) {
                            roundTrip(socket, "hi".getBytes(StandardCharsets.UTF_8));
                        }
                    })
                    .isInstanceOf(IOException.class);
            assertThat(peers).hasSize(1);
        }
    }

    @Test
    void plaintextOrGarbageToTheTlsPortClosesOnlyThatConnection() throws Exception {
        try (SocketServer server = start(engines(false), request -> request.respond(echo(request.payload())));
                SSLSocket good = tlsClient(clientWithoutKey, server)) {
            assertThat(roundTrip(good, new byte[] {1})).containsExactly(1);

            // A Kafka client without TLS: an ApiVersions-like plaintext frame
            try (Socket plain = new Socket()) {
                plain.connect(new InetSocketAddress("127.0.0.1", server.boundPort()), SOCKET_TIMEOUT_MS);
                plain.setSoTimeout(SOCKET_TIMEOUT_MS);
                DataOutputStream out = new DataOutputStream(plain.getOutputStream());
                out.writeInt(10);
                out.write(new byte[] {0, 18, 0, 3, 0, 0, 0, 1, 0, 0});
                out.flush();
                assertClosedByServer(plain);
            }
            // Garbage that looks like no protocol at all, larger than a TLS record
            try (Socket garbage = new Socket()) {
                garbage.connect(new InetSocketAddress("127.0.0.1", server.boundPort()), SOCKET_TIMEOUT_MS);
                garbage.setSoTimeout(SOCKET_TIMEOUT_MS);
                byte[] noise = new byte[40_000];
                new Random(11).nextBytes(noise);
                noise[0] = 0x16; // a TLS handshake record type, with nonsense after it
                try {
                    garbage.getOutputStream().write(noise);
                    garbage.getOutputStream().flush();
                } catch (IOException e) {
                    // the server may close before all of it is written
                }
                assertClosedByServer(garbage);
            }
            // A client that connects and goes away in the middle of its handshake
            Socket half = new Socket("127.0.0.1", server.boundPort());
            half.getOutputStream().write(new byte[] {0x16, 3, 3});
            half.close();

            // The TLS client connected before is still served, and new TLS clients are too.
            assertThat(roundTrip(good, new byte[] {2, 3})).containsExactly(2, 3);
            try (SSLSocket another = tlsClient(clientWithoutKey, server)) {
                assertThat(roundTrip(another, new byte[] {4})).containsExactly(4);
            }
        }
    }

    @Test
    void aClientsCloseNotifyEndsItsConnection() throws Exception {
        try (SocketServer server = start(engines(false), request -> request.respond(echo(request.payload())))) {
            SSLSocket socket = tlsClient(clientWithoutKey, server);
            assertThat(roundTrip(socket, new byte[] {9})).containsExactly(9);
            socket.shutdownOutput(); // sends close_notify
            // The server answers with its own close_notify and closes: the client reads the end of stream.
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
            socket.close();
        } catch (SSLException e) {
            throw new AssertionError("expected an orderly TLS close", e);
        }
    }

    private static void assertClosedByServer(Socket socket) {
        assertThatThrownBy(() -> {
                    InputStream in = socket.getInputStream();
                    byte[] buffer = new byte[1024];
                    while (true) {
                        int n = in.read(buffer);
                        if (n < 0) {
                            throw new java.io.EOFException("closed");
                        }
                        // a TLS alert may come first; keep reading to the end of the stream
                    }
                })
                .isInstanceOf(IOException.class)
                .isNotInstanceOf(java.net.SocketTimeoutException.class);
    }
}
