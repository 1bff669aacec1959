package dev.strait.broker.network;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's reactor model for one listener: an acceptor thread hands new connections round-robin to
 * {@code numNetworkThreads} {@link Processor}s; processors put whole frames on one bounded request queue;
 * {@code numIoThreads} handler threads take them and call the {@link RequestDispatcher}, which answers through
 * {@link NetworkRequest}.
 */
public final class SocketServer implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(SocketServer.class);
    private static final long SHUTDOWN_WAIT_MS = 5_000;

    /** Config, with Kafka's names in the comments. */
    public record Config(
            String listenerName,
            String host,
            int port,
            int numNetworkThreads /* num.network.threads */,
            int numIoThreads /* num.io.threads */,
            int queuedMaxRequests /* queued.max.requests */,
            int maxRequestBytes /* socket.request.max.bytes */,
            @Nullable TlsEngineFactory tls /* null: plain TCP; else every connection speaks TLS first */) {
        public Config {
            if (numNetworkThreads < 1 || numIoThreads < 1 || queuedMaxRequests < 1 || maxRequestBytes < 1) {
                throw new IllegalArgumentException("thread counts, queue size and request size must be >= 1");
            }
        }

        /** A plain-TCP listener. */
        public Config(
                String listenerName,
                String host,
                int port,
                int numNetworkThreads,
                int numIoThreads,
                int queuedMaxRequests,
                int maxRequestBytes) {
            this(listenerName, host, port, numNetworkThreads, numIoThreads, queuedMaxRequests, maxRequestBytes, null);
        }
    }

    private final Config settings;
    private final RequestDispatcher dispatcher;
    private final RequestObserver observer;
    private final BlockingQueue<NetworkRequest> requestQueue;
    private final List<Processor> processors = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    /** Null until {@link #bind}. */
    private @Nullable ServerSocketChannel serverChannel;

    private volatile boolean running;

    public SocketServer(Config settings, RequestDispatcher dispatcher) {
        this(settings, dispatcher, RequestObserver.NONE);
    }

    /** A listener whose completed requests {@code observer} is told of (the broker's request metrics). */
    public SocketServer(Config settings, RequestDispatcher dispatcher, RequestObserver observer) {
        this.settings = settings;
        this.dispatcher = dispatcher;
        this.observer = observer;
        this.requestQueue = new ArrayBlockingQueue<>(settings.queuedMaxRequests());
    }

    /** Binds the listener socket without accepting yet, so that {@link #boundPort()} is known before serving. */
    public synchronized void bind() throws IOException {
        bound();
    }

    private synchronized ServerSocketChannel bound() throws IOException {
        ServerSocketChannel channel = serverChannel;
        if (channel != null) {
            return channel;
        }
        channel = ServerSocketChannel.open();
        serverChannel = channel;
        channel.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, true);
        channel.bind(new InetSocketAddress(settings.host(), settings.port()));
        return channel;
    }

    /** Binds (if not yet bound) and starts all threads. */
    public synchronized void start() throws IOException {
        ServerSocketChannel channel = bound();
        running = true;
        for (int i = 0; i < settings.numNetworkThreads(); i++) {
            Processor processor = new Processor(
                    i, settings.listenerName(), settings.maxRequestBytes(), requestQueue, settings.tls(), observer);
            processors.add(processor);
            startThread("strait-network-" + settings.listenerName() + "-" + i, processor);
        }
        for (int i = 0; i < settings.numIoThreads(); i++) {
            startThread("strait-request-handler-" + settings.listenerName() + "-" + i, this::handleRequests);
        }
        startThread("strait-acceptor-" + settings.listenerName(), () -> acceptConnections(channel));
        LOGGER.info("listener {} bound to {}", settings.listenerName(), channel.getLocalAddress());
    }

    private void startThread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private void closeServerChannel() {
        if (serverChannel == null) {
            return;
        }
        try {
            serverChannel.close();
        } catch (IOException e) {
            LOGGER.debug("closing server socket: {}", e.toString());
        }
    }

    /** The port actually bound (useful with port 0). */
    public int boundPort() {
        return Objects.requireNonNull(serverChannel, "bind() first").socket().getLocalPort();
    }

    public String host() {
        return settings.host();
    }

    /** Requests read and waiting for an io thread; for tests of back-pressure. */
    int queuedRequests() {
        return requestQueue.size();
    }

    private void acceptConnections(ServerSocketChannel serverChannel) {
        int next = 0;
        while (running) {
            try {
                SocketChannel channel = serverChannel.accept();
                processors.get(next).accept(channel);
                next = (next + 1) % processors.size();
            } catch (IOException e) {
                if (running) {
                    LOGGER.warn("accept failed on listener {}: {}", settings.listenerName(), e.toString());
                }
            }
        }
    }

    private void handleRequests() {
        while (running) {
            NetworkRequest request;
            try {
                request = requestQueue.poll(300, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (request == null) {
                continue;
            }
            try {
                dispatcher.dispatch(request);
            } catch (RuntimeException e) {
                LOGGER.error("closing connection {}: request handling failed", request.connectionId(), e);
                request.closeConnection();
            }
        }
    }

    @Override
    public synchronized void close() {
        if (!running) {
            closeServerChannel();
            return;
        }
        running = false;
        closeServerChannel();
        processors.forEach(Processor::shutdown);
        for (Thread thread : threads) {
            try {
                thread.join(SHUTDOWN_WAIT_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
