package dev.strait.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The marker sender's retry bookkeeping: a round is done only once every partition has its marker. */
class MarkerRoundsTest {

    private static final TxnPartition A0 = new TxnPartition("a", 0);
    private static final TxnPartition B0 = new TxnPartition("b", 0);
    private static final WriteMarkers COMMIT = new WriteMarkers("t", 100, (short) 2, true, Set.of(A0, B0), 5);

    private final MarkerRounds rounds = new MarkerRounds(100);

    @Test
    void aRoundIsDoneOnceEveryPartitionHasItsMarker() {
        // Given
        rounds.start(COMMIT, 0);
        MarkerRounds.Attempt first = rounds.due(0).get(0);

        // When
        Optional<WriteMarkers> afterFirst =
                rounds.onOutcomes(first, Map.of(A0, MarkerRounds.Outcome.WRITTEN, B0, MarkerRounds.Outcome.RETRY), 10);
        List<MarkerRounds.Attempt> tooSoon = rounds.due(50);
        MarkerRounds.Attempt retry = rounds.due(110).get(0);
        Optional<WriteMarkers> afterRetry = rounds.onOutcomes(retry, Map.of(B0, MarkerRounds.Outcome.WRITTEN), 120);

        // Then
        assertThat(first.partitions()).containsExactlyInAnyOrder(A0, B0);
        assertThat(afterFirst).isEmpty();
        assertThat(tooSoon).isEmpty();
        assertThat(retry.partitions()).containsExactly(B0);
        assertThat(afterRetry).contains(COMMIT);
        assertThat(rounds.size()).isZero();
    }

    @Test
    void anAttemptInFlightIsNotDueAgain() {
        rounds.start(COMMIT, 0);
        assertThat(rounds.due(0)).hasSize(1);
        assertThat(rounds.due(1_000)).isEmpty();
        assertThat(rounds.nextDeadlineMs()).isEmpty();
    }

    @Test
    void aGonePartitionCountsAsDone() {
        rounds.start(COMMIT, 0);
        MarkerRounds.Attempt attempt = rounds.due(0).get(0);
        assertThat(rounds.onOutcomes(
                        attempt, Map.of(A0, MarkerRounds.Outcome.GONE, B0, MarkerRounds.Outcome.WRITTEN), 1))
                .contains(COMMIT);
    }

    @Test
    void aStaleCoordinatorDropsTheRound() {
        rounds.start(COMMIT, 0);
        MarkerRounds.Attempt attempt = rounds.due(0).get(0);
        assertThat(rounds.onOutcomes(attempt, Map.of(A0, MarkerRounds.Outcome.STALE_COORDINATOR), 1))
                .isEmpty();
        assertThat(rounds.size()).isZero();
    }

    @Test
    void anOutcomeOfAReplacedRoundIsIgnored() {
        // Given
        rounds.start(COMMIT, 0);
        MarkerRounds.Attempt old = rounds.due(0).get(0);
        WriteMarkers abort = new WriteMarkers("t", 100, (short) 3, false, Set.of(A0), 5);
        rounds.start(abort, 1);

        // When
        Optional<WriteMarkers> done =
                rounds.onOutcomes(old, Map.of(A0, MarkerRounds.Outcome.WRITTEN, B0, MarkerRounds.Outcome.WRITTEN), 2);

        // Then
        assertThat(done).isEmpty();
        assertThat(rounds.due(2)).extracting(MarkerRounds.Attempt::round).containsExactly(abort);
    }

    @Test
    void aRoundWithNoPartitionsIsDoneAtOnce() {
        WriteMarkers empty = new WriteMarkers("t", 100, (short) 2, false, Set.of(), 5);
        assertThat(rounds.start(empty, 0)).contains(empty);
        assertThat(rounds.size()).isZero();
    }
}
