package dev.strait.lag.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The status page's ring of lag points per partition: bounded by time and by count, failed cycles left out. */
class LagHistoryTest {
    private static PartitionLag lag(String topic, int partition, long exact, long committed, long timeLagMs) {
        return new PartitionLag(topic, partition, topic, 0, 100, 90, 80, 85, 89, exact, committed, 15, timeLagMs);
    }

    private static LagSnapshot at(long ms, PartitionLag... partitions) {
        return new LagSnapshot(ms, 5, List.of(partitions), List.of(), List.of(), 1, 1);
    }

    @Test
    void keepsEachPartitionsPointsOldestFirstWithTheBestLag() {
        LagHistory h = new LagHistory(60_000, 10, 1_000_000);

        h.record(at(1_000, lag("a", 0, 7, 20, 300), lag("a", 1, -1, 20, -1)));
        h.record(at(2_000, lag("a", 0, 3, 10, 100), lag("a", 1, -1, 12, -1)));

        LagHistory.Snapshot s = h.snapshot();
        assertThat(s.series()).extracting(LagHistory.Series::partition).containsExactly(0, 1);
        assertThat(s.series().get(0).points())
                .containsExactly(new LagHistory.Point(1_000, 7, 300), new LagHistory.Point(2_000, 3, 100));
        assertThat(s.series().get(1).points())
                .as("exact lag unknown: the committed lag stands in, as in the status")
                .extracting(LagHistory.Point::lag)
                .containsExactly(20L, 12L);
    }

    @Test
    void theRingDropsItsOldestPointWhenFull() {
        LagHistory h = new LagHistory(3_600_000, 3, 1_000_000);

        for (int i = 1; i <= 5; i++) {
            h.record(at(i * 1_000L, lag("t", 0, i, i, 0)));
        }

        assertThat(h.snapshot().series().get(0).points())
                .extracting(LagHistory.Point::lag)
                .containsExactly(3L, 4L, 5L);
    }

    @Test
    void pointsOlderThanTheSpanGoAndSoDoPartitionsNoLongerSampled() {
        LagHistory h = new LagHistory(10_000, 100, 1_000_000);
        h.record(at(0, lag("gone", 0, 1, 1, 0), lag("t", 0, 1, 1, 0)));
        h.record(at(5_000, lag("t", 0, 2, 2, 0)));

        h.record(at(12_000, lag("t", 0, 3, 3, 0)));

        assertThat(h.snapshot().series()).extracting(LagHistory.Series::topic).containsExactly("t");
        assertThat(h.snapshot().series().get(0).points())
                .extracting(LagHistory.Point::timestampMs)
                .containsExactly(5_000L, 12_000L);
    }

    @Test
    void aFailedCycleAddsNoPointItsFiguresAreUnknownNotZero() {
        LagHistory h = new LagHistory(60_000, 10, 1_000_000);
        h.record(at(1_000, lag("t", 0, 4, 4, 0)));

        h.record(new LagSnapshot(
                2_000, 5, List.of(lag("t", 0, 0, 0, 0)), List.of("source cluster: down"), List.of(), 1, 0));

        assertThat(h.snapshot().series().get(0).points()).hasSize(1);
    }

    @Test
    void aSnapshotDoesNotChangeWhenTheRingMovesOn() {
        LagHistory h = new LagHistory(60_000, 2, 1_000_000);
        h.record(at(1_000, lag("t", 0, 1, 1, 0)));
        LagHistory.Snapshot before = h.snapshot();

        h.record(at(2_000, lag("t", 0, 2, 2, 0)));
        h.record(at(3_000, lag("t", 0, 3, 3, 0)));

        assertThat(before.series().get(0).points())
                .extracting(LagHistory.Point::lag)
                .containsExactly(1L);
    }

    @Test
    void anHourAtTheSamplingIntervalCappedInPoints() {
        LagHistory tenSeconds = LagHistory.lastHour(10_000, 720, 1_000_000);
        for (int i = 0; i < 400; i++) {
            tenSeconds.record(at(i * 10_000L, lag("t", 0, i, i, 0)));
        }
        assertThat(tenSeconds.snapshot().series().get(0).points())
                .as("an hour at 10 s: 361 points")
                .hasSize(361);

        LagHistory fast = LagHistory.lastHour(100, 720, 1_000_000);
        for (int i = 0; i < 1_000; i++) {
            fast.record(at(i * 100L, lag("t", 0, i, i, 0)));
        }
        assertThat(fast.snapshot().series().get(0).points()).hasSize(720);
    }

    @Test
    void manyPartitionsShareTheTotalAndKeepLessEachButNeverFewerThanTwo() {
        LagHistory h = new LagHistory(3_600_000, 720, 10);
        for (int i = 1; i <= 5; i++) {
            h.record(at(
                    i * 1_000L,
                    lag("t", 0, i, i, 0),
                    lag("t", 1, i, i, 0),
                    lag("t", 2, i, i, 0),
                    lag("t", 3, i, i, 0)));
        }
        assertThat(h.snapshot().series())
                .allSatisfy(s ->
                        assertThat(s.points()).extracting(LagHistory.Point::lag).containsExactly(4L, 5L));

        LagHistory tight = new LagHistory(3_600_000, 720, 1);
        for (int i = 1; i <= 5; i++) {
            tight.record(at(i * 1_000L, lag("t", 0, i, i, 0), lag("t", 1, i, i, 0)));
        }
        assertThat(tight.snapshot().series())
                .allSatisfy(s -> assertThat(s.points()).hasSize(2));
    }
}
