package dev.strait.mirror.offsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {
    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final TopicPartition B = new TopicPartition("a", 1);

    @Test
    void commitsOnePastTheLastPolledRecord() {
        // Given
        OffsetTracker tracker = new OffsetTracker();
        tracker.polled(A, 41, Optional.of(3));

        // When
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.commitOffsets(List.of(A), Map.of());

        // Then
        assertThat(offsets.get(A).offset()).isEqualTo(42);
        assertThat(offsets.get(A).leaderEpoch()).contains(3);
    }

    @Test
    void neverCommitsPastTheFirstFailedRecord() {
        // Given
        OffsetTracker tracker = new OffsetTracker();
        tracker.polled(A, 99, Optional.empty());
        tracker.polled(B, 10, Optional.empty());

        // When
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.commitOffsets(List.of(A, B), Map.of(A, 50L));

        // Then
        assertThat(offsets.get(A).offset()).isEqualTo(50);
        assertThat(offsets.get(B).offset()).isEqualTo(11);
    }

    @Test
    void skipsPartitionsThatDidNotMoveSinceTheirLastCommit() {
        // Given
        OffsetTracker tracker = new OffsetTracker();
        tracker.polled(A, 5, Optional.empty());
        tracker.committed(tracker.commitOffsets(List.of(A), Map.of()));

        // When
        Map<TopicPartition, OffsetAndMetadata> again = tracker.commitOffsets(List.of(A), Map.of());
        tracker.polled(A, 9, Optional.empty());

        // Then
        assertThat(again).isEmpty();
        assertThat(tracker.uncommitted()).isEqualTo(4);
        assertThat(tracker.commitOffsets(List.of(A), Map.of()).get(A).offset()).isEqualTo(10);
    }

    @Test
    void offsetsGoingBackWithoutASeekAreAnInvariantViolation() {
        OffsetTracker tracker = new OffsetTracker();
        tracker.polled(A, 10, Optional.empty());

        assertThatThrownBy(() -> tracker.polled(A, 3, Optional.empty()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("went back");
    }

    @Test
    void aSeekAllowsAnEarlierPosition() {
        // Given
        OffsetTracker tracker = new OffsetTracker();
        tracker.polled(A, 500, Optional.empty());

        // When: the topic was re-created and the stream moved to its beginning
        tracker.seeked(A, 0);
        tracker.polled(A, 7, Optional.empty());

        // Then
        assertThat(tracker.commitOffsets(List.of(A), Map.of()).get(A).offset()).isEqualTo(8);
    }

    @Test
    void removedPartitionsAreNotCommitted() {
        OffsetTracker tracker = new OffsetTracker();
        tracker.polled(A, 1, Optional.empty());
        tracker.remove(List.of(A));

        assertThat(tracker.commitOffsets(List.of(A), Map.of())).isEmpty();
        assertThat(tracker.tracked()).isEmpty();
    }
}
