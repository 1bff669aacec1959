package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    @Test
    void portsComeFromBelowTheEphemeralRangeAndAreNotIssuedTwice() throws Exception {
        int ephemeralStart = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                .get(0)
                .trim()
                .split("\\s+")[0]);
        Set<Integer> issued = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            int port = LoopbackPorts.reserve();
            assertThat(port).isBetween(10_000, ephemeralStart - 1);
            assertThat(issued.add(port)).as("port %d issued twice", port).isTrue();
        }
    }

    @Test
    void aReservedPortCanBeBound() throws Exception {
        int port = LoopbackPorts.reserve();
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            assertThat(socket.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void aBindFailureIsFoundAnywhereInTheCauseChain() {
        RuntimeException wrapped =
                new UncheckedIOException("broker 1 failed to start", new BindException("Address already in use"));
        assertThat(LoopbackPorts.isBindFailure(new IllegalStateException("start", wrapped)))
                .isTrue();
        assertThat(LoopbackPorts.isBindFailure(new IllegalStateException("no quorum")))
                .isFalse();
    }
}
