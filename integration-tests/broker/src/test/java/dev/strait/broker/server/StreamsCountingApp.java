package dev.strait.broker.server;

import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A Kafka Streams 4.1.1 counting application with {@code processing.guarantee=exactly_once_v2}, run as a child JVM
 * by {@link StreamsExactlyOnceIT} so that it can be killed with SIGKILL: it counts the records of each key of
 * {@code input} and writes every new count to {@code output}. The record cache is off, so every input record yields
 * one output record, and a record processed twice would show as a count repeated or skipped.
 *
 * <p>Arguments: bootstrap servers, application id, input topic, output topic, state directory.
 */
public final class StreamsCountingApp {

    private StreamsCountingApp() {}

    public static void main(String[] args) throws InterruptedException {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        props.put(StreamsConfig.producerPrefix("request.timeout.ms"), 10_000);
        props.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args[2], Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.as("counts"))
                .toStream()
                .to(args[3], Produced.with(Serdes.String(), Serdes.Long()));
        CountDownLatch stopped = new CountDownLatch(1);
        try (KafkaStreams streams = new KafkaStreams(builder.build(), props)) {
            streams.setStateListener((now, before) -> {
                System.out.println("state " + before + " -> " + now);
                if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                    stopped.countDown();
                }
            });
            streams.start();
            stopped.await();
        }
        System.exit(1);
    }
}
