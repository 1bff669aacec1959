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
class SocketServerTest {

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
                new SocketServer.Settings("TEST", "127.0.0.1", 0, 2, ioThreads, queueSize, 1024), dispatcher);
        server.start();
        return server;
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderEvenWhenHandledOutOfOrder() throws Exception {
        // Given: handlers that answer later requests faster (the connection is muted, so they cannot overtake)
        AtomicInteger handled = new AtomicInteger();
        try (SocketServer server = start(10, 4, request -> {
            int delayMs = Math.max(0, 50 - 10 * handled.getAndIncrement());
            sleep(delayMs);
            request.respond(echo(request.payload()));
        }); Socket socket = connect(server)) {
            // When
            for (int i = 0; i < 5; i++) {
                writeFrame(socket, new byte[] {(byte) i});
            }
            // Then
            for (int i = 0; i < 5; i++) {
                assertThat(readFrame(socket)).containsExactly((byte) i);
            }
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
                Thread.sleep(300);
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
        }); Socket socket = connect(server)) {
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

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
