package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11, defect 8, for the replica side: when a broker cannot bring its replicas in line with the metadata
 * (its log directory fails), it stops serving instead of going on with replicas that no longer follow the
 * cluster, as Kafka's broker stops when its only log directory fails.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerFatalFaultIT {

    @Test
    void aBrokerWhoseReplicasCannotFollowTheMetadataHaltsItself() throws Exception {
        try (TestCluster cluster = new TestCluster(2, Map.of("default.replication.factor", "2"))) {
            // Given: broker 1's directory for t-0 is taken by a file, so the replica's log cannot open
            Files.writeString(cluster.logDir(1).resolve("t-0"), "not a directory");
            BrokerServer victim = cluster.broker(1);
            int port = victim.boundPort();

            // When: the controller assigns t-0 to both brokers
            cluster.controller().viewFor(99).createTopic("t", 1, 2, Map.of());

            // Then: broker 1 reports the fault and stops listening; broker 0 serves on
            await("broker 1 halted", () -> victim.hasFailed() && !accepts(port));
            assertThat(accepts(cluster.broker(0).boundPort())).isTrue();
            assertThat(cluster.broker(0).hasFailed()).isFalse();
        }
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
