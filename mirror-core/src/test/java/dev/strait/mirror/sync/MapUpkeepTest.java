package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The upkeep keeps the offset map true to the target's current topic (issue 21: D4 incarnations, D9 re-reads). */
class MapUpkeepTest {
    private static final TopicPartition TARGET = new TopicPartition("dr.orders", 0);
    private static final TopicPartition A = new TopicPartition("orders", 0);
    private static final TopicPartition B = new TopicPartition("orders", 1);
    private static final long BUDGET = 2_000_000;

    private static MapUpkeep.Result upkeep(OffsetMap map, FakeTarget target) {
        Map<TopicPartition, Long> knownEnds = MapUpkeep.knownEnds(map);
        return MapUpkeep.run(
                map, target, knownEnds, Map.of(TARGET, 0L), Map.of(TARGET, target.end(TARGET)), BUDGET, null);
    }

    /** The old topic: source 0..1999 copied at target 0..1999, persisted with its id. */
    private static HistorySnapshot oldTopicSnapshot(FakeTarget target) {
        target.create("dr.orders", "old-id");
        OffsetMap old = new OffsetMap("src", 1 << 20);
        for (long s = 0; s < 2000; s++) {
            old.acknowledged(A, s, TARGET, target.append(TARGET, A, s));
        }
        upkeep(old, target);
        return old.existing(TARGET).snapshot();
    }

    @Test
    void aReCreatedTargetTopicDropsTheOldIncarnationsFactsEvenBeyondTheNewCopies() {
        // Given: a snapshot of the old topic; the topic is deleted and created again, and the restarted mirror
        // copies again from its commit, 1000: source 1000..2499 land at target 0..1499, over the old facts but
        // short of the old end (2000)
        FakeTarget target = new FakeTarget();
        HistorySnapshot old = oldTopicSnapshot(target);
        assertThat(old.topicId()).isEqualTo("old-id");
        target.create("dr.orders", "new-id");
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.merge(old);
        for (long s = 1000; s < 2500; s++) {
            map.acknowledged(A, s, TARGET, target.append(TARGET, A, s));
        }
        // Before the upkeep, the old facts at 1500..1999 claim source 1500..1999 was copied again there
        assertThat(map.existing(TARGET).index().translate(Map.of(A, 1500L)).offset())
                .isNotEqualTo(500);

        // When: the upkeep sees the topic's new id
        MapUpkeep.Result result = upkeep(map, target);

        // Then: the old facts are gone, the partition was read again, a group at 1500 starts at 500, exactly
        assertThat(result.partitionsReset()).isEqualTo(1);
        assertThat(result.recordsRead()).isEqualTo(1500);
        Translation t = map.existing(TARGET).index().translate(Map.of(A, 1500L));
        assertThat(t.offset()).isEqualTo(500);
        assertThat(t.exact()).isTrue();
        assertThat(map.existing(TARGET).snapshot().topicId()).isEqualTo("new-id");

        // And: another process's snapshot of the old topic, merged later, is ignored
        map.merge(old);
        assertThat(map.existing(TARGET).index().translate(Map.of(A, 1500L)).offset())
                .isEqualTo(500);
        assertThat(map.existing(TARGET).index().to()).isEqualTo(1500);
    }

    @Test
    void aSnapshotWithoutTopicIdIsKeptWhenTheTargetStillHoldsItsCopies() {
        // Given: a snapshot written before ids were kept, of the topic as it still is
        FakeTarget target = new FakeTarget();
        HistorySnapshot old = withoutId(oldTopicSnapshot(target));
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.merge(old);

        // When
        MapUpkeep.Result result = upkeep(map, target);

        // Then: two records read to check it, nothing forgotten, and the id is now known (and will be persisted)
        assertThat(result.partitionsReset()).isZero();
        assertThat(target.recordsRead).isEqualTo(2);
        assertThat(map.existing(TARGET).index().translate(Map.of(A, 1500L)).offset())
                .isEqualTo(1500);
        assertThat(map.existing(TARGET).snapshot().topicId()).isEqualTo("old-id");
        assertThat(map.existing(TARGET).version()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void aSnapshotWithoutTopicIdIsDroppedWhenTheTargetHoldsOtherRecords() {
        // Given: a snapshot without id of the old topic; the topic was re-created and copied again from 1000, past
        // the old end
        FakeTarget target = new FakeTarget();
        HistorySnapshot old = withoutId(oldTopicSnapshot(target));
        target.create("dr.orders", "new-id");
        for (long s = 1000; s < 4000; s++) {
            target.append(TARGET, A, s);
        }
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.merge(old);

        // When
        MapUpkeep.Result result = upkeep(map, target);

        // Then: the snapshot's facts are dropped and the partition is learnt from the target
        assertThat(result.partitionsReset()).isEqualTo(1);
        assertThat(map.existing(TARGET).index().translate(Map.of(A, 1500L)).offset())
                .isEqualTo(500);
        assertThat(map.existing(TARGET).index().to()).isEqualTo(3000);
    }

    @Test
    void aCappedHashModePartitionIsNotReadBelowItsWindowEveryRound() {
        // Given: a hash-mode partition (two source partitions interleaved), 10,000 copies, capped at 1,000 segments
        FakeTarget target = new FakeTarget();
        target.create("dr.orders", "id");
        OffsetMap map = new OffsetMap("src", 1_000);
        for (long i = 0; i < 10_000; i++) {
            TopicPartition source = i % 2 == 0 ? A : B;
            map.acknowledged(source, i / 2, TARGET, target.append(TARGET, source, i / 2));
        }
        upkeep(map, target);
        long afterFirst = target.recordsRead;

        // When: two more rounds, nothing new
        upkeep(map, target);
        upkeep(map, target);

        // Then: nothing is read again (the cap would drop it again)
        assertThat(target.recordsRead - afterFirst)
                .as("records read in rounds 2 and 3")
                .isZero();
        assertThat(map.existing(TARGET).segments()).isLessThanOrEqualTo(1_000);
    }

    private static HistorySnapshot withoutId(HistorySnapshot s) {
        return new HistorySnapshot(s.target(), s.feeders(), s.t(), s.s(), s.len(), s.feeder(), s.known(), null);
    }
}
