package dev.strait.canary;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.testing.TestMirror;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.Properties;

/** A canary and the real mirror between a source and the shared target cluster, for the canary's ITs. */
final class CanaryFixture {
    private CanaryFixture() {}

    static Canary canary(KafkaCluster source, String topic, String... extra) {
        return canary(Time.SYSTEM, source, topic, extra);
    }

    static Canary canary(Time time, KafkaCluster source, String topic, String... extra) {
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
        Canary c = new Canary(CanaryConfig.from(p), new MetricRegistry(), time);
        c.start();
        return c;
    }

    static MirrorEngine mirror(KafkaCluster source, String group, String topic, MessageHandler handler) {
        Properties c = new Properties();
        c.put("metadata.max.age.ms", "1000");
        return TestMirror.start(
                source.bootstrapServers(), SharedClusters.target().bootstrapServers(), group, topic, handler, c);
    }

    static void stop(MirrorEngine engine) throws InterruptedException {
        engine.requestStop();
        assertThat(engine.awaitTermination(Duration.ofSeconds(60))).isTrue();
    }
}
