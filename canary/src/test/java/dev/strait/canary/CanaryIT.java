package dev.strait.canary;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.testkit.Await;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.WebhookReceiver;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The canary against real Apache Kafka 4.1.1 clusters with the real mirror between them. */
class CanaryIT {
    private final WebhookReceiver webhook = new WebhookReceiver();

    @AfterEach
    void stopWebhook() {
        webhook.close();
    }

    private static Canary canary(KafkaCluster source, String topic, String... extra) {
        Properties p = new Properties();
        p.put("source.bootstrap.servers", source.bootstrapServers());
        p.put("target.bootstrap.servers", SharedClusters.target().bootstrapServers());
        p.put("topic", topic);
        p.put("partitions", "2");
        p.put("interval.ms", "1000");
        p.put("canary.id", "it-" + topic);
        for (int i = 0; i < extra.length; i += 2) {
            p.put(extra[i], extra[i + 1]);
        }
        Canary c = new Canary(CanaryConfig.from(p), new MetricRegistry(), Time.SYSTEM);
        c.start();
        return c;
    }

    private static MirrorEngine mirror(KafkaCluster source, String group, String topic, MessageHandler handler) {
        Properties c = new Properties();
        c.put("bootstrap.servers", source.bootstrapServers());
        c.put("group.id", group);
        c.put("metadata.max.age.ms", "1000");
        Properties p = new Properties();
        p.put("bootstrap.servers", SharedClusters.target().bootstrapServers());
        MirrorEngine engine = new MirrorEngine(
                MirrorSettings.builder()
                        .consumerConfig(c)
                        .producerConfig(p)
                        .include(topic)
                        .offsetCommitIntervalMs(500)
                        .messageHandler(handler)
                        .build(),
                new MirrorMetrics(new MetricRegistry()),
                Time.SYSTEM);
        engine.start();
        return engine;
    }

    private static void stop(MirrorEngine engine) throws InterruptedException {
        engine.requestStop();
        assertThat(engine.awaitTermination(Duration.ofSeconds(60))).isTrue();
    }

    @Test
    void measuresLatencyBelowTheThresholdWhileTheMirrorRuns() throws Exception {
        KafkaCluster source = SharedClusters.source();
        MirrorEngine engine = mirror(source, "g-canary-ok", "canary\\.ok", null);
        // A threshold well above what a loaded 2-core CI machine may take, so the state tests the canary, not the
        // machine.
        try (Canary canary = canary(source, "canary.ok", "alarm.threshold.ms", "10000");
                Canary other = canary(
                        source, "canary.ok", "canary.id", "another-datacenter-pair", "alarm.threshold.ms", "10000");
                CanaryHttpServer http = new CanaryHttpServer("127.0.0.1", 0, canary)) {
            Await.until(
                    "8 probes arrived",
                    Duration.ofSeconds(60),
                    () -> canary.counts().arrived() >= 8);
            Await.until(
                    "the other canary's probes arrived too",
                    Duration.ofSeconds(30),
                    () -> other.counts().arrived() >= 8);

            assertThat(canary.state()).isEqualTo(CanaryState.OK);
            assertThat(canary.counts().lost()).isZero();
            assertThat(canary.counts().duplicated()).isZero();
            assertThat(other.counts().duplicated())
                    .as("two canaries on one topic keep apart")
                    .isZero();
            ProbeTracker.Counts n = canary.counts();
            assertThat(n.arrived() + n.outstanding() + n.lost())
                    .as("every probe sent is arrived, outstanding or lost: " + n)
                    .isEqualTo(n.sent());
            assertThat(canary.latency().getCount())
                    .as("a latency for every arrived probe")
                    .isGreaterThanOrEqualTo(8);
            assertThat(canary.latency().getSnapshot().get99thPercentile()).isLessThan(10_000);
            String status = get(http.port(), "/status");
            assertThat(status).contains("\"state\":\"OK\"").contains("\"targetTopicPresent\":true");
            assertThat(get(http.port(), "/metrics"))
                    .contains("strait_canary_probes_arrived_total{canary=\"it-canary.ok\"}");
        } finally {
            stop(engine);
        }
    }

    @Test
    void mirrorStoppedRaisesLateThenLostWithOneWebhookEachAndRecoversWhenItRestarts() throws Exception {
        KafkaCluster source = SharedClusters.source();
        String hook = webhook.url();
        MirrorEngine engine = mirror(source, "g-canary-stop", "canary\\.stop", null);
        // No suppression: every change is posted, so the test can count them from a known state.
        try (Canary canary = canary(source, "canary.stop", "alert.webhook.url", hook, "alert.suppress.ms", "0")) {
            // A loaded machine may take longer than the 2 s threshold for the first probes: start from OK.
            Await.until(
                    "probes flowing and OK",
                    Duration.ofSeconds(60),
                    () -> canary.counts().arrived() >= 4 && canary.state() == CanaryState.OK);
            int before = webhook.bodies().size();

            // When: the mirror stops
            stop(engine);
            Await.until("LATE", Duration.ofSeconds(30), () -> canary.state() == CanaryState.LATE);
            Await.until("LOST", Duration.ofSeconds(30), () -> canary.state() == CanaryState.LOST);

            // Then: LATE first (a probe older than the 2 s threshold), then LOST, one webhook each (the state changes
            // a moment before its webhook is posted); nothing arrives meanwhile, so no other change
            assertThat(canary.counts().late()).isPositive();
            Await.until(
                    "the LOST webhook",
                    Duration.ofSeconds(30),
                    () -> webhook.bodies().size() >= before + 2);
            assertThat(webhook.bodies()).hasSize(before + 2);
            assertThat(webhook.bodies().get(before)).contains("\"previous\":\"OK\",\"state\":\"LATE\"");
            assertThat(webhook.bodies().get(before + 1)).contains("\"previous\":\"LATE\",\"state\":\"LOST\"");

            // When: the mirror comes back
            engine = mirror(source, "g-canary-stop", "canary\\.stop", null);
            Await.until("OK again", Duration.ofSeconds(30), () -> canary.state() == CanaryState.OK);
            Await.until(
                    "the OK webhook",
                    Duration.ofSeconds(30),
                    () -> webhook.bodies().size() >= before + 3);
            assertThat(webhook.bodies().get(webhook.bodies().size() - 1)).contains("\"state\":\"OK\"");
            assertThat(webhook.bodies().subList(before + 2, webhook.bodies().size()))
                    .as("back to OK, possibly through LATE as the backlog drains, never LOST again")
                    .noneMatch(b -> b.contains("\"state\":\"LOST\""));
        } finally {
            stop(engine);
        }
    }

    @Test
    void aProbeTheMirrorDropsIsCountedLost() throws Exception {
        KafkaCluster source = SharedClusters.source();
        NthRecordHandler handler = new NthRecordHandler();
        handler.configure("drop:3");
        MirrorEngine engine = mirror(source, "g-canary-drop", "canary\\.drop", handler);
        // Lost after 15 s, not the default 5 s: a cold mirror on a loaded machine may take longer than 5 s to copy its
        // first probes, and those would count as lost too.
        try (Canary canary = canary(source, "canary.drop", "lost.after.ms", "15000")) {
            Await.until(
                    "one probe lost",
                    Duration.ofSeconds(60),
                    () -> canary.counts().lost() == 1);
            Await.until(
                    "later probes arrive",
                    Duration.ofSeconds(30),
                    () -> canary.counts().arrived() >= 8);
            assertThat(canary.counts().lost()).isEqualTo(1);
            assertThat(canary.counts().duplicated()).isZero();
        } finally {
            stop(engine);
        }
    }

    @Test
    void aProbeTheMirrorCopiesTwiceIsCountedDuplicated() throws Exception {
        KafkaCluster source = SharedClusters.source();
        NthRecordHandler handler = new NthRecordHandler();
        handler.configure("repeat:3");
        MirrorEngine engine = mirror(source, "g-canary-dup", "canary\\.dup", handler);
        // Late after 10 s and lost after 15 s: the first probes a cold mirror copies on a loaded machine may take
        // several seconds, and the test is about the duplicate, not the machine.
        try (Canary canary = canary(source, "canary.dup", "alarm.threshold.ms", "10000", "lost.after.ms", "15000")) {
            Await.until(
                    "one duplicate",
                    Duration.ofSeconds(30),
                    () -> canary.counts().duplicated() == 1);
            Await.until(
                    "later probes arrive",
                    Duration.ofSeconds(30),
                    () -> canary.counts().arrived() >= 6);
            assertThat(canary.counts().lost()).isZero();
            assertThat(canary.state()).isEqualTo(CanaryState.OK);
        } finally {
            stop(engine);
        }
    }

    @Test
    void sourceClusterDownIsReportedAndTheCanaryRecovers() throws Exception {
        try (KafkaCluster source = KafkaCluster.start("canary-source", 1)) {
            MirrorEngine engine = mirror(source, "g-canary-src", "canary\\.src", null);
            try (Canary canary = canary(source, "canary.src")) {
                Await.until(
                        "probes flowing",
                        Duration.ofSeconds(60),
                        () -> canary.counts().arrived() >= 4);

                // When: the source goes away for a while
                source.stopAll();
                Await.until(
                        "produce failures reported",
                        Duration.ofSeconds(30),
                        () -> !canary.sourceAvailable() && canary.produceErrors() > 0);
                source.restartAll();

                // Then
                Await.until(
                        "source available and OK again",
                        Duration.ofSeconds(90),
                        () -> canary.sourceAvailable()
                                && canary.state() == CanaryState.OK
                                && canary.counts().arrived() >= 10);
            } finally {
                stop(engine);
            }
        }
    }

    @Test
    void aCanaryRestartedWithTheSameIdBehindALaggingMirrorNeitherHidesALossNorInventsADuplicate() throws Exception {
        // Given: a canary with a fixed canary.id whose probes the mirror copies, then the mirror stops, so the
        // probes of its last seconds are still on the source when the canary is restarted
        KafkaCluster source = SharedClusters.source();
        String topic = "canary.restart";
        MirrorEngine engine = mirror(source, "g-canary-restart", "canary\\.restart", null);
        try (Canary first = canary(source, topic, "canary.id", "fixed-id")) {
            Await.until(
                    "probes flowing",
                    Duration.ofSeconds(60),
                    () -> first.counts().arrived() >= 4);
            stop(engine);
            Await.until(
                    "probes outstanding behind the stopped mirror",
                    Duration.ofSeconds(30),
                    () -> first.counts().outstanding() >= 4);
        }

        // When: the canary restarts with the same id, and the mirror comes back and copies the old probes too
        try (Canary second = canary(
                source, topic, "canary.id", "fixed-id", "alarm.threshold.ms", "30000", "lost.after.ms", "60000")) {
            // The new run reads the target before the mirror copies the old probes there
            Await.until("the new run reads the target", Duration.ofSeconds(30), second::targetTopicPresent);
            Await.until(
                    "the new run has probes out",
                    Duration.ofSeconds(30),
                    () -> second.counts().sent() >= 2);
            engine = mirror(source, "g-canary-restart", "canary\\.restart", null);
            Await.until(
                    "the earlier run's probes arrived", Duration.ofSeconds(60), () -> second.earlierRunArrivals() >= 4);
            Await.until(
                    "and this run's own",
                    Duration.ofSeconds(60),
                    () -> second.counts().arrived() >= 6);

            // Then: the earlier run's probes are told apart from this run's (their sequence numbers overlap)
            assertThat(second.counts().duplicated()).as("no invented duplicate").isZero();
            assertThat(second.counts().lost()).isZero();
            ProbeTracker.Counts n = second.counts();
            assertThat(n.arrived() + n.outstanding() + n.lost()).isEqualTo(n.sent());
        } finally {
            stop(engine);
        }
    }

    private static String get(int port, String path) throws Exception {
        return java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
