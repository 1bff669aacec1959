package dev.strait.canary;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProbeTrackerTest {
    private final ProbeTracker tracker = new ProbeTracker(2_000, 5_000);

    private static Probe probe(long seq, long sentMs) {
        return new Probe("c1", 7, seq, 0, sentMs);
    }

    @Test
    void inTimeArrivalKeepsOk() {
        tracker.sent(probe(1, 0));

        assertThat(tracker.arrived(probe(1, 0), 150)).isEqualTo(ProbeTracker.Arrival.IN_TIME);
        assertThat(tracker.evaluate(200)).isEqualTo(CanaryState.OK);
        assertThat(tracker.counts().arrived()).isEqualTo(1);
    }

    @Test
    void okThenLateThenLostThenOkAgain() {
        tracker.sent(probe(1, 0));
        assertThat(tracker.evaluate(1_000)).isEqualTo(CanaryState.OK);
        assertThat(tracker.evaluate(2_500)).isEqualTo(CanaryState.LATE);
        assertThat(tracker.evaluate(5_500)).isEqualTo(CanaryState.LOST);
        assertThat(tracker.counts().late()).isEqualTo(1);
        assertThat(tracker.counts().lost()).isEqualTo(1);

        tracker.sent(probe(2, 9_000));
        tracker.arrived(probe(2, 9_000), 9_100);
        assertThat(tracker.evaluate(9_200))
                .as("still within lost.after.ms of the loss")
                .isEqualTo(CanaryState.LOST);
        assertThat(tracker.evaluate(10_600)).isEqualTo(CanaryState.OK);
    }

    @Test
    void aLostProbeArrivingLaterIsCountedAsSuchNotAsADuplicate() {
        tracker.sent(probe(1, 0));
        tracker.evaluate(6_000);

        assertThat(tracker.arrived(probe(1, 0), 7_000)).isEqualTo(ProbeTracker.Arrival.AFTER_LOST);
        assertThat(tracker.counts().lost()).isEqualTo(1);
        assertThat(tracker.counts().lateAfterLost()).isEqualTo(1);
        assertThat(tracker.counts().duplicated()).isZero();
    }

    @Test
    void aSecondCopyIsADuplicate() {
        tracker.sent(probe(1, 0));
        tracker.arrived(probe(1, 0), 100);

        assertThat(tracker.arrived(probe(1, 0), 200)).isEqualTo(ProbeTracker.Arrival.DUPLICATE);
        assertThat(tracker.counts().duplicated()).isEqualTo(1);
    }

    @Test
    void lateArrivalIsCountedOnce() {
        tracker.sent(probe(1, 0));
        tracker.evaluate(2_500);
        tracker.evaluate(3_000);

        assertThat(tracker.arrived(probe(1, 0), 3_100)).isEqualTo(ProbeTracker.Arrival.LATE);
        assertThat(tracker.counts().late()).isEqualTo(1);
    }

    @Test
    void probesOfOtherCanariesAreIgnored() {
        Probe mine = new Probe("c1", 7, 7, 2, 123);

        assertThat(Probe.decode("c1", mine.key(), mine.value())).isEqualTo(mine);
        assertThat(Probe.decode("c2", mine.key(), mine.value())).isNull();
        assertThat(Probe.decode("c1", mine.key(), new byte[] {1, 2})).isNull();
    }

    @Test
    void aProbeCarriesItsRunSoARestartedCanaryTellsItsOwnFromItsPredecessors() {
        Probe now = new Probe("c1", 42, 5, 1, 1_000);
        Probe before = new Probe("c1", 41, 5, 1, 900);

        assertThat(Probe.decode("c1", now.key(), now.value())).isEqualTo(now);
        assertThat(Probe.decode("c1", before.key(), before.value()).runId())
                .isEqualTo(41)
                .isNotEqualTo(now.runId());
        // A probe of a canary from before run ids: seq 5 too, but of no known run
        byte[] v1 = java.nio.ByteBuffer.allocate(21)
                .put((byte) 1)
                .putLong(5)
                .putInt(1)
                .putLong(900)
                .array();
        assertThat(Probe.decode("c1", now.key(), v1)).isEqualTo(new Probe("c1", Probe.UNKNOWN_RUN, 5, 1, 900));
    }
}
