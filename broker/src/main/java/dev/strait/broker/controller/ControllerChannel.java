package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerMessage.Hello;
import dev.strait.broker.controller.ControllerWire.MalformedFrameException;
import dev.strait.time.Time;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller listener of one node and its connections to the other nodes, carrying {@link ControllerMessage}
 * frames ({@link ControllerWire}). Delivery is best effort, as Raft and the controller RPCs expect: a frame for
 * a peer that cannot be reached, or that finds its bounded queue full, is dropped, and the sender's timers
 * repeat it.
 *
 * <p>Routing: a message for a voter goes over this node's own (outbound) connection to that voter, opened
 * lazily and reopened after a failure; a message for any other node goes back over the connection that node
 * opened to us (its first frame, {@link Hello}, names it). Every connection has one reader thread, which hands
 * decoded frames to the inbound consumer (the node's event loop enqueues them), and one writer thread draining
 * a bounded queue, so a slow peer never blocks the event loop. A frame that does not decode closes its
 * connection with one log line; it never stops the node.
 *
 * <p>Peer evidence ({@link ControllerTransport.Receiver}): a peer is reachable while at least one connection with
 * it is open (counted per socket, both directions) and whenever a frame from it arrives; it becomes unreachable
 * when the last such connection closes or when connecting to it is refused. A connect that times out says
 * nothing (the peer may be paused or cut off), nor does an idle connection.
 *
 * <p>Thread-safe.
 */
final class ControllerChannel implements ControllerTransport {

    private static final Logger LOGGER = LoggerFactory.getLogger(ControllerChannel.class);
    private static final int QUEUE_FRAMES = 1024;
    private static final int CONNECT_TIMEOUT_MS = 1000;
    private static final long RECONNECT_BACKOFF_MS = 200;

    private final int nodeId;
    private final String bindHost;
    private final int bindPort;
    private final Map<Integer, InetSocketAddress> voters;
    private final Receiver receiver;
    private final Time time;
    private final Map<Integer, Link> outbound = new ConcurrentHashMap<>();
    private final Map<Integer, Link> inboundByNode = new ConcurrentHashMap<>();
    private final List<Link> allLinks = new CopyOnWriteArrayList<>();
    /** Sockets counted in {@link #openConnections}, so that each is counted open and closed once. */
    private final Set<Socket> counted = ConcurrentHashMap.newKeySet();

    private final Map<Integer, Integer> openConnections = new ConcurrentHashMap<>();
    private final String prefix;
    private volatile boolean closed;
    // Set by start() when the node listens; null before (and for a node that does not listen).
    private @Nullable ServerSocket serverSocket;
    private @Nullable Thread acceptor;

    /** TLS of the wire, or null for plain TCP. */
    private final @Nullable ControllerTls tls;

    ControllerChannel(
            int nodeId,
            String bindHost,
            int bindPort,
            Map<Integer, InetSocketAddress> voters,
            Receiver receiver,
            Time time) {
        this(nodeId, bindHost, bindPort, voters, receiver, time, null);
    }

    ControllerChannel(
            int nodeId,
            String bindHost,
            int bindPort,
            Map<Integer, InetSocketAddress> voters,
            Receiver receiver,
            Time time,
            @Nullable ControllerTls tls) {
        this.tls = tls;
        this.nodeId = nodeId;
        this.bindHost = bindHost;
        this.bindPort = bindPort;
        this.voters = Map.copyOf(voters);
        this.receiver = receiver;
        this.time = time;
        this.prefix = "[ControllerChannel " + nodeId + "] ";
    }

    /** The production transport of a node, from its quorum settings. */
    static ControllerTransport create(QuorumConfig settings, Time time, Receiver receiver) {
        return new ControllerChannel(
                settings.nodeId(),
                settings.listenHost(),
                settings.isVoter() ? settings.listenPort() : -1,
                settings.voters(),
                receiver,
                time,
                settings.tls());
    }

    @Override
    public synchronized int start() throws IOException {
        if (bindPort < 0) {
            return -1;
        }
        ServerSocket server;
        if (tls != null) {
            // Accepted sockets handshake on their reader thread, bounded: a peer speaking no TLS, without a trusted
            // certificate where ssl.client.auth=required, or refused by the peer check loses only its connection.
            SSLServerSocket secure = (SSLServerSocket)
                    tls.serverContext().getServerSocketFactory().createServerSocket();
            secure.setSSLParameters(tls.serverParameters());
            server = secure;
        } else {
            server = new ServerSocket();
        }
        serverSocket = server;
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(bindHost, bindPort));
        Thread thread = new Thread(() -> acceptLoop(server), "strait-controller-acceptor-" + nodeId);
        acceptor = thread;
        thread.setDaemon(true);
        thread.start();
        return server.getLocalPort();
    }

    @Override
    public void send(int destination, ControllerMessage message) {
        if (closed) {
            return;
        }
        if (destination == nodeId) {
            receiver.onMessage(message);
            return;
        }
        Link link;
        InetSocketAddress address = voters.get(destination);
        if (address != null) {
            link = outbound.computeIfAbsent(destination, id -> startLink(new Link(id, address, null)));
        } else {
            link = inboundByNode.get(destination);
        }
        if (link == null) {
            LOGGER.debug("{}no route to node {}; dropped {}", prefix, destination, message);
            return;
        }
        if (!link.queue.offer(ControllerWire.encode(message))) {
            LOGGER.debug("{}queue to node {} full; dropped a frame", prefix, destination);
        }
    }

    private Link startLink(Link link) {
        allLinks.add(link);
        Thread writer = new Thread(link::writeLoop, "strait-controller-writer-" + nodeId + "-" + link.peerName());
        writer.setDaemon(true);
        link.writer = writer;
        writer.start();
        return link;
    }

    private void connectionOpened(int peer, Socket socket) {
        if (peer >= 0 && counted.add(socket)) {
            openConnections.merge(peer, 1, Integer::sum);
            receiver.onPeerReachable(peer);
        }
    }

    private void connectionClosed(int peer, Socket socket) {
        if (peer >= 0 && counted.remove(socket)) {
            Integer left = openConnections.merge(peer, -1, (a, b) -> a + b == 0 ? null : a + b);
            if (left == null && !closed) {
                receiver.onPeerUnreachable(peer);
            }
        }
    }

    private void connectRefused(int peer) {
        if (!closed && openConnections.getOrDefault(peer, 0) == 0) {
            receiver.onPeerUnreachable(peer);
        }
    }

    private void acceptLoop(ServerSocket server) {
        while (!closed) {
            try {
                Socket socket = server.accept();
                socket.setTcpNoDelay(true);
                Link link = new Link(-1, null, socket);
                allLinks.add(link);
                link.startReader();
            } catch (IOException e) {
                if (!closed) {
                    LOGGER.warn("{}accept failed: {}", prefix, e.toString());
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            if (serverSocket != null) {
                serverSocket.close();
            }
        } catch (IOException e) {
            LOGGER.debug("{}closing listener: {}", prefix, e.toString());
        }
        List<Thread> threads = new ArrayList<>();
        if (acceptor != null) {
            threads.add(acceptor);
        }
        for (Link link : allLinks) {
            link.close();
            if (link.writer != null) {
                link.writer.interrupt();
                threads.add(link.writer);
            }
            if (link.reader != null) {
                threads.add(link.reader);
            }
        }
        for (Thread thread : threads) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One connection: outbound ones (address set) reconnect; inbound ones (socket given) live once. */
    private final class Link {
        /** Where an outbound link connects; null for an inbound one. */
        private final @Nullable InetSocketAddress address;

        private final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUE_FRAMES);
        private volatile int peerId;
        private volatile @Nullable Socket socket;
        private volatile @Nullable Thread writer;
        private volatile @Nullable Thread reader;
        private long retryAfterMs;

        Link(int peerId, @Nullable InetSocketAddress address, @Nullable Socket socket) {
            this.peerId = peerId;
            this.address = address;
            this.socket = socket;
        }

        String peerName() {
            return peerId >= 0 ? Integer.toString(peerId) : "in";
        }

        void writeLoop() {
            while (!closed) {
                byte[] frame;
                try {
                    frame = queue.poll(500, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (frame == null) {
                    continue;
                }
                Socket current = address == null ? socket : connected();
                if (current == null) {
                    continue; // dropped: the sender's timers repeat what matters
                }
                try {
                    OutputStream out = current.getOutputStream();
                    out.write(frame);
                    out.flush();
                } catch (IOException e) {
                    LOGGER.debug("{}write to node {} failed: {}", prefix, peerId, e.toString());
                    closeSocket(current);
                    if (address == null) {
                        return;
                    }
                }
            }
        }

        /** The open outbound socket, connecting (with Hello) if needed; null while the peer is unreachable. */
        private @Nullable Socket connected() {
            Socket current = socket;
            if (current != null && !current.isClosed()) {
                return current;
            }
            long now = time.hiResClockMs();
            if (now < retryAfterMs) {
                return null;
            }
            Socket fresh;
            try {
                fresh = tls == null
                        ? new Socket()
                        : tls.clientContext().getSocketFactory().createSocket();
            } catch (IOException e) {
                LOGGER.warn("{}cannot create a TLS socket: {}", prefix, e.toString());
                return null;
            }
            try {
                fresh.setTcpNoDelay(true);
                fresh.connect(address, CONNECT_TIMEOUT_MS);
                if (fresh instanceof SSLSocket secure) {
                    secure.setSSLParameters(Objects.requireNonNull(tls, "a TLS socket means TLS")
                            .clientParameters());
                    secure.setSoTimeout(CONNECT_TIMEOUT_MS * 5);
                    secure.startHandshake();
                    secure.setSoTimeout(0);
                }
                OutputStream out = fresh.getOutputStream();
                out.write(ControllerWire.encode(new Hello(nodeId)));
                out.flush();
            } catch (IOException e) {
                closeSocket(fresh);
                retryAfterMs = time.hiResClockMs() + RECONNECT_BACKOFF_MS;
                LOGGER.debug("{}cannot connect to node {} at {}: {}", prefix, peerId, address, e.toString());
                if (e instanceof ConnectException) {
                    connectRefused(peerId);
                }
                return null;
            }
            socket = fresh;
            connectionOpened(peerId, fresh);
            startReader();
            return fresh;
        }

        void startReader() {
            Socket current = Objects.requireNonNull(socket, "a link starts its reader once it has a socket");
            Thread thread =
                    new Thread(() -> readLoop(current), "strait-controller-reader-" + nodeId + "-" + peerName());
            thread.setDaemon(true);
            reader = thread;
            thread.start();
        }

        private void readLoop(Socket current) {
            boolean expectHello = address == null;
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(current.getInputStream()))) {
                if (expectHello && current instanceof SSLSocket secure && !admitted(secure)) {
                    return;
                }
                while (!closed) {
                    int size = in.readInt();
                    ControllerWire.checkSize(size);
                    byte[] frame = in.readNBytes(size);
                    if (frame.length != size) {
                        throw new EOFException();
                    }
                    ControllerMessage message = ControllerWire.decode(frame);
                    if (expectHello) {
                        if (!(message instanceof Hello hello)) {
                            throw new MalformedFrameException("first frame must be Hello, got "
                                    + message.getClass().getSimpleName());
                        }
                        peerId = hello.nodeId();
                        inboundByNode.put(peerId, this);
                        connectionOpened(peerId, current);
                        expectHello = false;
                        Link self = this;
                        Thread thread =
                                new Thread(self::writeLoop, "strait-controller-writer-" + nodeId + "-in-" + peerId);
                        thread.setDaemon(true);
                        writer = thread;
                        thread.start();
                        continue;
                    }
                    receiver.onPeerReachable(peerId);
                    receiver.onMessage(message);
                }
            } catch (MalformedFrameException e) {
                LOGGER.warn(
                        "{}closing connection from {}: malformed frame: {}",
                        prefix,
                        current.getRemoteSocketAddress(),
                        e.getMessage());
            } catch (EOFException | SocketException e) {
                LOGGER.debug("{}connection to node {} closed: {}", prefix, peerId, e.toString());
            } catch (IOException | RuntimeException e) {
                LOGGER.warn("{}connection to node {} failed: {}", prefix, peerId, e.toString());
            } finally {
                closeSocket(current);
                if (address == null) {
                    inboundByNode.remove(peerId, this);
                    allLinks.remove(this);
                    Thread w = writer;
                    if (w != null) {
                        w.interrupt();
                    }
                }
            }
        }

        /**
         * Handshakes (bounded) and asks the peer check; a peer without a trusted certificate or without the right
         * to speak here loses its connection, logged once per connection.
         */
        private boolean admitted(SSLSocket secure) throws IOException {
            String host = secure.getInetAddress().getHostAddress();
            String refusal;
            try {
                secure.setSoTimeout(CONNECT_TIMEOUT_MS * 5);
                secure.startHandshake();
                secure.setSoTimeout(0);
                refusal = Objects.requireNonNull(tls, "a TLS socket means TLS")
                        .peerCheck()
                        .refusal(secure.getSession(), host);
            } catch (SSLException e) {
                refusal = "TLS handshake failed: " + e.getMessage();
            }
            if (refusal != null) {
                LOGGER.warn("{}refused a controller connection from {}: {}", prefix, host, refusal);
                return false;
            }
            return true;
        }

        void close() {
            Socket current = socket;
            if (current != null) {
                closeSocket(current);
            }
        }

        private void closeSocket(Socket s) {
            connectionClosed(peerId, s);
            try {
                s.close();
            } catch (IOException e) {
                LOGGER.debug("{}close: {}", prefix, e.toString());
            }
        }
    }
}
