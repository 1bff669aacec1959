package dev.strait.lag.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.lag.sample.LagSnapshot;
import dev.strait.lag.sample.PartitionLag;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Burrow's evaluation rules as a table: each row is a window of five samples (seconds, committed offset,
 * lag, source end offset), in the manner of the examples on the Burrow wiki's "Consumer Lag Evaluation
 * Rules" page, and the status the last sample must get.
 */
class StatusEvaluatorTest {
    private static final int WINDOW = 5;
    private static final long STOP_AFTER_MS = 300_000;

    /** One sample: at {@code s} seconds, the committed offset, the lag, and the source end offset. */
    private record S(long s, long committed, long lag, long end) {}

    private static S s(long seconds, long committed, long lag) {
        return new S(seconds, committed, lag, committed + lag + 1);
    }

    private static Arguments row(String name, Status expected, S... samples) {
        return Arguments.of(name, expected, List.of(samples));
    }

    static Stream<Arguments> wikiExamples() {
        return Stream.of(
                row(
                        "offsets move, lag goes up and down: the mirror keeps up",
                        Status.OK,
                        s(60, 1000, 50),
                        s(120, 2000, 30),
                        s(180, 3000, 60),
                        s(240, 4000, 20),
                        s(300, 5000, 40)),
                row(
                        "any zero lag in the window is OK, however the rest looks",
                        Status.OK,
                        s(60, 1000, 0),
                        s(120, 2000, 50),
                        s(180, 3000, 100),
                        s(240, 4000, 150),
                        s(300, 5000, 200)),
                row(
                        "a zero lag at the end is OK too",
                        Status.OK,
                        s(60, 1000, 100),
                        s(120, 1000, 150),
                        s(180, 1000, 200),
                        s(240, 1000, 250),
                        s(300, 1250, 0)),
                row(
                        "offsets move but the lag grows at every sample: WARN",
                        Status.WARN,
                        s(60, 1000, 100),
                        s(120, 2000, 150),
                        s(180, 3000, 200),
                        s(240, 4000, 250),
                        s(300, 5000, 300)),
                row(
                        "offsets move but the lag never decreases (stands still): WARN, not only when it grew",
                        Status.WARN,
                        s(60, 1000, 100),
                        s(120, 2000, 100),
                        s(180, 3000, 100),
                        s(240, 4000, 100),
                        s(300, 5000, 100)),
                row(
                        "one decrease anywhere in the window is enough for OK",
                        Status.OK,
                        s(60, 1000, 100),
                        s(120, 2000, 150),
                        s(180, 3000, 140),
                        s(240, 4000, 250),
                        s(300, 5000, 300)),
                row(
                        "the committed offset never moves while lag grows: STALL",
                        Status.STALL,
                        s(60, 1000, 100),
                        s(120, 1000, 150),
                        s(180, 1000, 200),
                        s(240, 1000, 250),
                        s(300, 1000, 300)),
                row(
                        "the committed offset never moves and lag stands still: STALL",
                        Status.STALL,
                        s(60, 1000, 100),
                        s(120, 1000, 100),
                        s(180, 1000, 100),
                        s(240, 1000, 100),
                        s(300, 1000, 100)),
                row(
                        "the offset went backwards: REWIND, checked before STOP, STALL and WARN",
                        Status.REWIND,
                        s(60, 1000, 100),
                        s(120, 2000, 150),
                        s(180, 3000, 200),
                        s(240, 2000, 1250),
                        s(300, 4000, 300)),
                row(
                        "no commit for longer than the span of the window's commits: STOP",
                        Status.STOP,
                        s(100, 1000, 50),
                        s(200, 2000, 100),
                        s(300, 3000, 150),
                        s(400, 4000, 200),
                        s(500, 5000, 250),
                        s(1001, 5000, 300)),
                row(
                        "no commit for exactly the span of the commits is not yet STOP (it is WARN here)",
                        Status.WARN,
                        s(100, 1000, 50),
                        s(200, 2000, 100),
                        s(300, 3000, 150),
                        s(400, 4000, 200),
                        s(500, 5000, 250),
                        s(900, 5000, 300)),
                row(
                        "recent-zero guard: at the previous sample the committed offset had reached the end; the partition was "
                                + "idle and just got records, so no STOP",
                        Status.OK,
                        s(100, 1000, 50),
                        s(200, 2000, 100),
                        s(300, 3000, 150),
                        s(400, 4000, 200),
                        new S(500, 5000, 1, 5000),
                        new S(1001, 5000, 40, 5040)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wikiExamples")
    void burrowsRules(String name, Status expected, List<S> samples) {
        StatusEvaluator evaluator = new StatusEvaluator(WINDOW, STOP_AFTER_MS, -1, -1);
        Status last = null;
        for (S sample : samples) {
            last = evaluate(evaluator, sample);
        }
        assertThat(last).as(name).isEqualTo(expected);
    }

    private static Status evaluate(StatusEvaluator evaluator, S s) {
        PartitionLag p = new PartitionLag(
                "t",
                0,
                "t",
                0,
                s.end(),
                -1,
                s.committed(),
                -1,
                s.end() - s.lag() - 1,
                s.lag(),
                s.end() - s.committed(),
                -1,
                s.lag() == 0 ? 0 : 500);
        return evaluator
                .evaluate(new LagSnapshot(s.s() * 1000, 5, List.of(p), List.of(), List.of(), 1, 1))
                .status();
    }

    @Test
    void beforeTheWindowHoldsAllItsCommitsStopFollowsStopAfterMs() {
        StatusEvaluator evaluator = new StatusEvaluator(WINDOW, STOP_AFTER_MS, -1, -1);
        evaluate(evaluator, s(0, 100, 5));
        assertThat(evaluate(evaluator, s(200, 100, 5)))
                .as("200 s without a commit")
                .isNotEqualTo(Status.STOP);
        assertThat(evaluate(evaluator, s(301, 100, 5))).isEqualTo(Status.STOP);
    }

    @Test
    void aQuietPartitionWithZeroLagIsNeverStopped() {
        StatusEvaluator evaluator = new StatusEvaluator(WINDOW, STOP_AFTER_MS, -1, -1);
        evaluate(evaluator, s(0, 100, 0));
        assertThat(evaluate(evaluator, s(3600, 100, 0))).isEqualTo(Status.OK);
    }

    @Test
    void errWhenAClusterCannotBeRead() {
        StatusEvaluator evaluator = new StatusEvaluator(WINDOW, STOP_AFTER_MS, -1, -1);
        PartitionLag p = new PartitionLag("t", 0, "t", 0, 100, 100, 100, -1, 99, 0, 0, -1, 0);
        assertThat(evaluator
                        .evaluate(new LagSnapshot(
                                1000, 5, List.of(p), List.of("target cluster: TimeoutException"), List.of(), 1, 1))
                        .status())
                .isEqualTo(Status.ERR);
    }

    @Test
    void thresholdsAreReportedBesideTheStatus() {
        StatusEvaluator strict = new StatusEvaluator(WINDOW, STOP_AFTER_MS, 10, -1);
        PartitionLag p = new PartitionLag("t", 0, "t", 0, 100, 50, 50, -1, 49, 50, 50, -1, 1000);

        StatusEvaluator.GroupStatus s =
                strict.evaluate(new LagSnapshot(1000, 5, List.of(p), List.of(), List.of(), 1, 1));

        assertThat(s.status()).isEqualTo(Status.OK);
        assertThat(s.thresholdCrossed()).isTrue();
    }
}
