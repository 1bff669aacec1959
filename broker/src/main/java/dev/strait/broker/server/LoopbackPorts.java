package dev.strait.broker.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports on 127.0.0.1 for listeners that must be named before they bind: a quorum's voters, a node that restarts on
 * its old port. They come from below the kernel's ephemeral range, because a port handed out by {@code bind(0)}
 * and released is the pool every outgoing connection draws its local port from: a busy test suite's client took
 * such a port between the pick and the broker's bind ("broker 1 failed to start"). Ports this JVM issued lately
 * are not issued again.
 */
public final class LoopbackPorts {
    private static final int LOWEST = 10_000;
    private static final int DEFAULT_EPHEMERAL_START = 32_768;
    private static final int REMEMBERED = 8_192;
    private static final int SLICES = 8;
    private static final Set<Integer> ISSUED = new LinkedHashSet<>();

    private LoopbackPorts() {}

    /** A port below the ephemeral range that was free on 127.0.0.1 a moment ago and not issued lately here. */
    public static int reserve() {
        int highest = ephemeralStart() - 1;
        if (highest <= LOWEST) {
            return ephemeralPort();
        }
        // Test JVMs run side by side (a build runs modules in parallel) and each knows only its own ports: each
        // draws first from a slice of the range of its own, chosen by its process id, then from the whole range.
        int sliceSize = (highest + 1 - LOWEST) / SLICES;
        int sliceStart = LOWEST + (int) (ProcessHandle.current().pid() % SLICES) * sliceSize;
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = attempt < 500
                    ? sliceStart + ThreadLocalRandom.current().nextInt(sliceSize)
                    : ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
            synchronized (ISSUED) {
                if (ISSUED.contains(port) || !bindable(port)) {
                    continue;
                }
                remember(port);
                return port;
            }
        }
        throw new IllegalStateException(
                "no free port on 127.0.0.1 between " + LOWEST + " and " + highest + " after 1,000 tries");
    }

    /** Whether the failure, or any cause of it, is a listener that could not bind its address. */
    public static boolean isBindFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof java.net.BindException) {
                return true;
            }
        }
        return false;
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int ephemeralPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = socket.getLocalPort();
            synchronized (ISSUED) {
                remember(port);
            }
            return port;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    private static void remember(int port) {
        ISSUED.add(port);
        if (ISSUED.size() > REMEMBERED) {
            ISSUED.remove(ISSUED.iterator().next());
        }
    }

    /** The first port of Linux's ip_local_port_range; 32768 where it cannot be read. */
    private static int ephemeralStart() {
        try {
            // readString would trust the size procfs reports and return one character.
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .get(0)
                    .trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_START;
        }
    }
}
