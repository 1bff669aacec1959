package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.SharedClusters;
import dev.strait.time.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The target cluster goes away for 30 seconds in the middle of a live load and comes back. */
class TargetOutageIT {
    @TempDir
    Path dir;

    @Test
    void targetDownForThirtySecondsLosesNothing() throws Exception {
        KafkaCluster source = SharedClusters.source();
        try (KafkaCluster target = KafkaCluster.start("outage-target", 1)) {
            // Given
            String topic = "outage";
            source.createTopic(topic, 3);
            List<String> args = MirrorProcessSuite.args(dir, source, target, "g-outage", topic, "--num.streams", "2");
            try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 3, 15_000, 1_000);
                    MirrorProcess mirror = MirrorProcess.start(dir, "mirror", args)) {
                Await.until("mirroring under way", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) >= 3_000);

                // When: the target is down for 30 s while the source keeps receiving records
                target.stopAll();
                Thread.sleep(30_000);
                target.restartAll();

                load.awaitDone(120);
                Await.until(
                        "everything mirrored and committed",
                        Duration.ofSeconds(180),
                        () -> source.committedOffsets("g-outage", topic).values().stream()
                                        .mapToLong(Long::longValue)
                                        .sum()
                                == 45_000);
                assertThat(mirror.isAlive()).as(mirror.log()).isTrue();
                mirror.terminate(60);
            }

            // Then
            MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
            System.out.println("target outage test: " + report);
            assertThat(report.lost()).as(report.toString()).isZero();
            assertThat(report.mismatched()).as(report.toString()).isZero();
        }
    }
}
