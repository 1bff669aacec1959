package dev.strait.lag.peer;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The page's neighbours read over HTTP: the canary's and the mirror's /metrics as they export them (the text below is
 * what CanaryFormat and MetricsFormat write), an endpoint that goes away, one that hangs, and one not configured.
 */
class PeerWatchTest {
    private static final String CANARY = """
            # TYPE strait_canary_state gauge
            strait_canary_state{canary="c-1"} 1.0
            # TYPE strait_canary_probes_lost_total counter
            strait_canary_probes_lost_total{canary="c-1"} 2
            # TYPE strait_canary_latency_seconds summary
            strait_canary_latency_seconds{canary="c-1",quantile="0.5"} 0.12
            strait_canary_latency_seconds{canary="c-1",quantile="0.99"} 0.9
            strait_canary_latency_seconds{canary="c-1",quantile="1.0"} 1.5
            strait_canary_latency_seconds_count{canary="c-1"} 40
            """;
    private static final String MIRROR = """
            # TYPE strait_mirror_sync_group_offsets_failing gauge
            strait_mirror_sync_group_offsets_failing 1.0
            strait_mirror_sync_group_offsets_consecutive_failures 3.0
            strait_mirror_sync_group_offsets_last_success_ms 1.7E12
            strait_mirror_sync_group_offsets_groups 4.0
            strait_mirror_sync_group_offsets_partitions 12.0
            # TYPE strait_mirror_sync_group_offsets_rounds_total counter
            strait_mirror_sync_group_offsets_rounds_total 9
            strait_mirror_sync_group_offsets_failures_total 3
            """;

    private final AtomicReference<String> canaryBody = new AtomicReference<>(CANARY);
    private final AtomicReference<Integer> delayMs = new AtomicReference<>(0);
    private HttpServer server;

    private URI serve() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/canary", ex -> {
            try {
                Thread.sleep(delayMs.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] b = canaryBody.get().getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/mirror", ex -> {
            byte[] b = MIRROR.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void readsTheCanarysStateAndLatencyAndTheGroupSync() throws Exception {
        URI base = serve();
        PeerWatch w = new PeerWatch(base.resolve("/canary"), base.resolve("/mirror"), 2_000, 3_600_000, 10);

        w.poll(1_000);
        w.poll(2_000);

        PeerState s = w.state();
        assertThat(s.canary().state()).isEqualTo("LATE");
        assertThat(s.canary().canaryId()).isEqualTo("c-1");
        assertThat(s.canary().p50Ms()).isEqualTo(120.0);
        assertThat(s.canary().p99Ms()).isEqualTo(900.0);
        assertThat(s.canary().lostTotal()).isEqualTo(2);
        assertThat(s.canary().latency())
                .extracting(PeerState.LatencyPoint::timestampMs)
                .containsExactly(1_000L, 2_000L);
        assertThat(s.canary().reach().unreachableSinceMs()).isEqualTo(-1);
        assertThat(s.groupSync().present()).isTrue();
        assertThat(s.groupSync().failing()).isTrue();
        assertThat(s.groupSync().consecutiveFailures()).isEqualTo(3);
        assertThat(s.groupSync().groups()).isEqualTo(4);
        assertThat(s.groupSync().partitions()).isEqualTo(12);
        assertThat(s.groupSync().rounds()).isEqualTo(9);
        assertThat(s.groupSync().lastSuccessMs()).isEqualTo(1_700_000_000_000L);
    }

    @Test
    void unreachableSinceTheFirstFailureKeepingWhatWasLastSeen() throws Exception {
        URI base = serve();
        PeerWatch w = new PeerWatch(base.resolve("/canary"), null, 1_000, 3_600_000, 10);
        w.poll(1_000);
        server.stop(0);
        server = null;

        w.poll(2_000);
        w.poll(3_000);

        PeerState.Canary c = w.state().canary();
        assertThat(c.reach().unreachableSinceMs()).isEqualTo(2_000);
        assertThat(c.reach().lastReadMs()).isEqualTo(1_000);
        assertThat(c.reach().error()).isNotBlank();
        assertThat(c.state()).as("the last state seen").isEqualTo("LATE");
        assertThat(w.state().groupSync().reach().configured()).isFalse();
    }

    @Test
    void aHangingNeighbourCostsAtMostTheTimeout() throws Exception {
        URI base = serve();
        delayMs.set(5_000);
        PeerWatch w = new PeerWatch(base.resolve("/canary"), null, 300, 3_600_000, 10);

        long start = System.nanoTime();
        w.poll(1_000);
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertThat(tookMs).isLessThan(3_000);
        assertThat(w.state().canary().reach().unreachableSinceMs()).isEqualTo(1_000);
        assertThat(w.state().canary().reach().error()).contains("Timeout");
    }

    @Test
    void aMirrorWithoutGroupSyncAndAnEndpointThatIsNotTheCanarys() throws Exception {
        URI base = serve();
        canaryBody.set("# nothing\nsome_other_metric 1\n");
        PeerWatch w = new PeerWatch(base.resolve("/canary"), base.resolve("/canary"), 1_000, 3_600_000, 10);

        w.poll(1_000);

        assertThat(w.state().canary().reach().error()).contains("no strait_canary_state");
        assertThat(w.state().groupSync().present()).isFalse();
        assertThat(w.state().groupSync().reach().unreachableSinceMs()).isEqualTo(-1);
    }

    @Test
    void theLatencyHistoryIsBoundedByCountAndSpan() throws Exception {
        URI base = serve();
        PeerWatch w = new PeerWatch(base.resolve("/canary"), null, 1_000, 10_000, 3);

        for (long t = 1_000; t <= 5_000; t += 1_000) {
            w.poll(t);
        }
        assertThat(w.state().canary().latency())
                .extracting(PeerState.LatencyPoint::timestampMs)
                .containsExactly(3_000L, 4_000L, 5_000L);

        w.poll(14_500);
        assertThat(w.state().canary().latency())
                .extracting(PeerState.LatencyPoint::timestampMs)
                .containsExactly(5_000L, 14_500L);
    }

    @Test
    void notConfiguredIsSaidSo() {
        PeerState s = new PeerWatch(null, null, 1_000, 3_600_000, 10).state();
        assertThat(s.canary().reach().configured()).isFalse();
        assertThat(s.groupSync().reach().configured()).isFalse();
    }
}
