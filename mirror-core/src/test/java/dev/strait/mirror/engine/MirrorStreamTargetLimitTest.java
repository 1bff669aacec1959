package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * D3: a route learns the target topic's max.message.bytes when its partition is assigned; a record larger than
 * that but within the target's current limit (raised since, e.g. by the topic-config sync) is copied, not refused.
 */
class MirrorStreamTargetLimitTest {
    @Test
    void aRecordWithinARaisedTargetLimitIsCopiedNotRefusedAsTooLarge() {
        // Given: a target topic that takes records of at most 1,000 bytes when the partition is assigned
        AtomicInteger targetLimit = new AtomicInteger(1_000);
        RecordRouter.Targets targets = new RecordRouter.Targets() {
            @Override
            public TargetTopics.TargetTopic ensure(String sourceTopic, String targetTopic) {
                return new TargetTopics.TargetTopic(targetTopic, 1, targetLimit.get());
            }

            @Override
            public void refresh(String targetTopic) {}
        };
        StreamHarness h = new StreamHarness(true, targets, b -> b.abortOnSendFailure(false));
        TopicPartition tp = new TopicPartition(StreamHarness.TOPIC, 0);
        h.consumer.schedulePollTask(() -> {
            h.consumer.updateBeginningOffsets(Map.of(tp, 0L));
            h.consumer.rebalance(List.of(tp));
            h.consumer.addRecord(StreamHarness.record(0, 0, 500, 0));
        });
        // When: the target's limit is raised to 100,000 bytes, then a record of 5,000 bytes arrives
        h.consumer.schedulePollTask(() -> {
            targetLimit.set(100_000);
            h.consumer.addRecord(StreamHarness.record(0, 1, 5_000, 0));
        });
        h.consumer.schedulePollTask(h.stream::requestStop);

        h.stream.run();

        // Then: both copied, nothing failed or skipped, committed past both
        assertThat(h.metrics.sendErrors()).as("send errors").isZero();
        assertThat(h.producer.history()).extracting(r -> r.value().length).containsExactly(500, 5_000);
        assertThat(h.consumer.lastCommitted.get(tp).offset()).isEqualTo(2);
    }
}
