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
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * <p>Threading: all connection state is confined to this thread; other threads only add to the new-connection and
 * response queues and wake the selector.
 */
final class Processor implements Runnable {

    private static final Logger LOGGER = LoggerFactory.getLogger(Processor.class);
    private static final long SELECT_TIMEOUT_MS = 300;
    private static final long RETRY_QUEUE_TIMEOUT_MS = 5;

    record Response(String connectionId, ResponseWriter writer, boolean close) {
    }

    private final int id;
    private final String listenerName;
    private final int maxRequestBytes;
    private final BlockingQueue<NetworkRequest> requestQueue;
    private final Selector selector;
    private final Queue<SocketChannel> newConnections = new ConcurrentLinkedQueue<>();
    private final Queue<Response> responses = new ConcurrentLinkedQueue<>();
    private final Queue<NetworkRequest> waitingForQueue = new ArrayDeque<>();
    private final Map<String, Connection> connections = new HashMap<>();
    private volatile boolean running = true;
    private long connectionCounter;

    Processor(int id, String listenerName, int maxRequestBytes, BlockingQueue<NetworkRequest> requestQueue)
            throws IOException {
        this.id = id;
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
                selector.select(timeoutMs);
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    handleKey(key);
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            if (running) {
                LOGGER.error("processor {} of listener {} failed", id, listenerName, e);
            }
        } finally {
            closeAll();
        }
    }

    private void handleKey(SelectionKey key) {
        Connection connection = (Connection) key.attachment();
        try {
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
                Connection connection = new Connection(connectionId, channel, remote);
                connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
                connections.put(connectionId, connection);
            } catch (IOException e) {
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
            if (response.close()) {
                close(connection);
            } else if (response.writer() == null) {
                unmute(connection);
            } else {
                connection.writer = response.writer();
                try {
                    write(connection);
                } catch (IOException e) {
                    LOGGER.debug("connection {} failed while writing: {}", connection.id, e.toString());
                    close(connection);
                } catch (RuntimeException e) {
                    LOGGER.error("closing connection {} after an unexpected failure while writing", connection.id,
                            e);
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

    private void read(Connection connection) throws IOException {
        if (connection.sizeBuffer.hasRemaining()) {
            if (connection.channel.read(connection.sizeBuffer) < 0) {
                if (connection.sizeBuffer.position() > 0) {
                    LOGGER.warn("closing connection {}: peer closed inside a size prefix", connection.id);
                }
                close(connection);
                return;
            }
            if (connection.sizeBuffer.hasRemaining()) {
                return;
            }
            int size = connection.sizeBuffer.getInt(0);
            if (size < 0 || size > maxRequestBytes) {
                LOGGER.warn("closing connection {}: request size {} is outside [0, {}] (socket.request.max.bytes)",
                        connection.id, size, maxRequestBytes);
                close(connection);
                return;
            }
            connection.payload = ByteBuffer.allocate(size);
        }
        if (connection.payload.hasRemaining() && connection.channel.read(connection.payload) < 0) {
            LOGGER.warn("closing connection {}: peer closed after {} of {} bytes of a request", connection.id,
                    connection.payload.position(), connection.payload.capacity());
            close(connection);
            return;
        }
        if (!connection.payload.hasRemaining()) {
            ByteBuffer frame = connection.payload.flip();
            connection.payload = null;
            connection.sizeBuffer.clear();
            mute(connection);
            NetworkRequest request = new NetworkRequest(this, connection.id, connection.remote, frame);
            if (!waitingForQueue.isEmpty() || !requestQueue.offer(request)) {
                waitingForQueue.add(request);
            }
        }
    }

    private void write(Connection connection) throws IOException {
        if (connection.writer == null) {
            return;
        }
        if (connection.writer.writeTo(connection.channel)) {
            connection.writer = null;
            unmute(connection);
        } else {
            connection.key.interestOps(SelectionKey.OP_WRITE);
        }
    }

    private static void mute(Connection connection) {
        connection.key.interestOps(0);
    }

    private static void unmute(Connection connection) {
        if (connection.key.isValid()) {
            connection.key.interestOps(SelectionKey.OP_READ);
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
        closeQuietly(connection.channel);
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
        final SocketChannel channel;
        final InetSocketAddress remote;
        final ByteBuffer sizeBuffer = ByteBuffer.allocate(4);
        SelectionKey key;
        ByteBuffer payload;
        ResponseWriter writer;

        Connection(String id, SocketChannel channel, InetSocketAddress remote) {
            this.id = id;
            this.channel = channel;
            this.remote = remote;
        }
    }
}
