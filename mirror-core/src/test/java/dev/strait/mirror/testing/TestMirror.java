package dev.strait.mirror.testing;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.time.Time;
import java.util.Properties;

/** A started mirror engine for the other modules' ITs: one topic pattern, commits every 500 ms, real time. */
public final class TestMirror {
    private TestMirror() {}

    /**
     * @param consumerExtra consumer settings added to the bootstrap servers and group id
     * @param handler the message handler, or null for none
     */
    public static MirrorEngine start(
            String sourceBootstrap,
            String targetBootstrap,
            String group,
            String topicPattern,
            MessageHandler handler,
            Properties consumerExtra) {
        Properties c = new Properties();
        c.put("bootstrap.servers", sourceBootstrap);
        c.put("group.id", group);
        c.putAll(consumerExtra);
        Properties p = new Properties();
        p.put("bootstrap.servers", targetBootstrap);
        MirrorEngine engine = new MirrorEngine(
                MirrorConfig.builder()
                        .consumerConfig(c)
                        .producerConfig(p)
                        .include(topicPattern)
                        .offsetCommitIntervalMs(500)
                        .messageHandler(handler)
                        .build(),
                new MirrorMetrics(new MetricRegistry()),
                Time.SYSTEM);
        engine.start();
        return engine;
    }
}
