package dev.strait.broker.network;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One network thread with its own {@link Selector}: reads whole size-prefixed frames from its connections, puts
 * them on the shared request queue, and writes responses back.
 *
 * <p>Ordering: after a frame is read the connection is muted (no OP_READ) until its response has been written, or
 * the handler said there is none; so there is at most one request per connection in flight, and responses keep
 * request order. Backpressure: when the request queue is full, read frames wait here (their connections stay
 * muted) and are offered again on every loop; nothing is dropped.
 *
 * <p>Transport: each connection reads and writes through its {@link Transport}, plain TCP or TLS. A TLS
 * connection first completes its handshake (no frame is read before); a failed handshake closes that connection
 * only. TLS may hold decrypted bytes that no readiness event announces, so a connection unmuted with buffered
 * input is read again on the next loop without waiting for the selector.
 *
 * <p>Threading: all connection state is confined to this thread; other threads only add to the new-connection and
 * response queues and wake the selector.
 */
final class Processor implements Runnable {

    private static final Logger LOGGER = LoggerFactory.getLogger(Processor.class);
    private static final long SELECT_TIMEOUT_MS = 300;
    private static final long RETRY_QUEUE_TIMEOUT_MS = 5;

    /** {@code writer} null: nothing to send (the connection is unmuted, or closed). */
    record Response(String connectionId, @Nullable ResponseWriter writer, boolean close) {}

    private final int id;
    private final String listenerName;
    private final int maxRequestBytes;
    private final BlockingQueue<NetworkRequest> requestQueue;
    private final Selector selector;
    private final Queue<SocketChannel> newConnections = new ConcurrentLinkedQueue<>();
    private final Queue<Response> responses = new ConcurrentLinkedQueue<>();
    private final Queue<NetworkRequest> waitingForQueue = new ArrayDeque<>();
    private final Map<String, Connection> connections = new HashMap<>();
    private final Set<Connection> bufferedReads = new LinkedHashSet<>();
    private final @Nullable TlsEngineFactory tls;
    private final RequestObserver observer;
    private volatile boolean running = true;
    private long connectionCounter;

    /** @param tls the TLS listener's engine factory, or null for plain TCP */
    Processor(
            int id,
            String listenerName,
            int maxRequestBytes,
            BlockingQueue<NetworkRequest> requestQueue,
            @Nullable TlsEngineFactory tls,
            RequestObserver observer)
            throws IOException {
        this.id = id;
        this.observer = observer;
        this.tls = tls;
        this.listenerName = listenerName;
        this.maxRequestBytes = maxRequestBytes;
        this.requestQueue = requestQueue;
        this.selector = Selector.open();
    }

    void accept(SocketChannel channel) {
        newConnections.add(channel);
        selector.wakeup();
    }

    void enqueueResponse(Response response) {
        responses.add(response);
        selector.wakeup();
    }

    void shutdown() {
        running = false;
        selector.wakeup();
    }

    @Override
    public void run() {
        try {
            while (running) {
                registerNewConnections();
                processResponses();
                offerWaitingRequests();
                long timeoutMs = waitingForQueue.isEmpty() ? SELECT_TIMEOUT_MS : RETRY_QUEUE_TIMEOUT_MS;
                if (bufferedReads.isEmpty()) {
                    selector.select(timeoutMs);
                } else {
                    selector.selectNow();
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    handleKey(key);
                }
                readBuffered();
            }
        } catch (IOException | ClosedSelectorException e) {
            if (running) {
                LOGGER.error("processor {} of listener {} failed", id, listenerName, e);
            }
        } finally {
            closeAll();
        }
    }

    private void readBuffered() {
        if (bufferedReads.isEmpty()) {
            return;
        }
        Connection[] ready = bufferedReads.toArray(new Connection[0]);
        bufferedReads.clear();
        for (Connection connection : ready) {
            if (connections.get(connection.id) != connection
                    || !connection.key.isValid()
                    || connection.key.interestOps() != SelectionKey.OP_READ) {
                continue;
            }
            try {
                read(connection);
            } catch (IOException e) {
                LOGGER.debug("connection {} failed: {}", connection.id, e.toString());
                close(connection);
            } catch (RuntimeException e) {
                LOGGER.error("closing connection {} after an unexpected failure", connection.id, e);
                close(connection);
            }
        }
    }

    private void handleKey(SelectionKey key) {
        Connection connection = (Connection) key.attachment();
        try {
            if (!connection.ready) {
                handshake(connection);
                return;
            }
            if (key.isValid() && key.isReadable()) {
                read(connection);
            }
            if (key.isValid() && key.isWritable()) {
                write(connection);
            }
        } catch (IOException e) {
            LOGGER.debug("connection {} failed: {}", connection.id, e.toString());
            close(connection);
        } catch (RuntimeException e) {
            // A bug in a response writer or a cancelled key: lose this connection, not the processor.
            LOGGER.error("closing connection {} after an unexpected failure", connection.id, e);
            close(connection);
        }
    }

    private void registerNewConnections() {
        SocketChannel channel;
        while ((channel = newConnections.poll()) != null) {
            try {
                channel.configureBlocking(false);
                channel.socket().setTcpNoDelay(true);
                InetSocketAddress remote = (InetSocketAddress) channel.getRemoteAddress();
                String connectionId = listenerName + "-" + id + "-" + (connectionCounter++) + "-" + remote;
                Transport transport = tls == null
                        ? new PlaintextTransport(channel)
                        : new TlsTransport(channel, tls.createServerEngine(remote.getHostString(), remote.getPort()));
                Connection connection =
                        new Connection(new ConnectionContext(connectionId, listenerName, remote), channel, transport);
                connection.ready = tls == null;
                connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
                connections.put(connectionId, connection);
            } catch (IOException | RuntimeException e) {
                LOGGER.warn("could not register a new connection: {}", e.toString());
                closeQuietly(channel);
            }
        }
    }

    private void processResponses() {
        Response response;
        while ((response = responses.poll()) != null) {
            Connection connection = connections.get(response.connectionId());
            if (connection == null) {
                if (response.writer() != null) {
                    response.writer().release();
                }
                continue;
            }
            if (response.close() && response.writer() == null) {
                close(connection);
            } else if (response.writer() == null) {
                unmute(connection);
            } else {
                connection.writer = response.writer();
                connection.closeAfterWrite = response.close();
                try {
                    write(connection);
                } catch (IOException e) {
                    LOGGER.debug("connection {} failed while writing: {}", connection.id, e.toString());
                    close(connection);
                } catch (RuntimeException e) {
                    LOGGER.error("closing connection {} after an unexpected failure while writing", connection.id, e);
                    close(connection);
                }
            }
        }
    }

    private void offerWaitingRequests() {
        while (!waitingForQueue.isEmpty() && requestQueue.offer(waitingForQueue.peek())) {
            waitingForQueue.poll();
        }
    }

    private void handshake(Connection connection) throws IOException {
        boolean done;
        try {
            done = connection.transport.handshake();
        } catch (IOException e) {
            // A peer speaking plaintext or garbage to a TLS port, or a certificate this listener does not trust.
            LOGGER.info("closing connection {}: TLS handshake failed: {}", connection.id, e.getMessage());
            close(connection);
            return;
        }
        if (!done) {
            connection.key.interestOps(connection.transport.handshakeInterest());
            return;
        }
        connection.ready = true;
        connection.context.tlsSession(connection.transport.tlsSession());
        connection.key.interestOps(SelectionKey.OP_READ);
        if (connection.transport.hasBufferedInput()) {
            read(connection); // a client's first request may have come with the end of its handshake
        }
    }

    private void read(Connection connection) throws IOException {
        while (connection.key.isValid() && connection.key.interestOps() == SelectionKey.OP_READ) {
            int progress = readOnce(connection);
            if (progress <= 0) {
                return;
            }
        }
    }

    /** @return bytes read, 0 if no progress now, -1 if the connection was closed or a frame completed */
    private int readOnce(Connection connection) throws IOException {
        if (connection.sizeBuffer.hasRemaining()) {
            int n = connection.transport.read(connection.sizeBuffer);
            if (n < 0) {
                if (connection.sizeBuffer.position() > 0) {
                    LOGGER.warn("closing connection {}: peer closed inside a size prefix", connection.id);
                }
                close(connection);
                return -1;
            }
            if (connection.sizeBuffer.hasRemaining()) {
                return n;
            }
            int size = connection.sizeBuffer.getInt(0);
            if (size < 0 || size > maxRequestBytes) {
                LOGGER.warn(
                        "closing connection {}: request size {} is outside [0, {}] (socket.request.max.bytes)",
                        connection.id,
                        size,
                        maxRequestBytes);
                close(connection);
                return -1;
            }
            connection.payload = ByteBuffer.allocate(size);
        }
        // Allocated above once the size prefix was read, now or in an earlier call.
        ByteBuffer payload = Objects.requireNonNull(connection.payload, "the frame of a read size prefix");
        int n = 0;
        if (payload.hasRemaining()) {
            n = connection.transport.read(payload);
            if (n < 0) {
                LOGGER.warn(
                        "closing connection {}: peer closed after {} of {} bytes of a request",
                        connection.id,
                        payload.position(),
                        payload.capacity());
                close(connection);
                return -1;
            }
        }
        if (!payload.hasRemaining()) {
            ByteBuffer frame = payload.flip();
            connection.payload = null;
            connection.sizeBuffer.clear();
            mute(connection);
            NetworkRequest request = new NetworkRequest(this, connection.context, frame, observer);
            if (!waitingForQueue.isEmpty() || !requestQueue.offer(request)) {
                waitingForQueue.add(request);
            }
            return -1;
        }
        return n;
    }

    private void write(Connection connection) throws IOException {
        if (connection.writer != null) {
            if (!connection.writer.writeTo(connection.transport)) {
                connection.key.interestOps(SelectionKey.OP_WRITE);
                return;
            }
            connection.writer = null;
        }
        if (!connection.transport.flush()) {
            connection.key.interestOps(SelectionKey.OP_WRITE);
            return;
        }
        if (connection.closeAfterWrite) {
            close(connection);
            return;
        }
        if (connection.key.interestOps() != SelectionKey.OP_READ) {
            unmute(connection);
        }
    }

    private static void mute(Connection connection) {
        connection.key.interestOps(0);
    }

    private void unmute(Connection connection) {
        if (connection.key.isValid()) {
            connection.key.interestOps(SelectionKey.OP_READ);
            if (connection.transport.hasBufferedInput()) {
                bufferedReads.add(connection);
            }
        }
    }

    private void close(Connection connection) {
        connections.remove(connection.id);
        if (connection.key != null) {
            connection.key.cancel();
        }
        if (connection.writer != null) {
            connection.writer.release();
            connection.writer = null;
        }
        bufferedReads.remove(connection);
        connection.transport.close();
    }

    private void closeAll() {
        for (Connection connection : connections.values().toArray(new Connection[0])) {
            close(connection);
        }
        SocketChannel channel;
        while ((channel = newConnections.poll()) != null) {
            closeQuietly(channel);
        }
        try {
            selector.close();
        } catch (IOException e) {
            LOGGER.debug("closing selector: {}", e.toString());
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            LOGGER.debug("closing channel: {}", e.toString());
        }
    }

    private static final class Connection {
        final String id;
        final ConnectionContext context;
        final SocketChannel channel;
        final Transport transport;
        final ByteBuffer sizeBuffer = ByteBuffer.allocate(4);
        // Registered right after construction: the key's attachment is this connection.
        @SuppressWarnings("NullAway.Init")
        SelectionKey key;

        boolean ready;
        boolean closeAfterWrite;
        /** The frame being read, once its size is known; null between frames. */
        @Nullable
        ByteBuffer payload;
        /** The response being written; null when none is. */
        @Nullable
        ResponseWriter writer;

        Connection(ConnectionContext context, SocketChannel channel, Transport transport) {
            this.id = context.id();
            this.context = context;
            this.channel = channel;
            this.transport = transport;
        }
    }
}
