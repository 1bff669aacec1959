package dev.strait.lag.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LagCalculatorTest {
    @Test
    void theWorkedExampleOfTheIssue() {
        // source end offset 8 (last offset 7), target holds up to source offset 5, committed 4, position 7
        long end = 8;

        assertThat(LagCalculator.exactLag(0, end, 5, 4)).isEqualTo(2);
        assertThat(LagCalculator.lag(end, 4)).isEqualTo(4);
        assertThat(LagCalculator.lag(end, 7)).isEqualTo(1);
    }

    @Test
    void beforeAnythingWasMirroredTheOwedRecordsStartAtTheCommitOrTheLogStart() {
        assertThat(LagCalculator.exactLag(100, 150, -1, 120)).isEqualTo(30);
        assertThat(LagCalculator.exactLag(100, 150, -1, -1)).isEqualTo(50);
    }

    @Test
    void exactLagNeverExceedsTheCommittedLag() {
        // The newest target record speaks for source offset 2 (stale, or hash mode), but 6 is committed:
        // everything below 6 is on the target.
        assertThat(LagCalculator.exactLag(0, 10, 2, 6)).isEqualTo(4).isLessThanOrEqualTo(LagCalculator.lag(10, 6));
    }

    @Test
    void neverNegativeAndUnknownStaysUnknown() {
        assertThat(LagCalculator.lag(10, 12)).isZero();
        assertThat(LagCalculator.lag(10, -1)).isEqualTo(-1);
        assertThat(LagCalculator.exactLag(0, -1, 3, 3)).isEqualTo(-1);
    }

    @Test
    void readsPositionsFromTheMirrorsPrometheusText() {
        String body = "# TYPE strait_mirror_partition_position gauge\n"
                + "strait_mirror_partition_position{topic=\"orders\",partition=\"3\"} 77\n"
                + "strait_mirror_partition_position{topic=\"we\\\"ird\",partition=\"0\"} 5\n"
                + "strait_mirror_records_consumed_total 9\n";

        var positions = MirrorPositions.parse(body);

        assertThat(positions).hasSize(2);
        assertThat(positions.get(new org.apache.kafka.common.TopicPartition("orders", 3)))
                .isEqualTo(77);
        assertThat(positions.get(new org.apache.kafka.common.TopicPartition("we\"ird", 0)))
                .isEqualTo(5);
    }
}
