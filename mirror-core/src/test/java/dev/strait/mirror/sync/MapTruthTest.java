package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Which facts win when the offset map's knowledge of a target partition disagrees with itself (issue 21, D4). */
class MapTruthTest {
    private static final TopicPartition TARGET = new TopicPartition("dr.orders", 0);
    private static final TopicPartition A = new TopicPartition("orders", 0);

    private static void copy(TargetHistory h, long sourceFrom, long sourceTo, long targetFrom) {
        for (long s = sourceFrom; s <= sourceTo; s++) {
            h.acknowledged(A, s, targetFrom + (s - sourceFrom));
        }
    }

    @Test
    void freshAcknowledgementsWinOverAnOldSnapshotOfAReCreatedTopic() {
        // Given: a snapshot of the old topic (source 0..999 at target 0..999), loaded by a restarted mirror
        TargetHistory old = new TargetHistory(TARGET, 1 << 20);
        copy(old, 0, 999, 0);
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.merge(old.snapshot());

        // When: the target topic was re-created and the mirror copies again from its commit, 1000, to 2499: the
        // new copies land at target 0..1499 (over the old snapshot's offsets, and past its end)
        for (long s = 1000; s <= 2499; s++) {
            map.acknowledged(A, s, TARGET, s - 1000);
        }

        // Then: a group at source 1500 starts at target 500, where its record is now, not at 1000 (which would
        // skip 500 unread copies)
        Translation t = map.history(TARGET).index().translate(Map.of(A, 1500L));
        assertThat(t.offset()).isEqualTo(500);
        assertThat(t.exact()).isTrue();
    }
}
