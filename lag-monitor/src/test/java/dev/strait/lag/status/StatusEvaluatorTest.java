package dev.strait.lag.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.strait.lag.sample.LagSnapshot;
import dev.strait.lag.sample.PartitionLag;
import org.junit.jupiter.api.Test;

class StatusEvaluatorTest {
    private static final int WINDOW = 3;
    private final StatusEvaluator evaluator = new StatusEvaluator(WINDOW, 10_000, -1, -1);
    private long now = 1_000_000;

    private Status next(long committed, long exactLag) {
        return next(committed, exactLag, List.of());
    }

    private Status next(long committed, long exactLag, List<String> errors) {
        now += 1000;
        PartitionLag p = new PartitionLag("t", 0, "t", 0, 1000, 1000 - exactLag, committed, -1, 999 - exactLag,
            exactLag, 1000 - committed, -1, exactLag == 0 ? 0 : 500);
        return evaluator.evaluate(new LagSnapshot(now, 5, List.of(p), errors, List.of(), 1, 1)).status();
    }

    @Test
    void okWhileCommitsMoveAndLagShrinks() {
        assertThat(next(100, 50)).isEqualTo(Status.OK);
        assertThat(next(200, 40)).isEqualTo(Status.OK);
        assertThat(next(300, 30)).isEqualTo(Status.OK);
    }

    @Test
    void warnWhenLagGrowsAcrossTheWholeWindow() {
        next(100, 10);
        next(200, 20);
        assertThat(next(300, 30)).isEqualTo(Status.WARN);
        assertThat(next(400, 25)).as("it shrank once").isEqualTo(Status.OK);
    }

    @Test
    void stallWhenCommitsDoNotMoveWhileLagging() {
        next(100, 5);
        next(100, 6);
        assertThat(next(100, 6)).isEqualTo(Status.STALL);
    }

    @Test
    void stopWhenNoCommitForLongerThanTheLimit() {
        next(100, 5);
        now += 20_000;
        assertThat(next(100, 5)).isEqualTo(Status.STOP);
    }

    @Test
    void aQuietPartitionWithZeroLagIsNeverStopped() {
        next(100, 0);
        now += 3_600_000;
        assertThat(next(100, 0)).isEqualTo(Status.OK);
        assertThat(next(100, 0)).isEqualTo(Status.OK);
    }

    @Test
    void rewindWhenTheCommittedOffsetGoesBack() {
        next(500, 0);
        assertThat(next(200, 0)).isEqualTo(Status.REWIND);
    }

    @Test
    void errWhenAClusterCannotBeRead() {
        assertThat(next(100, 0, List.of("target cluster: TimeoutException"))).isEqualTo(Status.ERR);
    }

    @Test
    void thresholdsAreReportedBesideTheStatus() {
        StatusEvaluator strict = new StatusEvaluator(WINDOW, 10_000, 10, -1);
        PartitionLag p = new PartitionLag("t", 0, "t", 0, 100, 50, 50, -1, 49, 50, 50, -1, 1000);

        StatusEvaluator.GroupStatus s = strict.evaluate(new LagSnapshot(now, 5, List.of(p), List.of(), List.of(), 1, 1));

        assertThat(s.status()).isEqualTo(Status.OK);
        assertThat(s.thresholdCrossed()).isTrue();
    }
}
