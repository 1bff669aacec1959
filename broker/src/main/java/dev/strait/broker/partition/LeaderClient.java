package dev.strait.broker.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * A follower's connection to one leader broker: Fetch and OffsetForLeaderEpoch as a replica (Kafka's
 * {@code LeaderEndPoint}). Implemented by the protocol adapter over the Kafka wire protocol, so that this package
 * stays free of kafka-clients' protocol classes. Blocking; used by one fetcher thread.
 */
public interface LeaderClient extends AutoCloseable {

    /** Errors a leader answers a replica with, reduced to what the fetcher acts on. */
    /** {@code NOT_AUTHORIZED}: the leader refused this broker's principal (it needs CLUSTER_ACTION). */
    enum ReplicaError {
        NONE,
        NOT_LEADER,
        FENCED_EPOCH,
        UNKNOWN_EPOCH,
        OFFSET_OUT_OF_RANGE,
        UNKNOWN_PARTITION,
        NOT_AUTHORIZED,
        OTHER
    }

    record FetchTarget(
            TopicPartition topicPartition,
            Uuid topicId,
            long fetchOffset,
            long logStartOffset,
            int currentLeaderEpoch,
            int maxBytes) {}

    /** @param records whole batches only (a trailing partial batch is cut off), possibly empty */
    record FetchedPartition(ReplicaError error, long highWatermark, long logStartOffset, ByteBuffer records) {}

    record EpochQuery(TopicPartition topicPartition, int currentLeaderEpoch, int epoch) {}

    record EpochAnswer(ReplicaError error, int leaderEpoch, long endOffset) {}

    /** Creates clients; {@code host:port} is the leader's listener as registered in the metadata. */
    interface Factory {
        LeaderClient connect(int leaderId, String host, int port) throws IOException;
    }

    Map<TopicPartition, FetchedPartition> fetch(List<FetchTarget> targets, int maxWaitMs, int minBytes, int maxBytes)
            throws IOException;

    Map<TopicPartition, EpochAnswer> offsetsForLeaderEpoch(List<EpochQuery> queries) throws IOException;

    @Override
    void close();
}
