package dev.strait.mirror.offsets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A commit held back at an owed record still carries a leader epoch: the epoch of the record just before the
 * committed offset, which is what the consumer validates a committed position with at the restart (KIP-320).
 * Without it an unclean election on the source while the mirror was down goes unnoticed.
 */
class OffsetTrackerEpochTest {
    private static final TopicPartition A = new TopicPartition("a", 0);

    @Test
    void aCommitHeldBackAtAnOwedRecordCarriesTheEpochOfTheRecordBeforeIt() {
        // Given: records up to 49 read in leader epoch 3, then up to 99 in epoch 4
        OffsetTracker tracker = new OffsetTracker();
        tracker.polled(A, 49, Optional.of(3));
        tracker.polled(A, 99, Optional.of(4));

        // When: record 50 is still owed (not acknowledged)
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.commitOffsets(List.of(A), Map.of(A, 50L));

        // Then: the commit is at 50 with the epoch of record 49
        assertThat(offsets.get(A).offset()).isEqualTo(50);
        assertThat(offsets.get(A).leaderEpoch()).contains(3);
    }

    @Test
    void anEpochChangeInsideOnePollIsKnownAtEveryOffset() {
        // Given: one poll of records 0..9, the leader changed at record 6 (epoch 7 to 8)
        OffsetTracker tracker = new OffsetTracker();
        tracker.leaderEpochAt(A, 0, Optional.of(7));
        tracker.leaderEpochAt(A, 6, Optional.of(8));
        tracker.polled(A, 9, Optional.of(8));

        // Then: a commit held back at 6 names the epoch of record 5, one at 7 that of record 6
        assertThat(tracker.commitOffsets(List.of(A), Map.of(A, 6L)).get(A).leaderEpoch())
                .contains(7);
        assertThat(tracker.commitOffsets(List.of(A), Map.of(A, 7L)).get(A).leaderEpoch())
                .contains(8);
        assertThat(tracker.leaderEpochBefore(A, 6)).contains(7);
    }

    @Test
    void aCommitHeldBackAtTheStartRepeatsTheEpochTheGroupCommitted() {
        // Given: the partition starts at the group's commit (120, epoch 5); records 120..129 are read
        OffsetTracker tracker = new OffsetTracker();
        tracker.startedAt(A, new OffsetAndMetadata(120, Optional.of(5), ""));
        tracker.leaderEpochAt(A, 120, Optional.of(6));
        tracker.polled(A, 129, Optional.of(6));

        // When: record 121 is owed (120 acknowledged)
        Map<TopicPartition, OffsetAndMetadata> offsets = tracker.commitOffsets(List.of(A), Map.of(A, 121L));

        // Then
        assertThat(offsets.get(A)).isEqualTo(new OffsetAndMetadata(121, Optional.of(6), ""));
        // And: held back at 120 itself, nothing moved, so nothing is committed (the group's commit stays as it was)
        assertThat(tracker.commitOffsets(List.of(A), Map.of(A, 120L))).isEmpty();
    }

    @Test
    void epochsBelowTheLastCommitAreDroppedButTheOneCoveringItIsKept() {
        // Given
        OffsetTracker tracker = new OffsetTracker();
        tracker.leaderEpochAt(A, 0, Optional.of(1));
        tracker.leaderEpochAt(A, 10, Optional.of(2));
        tracker.leaderEpochAt(A, 20, Optional.of(3));
        tracker.polled(A, 29, Optional.of(3));

        // When: committed at 15
        tracker.committed(tracker.commitOffsets(List.of(A), Map.of(A, 15L)));

        // Then: a later commit held back at 16 still knows record 15's epoch
        assertThat(tracker.commitOffsets(List.of(A), Map.of(A, 16L)).get(A).leaderEpoch())
                .contains(2);
        assertThat(tracker.commitOffsets(List.of(A), Map.of()).get(A))
                .isEqualTo(new OffsetAndMetadata(30, Optional.of(3), ""));
    }
}
