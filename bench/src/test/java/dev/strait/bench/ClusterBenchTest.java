package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The statistics and flags of {@code bin/bench cluster}; the bench itself runs child JVMs and is not a test. */
class ClusterBenchTest {

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(ClusterBench.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(ClusterBench.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(ClusterBench.median(List.of(7.0))).isEqualTo(7.0);
    }

    @Test
    void p99IsTheMaximumUpToAHundredRunsThenTheNearestRank() {
        assertThat(ClusterBench.p99(List.of(5.0, 1.0, 9.0, 2.0, 3.0))).isEqualTo(9.0);
        List<Double> twoHundred = new java.util.ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            twoHundred.add((double) i);
        }
        assertThat(ClusterBench.p99(twoHundred)).isEqualTo(198.0);
    }

    @Test
    void runsFlagIsParsedAndChecked() {
        assertThat(ClusterBench.parse(new String[] {"--runs", "5"}).runs()).isEqualTo(5);
        assertThat(ClusterBench.parse(new String[0]).runs()).isEqualTo(1);
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--runs", "0"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--runs");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--runs", "x"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("number");
    }
}
