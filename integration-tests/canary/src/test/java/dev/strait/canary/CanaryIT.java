package dev.strait.canary;

import static dev.strait.canary.CanaryFixture.canary;
import static dev.strait.canary.CanaryFixture.mirror;
import static dev.strait.canary.CanaryFixture.stop;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.WebhookReceiver;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The canary against real Apache Kafka 4.1.1 clusters with the real mirror between them: latency, a stopped mirror, a
 * dropped and a duplicated probe. Its recovery cases are {@link CanaryRecoveryIT}, in a second test JVM.
 */
class CanaryIT {
    private final WebhookReceiver webhook = new WebhookReceiver();

    @AfterEach
    void stopWebhook() {
        webhook.close();
    }

    @Test
    void measuresLatencyAndReadsOkWhileTheMirrorRuns() throws Exception {
        KafkaCluster source = SharedClusters.source();
        MirrorEngine engine = mirror(source, "g-canary-ok", "canary\\.ok", null);
        // A threshold well above what a loaded 2-core CI machine may take, so the state tests the canary, not the
        // machine.
        long startedMs = System.currentTimeMillis();
        SleepRecordingTime time = new SleepRecordingTime();
        try (Canary canary = canary(time, source, "canary.ok", "alarm.threshold.ms", "10000");
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

            // OK once the cold start is behind it (its first probes may have been late on a loaded machine)
            Await.until("OK", Duration.ofSeconds(30), () -> canary.state() == CanaryState.OK);
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
            // Each latency is a real age, from the probe's send to its arrival on the target: never negative and never
            // longer than the canary has run. (Not a bound on the machine's speed: a cold mirror on a loaded machine
            // takes more than the threshold for its first probes.)
            long ranMs = System.currentTimeMillis() - startedMs;
            assertThat(canary.latency().getSnapshot().getMin()).isNotNegative();
            assertThat(canary.latency().getSnapshot().getMax()).isLessThanOrEqualTo(ranMs);
            // The canary waits only to retry (a missing topic, a failed read), never while it positions its reader:
            // every second it waited there, its first probes aged on the target (an 8 s pause did, left in by a
            // reproduction).
            assertThat(time.longestSleepMs())
                    .as("the longest wait the canary took")
                    .isLessThanOrEqualTo(1_000);
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
        // A canary id no JSON escaper may miss (quotes, backslash, control characters; the config trims its ends)
        String id = CanaryWebhookJsonTest.hostile() + "z";
        try (Canary canary =
                canary(source, "canary.stop", "alert.webhook.url", hook, "alert.suppress.ms", "0", "canary.id", id)) {
            // A loaded machine may take longer than the 2 s threshold for the first probes (a cold mirror: LATE,
            // even LOST, then OK, each posted): start from OK, with the webhook of that last change in too, since
            // a change is posted a moment after the state changed.
            Await.until(
                    "probes flowing and OK, and no webhook of an earlier state still to come",
                    Duration.ofSeconds(60),
                    () -> canary.counts().arrived() >= 4
                            && canary.state() == CanaryState.OK
                            && lastPostedStateIsOk(webhook));
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
            JsonNode lost = new ObjectMapper().readTree(webhook.bodies().get(before + 1));
            assertThat(lost.get("canaryId").textValue()).isEqualTo(id);
            assertThat(lost.get("detail").get("canaryId").textValue()).isEqualTo(id);
            assertThat(lost.get("detail").get("state").textValue()).isEqualTo("LOST");

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

    /** True when nothing was posted yet, or the last post was a change to OK. */
    private static boolean lastPostedStateIsOk(WebhookReceiver webhook) {
        List<String> bodies = webhook.bodies();
        // The change's own state precedes its "detail" object, which repeats the state.
        return bodies.isEmpty() || bodies.get(bodies.size() - 1).contains("\"state\":\"OK\",\"detail\"");
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
