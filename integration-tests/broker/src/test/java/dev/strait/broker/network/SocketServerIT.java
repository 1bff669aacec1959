package dev.strait.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The reactor on its own, with an echo dispatcher: ordering, backpressure, no-response and close. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SocketServerIT {

    private static final int SOCKET_TIMEOUT_MS = 5000;

    /** Echoes the payload back as a size-prefixed frame. */
    private static ResponseWriter echo(ByteBuffer payload) {
        ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
        frame.putInt(payload.remaining()).put(payload.duplicate()).flip();
        return new ResponseWriter() {
            @Override
            public boolean writeTo(TransportChannel channel) throws IOException {
                channel.write(frame);
                return !frame.hasRemaining();
            }
        };
    }

    private static SocketServer start(int queueSize, int ioThreads, RequestDispatcher dispatcher) throws IOException {
        SocketServer server = new SocketServer(
                new SocketServer.Config("TEST", "127.0.0.1", 0, 2, ioThreads, queueSize, 1024), dispatcher);
        server.start();
        return server;
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderOneAtATimePerConnection() throws Exception {
        // Given: four io threads; the first request's handler holds on for a while, the window in which a server
        // that did not mute the connection would hand the next request to another io thread
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        CountDownLatch secondDispatch = new CountDownLatch(2);
        try (SocketServer server = start(10, 4, request -> {
                    maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    secondDispatch.countDown();
                    if (request.payload().get(0) == 0) {
                        await(secondDispatch, 300);
                    }
                    inFlight.decrementAndGet();
                    request.respond(echo(request.payload()));
                });
                Socket socket = connect(server)) {
            // When
            for (int i = 0; i < 5; i++) {
                writeFrame(socket, new byte[] {(byte) i});
            }
            // Then
            for (int i = 0; i < 5; i++) {
                assertThat(readFrame(socket)).containsExactly((byte) i);
            }
            assertThat(maxInFlight.get())
                    .as("requests of one connection handled at once")
                    .isEqualTo(1);
        }
    }

    @Test
    void aFullRequestQueueStopsReadingButDropsNothing() throws Exception {
        // Given: one handler blocked, a queue of one
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger dispatched = new AtomicInteger();
        try (SocketServer server = start(1, 1, request -> {
            dispatched.incrementAndGet();
            await(release);
            request.respond(echo(request.payload()));
        })) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    Socket socket = connect(server);
                    sockets.add(socket);
                    writeFrame(socket, new byte[] {(byte) i, 42});
                }
                // the one io thread is held, so the queue fills with one request and the other frames stay unread
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while ((dispatched.get() < 1 || server.queuedRequests() < 1) && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(server.queuedRequests()).as("requests queued").isEqualTo(1);
                assertThat(dispatched.get()).isEqualTo(1);

                // When
                release.countDown();

                // Then
                for (int i = 0; i < sockets.size(); i++) {
                    assertThat(readFrame(sockets.get(i))).containsExactly((byte) i, (byte) 42);
                }
                assertThat(dispatched.get()).isEqualTo(6);
            } finally {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void noResponseUnmutesAndCloseConnectionCloses() throws Exception {
        try (SocketServer server = start(10, 2, request -> {
                    byte kind = request.payload().get(0);
                    if (kind == 0) {
                        request.noResponse();
                    } else if (kind == 1) {
                        request.respond(echo(request.payload()));
                    } else {
                        request.closeConnection();
                    }
                });
                Socket socket = connect(server)) {
            writeFrame(socket, new byte[] {0});
            writeFrame(socket, new byte[] {1, 7});
            assertThat(readFrame(socket)).containsExactly((byte) 1, (byte) 7);
            writeFrame(socket, new byte[] {2});
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void framesAboveTheLimitCloseTheConnection() throws Exception {
        try (SocketServer server = start(10, 1, request -> request.respond(echo(request.payload())));
                Socket socket = connect(server)) {
            writeFrame(socket, new byte[1025]);
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
    }

    private static Socket connect(SocketServer server) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.boundPort()), SOCKET_TIMEOUT_MS);
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        return socket;
    }

    private static void writeFrame(Socket socket, byte[] payload) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(payload.length);
        out.write(payload);
        out.flush();
    }

    private static byte[] readFrame(Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return frame;
    }

    private static void await(CountDownLatch latch) {
        await(latch, 10_000);
    }

    private static void await(CountDownLatch latch, long millis) {
        try {
            latch.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
