package dev.strait.mirror.linked;

import dev.strait.mirror.linked.LineageParting.EpochEnd;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The old source's own leader epochs of one partition, asked with OffsetForLeaderEpoch as a Kafka follower asks its
 * leader. The public client API has no call for it, but a consumer sends exactly that request when it validates a
 * position that carries a leader epoch: seeking to an offset past any log end with epoch E makes it ask where E
 * ends, and with no reset policy it reports the answer as a truncation ({@link LogTruncationException}'s divergent
 * offset: the largest epoch at or below E the broker holds, and its end). One request per question; the caller asks
 * few (usually one). Not thread-safe; one failback thread owns it.
 */
final class OldSourceEpochs implements LineageParting.EpochEnds, AutoCloseable {
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicPartition partition;
    private final Time time;

    OldSourceEpochs(Properties client, TopicPartition partition, Time time) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.consumer = new KafkaConsumer<>(props);
        this.partition = partition;
        this.time = time;
        consumer.assign(List.of(partition));
    }

    /**
     * @throws LinkException when the old source gives no epoch answer (it skipped the validation, or timed out):
     *                       the caller falls back to comparing records
     */
    @Override
    public EpochEnd endOf(int epoch) {
        consumer.seek(partition, new OffsetAndMetadata(Long.MAX_VALUE, Optional.of(epoch), ""));
        long deadline = time.milliseconds() + ANSWER_TIMEOUT.toMillis();
        while (time.milliseconds() < deadline) {
            try {
                consumer.poll(Duration.ofMillis(200));
            } catch (LogTruncationException e) {
                OffsetAndMetadata divergent = e.divergentOffsets().get(partition);
                if (divergent == null) {
                    return EpochEnd.UNDEFINED; // no epoch at or below the one asked
                }
                return new EpochEnd(divergent.leaderEpoch().orElse(-1), divergent.offset());
            } catch (OffsetOutOfRangeException e) {
                throw new LinkException(
                        partition + ": the old source answered no OffsetForLeaderEpoch for epoch " + epoch);
            }
        }
        throw new LinkException(partition + ": no OffsetForLeaderEpoch answer for epoch " + epoch + " within "
                + ANSWER_TIMEOUT.toSeconds() + " s");
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
