package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestCluster;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.Properties;

/** The shared source and target clusters of one kind and the steps every in-process engine test takes. */
final class MirrorFixture {
    private final TestCluster source;
    private final TestCluster target;

    MirrorFixture(TestCluster.Kind kind) {
        this.source = SharedClusters.source(kind);
        this.target = SharedClusters.target(kind);
    }

    TestCluster source() {
        return source;
    }

    TestCluster target() {
        return target;
    }

    MirrorConfig.Builder settings(String group, String include) {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", source.bootstrapServers());
        consumer.put("group.id", group);
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", target.bootstrapServers());
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include)
                .offsetCommitIntervalMs(1000);
    }

    static MirrorEngine start(MirrorConfig settings) {
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }

    static void stop(MirrorEngine engine) throws InterruptedException {
        engine.requestStop();
        assertThat(engine.awaitTermination(Duration.ofSeconds(90)))
                .as("engine stops")
                .isTrue();
    }

    void awaitTarget(String topic, long records) {
        Await.until(
                records + " records on target topic " + topic,
                Duration.ofSeconds(120),
                () -> target.endOffsetSum(topic) >= records);
    }
}
