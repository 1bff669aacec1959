package dev.strait.canary;

import static dev.strait.canary.CanaryFixture.canary;
import static dev.strait.canary.CanaryFixture.mirror;
import static dev.strait.canary.CanaryFixture.stop;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.time.Await;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The canary recovers without hiding a loss or inventing a duplicate: when the source cluster went away and came
 * back, and when it was restarted with the same id behind a lagging mirror. Against real Apache Kafka 4.1.1.
 */
class CanaryRecoveryIT {
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
}
