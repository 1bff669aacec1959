package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * D6: a stream that stops on a target timeout commits only up to the first copy still owed, and that commit
 * carries the leader epoch of the record before it, so the restart can detect an unclean election on the source.
 */
class MirrorStreamCommitEpochTest {
    @Test
    void theCommitAfterATargetTimeoutCarriesTheLeaderEpochOfTheLastRecordBeforeIt() {
        // Given: records 0..6 written in leader epoch 3, 7..9 in epoch 4, all handed to the producer
        StreamHarness h = new StreamHarness(false, StreamHarness.unlimited(1), b -> {});
        TopicPartition tp = new TopicPartition(StreamHarness.TOPIC, 0);
        h.consumer.schedulePollTask(() -> {
            h.consumer.updateBeginningOffsets(Map.of(tp, 0L));
            h.consumer.rebalance(List.of(tp));
            for (int o = 0; o < 10; o++) {
                h.consumer.addRecord(StreamHarness.record(0, o, 10, o < 7 ? 3 : 4));
            }
        });
        // When: the target acknowledges 0..6, then the copy of 7 times out (8 and 9 stay in flight)
        h.consumer.schedulePollTask(() -> {
            for (int i = 0; i < 7; i++) {
                h.producer.completeNext();
            }
            h.producer.errorNext(new TimeoutException("Expiring 1 record(s): delivery.timeout.ms has passed"));
        });

        assertThatThrownBy(h.stream::run).isInstanceOf(MirrorException.class);

        // Then: committed at 7 with the epoch of record 6
        OffsetAndMetadata committed = h.consumer.lastCommitted.get(tp);
        assertThat(committed.offset()).isEqualTo(7);
        assertThat(committed.leaderEpoch())
                .as("leader epoch of the committed position")
                .contains(3);
    }
}
