package dev.strait.broker.link;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A connection to one broker of a mirror topic's source cluster, as a consumer over the Kafka protocol: topic
 * metadata, Fetch at read_uncommitted (every batch as stored, transaction markers and aborted records included) and
 * the earliest offsets. Implemented by the protocol adapter, so that this package stays free of kafka-clients'
 * protocol classes. Blocking; one fetcher thread owns it.
 */
public interface SourceClient extends AutoCloseable {

    /** The source's errors, reduced to what the mirror fetcher acts on. */
    enum SourceError {
        NONE,
        NOT_LEADER,
        FENCED_EPOCH,
        UNKNOWN_EPOCH,
        OFFSET_OUT_OF_RANGE,
        UNKNOWN_TOPIC,
        NOT_AUTHORIZED,
        OTHER
    }

    record Broker(int id, String host, int port) {}

    /** A source partition's leader; {@code leaderId} is -1 while it has none. */
    record PartitionInfo(int partition, int leaderId, int leaderEpoch, SourceError error) {}

    /** A source topic; {@code topicId} is {@link Uuid#ZERO_UUID} and the partitions empty when it is unknown. */
    record TopicInfo(String name, Uuid topicId, SourceError error, List<PartitionInfo> partitions) {}

    record Metadata(Map<Integer, Broker> brokers, Map<String, TopicInfo> topics) {}

    record FetchTarget(TopicPartition source, Uuid topicId, long fetchOffset, int currentLeaderEpoch, int maxBytes) {}

    /** @param records whole batches only (a trailing partial batch is cut off), possibly empty */
    record Fetched(SourceError error, long highWatermark, long logStartOffset, ByteBuffer records) {}

    /** Opens connections; one per source broker. */
    interface Factory {
        SourceClient connect(String host, int port) throws IOException;
    }

    Metadata metadata(Collection<String> topics) throws IOException;

    Map<TopicPartition, Fetched> fetch(List<FetchTarget> targets, int maxWaitMs, int maxBytes) throws IOException;

    /** The earliest offset of each partition this broker leads (ListOffsets EARLIEST); -1 where it answered an error. */
    Map<TopicPartition, Long> logStartOffsets(Map<TopicPartition, Integer> currentLeaderEpochs) throws IOException;

    @Override
    void close();
}
