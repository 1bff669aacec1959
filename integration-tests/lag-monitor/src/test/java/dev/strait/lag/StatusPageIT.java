package dev.strait.lag;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.http.StatusServer;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.testing.TestMirror;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The status page in a real browser (headless Chromium) over the real lag monitor, real Kafka 4.1.1 clusters and the
 * real mirror: every partition's row reads OK, then the mirror stops, records keep coming, and the page's own refresh
 * (the same document, never reloaded) turns that row STALL; then the canary's and the mirror's metrics go away and
 * the page says since when they are unreachable. Screenshots are kept under
 * {@code target/failsafe-reports/status-page/}. Skipped only when chromium is missing outside CI; in CI ({@code CI}
 * set) it fails.
 */
class StatusPageIT {
    /** A group id may hold anything; the page must show it as text, markup and all. */
    private static final String GROUP = "g-page \"quoted\" 'single' <b>bold</b> <img src=x onerror=alert(1)> & done";

    private static final String CANARY_METRICS = """
            # TYPE strait_canary_state gauge
            strait_canary_state{canary="canary-page"} 0.0
            # TYPE strait_canary_latency_seconds summary
            strait_canary_latency_seconds{canary="canary-page",quantile="0.5"} 0.045
            strait_canary_latency_seconds{canary="canary-page",quantile="0.99"} 0.21
            strait_canary_latency_seconds{canary="canary-page",quantile="1.0"} 0.3
            strait_canary_latency_seconds_count{canary="canary-page"} 120
            """;
    private static final String MIRROR_METRICS = """
            # TYPE strait_mirror_sync_group_offsets_failing gauge
            strait_mirror_sync_group_offsets_failing 0.0
            strait_mirror_sync_group_offsets_consecutive_failures 0.0
            strait_mirror_sync_group_offsets_last_success_ms 1.7E12
            strait_mirror_sync_group_offsets_groups 3.0
            strait_mirror_sync_group_offsets_partitions 6.0
            strait_mirror_sync_group_offsets_rounds_total 42
            strait_mirror_sync_group_offsets_failures_total 0
            """;

    private static Path chromiumOrSkip() {
        Path chromium = HeadlessChromium.find();
        if (chromium == null) {
            if (System.getenv("CI") != null) {
                throw new IllegalStateException(
                        "chromium is not on the PATH (or STRAIT_CHROMIUM names no executable) and CI is set: .ci/run "
                                + "installs it (apt-get install chromium)");
            }
            Assumptions.abort("chromium is not on the PATH (apt-get install chromium, or STRAIT_CHROMIUM=/path/to/it) "
                    + "and CI is unset: "
                    + "StatusPageIT needs a real browser; in CI it runs");
        }
        return chromium;
    }

    /** Serves fixed text, as the canary's and the mirror's /metrics do (the formats their modules write). */
    private static HttpServer serve(String canary, String mirror) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        for (String[] route : new String[][] {{"/canary", canary}, {"/mirror", mirror}}) {
            s.createContext(route[0], ex -> {
                byte[] b = route[1].getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, b.length);
                ex.getResponseBody().write(b);
                ex.close();
            });
        }
        s.start();
        return s;
    }

    private static List<String> rows(HeadlessChromium.Page page) {
        JsonNode rows = page.eval("[...document.querySelectorAll('#partitions tbody tr')]"
                + ".map(r => r.querySelector('td.status').textContent + ' ' + r.dataset.topic + '-' + r.dataset.partition"
                + " + ' lag ' + r.querySelector('td.exact').textContent)");
        List<String> out = new ArrayList<>();
        rows.forEach(r -> out.add(r.asText()));
        return out;
    }

    @Test
    void everyRowOkThenTheStalledPartitionTurnsStallOnThePagesOwnRefresh() throws Exception {
        // Skipped (with why) before any cluster starts when there is no browser outside CI.
        Path chromium = chromiumOrSkip();
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        Path artifacts = Path.of("target", "failsafe-reports", "status-page");
        Files.createDirectories(artifacts);

        // Given: two partitions mirrored and committed by the real mirror under a hostile group id
        String topic = "page.mirrored";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 100);
        }
        MirrorEngine engine = TestMirror.start(
                source.bootstrapServers(), target.bootstrapServers(), GROUP, topic, null, new Properties());
        boolean mirrorRunning = true;
        HttpServer neighbours = serve(CANARY_METRICS, MIRROR_METRICS);
        boolean neighboursRunning = true;
        String base = "http://127.0.0.1:" + neighbours.getAddress().getPort();
        Properties p = new Properties();
        p.put("source.bootstrap.servers", source.bootstrapServers());
        p.put("target.bootstrap.servers", target.bootstrapServers());
        p.put("mirror.group.id", GROUP);
        p.put("topics", "page\\.mirrored");
        p.put("window.size", "3");
        p.put("sample.interval.ms", "300");
        p.put("mirror.commit.interval.ms", "500");
        // STALL, not STOP, for the length of the test
        p.put("stop.after.ms", "600000");
        p.put("status.page.canary.metrics.url", base + "/canary");
        p.put("status.page.mirror.metrics.url", base + "/mirror");
        LagMonitorConfig config = LagMonitorConfig.from(p);
        LagMonitor monitor = new LagMonitor(config, Time.SYSTEM);
        Thread loop = new Thread(monitor, "strait-lag-monitor-page-it");
        loop.start();
        try (StatusServer http = new StatusServer(
                        "127.0.0.1",
                        0,
                        GROUP,
                        1_000,
                        new StatusServer.Sources(
                                monitor::latest,
                                monitor::healthy,
                                monitor::auditSummary,
                                monitor::history,
                                monitor::peers));
                HeadlessChromium browser = HeadlessChromium.start(chromium, artifacts.resolve("chromium.log"))) {
            Await.until(
                    "mirrored and committed",
                    Duration.ofSeconds(60),
                    () -> source.committedOffsets(GROUP, topic).values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum()
                            == 200);

            // When: the page is opened once
            HeadlessChromium.Page page = browser.open("http://127.0.0.1:" + http.port() + "/");
            page.eval("window.openedOnce = 'same document'");

            // Then: both rows OK, the group shown as the text it is, the neighbours and a chart drawn
            Await.until(
                    "both rows OK with exact lag 0 on the page",
                    Duration.ofSeconds(60),
                    () -> rows(page).equals(List.of("OK " + topic + "-0 lag 0", "OK " + topic + "-1 lag 0")));
            Await.until(
                    "the lag chart drawn from the history",
                    Duration.ofSeconds(30),
                    () -> page.eval("document.querySelectorAll('#charts figure polyline').length")
                                    .asInt()
                            == 1);
            assertThat(page.text("document.getElementById('group').textContent"))
                    .isEqualTo(GROUP);
            assertThat(page.eval("document.querySelectorAll('main img, main b, header img, header b').length")
                            .asInt())
                    .as("the group's markup stayed text")
                    .isZero();
            assertThat(page.text("document.getElementById('banner').textContent"))
                    .startsWith("OK")
                    .contains("2 OK");
            assertThat(page.text("document.getElementById('canary').textContent"))
                    .contains("OK")
                    .contains("canary-page")
                    .contains("latency p50 45 ms, p99 210 ms");
            assertThat(page.eval("document.querySelectorAll('#canary polyline').length")
                            .asInt())
                    .isEqualTo(2);
            assertThat(page.text("document.getElementById('groupsync').textContent"))
                    .contains("syncing")
                    .contains("3 groups, 6 partitions");
            page.screenshot(artifacts.resolve("status-page-ok.png"), 1400, 1000);

            // When: the mirror stops and partition 0 receives 50 records it will not copy
            engine.requestStop();
            assertThat(engine.awaitTermination(Duration.ofSeconds(60))).isTrue();
            mirrorRunning = false;
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, 1, 100, 50);
            }

            // Then: the same document, refreshed by itself, shows partition 0 STALL first, partition 1 OK
            Await.until(
                    "partition 0 STALL on the page",
                    Duration.ofSeconds(60),
                    () -> rows(page).equals(List.of("STALL " + topic + "-0 lag 50", "OK " + topic + "-1 lag 0")));
            assertThat(page.text("window.openedOnce"))
                    .as("the page was not reloaded: its own refresh changed the row")
                    .isEqualTo("same document");
            assertThat(page.text("document.querySelector('#partitions tbody tr td.reason').textContent"))
                    .contains("did not move");
            assertThat(page.text("document.getElementById('banner').textContent"))
                    .startsWith("STALL")
                    .contains("1 STALL, 1 OK");
            page.screenshot(artifacts.resolve("status-page-stall.png"), 1400, 1000);
            assertThat(page.dialogs())
                    .as("no script ran from the group's markup")
                    .isEmpty();

            // When: the canary and the mirror's metrics go away
            neighbours.stop(0);
            neighboursRunning = false;

            // Then: the page says since when they cannot be read, and keeps what it last saw
            Await.until(
                    "canary and group sync unreachable on the page",
                    Duration.ofSeconds(30),
                    () -> page.text("document.getElementById('canary').textContent")
                                    .contains("unreachable since")
                            && page.text("document.getElementById('groupsync').textContent")
                                    .contains("unreachable since"));
            assertThat(page.text("document.getElementById('canary').textContent"))
                    .contains("canary-page");
            assertThat(page.exceptions()).as("the page's script threw nothing").isEmpty();
        } finally {
            monitor.requestStop();
            loop.join(30_000);
            monitor.close();
            if (neighboursRunning) {
                neighbours.stop(0);
            }
            if (mirrorRunning) {
                engine.requestStop();
                engine.awaitTermination(Duration.ofSeconds(60));
            }
        }
    }
}
